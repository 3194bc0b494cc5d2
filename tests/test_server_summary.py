"""Statistics and ratings from the summary tables (kept as hands and games finish)
equal the figures recomputed from every stored record, across restarts and a missed
update; reading them, and loading the store, cost a constant number of queries."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from rebelote.server.store import Store
from rebelote.server.summary import Summaries, recompute_ratings, recompute_stats
from rebelote.server.tables import TableService

PLAYERS = ("ana", "bo", "cy")


def _play(service: TableService, rng: random.Random, tables: int, moves: int,
          target: int = 150) -> None:
    """Open ``tables`` tables (two of the players and two random bots each) and play
    up to ``moves`` random legal actions at each."""
    for _ in range(tables):
        a, b = rng.sample(PLAYERS, 2)
        out = service.handle(a, {"type": "create", "options": {"target": target}})
        table = out[0][1]["table"]
        service.handle(b, {"type": "join", "table": table, "seat": 2})
        service.handle(a, {"type": "bots", "table": table, "level": "random"})
        _play_on(service, rng, table, (a, b), moves)


def _play_on(service: TableService, rng: random.Random, table: str,
             players: tuple[str, ...], moves: int) -> None:
    """Up to ``moves`` rounds of random legal actions by ``players`` at ``table``."""
    for _ in range(moves):
        for player in players:
            state = service.handle(player, {"type": "sync", "table": table})[0][1]
            if state.get("winner") is None and state.get("turn") == state["seat"]:
                service.handle(player, {"type": "act", "table": table,
                                        "action": rng.choice(state["legal"])})


def _same_as_recomputed(service: TableService) -> None:
    tables = service.every_table()
    finished = sum(1 for t in tables if t.game is not None and t.game.is_over)
    assert finished >= 2  # the comparison is about finished games too
    for player in (*PLAYERS, "bot:random"):
        assert service.stats(player) == recompute_stats(tables, player)
    by_id = {t.id: t for t in tables}
    order = [by_id[t] for t in service.summaries.finishing_order()]
    assert len(order) == finished
    expected = recompute_ratings(order)
    assert service.ratings() == dict(sorted(expected.items(),
                                            key=lambda kv: -kv[1]["ordinal"]))
    for player in PLAYERS:
        assert service.rating(player) == expected.get(player)


def test_summaries_equal_the_records_recomputed(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random()  # a new seed every run
    url = f"sqlite:///{tmp_path / 's.sqlite'}"
    service = TableService(Store(url), seed=rng.randrange(1 << 30))
    _play(service, rng, tables=3, moves=200)
    _same_as_recomputed(service)
    # A crash between a commit and its statistics: the next start counts what is missing.
    monkeypatch.setattr(Summaries, "_update", lambda self, table: 1 / 0)
    _play(service, rng, tables=2, moves=200)
    monkeypatch.undo()
    again = TableService(Store(url), seed=rng.randrange(1 << 30))
    _same_as_recomputed(again)
    # And a table played on in a process started later, with a game still going.
    _play(again, rng, tables=1, moves=30)
    third = TableService(Store(url))
    _same_as_recomputed(third)
    # Counting twice changes nothing (a table rebuilt by another process).
    third.summaries._counted.clear()
    third.summaries.update(third.tables.values())
    _same_as_recomputed(third)


@contextmanager
def _queries(store: Store) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(args[2])

    event.listen(store.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(store.engine, "before_cursor_execute", count)


def test_constant_number_of_queries(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'q.sqlite'}"
    service = TableService(Store(url), seed=3)
    rng = random.Random(4)
    counts = []
    for tables in (1, 6):
        _play(service, rng, tables=tables, moves=40 if tables == 1 else 150)
        store = Store(url, migrate=False)
        with _queries(store) as seen:
            loaded = store.load()
        assert len(loaded) == len(service.every_table())
        reader = TableService(store, load_all=False)
        with _queries(store) as stats:
            reader.stats("ana")
        with _queries(store) as ratings:
            reader.ratings()
        counts.append((len(seen), len(stats), len(ratings)))
    assert counts[0] == counts[1] == (3, 1, 1), counts  # load: absences, tables, actions


def _db_hands(service: TableService) -> dict[str, int]:
    """Hands counted per player in the summary table (read without counting first)."""
    with service.store.engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT player, hands FROM player_stats").all()
    return {player: hands for player, hands in rows if hands}


def _hands(service: TableService) -> dict[str, int]:
    """Hands per player, recomputed from the tables."""
    tables = service.every_table()
    out = {p: recompute_stats(tables, p)["hands"] for p in (*PLAYERS, "bot:random")}
    return {p: hands for p, hands in out.items() if hands}


def _player_rows(service: TableService) -> int:
    with service.store.engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT count(*) FROM player_stats").scalar() or 0)


def test_finished_hands_wait_to_be_counted_together(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Hands written wait (at most SETTLE_S while play goes on) to be counted with
    other tables' in one transaction; a game's end is counted at once, with what
    waited; reading the statistics counts what waits first."""
    import rebelote.server.summary as summary

    rng = random.Random()
    monkeypatch.setattr(summary, "SETTLE_S", 3600.0)  # never by the clock here
    service = TableService(Store(f"sqlite:///{tmp_path / 'w.sqlite'}"),
                           seed=rng.randrange(1 << 30))
    _play(service, rng, tables=3, moves=60, target=10_000)  # hands end, games do not
    assert sum(len(t.game.scores) for t in service.tables.values() if t.game) >= 3
    assert service.statistics_waiting() and _player_rows(service) == 0
    for player in (*PLAYERS, "bot:random"):  # read: counted first, as recomputed
        assert service.stats(player) == recompute_stats(service.every_table(), player)
    assert not service.statistics_waiting() and _player_rows(service) > 0
    # A game that ends is counted when it is written, the tables waiting with it.
    _play(service, rng, tables=3, moves=60, target=10_000)
    assert service.statistics_waiting()
    _play(service, rng, tables=2, moves=200)  # target 150: these games end
    ended = {t.id for t in service.tables.values() if t.game and t.game.is_over}
    assert ended and set(service.summaries.finishing_order()) == ended
    monkeypatch.setattr(summary, "SETTLE_S", 0.0)  # by the clock: at every write
    _play(service, rng, tables=1, moves=20, target=10_000)
    assert not service.statistics_waiting()
    _same_as_recomputed(service)
    # Enough tables waiting are counted without waiting longer.
    monkeypatch.setattr(summary, "SETTLE_S", 3600.0)
    monkeypatch.setattr(summary, "SETTLE_TABLES", 2)
    before = _db_hands(service)
    _play(service, rng, tables=2, moves=60, target=10_000)
    assert _db_hands(service) != before


