"""A dead process's tables, all taken over by another within the owner timeout, without
waiting for a message at each and without stalling the event loop; the tables of a
takeover loaded in a constant number of queries. Needs ``redis-server`` (each test
starts one of its own)."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import redis
from sqlalchemy import event
from websockets.asyncio.client import ClientConnection, connect

from rebelote.server.store import Store
from rebelote.server.tables import TableService
from tests.servers import free_port, sign_in_guest, start_server

OWNER_TIMEOUT = 8.0
TABLES = 24


async def _next(ws: ClientConnection, kind: str, timeout: float = 20) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] == kind:
            return message
        assert message["type"] != "error", message


async def _open_tables(port: int, count: int) -> list[tuple[str, str]]:
    """``count`` tables at ``port``, each a guest and three random bots (its game on):
    (table, the guest's cookie) of each."""
    tables = []
    for index in range(count):
        cookie = sign_in_guest(port, f"p{index}")
        async with connect(f"ws://127.0.0.1:{port}/ws",
                           additional_headers={"Cookie": cookie}) as ws:
            await ws.send(json.dumps({"type": "create", "preset": "classic"}))
            table = (await _next(ws, "created"))["table"]
            await ws.send(json.dumps({"type": "bots", "table": table, "level": "random"}))
            await _next(ws, "state")
            tables.append((table, cookie))
    return tables


def _classic_tables(service: TableService, players: list[str], bots: bool = False
                    ) -> list[str]:
    """A classic table created by each of ``players`` (its game on with three random
    bots if ``bots``): their ids."""
    ids = []
    for player in players:
        created = service.handle(player, {"type": "create", "preset": "classic"})
        ids.append(next(m["table"] for _p, m in created if m["type"] == "created"))
        if bots:
            service.handle(player, {"type": "bots", "table": ids[-1], "level": "random"})
    return ids


def test_a_dead_process_tables_are_all_taken_over_within_the_owner_timeout(
        tmp_path: Path, redis_url: str) -> None:
    """Nobody sends a message after the kill: the survivor finds the dead process and
    runs each of its tables (Redis names it the owner) within the owner timeout; its
    event loop never stalls long meanwhile; play goes on at a table taken over."""
    db = tmp_path / "server.sqlite"
    ports = [free_port(), free_port()]
    report = tmp_path / "loop.json"
    env = {"REBELOTE_OWNER_TIMEOUT": str(OWNER_TIMEOUT), "REBELOTE_GUESTS_PER_HOUR": "0"}
    dead = start_server(ports[0], db, redis_url, env=env | {"REBELOTE_NAME": "dead"})
    alive = start_server(ports[1], db, redis_url,
                         env=env | {"REBELOTE_NAME": "alive",
                                    "REBELOTE_LOOP_REPORT": str(report)})
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        opened = asyncio.run(_open_tables(ports[0], TABLES))
        tables = [t for t, _c in opened]

        def owners() -> list[str]:
            return [str(client.get(f"rebelote:owner:{t}")) for t in tables]

        assert all(o.startswith("dead-") for o in owners())
        dead.send_signal(signal.SIGKILL)
        dead.wait(timeout=10)
        killed = time.time()
        while not all(o.startswith("alive-") for o in owners()):
            assert time.time() - killed < OWNER_TIMEOUT, owners()
            time.sleep(0.1)
        taken = time.time() - killed
        # The tables are run there (not only claimed): one answers and plays on.
        cookie = opened[0][1]

        async def play_on() -> None:
            async with connect(f"ws://127.0.0.1:{ports[1]}/ws",
                               additional_headers={"Cookie": cookie}) as ws:
                await ws.send(json.dumps({"type": "sync", "table": tables[0]}))
                state = await _next(ws, "state", timeout=5)
                assert state["seat"] == 0 and state["turn"] == 0 and state["legal"]
                await ws.send(json.dumps({"type": "act", "table": tables[0],
                                          "action": state["legal"][0]}))
                after = await _next(ws, "state", timeout=5)
                assert after["calls"] != state["calls"] or after["trick"] != state["trick"]

        asyncio.run(play_on())
        # Nothing the takeover did held the survivor's loop long.
        alive.send_signal(signal.SIGTERM)
        alive.wait(timeout=30)
        stalls = [ms for at, ms, _ in json.loads(report.read_text())["stalls"]
                  if killed <= at <= killed + taken + 1.0]
        assert max(stalls, default=0.0) < 400, (taken, sorted(stalls)[-5:])
    finally:
        client.close()
        for proc in (dead, alive):
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)


