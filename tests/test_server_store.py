"""The store writes a batch of actions in few statements and reads every one back, in
order, whatever the batch's size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event

from rebelote.server.store import INSERT_ROWS, Store


def test_batches_of_any_size_are_stored_in_order_in_few_statements(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    for table in ("a", "b"):
        store.create_table(table, {"preset": "classic"}, [{}, {}, {}, {}], {})
    inserts: list[int] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("INSERT INTO actions"):
            inserts.append(statement.count("(?"))

    event.listen(store.engine, "before_cursor_execute", seen)
    expected: dict[str, list[tuple[str, dict[str, Any]]]] = {"a": [], "b": []}
    seq = {"a": 0, "b": 0}
    for size in (1, 3, INSERT_ROWS - 1, INSERT_ROWS, INSERT_ROWS + 1, 3 * INSERT_ROWS + 7):
        batch = []
        for i in range(size):
            table = "ab"[i % 2]
            payload = {"n": i, "text": "é\"'", "size": size}
            batch.append((table, seq[table], "act", payload))
            seq[table] += 1
            expected[table].append(("act", payload))
        inserts.clear()
        store.append(batch)
        assert sum(inserts) == size  # every row
        assert len(inserts) <= size.bit_length() + size // INSERT_ROWS, inserts
        assert all(rows & (rows - 1) == 0 for rows in inserts), inserts  # powers of two
    for table in ("a", "b"):
        (stored,) = store.load(table)
        assert stored.error is None
        assert stored.actions == expected[table]


def test_sessions_asked_together_are_read_in_one_query(tmp_path: Path) -> None:
    """A thousand players reconnecting at once: their sessions are read in one query
    (a query each held the new process's GIL a few ms apiece), each lookup answered
    rightly: a live session its player, a revoked or unknown one None."""
    import asyncio

    from rebelote.server.app import SessionReader

    store = Store(f"sqlite:///{tmp_path / 's.sqlite'}")
    for i in range(600):
        store.add_session(f"sid{i}", f"p{i}")
    store.revoke_sessions(token="sid7")
    queries: list[str] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *args: queries.append(statement))
    reader = SessionReader(store)

    async def main() -> list[str | None]:
        tokens = [f"sid{i}" for i in range(600)] + ["sid3", "nobody"]
        return await asyncio.gather(*(reader.player(t) for t in tokens))

    found = asyncio.run(main())
    assert found[:600] == [None if i == 7 else f"p{i}" for i in range(600)]
    assert found[600:] == ["p3", None]
    reads = [q for q in queries if "FROM sessions" in q]
    assert len(reads) == 2, reads  # 601 tokens: 500 a query


def test_sqlite_path_names_the_file_of_an_sqlite_url_only() -> None:
    """One reading of an SQLite URL's file for the store's checks, its log size and its
    description: a file for ``sqlite:///PATH``, none in memory or for other databases."""
    from rebelote.server.store import describe, sqlite_path

    assert sqlite_path("sqlite:////tmp/x/db.sqlite") == "/tmp/x/db.sqlite"
    assert sqlite_path("sqlite:///db.sqlite") == "db.sqlite"
    assert sqlite_path("sqlite:///") is None and sqlite_path("sqlite://") is None
    assert sqlite_path("postgresql://u:p@host/db") is None
    assert describe("sqlite:///") == "(in memory)"
    assert describe("sqlite:////tmp/x/db.sqlite") == "/tmp/x/db.sqlite"
    assert describe("postgresql://u:secret@host/db") == "postgresql://u:***@host/db"