def test_only_tables_that_finished_something_wait_to_be_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table of a batch waited to be counted, a hand finished or not: under load
    eight tables were soon waiting and nearly every write was followed by a count (in
    the writer thread, before the next write). Tables with nothing new do not wait, and
    do not bring a count on."""
    import rebelote.server.summary as summary

    monkeypatch.setattr(summary, "SETTLE_S", 3600.0)
    monkeypatch.setattr(summary, "SETTLE_TABLES", 2)
    rng = random.Random()
    service = TableService(Store(f"sqlite:///{tmp_path / 'f.sqlite'}"),
                           seed=rng.randrange(1 << 30))
    _play(service, rng, tables=3, moves=3, target=10_000)  # dealt, no hand finished yet
    tables = [t for t in service.tables.values() if t.game is not None]
    assert len(tables) == 3 and not any(t.game.scores for t in tables if t.game)
    service.settle_statistics()
    counts: list[int] = []
    monkeypatch.setattr(service.summaries, "_update_all", lambda due: counts.append(1))
    service.summaries.later(tables)
    assert not service.statistics_waiting() and counts == []  # nothing to count
    first = tables[0]  # one of them finishes a hand: it alone waits
    _play_on(service, rng, first.id, tuple(s["player"] for s in first.seats if "player" in s),
             60)
    assert tables[0].game is not None and tables[0].game.scores
    service.summaries.later(tables)
    assert service.statistics_waiting() and counts == []  # waits: one table of two


def test_the_server_counts_what_waits_soon_and_at_a_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a write, the server's writer counts what waits within ``settle_after``
    even if nothing else is written; a stop counts it too."""
    import asyncio

    import rebelote.server.summary as summary
    from rebelote.server.app import GroupCommit

    rng = random.Random()
    monkeypatch.setattr(summary, "SETTLE_S", 3600.0)
    service = TableService(Store(f"sqlite:///{tmp_path / 'g.sqlite'}"),
                           seed=rng.randrange(1 << 30))

    async def deliver(messages: list[Any]) -> None:
        pass

    async def one_write(group: GroupCommit) -> None:
        for table in service.tables.values():  # one action, written by the group
            for seat, player in enumerate(table.seats):
                name = player.get("player")
                if name is None:
                    continue
                state = service.handle(name, {"type": "sync", "table": table.id})[0][1]
                if state.get("turn") == seat and state.get("legal"):
                    service.handle(name, {"type": "act", "table": table.id,
                                          "action": state["legal"][0]}, commit=False)
                    assert await group.flush() is None
                    return
        raise AssertionError("nobody to play")

    async def scenario() -> None:
        group = GroupCommit(service, deliver)
        group.settle_after = 0.2
        _play(service, rng, tables=2, moves=60, target=10_000)
        assert service.statistics_waiting() and _player_rows(service) == 0
        await one_write(group)
        for _ in range(100):
            await asyncio.sleep(0.02)
            if not service.statistics_waiting():
                break
        assert not service.statistics_waiting() and _db_hands(service) == _hands(service)
        _play(service, rng, tables=1, moves=60, target=10_000)
        assert service.statistics_waiting() and _db_hands(service) != _hands(service)
        group.close()
        assert not service.statistics_waiting() and _db_hands(service) == _hands(service)

    asyncio.run(scenario())