def test_tables_of_a_takeover_load_in_a_constant_number_of_queries(tmp_path: Path) -> None:
    """Restoring 1 or 30 stored tables costs the same three queries (absences, tables,
    actions), and gives back each table where it stood."""
    url = f"sqlite:///{tmp_path / 'server.sqlite'}"
    first = TableService(Store(url), seed=7)
    ids = []
    for index in range(30):
        player = f"p{index}"
        created = first.handle(player, {"type": "create", "preset": "classic"})
        table = next(m["table"] for _p, m in created if m["type"] == "created")
        first.handle(player, {"type": "bots", "table": table, "level": "random"})
        ids.append(table)
    first.store.set_absence(ids[0], 0, 1000.0)  # Ana gone from two tables
    first.store.set_absence(ids[1], 0, 1000.0)
    first.store.clear_absences([(ids[0], 0), (ids[2], 0)])  # back at one
    store = Store(url, migrate=False)
    service = TableService(store, load_all=False)
    queries: list[str] = []
    event.listen(store.engine, "before_cursor_execute",
                 lambda *args: queries.append(args[2]))
    assert list(service.restore_many(ids[:1])) == ids[:1]
    one = len(queries)
    queries.clear()
    restored = service.restore_many(ids)
    assert len(queries) == one == 3
    assert sorted(restored) == sorted(ids) and not service.tables  # nothing run yet
    assert [t for t in ids if store.load(t)[0].absent] == [ids[1]]
    for table_id in ids:
        table, stood = restored[table_id], first.tables[table_id]
        assert not isinstance(table, str)
        assert table.seq == stood.seq and table.seats == stood.seats
        assert table.game is not None and stood.game is not None
        assert table.game.view(0) == stood.game.view(0)


def test_stand_in_timers_are_written_together(tmp_path: Path) -> None:
    """Many stand-in timers (set and cleared) written in one transaction of two
    statements, however many: a thousand players reconnecting once wrote one transaction
    each, and the group commit waited behind them."""
    url = f"sqlite:///{tmp_path / 'server.sqlite'}"
    service = TableService(Store(url), seed=3)
    ids = _classic_tables(service, [f"p{index}" for index in range(12)])
    service.store.set_absences({(ids[0], 0): 500.0, (ids[1], 0): 600.0})
    queries: list[str] = []
    event.listen(service.store.engine, "before_cursor_execute",
                 lambda *args: queries.append(args[2]))
    service.store_absences({(t, 0): 1000.0 + i for i, t in enumerate(ids[1:])}
                           | {(ids[0], 0): None})
    statements = [q for q in queries if q.split()[0].upper() in ("DELETE", "INSERT")]
    assert len(statements) == 2, queries
    fresh = Store(url, migrate=False)
    absent = {s.id: s.absent for s in fresh.load(ids=ids)}
    assert absent[ids[0]] == {} and absent[ids[1]] == {0: 1000.0}  # replaced, not added
    assert all(absent[t] == {0: 1000.0 + i} for i, t in enumerate(ids[1:]))


def test_presence_news_of_many_players_is_answered_together(
        tmp_path: Path, redis_url: str) -> None:
    """A thousand players reconnecting after a takeover make as many presence news: they
    are answered in two round trips, not two per player one after the other in the
    listener (their seats were taken for away meanwhile, and stand-ins played them)."""
    from rebelote.server.cluster import Cluster

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)
    players = [f"p{i}" for i in range(60)]
    _classic_tables(service, players, bots=True)
    for player in players:
        service.disconnected(player)  # away from the table run here
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.set("rebelote:alive:other", 1)
    for player in players[:50]:  # back, on another process
        client.hset(f"rebelote:online:{player}", "other", 1)

    async def scenario() -> int:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        trips = 0
        pipeline = cluster.redis.pipeline

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal trips
            trips += 1
            return pipeline(*args, **kwargs)

        cluster.redis.pipeline = counted  # type: ignore[method-assign]
        try:
            for player in players:
                cluster._presence_news(player)
            assert cluster._presence_task is not None
            await cluster._presence_task
        finally:
            await cluster.redis.aclose()
            await cluster.control.aclose()
            cluster._thread_redis.close()
        return trips

    try:
        trips = asyncio.run(scenario())
    finally:
        client.close()
    assert trips == 2
    away = {t.seats[0]["player"] for t in service.tables.values() if t.absent_since}
    assert away == set(players[50:])


