"""The cluster's outbox: Redis writes nobody waits for, sent in order by one task."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from redis import asyncio as aioredis

from rebelote.server import cluster as cluster_module
from rebelote.server.cluster import OUTBOX_BATCH, Outbox
from tests.servers import free_port


def _failing_pipelines(redis: Any, fails: Any) -> None:
    """Make ``redis``'s pipelines raise as Redis away would, while ``fails(commands)``
    (the pipeline's commands, each its arguments: name, key, ...) says so."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    pipeline = redis.pipeline

    def made(*args: Any, **kwargs: Any) -> Any:
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute

        async def run(raise_on_error: bool = True) -> Any:
            if fails([c[0] for c in pipe.command_stack]):
                await pipe.reset()
                raise RedisConnectionError("Redis is away")
            return await execute(raise_on_error)

        pipe.execute = run
        return pipe

    redis.pipeline = made


def test_writes_arrive_in_order_and_are_read_back_once_flushed(redis_url: str) -> None:
    count = 2 * OUTBOX_BATCH + 7  # more than one round trip

    async def main() -> tuple[list[str], dict[str, str]]:
        writer = aioredis.Redis.from_url(redis_url, decode_responses=True)
        reader = aioredis.Redis.from_url(redis_url, decode_responses=True)
        pubsub = reader.pubsub()
        await pubsub.subscribe("news")
        await pubsub.get_message(timeout=1.0)  # the subscription's confirmation
        box = Outbox(writer)
        for i in range(count):
            box.publish("news", str(i))
            box.hset("entries", str(i % 10), str(i))
        box.hdel("entries", "3")
        await box.flushed()
        entries = await reader.hgetall("entries")  # read after flushed: every write in
        got: list[str] = []
        while len(got) < count:
            item = await pubsub.get_message(timeout=5.0)
            assert item is not None, f"only {len(got)} of {count} published"
            got.append(item["data"])
        await box.close()
        await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8.2
        await writer.aclose()
        await reader.aclose()
        return got, {str(k): str(v) for k, v in entries.items()}

    got, entries = asyncio.run(main())
    assert got == [str(i) for i in range(count)]  # all, in the order queued
    assert entries == {str(k): str(max(i for i in range(count) if i % 10 == k))
                       for k in range(10) if k != 3}


def test_redis_away_gives_up_the_writes_without_blocking(caplog: pytest.LogCaptureFixture,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Redis unreachable: flushed() still returns, the failure is logged; past
    OUTBOX_MAX waiting, new writes are dropped (counted) instead of piling up."""
    monkeypatch.setattr(cluster_module, "OUTBOX_MAX", 10)

    async def main() -> int:
        away = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}",
                                       socket_connect_timeout=1)
        box = Outbox(away)
        for i in range(15):  # queued before the task runs: five over the bound
            box.publish("news", str(i))
        await asyncio.wait_for(box.flushed(), 10)
        await box.close()
        await away.aclose()
        return box.dropped

    with caplog.at_level(logging.WARNING, logger="rebelote.server.cluster"):
        dropped = asyncio.run(main())
    assert dropped == 5
    assert caplog.text.count("redis unreachable") == 1  # once for the outage, not per batch


def test_presence_is_written_together_and_again_once_redis_is_back(
        tmp_path: Path, redis_url: str) -> None:
    """Sockets opened and closed meanwhile are written in one round trip, as they stand
    (a player whose only socket closed is not online here); a write Redis failed is
    made again once it answers (else he stays online there for good, and no stand-in
    ever plays for him), and the closing itself raises nothing."""
    from rebelote.server import cluster as module
    from rebelote.server.cluster import Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)

    async def scenario() -> tuple[dict[Any, Any], dict[Any, Any], int, dict[Any, Any]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        await cluster.start()
        trips = 0
        failing = False

        def counted(commands: list[tuple[Any, ...]]) -> bool:
            nonlocal trips
            writes = [c for c in commands if str(c[1]).startswith("rebelote:online:")]
            trips += bool(writes)  # the presence writer's (not the listener's reads)
            return failing and bool(writes)

        _failing_pipelines(cluster.redis, counted)
        try:
            # Opened together (as after a takeover) and one closed again.
            many = [f"p{i}" for i in range(60)]
            await asyncio.gather(*(cluster.connected(p) for p in
                                   ["ana", "bo", "cy", "ana", *many]))
            await cluster.disconnected("cy")
            assert cluster._presence_writer is not None
            await cluster._presence_writer
            written = {p: dict(await cluster.redis.hgetall(f"rebelote:online:{p}"))
                       for p in ("ana", "bo", "cy")}
            first_trips = trips
            failing = True
            await cluster.disconnected("bo")  # raises nothing
            await asyncio.sleep(module.PRESENCE_RETRY_S / 2)
            during = dict(await cluster.redis.hgetall("rebelote:online:bo"))
            failing = False
            await asyncio.wait_for(cluster._presence_writer, 5)
            after = dict(await cluster.redis.hgetall("rebelote:online:bo"))
        finally:
            await cluster.stop()
        return written, during, first_trips, after

    written, during, first_trips, after = asyncio.run(scenario())
    assert written == {"ana": {"here": "2"}, "bo": {"here": "1"}, "cy": {}}
    assert first_trips <= 12  # 64 openings and a closing: not one round trip each (4-5)
    assert during == {"here": "1"}  # the failed write: still there
    assert after == {}  # written once Redis answered


def test_lobby_entries_are_built_again_only_when_what_they_show_changes(
        tmp_path: Path, redis_url: str) -> None:
    """A card played mid-hand changes nothing the lobby shows: its entries are not built
    again (they were, for every message, twice); a player sitting down, the game
    starting, are written."""
    import json

    from rebelote.server.cluster import Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)
    built = 0
    entry = service.lobby_entry

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal built
        built += 1
        return entry(*args, **kwargs)

    service.lobby_entry = counted  # type: ignore[method-assign]
    created = service.handle("ana", {"type": "create", "preset": "classic"})
    table = next(m["table"] for _p, m in created if m["type"] == "created")

    async def scenario() -> list[tuple[int, bool]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        steps: list[tuple[int, bool]] = []

        def publish() -> None:
            """(entries built, lobby news) of one publishing."""
            nonlocal built
            built = 0
            changed = cluster._publish_lobby(table)
            steps.append((built, changed))

        try:
            publish()  # new here: written
            publish()  # nothing changed
            service.handle("bo", {"type": "join", "table": table, "seat": 2})
            publish()  # a player sat down
            service.handle("ana", {"type": "bots", "table": table, "level": "random"})
            publish()  # the game on
            await cluster.outbox.flushed()
            seats = json.loads(str(await cluster.redis.hget("rebelote:lobby", table)))["seats"]
            assert seats[0] == "ana" and seats[2] == "bo" and seats[1].startswith("bot:")
            moves = 0
            for _step in range(200):  # cards (or bids) of this hand, the players' own
                if moves == 3:
                    break
                game = service.tables[table].game
                assert game is not None
                hands = len(game.hands)
                answered = service.handle("ana", {"type": "sync", "table": table})
                answered += service.handle("bo", {"type": "sync", "table": table})
                states = {p: m for p, m in answered if m["type"] == "state"}
                mover = next((p for p, m in states.items() if m.get("legal")), None)
                if mover is None:  # a bot's turn
                    service.tick(commit=True)
                    continue
                service.handle(mover, {"type": "act", "table": table,
                                       "action": states[mover]["legal"][0]})
                if len(game.hands) == hands and not game.is_over:
                    publish()  # mid-hand: nothing to build
                    moves += 1
            assert moves == 3
        finally:
            await cluster.stop()
        return steps

    steps = asyncio.run(scenario())
    assert steps[0][0] >= 2 and steps[0][1]  # the lobby's entry and ana's own
    assert steps[1] == (0, False)
    assert steps[2][0] >= 3 and steps[2][1]  # the lobby's, ana's and bo's
    assert steps[3][0] >= 3
    assert steps[4:] == [(0, False)] * 3


def test_lobby_writes_redis_failed_are_made_again_at_the_next_renewal(
        tmp_path: Path, redis_url: str) -> None:
    """The outbox gave up a table's lobby writes (Redis away, or a stale connection's
    first command once it is back): the next renewal writes them again. They were
    never written again until what the entry shows changed: a table stayed missing
    from the lobby after a Redis restart (seen in CI)."""
    from rebelote.server.cluster import Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)
    created = service.handle("ana", {"type": "create", "preset": "classic"})
    table = next(m["table"] for _p, m in created if m["type"] == "created")

    async def scenario() -> tuple[Any, Any, Any, Any, tuple[int, int]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        away = True
        _failing_pipelines(cluster.outbox.redis, lambda _commands: away)
        try:
            await cluster._renew_all()  # the first: the lobby written (its own trip)
            service.handle("bo", {"type": "join", "table": table, "seat": 2})
            cluster._publish_lobby(table)  # queued, then given up
            await cluster.outbox.flushed()
            given_up = cluster.outbox._queued
            lost = await cluster.redis.hget("rebelote:lobby", table)
            lost_mine = await cluster.redis.hget("rebelote:mine:bo", table)
            away = False
            await cluster._renew_all()
            entry = await cluster.redis.hget("rebelote:lobby", table)
            mine = await cluster.redis.hget("rebelote:mine:bo", table)
            cluster._publish_lobby(table)  # nothing changed since: nothing to write
            queued = cluster.outbox._queued - given_up
        finally:
            await cluster.stop()
        return lost, lost_mine, entry, mine, (given_up, queued)

    lost, lost_mine, entry, mine, (given_up, queued) = asyncio.run(scenario())
    assert '"bo"' not in str(lost) and lost_mine is None  # the outbox's writes failed
    assert entry is not None and '"bo"' in entry  # written again
    assert mine is not None and table in mine
    assert given_up >= 2 and queued == 0  # the renewal wrote them in its own round trip


def test_a_resync_redis_failed_is_made_again(tmp_path: Path, redis_url: str) -> None:
    """Redis restarted empty: the process's liveness key is written again, then what it
    wrote (its membership, its tables, their lobby entries). If that round trip fails,
    the next renewal makes it: the liveness key alone was back, so it was never made."""
    from rebelote.server.cluster import WORKERS, Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)
    created = service.handle("ana", {"type": "create", "preset": "classic"})
    table = next(m["table"] for _p, m in created if m["type"] == "created")

    async def scenario() -> tuple[bool, Any, bool, Any, set[str]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        failing = 0
        _failing_pipelines(cluster.redis,
                           lambda commands: failing > 0
                           and any(str(c[0]).lower() == "sadd" for c in commands))
        try:
            await cluster._renew_all()
            await cluster.redis.flushall()  # Redis restarted: it kept nothing
            failing = 1
            try:
                await cluster._renew_all()
                raised = False
            except Exception:
                raised = True
            alive = await cluster.redis.exists("rebelote:alive:here")
            before = await cluster.redis.hget("rebelote:lobby", table)
            failing = 0
            await cluster._renew_all()
            member = bool(await cluster.redis.sismember(WORKERS, "here"))
            entry = await cluster.redis.hget("rebelote:lobby", table)
            runs = {str(t) for t in await cluster.redis.smembers(cluster.tables_key("here"))}
        finally:
            await cluster.stop()
        return raised and bool(alive), before, member, entry, runs

    failed_after_alive, before, member, entry, runs = asyncio.run(scenario())
    assert failed_after_alive and before is None  # the resync's round trip did fail
    assert member and runs == {table}
    assert entry is not None and table in entry
