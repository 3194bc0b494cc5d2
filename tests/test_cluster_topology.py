"""The cluster's promises on the ``make cluster`` topology (PostgreSQL, Redis, two
server processes, HAProxy in front; :mod:`deploy.local_cluster`): clients play through
the balancer while a server process is ``kill -9``'d, Redis restarted, PostgreSQL
restarted; no acknowledged action is lost, none applied twice. Kept short: a few
tables, a few seconds each.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.local_cluster import LocalCluster, missing_programs
from tests.cluster_play import (
    SeatClient,
    busiest,
    check,
    open_table,
    owners,
    play_until,
    wait_for_acks,
)

OWNER_TIMEOUT = 4.0
TABLES = 4


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    missing = missing_programs()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"not installed: {missing} (.ci/run installs them)")
        pytest.skip(f"not installed: {missing}")
    with LocalCluster(tmp_path / "cluster", servers=2, owner_timeout=OWNER_TIMEOUT) as c:
        yield c


async def _tables(cluster: LocalCluster, count: int = TABLES) -> list[SeatClient]:
    rng = random.Random(time.time_ns())  # fresh deals every run
    clients: list[SeatClient] = []
    for index in range(count):
        clients += await open_table(cluster.url, index, rng)
    return clients


def _assert_nothing_lost(cluster: LocalCluster, clients: list[SeatClient]) -> dict[str, int]:
    result = check(cluster.database_url, clients)
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["gaps"] == 0, result
    return result


def _balancer_waits(url: str, count: int) -> list[float]:
    """Seconds for each of ``count`` requests in turn, each on a new connection."""
    waits = []
    for _ in range(count):
        start = time.perf_counter()
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as resp:
            assert resp.status == 200
        waits.append(time.perf_counter() - start)
    return waits


def _lobby(url: str) -> set[str]:
    """The tables the lobby lists, through the balancer."""
    with urllib.request.urlopen(f"{url}/api/tables", timeout=5) as resp:
        return {t["table"] for t in json.loads(resp.read())}


def test_a_killed_server_process_loses_nothing(cluster: LocalCluster) -> None:
    async def scenario() -> None:
        clients = await _tables(cluster)
        stop = asyncio.Event()
        task = await play_until(clients, stop)
        assert await wait_for_acks(clients, 6, 30), "play did not start"
        tables = sorted({c.table for c in clients})
        owned = owners(cluster.redis_url, tables)
        victim = busiest(cluster, owned)  # the process that runs most tables
        dead, alive = cluster.server_name(victim), cluster.server_name(1 - victim)
        victims = [t for t, o in owned.items() if o and o.startswith(dead + "-")]
        killed_at = time.monotonic()
        cluster.kill_server(victim)
        # New connections through the balancer reach the other process at once (its
        # retry after a refused connection goes there; measured 2-8 ms; with a process
        # marked down at its first refused connection, `observe layer4`, the first
        # one waited HAProxy's one-second turn-around instead).
        waits = await asyncio.to_thread(_balancer_waits, cluster.url, 4)
        assert sorted(waits)[-2] < 0.5 and max(waits) < 2.5, waits
        assert await wait_for_acks(clients, 6, 30), "play did not resume after kill -9"
        stop.set()
        await task
        # Every table of the dead process is run by the other one now, within the
        # owner timeout of the kill (clients reconnected through the balancer).
        after = owners(cluster.redis_url, tables)
        assert all(o and o.startswith(alive + "-") for o in after.values()), after
        resumed = [min(t for c in clients if c.table == table for t in c.acks_at
                       if t > killed_at) - killed_at for table in victims]
        assert max(resumed) < OWNER_TIMEOUT, resumed
        result = _assert_nothing_lost(cluster, clients)
        assert result["reconnects"] > 0  # the clients of web1 came back through haproxy

    asyncio.run(scenario())


def test_redis_restarted_mid_play(cluster: LocalCluster) -> None:
    async def scenario() -> None:
        clients = await _tables(cluster)
        stop = asyncio.Event()
        task = await play_until(clients, stop)
        assert await wait_for_acks(clients, 6, 30)
        cluster.stop_redis()
        await asyncio.sleep(1.0)
        cluster.start_redis()  # empty: it kept nothing
        assert await wait_for_acks(clients, 8, 40), "play did not resume after redis restart"
        stop.set()
        await task
        _assert_nothing_lost(cluster, clients)
        # The lobby is written again at each process's next renewal (a third of the
        # owner timeout) once Redis answers: every table is listed within a few.
        tables = {c.table for c in clients}
        deadline = time.monotonic() + OWNER_TIMEOUT + 2
        while True:
            lobby = await asyncio.to_thread(_lobby, cluster.url)
            if tables <= lobby or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert tables <= lobby, (tables - lobby, cluster.folder)

    asyncio.run(scenario())


def test_postgres_restarted_refuses_then_resumes(cluster: LocalCluster) -> None:
    async def scenario() -> None:
        clients = await _tables(cluster)
        stop = asyncio.Event()
        task = await play_until(clients, stop)
        assert await wait_for_acks(clients, 6, 30)
        cluster.stop_postgres()
        refused_before = sum(c.unavailable for c in clients)
        await asyncio.sleep(3.0)
        # During the outage: actions refused with a clear error, none acknowledged.
        assert sum(c.unavailable for c in clients) > refused_before
        acked = sum(c.acked for c in clients)
        await asyncio.sleep(1.0)
        assert sum(c.acked for c in clients) == acked
        with pytest.raises(urllib.error.HTTPError) as not_ready:
            urllib.request.urlopen(f"http://127.0.0.1:{cluster.server_ports[0]}/readyz",
                                   timeout=5)
        assert not_ready.value.code == 503
        cluster.start_postgres()
        assert await wait_for_acks(clients, 6, 40), "play did not resume after the restart"
        stop.set()
        await task
        _assert_nothing_lost(cluster, clients)

    asyncio.run(scenario())
