"""Every test runs with its data and config paths in a temporary folder.

The terminal game keeps its setup in $XDG_CONFIG_HOME/rebelote and its saved game in
$XDG_DATA_HOME/rebelote; the score pad and the server keep theirs in $XDG_DATA_HOME (all
fall back on $HOME). The fixture below points every one of them, and the REBELOTE_*
settings the server reads, at the test's own folder, so that no test reads or writes the
user's real files (subprocesses inherit the same environment).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REAL_HOME = Path(os.environ.get("HOME") or Path.home())
"""The user's home before any test ran (a test checks it is never written)."""
REAL_CONFIG_HOME = Path(os.environ.get("XDG_CONFIG_HOME") or REAL_HOME / ".config")
REAL_DATA_HOME = Path(os.environ.get("XDG_DATA_HOME") or REAL_HOME / ".local" / "share")

_REBELOTE_SETTINGS = ("REBELOTE_DATABASE_URL", "REBELOTE_REDIS_URL", "REBELOTE_MIGRATED",
                      "REBELOTE_SECRET", "REBELOTE_DATA_DIR", "REBELOTE_CONFIG_DIR")


@pytest.fixture(autouse=True)
def isolated_user_paths(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """HOME, the XDG folders and the REBELOTE_* settings, under a fresh temporary folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                      ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(name, str(home / sub))
    for name in _REBELOTE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    yield home
