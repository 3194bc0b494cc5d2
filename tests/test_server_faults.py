"""Storage is the truth: a failed write leaves every table where it was stored and
tells its players; a table that does not replay is quarantined while the others start;
a database that cannot be used is named in one sentence; stand-in timers and nicknames
survive a restart."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from rebelote.server.store import Store, StoreError
from rebelote.server.tables import STAND_IN_AFTER_S, TableService
from tests.test_server_tables import without_presence


def _state(out: list[tuple[str, dict[str, Any]]], player: str) -> dict[str, Any]:
    return next(m for p, m in out if p == player and m["type"] == "state")


def _four(service: TableService) -> tuple[str, list[str]]:
    players = ["ana", "bruno", "chloe", "driss"]
    table = service.handle("ana", {"type": "create"})[0][1]["table"]
    for p in players[1:]:
        service.handle(p, {"type": "join", "table": table})
    return table, players


def _mover(service: TableService, table: str, players: list[str],
           commit: bool = True) -> tuple[str, str]:
    game = service.tables[table].game
    assert game is not None and game.current is not None
    mover = players[game.current.turn]
    return mover, _state(service.handle(mover, {"type": "sync", "table": table},
                                        commit=commit), mover)["legal"][0]


class FlakyStore(Store):
    """A store whose next ``failures`` writes of actions fail as a full disk does."""

    failures = 0

    def append(self, actions: list[tuple[str, int, str, dict[str, Any]]]) -> None:
        if self.failures:
            self.failures -= 1
            raise OperationalError("INSERT", {}, sqlite3.OperationalError(
                "database or disk is full"))
        super().append(actions)


def test_a_failed_write_leaves_the_table_as_stored_and_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    store = FlakyStore(url)
    service = TableService(store, seed=1)
    table, players = _four(service)
    for _ in range(3):
        mover, action = _mover(service, table, players)
        service.handle(mover, {"type": "act", "table": table, "action": action})
    before = {p: service.handle(p, {"type": "sync", "table": table}) for p in players}
    seq = service.tables[table].seq
    mover, action = _mover(service, table, players)
    store.failures = 1
    out = service.handle(mover, {"type": "act", "table": table, "action": action})
    errors = [(p, m) for p, m in out if m["type"] == "error"]
    assert {p for p, _ in errors} == set(players)  # every player of the table is told
    assert all(m["code"] == "storage" and m["table"] == table for _p, m in errors)
    assert {p: m for p, m in out if m["type"] == "state"} == {
        p: before[p][0][1] for p in players}  # ...and sees the table as stored
    assert service.tables[table].seq == seq and not service.uncommitted
    # Writes succeed again: the same action is accepted, and stored once.
    out = service.handle(mover, {"type": "act", "table": table, "action": action})
    assert all(m["type"] == "state" for _p, m in out)
    again = TableService(Store(url), seed=2)  # a restart: the same table, nothing lost
    assert without_presence(again.handle("ana", {"type": "sync", "table": table})) == \
        without_presence(service.handle("ana", {"type": "sync", "table": table}))
    assert again.tables[table].seq == seq + 1


def test_a_full_sqlite_file_refuses_the_action_and_restarts(tmp_path: Path) -> None:
    """The disk fills up (SQLite's own limit on the file's pages): the table stays as
    stored, the players hear ``storage``; once there is room, play goes on."""
    db = tmp_path / "db.sqlite"
    url = f"sqlite:///{db}"
    store = Store(url)
    service = TableService(store, seed=1)
    table, players = _four(service)
    stored_seq = service.tables[table].seq
    with store.engine.connect() as c:
        pages = c.exec_driver_sql("PRAGMA page_count").scalar()

    @contextlib.contextmanager
    def full() -> Iterator[None]:
        from sqlalchemy import event

        def cap(connection: Any, _record: Any) -> None:
            connection.execute(f"PRAGMA max_page_count={pages}")

        event.listen(store.engine, "connect", cap)
        store.engine.dispose()
        store._writer = None
        try:
            yield
        finally:
            event.remove(store.engine, "connect", cap)
            store.engine.dispose()
            store._writer = None

    with full():
        failed = 0
        for _ in range(200):  # until the file is full
            mover, action = _mover(service, table, players)
            out = service.handle(mover, {"type": "act", "table": table, "action": action})
            if any(m.get("code") == "storage" for _p, m in out):
                failed += 1
                break
            stored_seq = service.tables[table].seq
        assert failed and service.tables[table].seq == stored_seq
    mover, action = _mover(service, table, players)
    out = service.handle(mover, {"type": "act", "table": table, "action": action})
    assert all(m["type"] == "state" for _p, m in out)
    again = TableService(Store(url))
    assert again.tables[table].seq == stored_seq + 1
    assert again.quarantined == {}


def test_a_full_tmpfs_refuses_the_action(tmp_path: Path) -> None:
    """A real full disk: a 1 MiB tmpfs (skipped where mounting is not allowed)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        url = f"sqlite:///{mount / 'db.sqlite'}"
        service = TableService(Store(url), seed=1)
        table, players = _four(service)
        filler = mount / "filler"
        with contextlib.suppress(OSError), filler.open("wb") as f:
            while True:
                f.write(b"x" * 4096)
                f.flush()
        seq = service.tables[table].seq
        codes = set()
        for _ in range(300):
            mover, action = _mover(service, table, players)
            out = service.handle(mover, {"type": "act", "table": table, "action": action})
            codes |= {m.get("code") for _p, m in out}
            if "storage" in codes:
                break
            seq = service.tables[table].seq
        assert "storage" in codes and service.tables[table].seq == seq
        filler.unlink()  # room again: play goes on, and a restart finds it all
        mover, action = _mover(service, table, players)
        out = service.handle(mover, {"type": "act", "table": table, "action": action})
        assert all(m["type"] == "state" for _p, m in out)
        assert TableService(Store(url)).tables[table].seq == seq + 1
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _stored_tables(tmp_path: Path, count: int = 3) -> tuple[str, list[str]]:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    service = TableService(Store(url), seed=1)
    tables = []
    for _ in range(count):
        table = service.handle("ana", {"type": "create"})[0][1]["table"]
        service.handle("ana", {"type": "bots", "table": table, "level": "random"})
        tables.append(table)
    service.store.engine.dispose()
    return url, tables


