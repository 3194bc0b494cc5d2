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

_KEPT_SETTINGS = ("REBELOTE_TEST_", "REBELOTE_SKIP_")
"""REBELOTE_* variables that steer the test run itself (a PostgreSQL to test against,
skipping the peers); every other REBELOTE_* setting (database, Redis, secret, report
files...) is removed for each test."""


@pytest.fixture(autouse=True)
def isolated_user_paths(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """HOME, the XDG folders and the REBELOTE_* settings, under a fresh temporary folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                      ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(name, str(home / sub))
    for name in list(os.environ):
        if name.startswith("REBELOTE_") and not name.startswith(_KEPT_SETTINGS):
            monkeypatch.delenv(name)
    yield home


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A Redis server of the test's own (the scale-out mode's tests)."""
    from tests.servers import redis_server

    with redis_server(tmp_path) as url:
        if url is None:
            if os.environ.get("CI"):
                pytest.fail("redis-server is not installed (.ci/run installs it)")
            pytest.skip("redis-server is not installed")
        yield url
