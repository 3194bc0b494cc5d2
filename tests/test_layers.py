"""The rules modules stand alone: they import nothing from the referee or any layer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rebelote

SRC = Path(rebelote.__file__).parent
RULES_MODULES = {"cards", "actions", "tricks", "deal", "phases", "rules", "errors", "announcements",
                 "scoring"}
"""The pure rules: card values and orders, the action vocabulary, the trick rules, the
rule options, the errors, announcements and scoring."""


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("name", sorted(RULES_MODULES))
def test_rules_modules_import_only_rules_modules_and_the_standard_library(name: str) -> None:
    imported = _imports(SRC / f"{name}.py")
    ours = {m for m in imported if m.split(".")[0] == "rebelote"}
    assert ours <= {f"rebelote.{m}" for m in RULES_MODULES}, ours
    assert all(m.split(".")[0] in {"rebelote", "__future__", "collections", "dataclasses",
                                   "functools", "typing", "itertools", "random"}
               for m in imported), imported


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from rebelote.hand import HandState\nimport json\n")
    assert _imports(bad) == {"rebelote.hand", "json"}