@pytest.mark.parametrize("damage", [
    "UPDATE actions SET payload = '{not json' WHERE table_id = :t AND seq = 2",
    "DELETE FROM actions WHERE table_id = :t AND seq = 3",
    "UPDATE actions SET payload = '{\"seat\": 0, \"action\": \"ZZ\"}' "
    "WHERE table_id = :t AND kind = 'act'",
    "UPDATE tables SET rules = '{\"preset\": \"whist\"}' WHERE id = :t",
    "UPDATE actions SET kind = 'dance' WHERE table_id = :t AND seq = 1",
])
def test_a_table_that_does_not_replay_is_quarantined(tmp_path: Path, damage: str,
                                                     caplog: pytest.LogCaptureFixture
                                                     ) -> None:
    url, tables = _stored_tables(tmp_path)
    bad = tables[1]
    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        db.execute(damage.replace(":t", f"'{bad}'"))
    service = TableService(Store(url))
    assert set(service.tables) == {tables[0], tables[2]}  # every other table starts
    assert bad in service.quarantined
    assert any(bad in r.getMessage() and "quarantined" in r.getMessage()
               for r in caplog.records)
    out = service.handle("ana", {"type": "sync", "table": bad})
    assert out[0][1]["code"] == "unavailable"  # its players are told
    assert service.handle("ana", {"type": "sync", "table": tables[0]})[0][1]["type"] == "state"


@pytest.mark.parametrize("damage", ["corrupt", "folder", "unreadable"])
def test_a_database_that_cannot_be_used_is_named_in_one_sentence(tmp_path: Path,
                                                                 damage: str) -> None:
    db = tmp_path / "server.sqlite"
    if damage == "corrupt":
        db.write_bytes(b"this is not a database file at all" * 200)
    elif damage == "folder":
        db = tmp_path / "missing" / "server.sqlite"
    else:
        db.mkdir()  # a folder where the file should be
    with pytest.raises(StoreError) as caught:
        Store(f"sqlite:///{db}")
    message = str(caught.value)
    assert str(db) in message and "\n" not in message
    # The command says the same in one line, and exits 1.
    run = subprocess.run([sys.executable, "-m", "rebelote", "serve", "--database",
                          f"sqlite:///{db}"], capture_output=True, text=True, timeout=60,
                         env={"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin",
                              "PYTHONPATH": sys.path[0] if "src" in sys.path[0] else
                              str(Path(__file__).parents[1] / "src")})
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and str(db) in lines[0], run.stderr


