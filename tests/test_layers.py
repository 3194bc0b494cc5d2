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


# -- no module reads another's private names ------------------------------------------

PRIVATE_ATTRIBUTE_ALLOWED = {
    ("server/offloop.py", "os._exit"),  # the standard library's exit without clean-up
    # The standard library's socket transport, patched to free itself once closed
    # (app.free_closed_transports: Python 3.11 leaves each one a reference cycle).
    ("server/app.py", "transport._call_connection_lost"),
    ("server/app.py", "transport._rebelote_frees"),
}
"""Private attributes of another module's objects, allowed by name."""


def _own_private_names(tree: ast.Module) -> set[str]:
    """The private attributes a module defines for its own classes: methods and class
    attributes, ``__slots__`` entries, and ``self._x = ...`` assignments."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            names.add(node.attr)
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            names.update(e.value for e in ast.walk(node.value)
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return {n for n in names if n.startswith("_")}


def _private_uses(path: Path) -> list[str]:
    """Each ``x._name`` where ``x`` is not ``self``, ``cls`` or ``super()`` and ``_name``
    is not one of the module's own classes' private attributes, and each private name
    imported from a rebelote module, as source text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _own_private_names(tree)
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            name = node.attr
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            value = node.value
            if (isinstance(value, ast.Name) and value.id in ("self", "cls")) or name in own:
                continue
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                    and value.func.id == "super":
                continue
            out.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rebelote"):
            out.extend(f"{node.module}.{a.name}" for a in node.names
                       if a.name.startswith("_") and not a.name.startswith("__"))
    return out


MODULES = sorted(p for p in SRC.rglob("*.py") if "static" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_reads_another_modules_private_names(path: Path) -> None:
    where = str(path.relative_to(SRC))
    found = [u for u in _private_uses(path) if (where, u) not in PRIVATE_ATTRIBUTE_ALLOWED]
    assert not found, f"{where} reads private names: {found}"


def test_the_private_check_sees_a_private_read(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from rebelote.actions import _LAST_BID\n"
                   "class A:\n    __slots__ = ('_mine',)\n"
                   "    def f(self, hand, other):\n"
                   "        return hand._stock, self._ok, other._mine, super()._g, x.__class__\n")
    assert sorted(_private_uses(bad)) == ["hand._stock", "rebelote.actions._LAST_BID"]


def test_the_terminal_game_and_the_server_do_not_reach_into_the_referee() -> None:
    """The terminal game and the server read seats' views, scores and the core's public
    functions; the referee's own machinery (its trick state, its auction's fields) and
    the raw tables behind the core's functions stay inside the core."""
    internals = {"capot_team", "best_seat", "best_card", "best_value", "led", "bid_level",
                 "coinched_by", "surcoinched_by", "WIN_VALUE", "BID_BASE", "STRENGTH"}
    for path in [*(SRC / "tui").glob("*.py"), *(SRC / "server").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                  for a in n.names}
        assert not names & internals, (path.name, names & internals)
