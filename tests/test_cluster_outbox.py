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
        await pubsub.aclose()  # type: ignore[no-untyped-call]
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


def test_a_socket_closed_while_redis_is_away_is_told_once_it_is_back(
        tmp_path: Path, redis_url: str) -> None:
    """The presence of a player whose socket closed while Redis failed is written at the
    next renewal (else he stays online there for good, and no stand-in ever plays for
    him); the closing itself raises nothing."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from rebelote.server.cluster import Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)

    async def scenario() -> tuple[dict[Any, Any], set[str], dict[Any, Any]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        await cluster.start()
        try:
            await cluster.connected("ana")
            online = dict(await cluster.redis.hgetall("rebelote:online:ana"))
            hdel = cluster.redis.hdel

            async def away(*args: Any) -> Any:
                raise RedisConnectionError("Redis is away")

            cluster.redis.hdel = away  # type: ignore[method-assign, assignment]
            await cluster.disconnected("ana")  # raises nothing
            unwritten = set(cluster._presence_unwritten)
            cluster.redis.hdel = hdel  # type: ignore[method-assign]
            await cluster._write_presence()
            after = dict(await cluster.redis.hgetall("rebelote:online:ana"))
            assert not cluster._presence_unwritten
        finally:
            await cluster.stop()
        return online, unwritten, after

    online, unwritten, after = asyncio.run(scenario())
    assert online == {"here": "1"}
    assert unwritten == {"ana"}
    assert after == {}