class Clock:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def test_stand_in_timers_and_nicknames_survive_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bruno drops; the server is killed 7 s later and restarts: a stand-in takes his
    seat after the remaining 3 s, not a whole new ``STAND_IN_AFTER_S`` (nor at once)."""
    import types

    import rebelote.server.tables as tables_module

    wall = [1_000_000.0]  # the wall clock the timers are stored in
    monkeypatch.setattr(tables_module, "time", types.SimpleNamespace(time=lambda: wall[0]))
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    store = Store(url)
    store.add_player("bruno", "Bruno", "bruno")
    clock = Clock()
    first = TableService(store, seed=3, clock=clock)
    table = first.handle("ana", {"type": "create"})[0][1]["table"]
    first.handle("bruno", {"type": "join", "table": table, "seat": 2})
    first.handle("ana", {"type": "bots", "table": table, "level": "random"})
    t = first.tables[table]
    assert t.game is not None and t.game.current is not None
    first.reconnected("ana")
    first.disconnected("bruno")  # Bruno drops...
    gone_before = STAND_IN_AFTER_S - 3
    clock.now += gone_before
    wall[0] += gone_before  # ...and 7 s later the server is killed
    clock2 = Clock()
    second = TableService(Store(url), seed=4, clock=clock2)
    second.reconnected("ana")  # Ana comes back; Bruno does not
    state = _state(second.handle("ana", {"type": "sync", "table": table}), "ana")
    assert state["seats"][2] == "Bruno"  # his nickname, not his id
    t2 = second.tables[table]
    assert 2 in t2.absent_since and 0 not in t2.absent_since
    assert t2.game is not None and t2.game.current is not None
    if t2.game.current.turn == 0:  # Ana plays up to Bruno's turn
        second.handle("ana", {"type": "act", "table": table, "action": state["legal"][0]})
    clock2.now += 2
    second.tick()
    assert 2 not in t2.stand_ins  # gone 9 s in all: not yet
    clock2.now += 1.5
    second.tick()
    assert 2 in t2.stand_ins  # 10.5 s: a bot stands in for Bruno after the restart
    assert t2.game.current.turn != 2 or t2.game.current.is_over


def test_the_web_layer_tells_the_players_of_a_failed_write(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from rebelote.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="t", seed=2)
    service: TableService = app.state.service
    with TestClient(app) as client:
        client.post("/api/guest", json={"nickname": "Ana"})
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "create"})
            table = ws.receive_json()["table"]
            ws.receive_json()
            ws.send_json({"type": "bots", "table": table, "level": "random"})
            state = ws.receive_json()
            while state["turn"] != 0:  # pragma: no cover - random bots play at once
                state = ws.receive_json()
            real = service.store.append

            def refuse(actions: Any) -> None:
                raise OSError(28, "No space left on device")

            service.store.append = refuse  # type: ignore[method-assign]
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            error = ws.receive_json()
            assert error["type"] == "error" and error["code"] == "storage"
            assert ws.receive_json() == state  # the table as stored
            service.store.append = real  # type: ignore[method-assign]
            ws.send_json({"type": "act", "table": table, "action": state["legal"][0]})
            after = ws.receive_json()
            assert after["type"] == "state" and after != state
    json.dumps(after)


def test_signing_in_on_a_failing_database_is_a_clear_error(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from rebelote.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="t")
    store = app.state.service.store

    def refuse(*args: Any) -> bool:
        raise OperationalError("INSERT", {}, sqlite3.OperationalError("disk I/O error"))

    store.add_player = refuse
    with TestClient(app, raise_server_exceptions=False) as client:
        res = client.post("/api/guest", json={"nickname": "Ana"})
        assert res.status_code == 503 and res.json()["code"] == "storage"


def test_commits_never_checkpoint_the_sqlite_log(tmp_path: Path) -> None:
    """A checkpoint waits for the disk: it is left to Store.checkpoint (run by the web
    layer in its writer thread), never done inside a commit on the event loop."""
    db = tmp_path / "db.sqlite"
    store = Store(f"sqlite:///{db}")
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
    service = TableService(store, seed=1)
    table, players = _four(service)
    size = db.stat().st_size
    for _ in range(300):
        mover, action = _mover(service, table, players)
        service.handle(mover, {"type": "act", "table": table, "action": action})
    wal = Path(f"{db}-wal")
    assert wal.stat().st_size > 0 and db.stat().st_size == size  # all in the log still
    store.checkpoint()
    assert db.stat().st_size > size  # copied into the file


def test_the_sqlite_log_starts_over_and_is_cut_back(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """After a checkpoint between writes the next write starts the log over and cuts
    its file back to WAL_KEPT_BYTES (a burst of writes left it at its largest); a log
    that grew past WAL_STUCK_BYTES anyway is emptied by a checkpoint that waits for the
    others, and a reader in the way holds it up WAL_STUCK_WAIT_MS at most."""
    import rebelote.server.store as store_module

    monkeypatch.setattr(store_module, "WAL_KEPT_BYTES", 64 << 10)
    db = tmp_path / "db.sqlite"
    store = Store(f"sqlite:///{db}")
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_size_limit").scalar() == 64 << 10
    service = TableService(store, seed=1)
    table, players = _four(service)

    def play(moves: int) -> None:
        for _ in range(moves):
            mover, action = _mover(service, table, players)
            service.handle(mover, {"type": "act", "table": table, "action": action})

    wal = Path(f"{db}-wal")
    play(300)
    grown = wal.stat().st_size
    assert grown > 64 << 10
    size = db.stat().st_size
    store.copy_log()  # most of the copy (beside the writes, in the server)
    assert db.stat().st_size > size
    play(100)
    store.checkpoint()  # the rest, between two writes
    play(1)
    assert wal.stat().st_size <= 64 << 10 < grown  # started over, cut back
    monkeypatch.setattr(store_module, "WAL_STUCK_BYTES", 1)
    play(20)
    reader = sqlite3.connect(db)  # a read in progress: the log cannot be emptied
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM actions").fetchall()
    play(5)
    started = time.perf_counter()
    store.checkpoint()  # no error: it gives up after its wait
    assert time.perf_counter() - started < 1.0 and wal.stat().st_size > 0
    reader.rollback()
    reader.close()
    with store.engine.connect() as c:  # the pool's connection waits as before
        assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    store.checkpoint()
    assert wal.stat().st_size == 0  # emptied
    play(1)
    assert len(store.load(table)[0].actions) == service.tables[table].seq


class GatedStore(FlakyStore):
    """A store whose writes wait for ``gate`` (a write in progress, seen from the loop)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.gate = threading.Event()
        self.gate.set()
        self.writing = threading.Event()

    def append(self, actions: list[tuple[str, int, str, dict[str, Any]]]) -> None:
        self.writing.set()
        self.gate.wait(10)
        self.writing.clear()
        super().append(actions)