def test_a_stale_owner_is_taken_over_at_once_once_its_process_was_found_gone(
        tmp_path: Path, redis_url: str) -> None:
    """A message may read a table's owner before the takeover of that dead process
    claimed it, and find nobody listening after the takeover is over (or the key names
    the dead process for a table not in its set): the process was found gone already, so
    that table is claimed at once, not after two more looks a second apart; a table run
    here already is not claimed again."""
    from rebelote.server.cluster import WORKERS, Cluster

    url = f"sqlite:///{tmp_path / 'server.sqlite'}"
    maker = TableService(Store(url), seed=3)
    ids = _classic_tables(maker, [f"p{index}" for index in range(3)], bots=True)
    service = TableService(Store(url, migrate=False), seed=4, load_all=False)
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.sadd(WORKERS, "gone")
    client.sadd(Cluster.tables_key("gone"), ids[0], ids[1])  # ids[2]: a key, not listed
    for table in ids:
        client.set(Cluster.owner_key(table), "gone")

    async def scenario() -> tuple[float, float, float, float, list[Any]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here",
                          owner_timeout=OWNER_TIMEOUT)
        loop = asyncio.get_running_loop()
        try:
            started = loop.time()
            await cluster._reap("gone", first=ids[0])
            await asyncio.gather(*cluster._reaping.values())
            found = loop.time() - started
            started = loop.time()
            await cluster._reap("gone", first=ids[2])
            stale = loop.time() - started
            started = loop.time()
            await cluster._reap("gone", first=ids[0])
            again = loop.time() - started
            owners = [await cluster.redis.get(Cluster.owner_key(t)) for t in ids]
            return found, stale, again, cluster.confirm_s, owners
        finally:
            await cluster.stop()

    try:
        found, stale, again, confirm_s, owners = asyncio.run(scenario())
    finally:
        client.close()
    assert found >= confirm_s  # the first time: two looks, a second apart
    assert set(ids) <= set(service.tables)
    assert stale < confirm_s / 2 and again < confirm_s / 4, (stale, again)
    assert owners == ["here"] * 3


def test_messages_passed_on_by_another_process_do_not_wait_for_each_other(
        tmp_path: Path, redis_url: str) -> None:
    """The listener handled each message another process passed on before reading the
    next, its commit included: with half the tables' players on the other process,
    their actions took 0.5-1.3 s each under load. Now each player's are handled in
    order in a task of their own: two players' wait for the same commit together, and
    one player's second message waits for his first."""
    from rebelote.server.cluster import Cluster

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)
    players = ["ana", "bo"]
    tables = _classic_tables(service, players, bots=True)
    committing: list[int] = []

    async def scenario() -> list[int]:
        gate = asyncio.Event()

        async def commit() -> None:
            committing.append(len(committing))
            await gate.wait()

        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here",
                          commit=commit)
        mine = cluster.worker_channel("here")

        def passed_on(player: str, table: str) -> dict[str, Any]:
            return {"type": "message", "channel": mine, "data": json.dumps(
                {"player": player, "nickname": player,
                 "message": {"type": "sync", "table": table}})}

        class Subscription:
            async def listen(self) -> Any:
                for player, table in [("ana", tables[0]), ("ana", tables[0]),
                                      ("bo", tables[1])]:
                    yield passed_on(player, table)
                await asyncio.Event().wait()  # subscribed on

        cluster._pubsub = Subscription()
        listening = asyncio.create_task(cluster._listen_once())
        try:
            for _ in range(100):
                await asyncio.sleep(0.01)
            held = list(committing)  # while the first commit is held
            gate.set()
            for _ in range(100):
                await asyncio.sleep(0.01)
                if len(committing) == 3:
                    break
        finally:
            listening.cancel()
            for task in list(getattr(cluster, "_serving", {}).values()):
                task.cancel()
            await cluster.redis.aclose()
            await cluster.control.aclose()
            await cluster.outbox.redis.aclose()
            cluster._thread_redis.close()
        assert len(committing) == 3  # every message handled once the commit went
        return held

    held = asyncio.run(scenario())
    assert held == [0, 1]  # Ana's first and Bo's together; Ana's second after her first
