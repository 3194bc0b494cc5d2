"""The same service on PostgreSQL (by a URL setting): migrations, play, restart.

Runs when ``REBELOTE_TEST_POSTGRES_URL`` names a server where the user may create
databases (``.ci/run`` installs and starts one); each run uses a database of its own.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest

from rebelote.server.store import Store
from rebelote.server.tables import TableService
from tests.test_server_summary import counted_once_despite_a_race
from tests.test_server_tables import without_presence

BASE = os.environ.get("REBELOTE_TEST_POSTGRES_URL")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    if not BASE:
        if os.environ.get("CI"):
            pytest.fail("REBELOTE_TEST_POSTGRES_URL is not set (.ci/run starts PostgreSQL)")
        pytest.skip("no PostgreSQL server configured (REBELOTE_TEST_POSTGRES_URL)")
    from sqlalchemy import create_engine, text

    name = "rebelote_" + secrets.token_hex(4)
    admin = create_engine(BASE, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    url = BASE.rsplit("/", 1)[0] + "/" + name
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
        admin.dispose()


def test_tables_on_postgresql_survive_a_restart(postgres_url: str) -> None:
    first = TableService(Store(postgres_url), seed=5)
    table = first.handle("ana", {"type": "create"})[0][1]["table"]
    out = first.handle("ana", {"type": "bots", "table": table, "level": "random"})
    state = next(m for p, m in out if p == "ana" and m["type"] == "state")
    for _ in range(12):
        if state["turn"] != 0 or not state["legal"]:
            break
        out = first.handle("ana", {"type": "act", "table": table, "action": state["legal"][-1]})
        state = next(m for p, m in out if p == "ana" and m["type"] == "state")
    again = TableService(Store(postgres_url))
    assert without_presence(again.handle("ana", {"type": "sync", "table": table})) == \
        without_presence(first.handle("ana", {"type": "sync", "table": table}))
    first.store.engine.dispose()
    again.store.engine.dispose()


def test_statistics_counted_once_by_two_processes_on_postgresql(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summaries' markers, moved by one statement for many tables, tell a count
    that raced another process's on PostgreSQL too (its row count, READ COMMITTED)."""
    counted_once_despite_a_race(postgres_url, monkeypatch)
    counted_once_despite_a_race(postgres_url, monkeypatch, primed=True)