def _group(tmp_path: Path) -> tuple[GatedStore, TableService, Any, list[Any]]:
    from rebelote.server.app import GroupCommit

    store = GatedStore(f"sqlite:///{tmp_path / 'db.sqlite'}")
    service = TableService(store, seed=1)
    told: list[Any] = []

    async def deliver(messages: list[Any]) -> None:
        told.extend(messages)

    return store, service, GroupCommit(service, deliver), told


async def _write_held(store: GatedStore, service: TableService, group: Any, table: str,
                      players: list[str]) -> asyncio.Future[Any]:
    """One action handled and its batch in the writer thread, held at ``store``'s gate
    (opened by ``store.gate.set()``): the flush that waits for it."""
    mover, action = _mover(service, table, players)
    store.gate.clear()
    service.handle(mover, {"type": "act", "table": table, "action": action}, commit=False)
    waiting: asyncio.Future[Any] = asyncio.ensure_future(group.flush())
    while not store.writing.is_set():
        await asyncio.sleep(0.001)
    return waiting


def test_actions_are_written_off_the_event_loop(tmp_path: Path) -> None:
    """The commit ran on the loop: 98 ms stalls for everyone on a quiet machine."""
    store, service, group, _told = _group(tmp_path)
    table, players = _four(service)

    async def scenario() -> None:
        waiting = await _write_held(store, service, group, table, players)
        started = time.perf_counter()
        for _ in range(20):  # the loop turns while the write is held
            await asyncio.sleep(0.001)
        assert time.perf_counter() - started < 1.0 and not waiting.done() and group.busy
        store.gate.set()
        assert await waiting is None and not group.busy
        group.close()

    count = _count(store, table)
    asyncio.run(scenario())
    assert _count(store, table) == count + 1