def test_many_tables_are_counted_in_one_transaction(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer counts a whole batch's tables at once: one commit, the same figures."""
    rng = random.Random()
    url = f"sqlite:///{tmp_path / 'b.sqlite'}"
    service = TableService(Store(url), seed=rng.randrange(1 << 30))
    monkeypatch.setattr(Summaries, "later", lambda self, tables: None)  # nothing counted
    _play(service, rng, tables=4, moves=200)
    monkeypatch.undo()
    commits: list[int] = []
    event.listen(service.store.engine, "commit", lambda conn: commits.append(1))
    with _queries(service.store) as seen:
        service.summaries.update(service.tables.values())
    assert len(commits) == 1
    # every player's sums in one statement (not a select, an insert and one update each),
    # every table's marker moved by one (not one update per table)
    assert sum("player_stats" in q for q in seen) == 1 and _player_rows(service) >= 2
    assert sum(q.startswith("UPDATE table_stats") for q in seen) == 1
    _same_as_recomputed(service)
    # Counted again after more play: the markers known here are not read again.
    monkeypatch.setattr(Summaries, "later", lambda self, tables: None)
    _play(service, rng, tables=2, moves=60, target=10_000)
    going = [t for t in service.tables.values() if t.game is not None and not t.game.is_over]
    service.summaries.update(going)
    for table in going:
        players = tuple(w["player"] for w in table.seats if "player" in w)
        _play_on(service, rng, table.id, players, 60)
    monkeypatch.undo()
    with _queries(service.store) as seen:
        service.summaries.update(going)
    assert [q.split()[0] for q in seen if "table_stats" in q] == ["UPDATE"], seen
    _same_as_recomputed(service)
    # A table that cannot be counted does not hold back the others.
    fresh = TableService(Store(url, migrate=False), seed=1)
    fresh.summaries._counted.clear()
    with fresh.store.engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM table_stats")
        conn.exec_driver_sql("DELETE FROM player_stats")
        conn.exec_driver_sql("DELETE FROM ratings")
    broken = next(iter(fresh.tables.values()))
    real = Summaries._update

    def fail_for_broken(self: Summaries, due: Any) -> None:
        if any(table is broken for table, _now in due):
            raise RuntimeError("this table cannot be counted")
        real(self, due)

    monkeypatch.setattr(Summaries, "_update", fail_for_broken)
    fresh.summaries.update(fresh.tables.values())
    with fresh.store.engine.connect() as conn:
        counted = {row[0] for row in conn.exec_driver_sql("SELECT table_id FROM table_stats")}
    assert counted == {t for t in fresh.tables if t != broken.id}


def test_a_table_counted_by_another_process_meanwhile_is_counted_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes count the same tables: the second read the markers, then the first
    counted them all before the second moved them. Each table's sums are added once
    (the second's batch, told by its update's row count, is counted again table by
    table, and finds nothing left to count)."""
    counted_once_despite_a_race(f"sqlite:///{tmp_path / 'r.sqlite'}", monkeypatch)


def test_markers_known_from_before_another_process_counted_are_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process knew the markers (read at its start), then the first counted
    the tables: the second's count, made from the markers it knew, is told by its
    update's row count, and made again from the database's."""
    counted_once_despite_a_race(f"sqlite:///{tmp_path / 'k.sqlite'}", monkeypatch,
                                primed=True)


def counted_once_despite_a_race(url: str, monkeypatch: pytest.MonkeyPatch,
                                primed: bool = False) -> None:
    """The race above on the store at ``url`` (also run on PostgreSQL); ``primed``: the
    second process read every marker at its start, before the first counted."""
    rng = random.Random()
    first = TableService(Store(url), seed=rng.randrange(1 << 30))
    _play(first, rng, tables=3, moves=20, target=1000)
    first.summaries.update(first.tables.values())  # every table has its marker row
    monkeypatch.setattr(Summaries, "later", lambda self, tables: None)  # not counted
    for table in list(first.tables.values()):
        players = tuple(w["player"] for w in table.seats if "player" in w)
        _play_on(first, rng, table.id, players, 400)
    monkeypatch.undo()
    second = Summaries(Store(url, migrate=False))  # another process, the same tables
    if primed:
        second.prime()
        assert second._counted and second._counted != {
            t.id: (len(t.game.scores), t.game.is_over)
            for t in first.tables.values() if t.game is not None}  # what it knows is old
    raced: list[str] = []

    def first_counts_meanwhile(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("UPDATE table_stats") and not raced:
            raced.append(statement)
            first.summaries.update(first.tables.values())

    event.listen(second.store.engine, "before_cursor_execute", first_counts_meanwhile)
    second.update(first.tables.values())
    event.remove(second.store.engine, "before_cursor_execute", first_counts_meanwhile)
    assert raced  # the second did try to move the markers the first moved
    _same_as_recomputed(first)
    assert second._counted == first.summaries._counted  # it knows what the first did
    first.store.engine.dispose()
    second.store.engine.dispose()


def test_markers_of_many_tables_move_in_chunks_and_are_all_counted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More tables than one statement moves: several statements, their row counts
    added (no table taken for one counted meanwhile, so no count made again)."""
    import rebelote.server.summary as summary

    rng = random.Random()
    service = TableService(Store(f"sqlite:///{tmp_path / 'c.sqlite'}"),
                           seed=rng.randrange(1 << 30))
    monkeypatch.setattr(Summaries, "later", lambda self, tables: None)  # nothing counted
    _play(service, rng, tables=5, moves=200)
    monkeypatch.undo()
    monkeypatch.setattr(summary, "MARKER_ROWS", 2)
    counts: list[int] = []
    real = Summaries._update

    def counted(self: Summaries, due: Any) -> None:
        counts.append(len(due))
        real(self, due)

    monkeypatch.setattr(Summaries, "_update", counted)
    with _queries(service.store) as seen:
        service.summaries.update(service.tables.values())
    assert counts == [5]  # one count, never made again table by table
    assert sum(q.startswith("UPDATE table_stats") for q in seen) == 3
    _same_as_recomputed(service)