def test_a_checkpoint_runs_in_the_writer_thread_between_two_batches(tmp_path: Path) -> None:
    """Beside a stream of commits a checkpoint never copied the whole log, which then
    never started over (262 MB in a minute of the fault soak, until the disk was full):
    it runs in the writer thread, after the batch being written."""
    store, service, group, _told = _group(tmp_path)
    table, players = _four(service)
    count = _count(store, table)
    seen: list[tuple[str, bool, int]] = []

    def job() -> None:
        seen.append((threading.current_thread().name, store.writing.is_set(),
                     _count(store, table)))

    async def scenario() -> None:
        waiting = await _write_held(store, service, group, table, players)
        checkpoint = asyncio.ensure_future(group.between_batches(job))
        await asyncio.sleep(0.05)
        assert not seen  # not beside the write in progress
        store.gate.set()
        assert await waiting is None
        await checkpoint
        group.close()

    asyncio.run(scenario())
    assert len(seen) == 1
    name, writing, stored = seen[0]
    assert name.startswith("writer") and not writing and stored == count + 1


def test_the_log_is_copied_beside_a_write_in_progress(tmp_path: Path) -> None:
    """Most of a checkpoint's copying does not wait for the writes (done between two
    batches, it held them back 46 ms a second under load): it runs in a thread of its
    own while a batch is being written."""
    store, service, group, _told = _group(tmp_path)
    table, players = _four(service)
    db = tmp_path / "db.sqlite"
    for _ in range(200):
        mover, action = _mover(service, table, players)
        service.handle(mover, {"type": "act", "table": table, "action": action})
    size = db.stat().st_size
    seen: list[tuple[str, bool]] = []
    real = store.copy_log

    def copy_log() -> None:
        seen.append((threading.current_thread().name, store.writing.is_set()))
        real()

    async def scenario() -> None:
        waiting = await _write_held(store, service, group, table, players)
        await asyncio.wait_for(group.beside_batches(copy_log), 5)  # the write still held
        assert not waiting.done()
        store.gate.set()
        assert await waiting is None
        group.close()

    asyncio.run(scenario())
    assert len(seen) == 1
    name, writing = seen[0]
    assert name.startswith("beside") and writing
    assert db.stat().st_size > size  # the log's pages copied into the file


def test_the_server_checkpoints_in_its_writer_thread(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The running server's checkpoints end in its writer thread (they ran in a thread
    of their own, beside the writes, and the log never started over); most of the
    copying is done first, beside the writes."""
    from starlette.testclient import TestClient

    import rebelote.server.app as app_module

    monkeypatch.setattr(app_module, "CHECKPOINT_S", 0.02)
    app = app_module.create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="t")
    threads: list[str] = []
    store = app.state.service.store
    real, real_copy = store.checkpoint, store.copy_log

    def checkpoint() -> None:
        threads.append(threading.current_thread().name)
        real()

    def copy_log() -> None:
        threads.append(threading.current_thread().name)
        real_copy()

    store.checkpoint = checkpoint
    store.copy_log = copy_log
    with TestClient(app):
        deadline = time.monotonic() + 5
        while len(threads) < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(threads) >= 6
    pairs = [threads[i:i + 2] for i in range(0, len(threads) - 1, 2)]
    # each checkpoint: the copy beside the writes, then the rest in the writer thread
    assert all(a.startswith("beside") and b.startswith("writer") for a, b in pairs)


def test_answers_do_not_wait_for_the_summaries_count(tmp_path: Path) -> None:
    """The actions stored, their waiters resume while the writer thread still counts the
    summaries (3.8 ms on average, 14 ms at p90 under load, that every answer waited
    for); a failing count does not undo actions that are stored."""
    store, service, group, _told = _group(tmp_path)
    table, players = _four(service)
    counting, release = threading.Event(), threading.Event()

    def slow_later(tables: Any) -> None:
        counting.set()
        release.wait(10)
        raise RuntimeError("the count failed")

    service.summaries.later = slow_later  # type: ignore[method-assign]

    async def scenario() -> None:
        mover, action = _mover(service, table, players, commit=False)
        seq = service.tables[table].seq
        service.handle(mover, {"type": "act", "table": table, "action": action},
                       commit=False)
        assert await asyncio.wait_for(group.flush(), 5) is None  # answered ...
        assert await asyncio.to_thread(counting.wait, 5)  # ... while it counts
        assert service.tables[table].seq == seq + 1  # nothing undone
        release.set()
        mover, action = _mover(service, table, players, commit=False)
        service.handle(mover, {"type": "act", "table": table, "action": action},
                       commit=False)
        assert await asyncio.wait_for(group.flush(), 5) is None  # after the failed count
        group.close()

    count = _count(store, table)
    asyncio.run(scenario())
    assert _count(store, table) == count + 2


def _count(store: Store, table: str) -> int:
    """How many actions of ``table`` are stored."""
    return len(store.load(table)[0].actions)


def test_actions_taken_during_a_failed_write_are_undone_with_it(tmp_path: Path) -> None:
    """A second action on the same table, handled while the first was written, stands on
    an action that is not stored: both are undone and both players hear it; an action
    at another table meanwhile is stored and answered."""
    store, service, group, told = _group(tmp_path)
    table, players = _four(service)
    other, others = _four_more(service)
    stored = {t: _count(store, t) for t in (table, other)}
    seq = service.tables[table].seq
    before = without_presence(service.handle("ana", {"type": "sync", "table": table}))

    async def scenario() -> None:
        first, action = _mover(service, table, players, commit=False)
        store.gate.clear()
        store.failures = 1
        handled = [service.snapshot(service.handle(
            first, {"type": "act", "table": table, "action": action}, commit=False))]
        one = asyncio.ensure_future(group.flush())
        while not store.writing.is_set():
            await asyncio.sleep(0.001)
        second, action = _mover(service, table, players, commit=False)
        handled.append(service.snapshot(service.handle(
            second, {"type": "act", "table": table, "action": action}, commit=False)))
        two = asyncio.ensure_future(group.flush())
        third, action = _mover(service, other, others, commit=False)
        handled.append(service.snapshot(service.handle(
            third, {"type": "act", "table": other, "action": action}, commit=False)))
        three = asyncio.ensure_future(group.flush())
        await asyncio.sleep(0.01)
        store.gate.set()
        first_batch = await one
        assert first_batch is not None and first_batch.tables == {table}
        await two
        await three  # the second batch: the other table's action
        undone = [service.undone(h) for h in handled]
        assert set(undone[0]) == set(undone[1]) == {table}  # both answers withheld
        assert undone[0][table] == set(players)  # ... and its players were told
        assert undone[2] == {}  # the other table's action stood and is answered
        group.close()

    asyncio.run(scenario())
    assert service.tables[table].seq == seq and _count(store, table) == stored[table]
    assert without_presence(service.handle("ana", {"type": "sync", "table": table})) == before
    assert {p for p, m in told if m["type"] == "error" and m["code"] == "storage"} == \
        set(players)
    assert _count(store, other) == stored[other] + 1
    mover, action = _mover(service, table, players)  # the table plays on once writes work
    service.handle(mover, {"type": "act", "table": table, "action": action})
    assert _count(store, table) == stored[table] + 1


def _four_more(service: TableService) -> tuple[str, list[str]]:
    players = ["emma", "farid", "gael", "hugo"]
    table = service.handle("emma", {"type": "create"})[0][1]["table"]
    for p in players[1:]:
        service.handle(p, {"type": "join", "table": table})
    return table, players


def test_answers_about_other_tables_do_not_wait_for_a_write(tmp_path: Path) -> None:
    """An idle table's sync waited for every batch being written (90 ms p99 on a busy
    server): only answers about tables with actions not yet written wait."""
    store, service, group, _told = _group(tmp_path)
    table, players = _four(service)
    idle, _others = _four_more(service)

    async def scenario() -> None:
        mover, action = _mover(service, table, players, commit=False)
        store.gate.clear()
        service.handle(mover, {"type": "act", "table": table, "action": action},
                       commit=False)
        assert group.unstored([table]) and not group.unstored([idle])  # pending
        waiting = asyncio.ensure_future(group.flush())
        while not store.writing.is_set():
            await asyncio.sleep(0.001)
        assert group.unstored([table]) and not group.unstored([idle])  # being written
        out = service.handle("emma", {"type": "sync", "table": idle}, commit=False)
        assert not group.unstored(service.snapshot(out))  # answered at once
        store.gate.set()
        assert await waiting is None
        assert not group.unstored([table])
        group.close()

    asyncio.run(scenario())
