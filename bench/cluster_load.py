"""The cluster under load and a dead node, on the ``make cluster`` topology (PostgreSQL,
Redis, two server processes, HAProxy; all on loopback): TABLES tables, two players each
through the balancer (random legal actions as soon as it is their turn) and two random
bots; halfway through, one server process is ``kill -9``'d. Prints one JSON line:
tables, clients, actions/s, p50/p99 from an action to its answer, takeover time (from
the kill to the first acknowledged action sent after the kill, at each table the dead
process ran: median and max; and ``owners_moved_s``, until Redis names the survivor
the owner of every one of them: it claims them in one call, and its log says when they
ran), lost and duplicated actions (checked against the database from the server's
acknowledgements, ``tests.cluster_play.check``), moves a stand-in made for a player
(``played_for``), reconnections; where the players' time went after the kill (sockets
found closed, reopened, first state; the handshakes through HAProxy and the survivor's
own opening time from its ``/metrics``; this process's own loop lag) and the five
slowest tables. ``REBELOTE_BENCH_FOLDER=DIR`` keeps the servers' logs (a message or
socket opening under way for 5 s is logged there with what it awaits).

``python -m bench.cluster_load [TABLES] [SECONDS]`` (default 1000 tables, 40 s). Each
run has new seeds.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.exceptions import WebSocketException

from bench.server_load import bucket_quantile, run_clients, server_histogram
from deploy.local_cluster import LocalCluster
from tests.cluster_play import SeatClient, busiest, check, open_table, owners, play_until

OWNER_TIMEOUT = 15.0


async def _open(base: str, tables: int, rng: random.Random) -> list[SeatClient]:
    gate = asyncio.Semaphore(16)

    async def one(index: int) -> list[SeatClient]:
        async with gate:
            for attempt in range(5):
                try:
                    return await open_table(base, index, random.Random(rng.random()))
                except (OSError, AssertionError, TimeoutError, WebSocketException):
                    if attempt == 4:
                        raise
                    await asyncio.sleep(1.0)
            raise AssertionError("unreachable")

    return [c for group in await asyncio.gather(*(one(i) for i in range(tables)))
            for c in group]


async def load(cluster: LocalCluster, tables: int, seconds: float) -> dict[str, Any]:
    rng = random.Random(time.time_ns())
    started = time.perf_counter()
    clients = await _open(cluster.url, tables, rng)
    setup_s = time.perf_counter() - started
    stop = asyncio.Event()
    start = time.perf_counter()
    client_before = time.process_time()
    task = await play_until(clients, stop)
    lags: list[tuple[float, float]] = []
    watch = asyncio.create_task(_watch_lag(lags))
    await asyncio.sleep(seconds / 2)
    table_ids = sorted({c.table for c in clients})
    owned = owners(cluster.redis_url, table_ids)
    victim = busiest(cluster, owned)  # the process running the most tables dies
    victims = {t for t, o in owned.items()
               if o and o.startswith(cluster.server_name(victim) + "-")}
    killed_at = time.monotonic()
    survivor_port = cluster.server_ports[1 - victim]
    opened_before = server_histogram(survivor_port, "rebelote_socket_open_seconds", None)
    cluster.kill_server(victim)
    survivor = cluster.server_name(1 - victim) + "-"
    moved = asyncio.create_task(_all_moved(cluster.redis_url, sorted(victims), survivor))
    await asyncio.sleep(seconds / 2)
    stop.set()
    await task
    watch.cancel()
    moved.cancel()
    owners_moved_s = await moved if moved.done() and not moved.cancelled() else None
    elapsed = time.perf_counter() - start
    opened_after = server_histogram(survivor_port, "rebelote_socket_open_seconds", None)
    client_cpu = time.process_time() - client_before
    takeover = []
    by_table: dict[str, float] = {}
    for table in victims:  # an action sent after the kill, acknowledged (not an answer
        # to one sent before, read late)
        after = [t for c in clients if c.table == table for s, t in c.acks if s > killed_at]
        takeover.append(min(after) - killed_at if after else float("inf"))
        by_table[table] = takeover[-1]

    def first(times: list[float]) -> float | None:
        after = [t - killed_at for t in times if t > killed_at]
        return round(min(after), 2) if after else None

    # The five slowest tables' players: socket closed, reopened, first state, first
    # action sent, first acknowledged (s after the kill; None: not on the dead process,
    # or not within the run).
    slowest = [[round(by_table[t], 2) if by_table[t] != float("inf") else None,
                [[first(c.dropped_at), first(c.opened_at), first(c.states_at),
                  first([s.sent_at for s in c.log]), first([a for _s, a in c.acks]),
                  _last_seen(c, killed_at)]
                 for c in clients if c.table == t]]
               for t in sorted(by_table, key=lambda t: -by_table[t])[:5]]
    # Where the players' takeover time goes, at the dead process's tables: its
    # players' sockets found closed, reopened through the balancer, the first state
    # on them (medians over the players who reconnected, seconds after the kill).
    phases: dict[str, list[float]] = {"dropped": [], "reopened": [], "first_state": []}
    for c in clients:
        if c.table not in victims:
            continue
        for name, times in (("dropped", c.dropped_at), ("reopened", c.opened_at),
                            ("first_state", c.states_at)):
            since = first(times)
            if since is not None:
                phases[name].append(since)
    latencies = sorted(x for c in clients for x in c.latencies)
    # The clients' own event loop, late by this much after the kill: a client's
    # times include it (2,000 clients in one process, on the servers' machine).
    late = sorted(lag for at, lag in lags if at > killed_at)
    # Reconnections after the kill: their handshakes through HAProxy (the clients'
    # view) and the survivor's own opening time (its /metrics), attempts that failed.
    handshakes = sorted(d for c in clients for at, d in c.connecting if at > killed_at)
    failed = sum(1 for c in clients for at in c.refused if at > killed_at)
    result = check(cluster.database_url, clients)
    taken = [t for t in takeover if t != float("inf")]
    return {"tables": tables, "clients": len(clients), "processes": cluster.count,
            "seconds": round(elapsed, 1), "setup_s": round(setup_s, 1),
            "actions_per_s": result["acked"] / elapsed,
            "p50_ms": statistics.median(latencies) * 1e3 if latencies else None,
            "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] * 1e3 if latencies else None,
            "tables_of_killed": len(victims), "not_taken_over": len(takeover) - len(taken),
            "takeover_p50_s": statistics.median(taken) if taken else None,
            "takeover_p90_s": sorted(taken)[int(0.9 * (len(taken) - 1))] if taken else None,
            "takeover_max_s": max(taken) if taken else None,
            "slowest_tables": slowest,
            **{f"{name}_p50_s": round(statistics.median(times), 2) if times else None
               for name, times in phases.items()},
            "owners_moved_s": None if owners_moved_s is None else owners_moved_s - killed_at,
            "owner_timeout_s": OWNER_TIMEOUT,
            # The clients' own share of a core (one process, one event loop).
            "client_cpu_percent": round(100 * client_cpu / elapsed, 1),
            "client_lag_after_kill_p50_s": round(statistics.median(late), 3) if late else None,
            "client_lag_after_kill_max_s": round(max(late), 3) if late else None,
            "handshake_after_kill_p50_s": round(statistics.median(handshakes), 3)
            if handshakes else None,
            "handshake_after_kill_max_s": round(max(handshakes), 3) if handshakes else None,
            "handshakes_failed_after_kill": failed,
            "survivor_open_p50_ms_at_most": bucket_quantile(opened_before, opened_after, 0.5),
            "survivor_open_p99_ms_at_most": bucket_quantile(opened_before, opened_after,
                                                            0.99),
            "client_loop": type(asyncio.get_running_loop()).__module__.split(".")[0]} | result


async def _watch_lag(lags: list[tuple[float, float]], every: float = 0.05) -> None:
    """How late this process's event loop runs a timer: (when, how late), every
    ``every`` seconds."""
    while True:
        start = time.monotonic()
        await asyncio.sleep(every)
        now = time.monotonic()
        lags.append((now, now - start - every))


def _last_seen(client: SeatClient, killed_at: float) -> dict[str, Any] | None:
    """What the client's last state said (whose turn, its seat, the phase, whether it
    had legal actions) and its actions sent after the kill (s after it, status)."""
    state = client.last_state
    if state is None:
        return None
    return {"turn": state.get("turn"), "seat": client.seat, "phase": state.get("phase"),
            "legal": bool(state.get("legal")),
            "sent": [(round(s.sent_at - killed_at, 2), s.status) for s in client.log
                     if s.sent_at > killed_at]}


async def _all_moved(redis_url: str, tables: list[str], survivor: str) -> float:
    """When Redis names ``survivor`` the owner of every one of ``tables`` (the server's
    side of the takeover, whether or not a client has played there since)."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        while True:
            names = await asyncio.to_thread(client.mget,
                                            [f"rebelote:owner:{t}" for t in tables])
            if all(n and str(n).startswith(survivor) for n in names):
                return time.monotonic()
            await asyncio.sleep(0.25)
    finally:
        client.close()


def main() -> None:
    os.environ.setdefault("REBELOTE_GUESTS_PER_HOUR", "0")  # every client is a guest of 127.0.0.1
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 40.0
    keep = os.environ.get("REBELOTE_BENCH_FOLDER")  # the servers' logs kept there
    with tempfile.TemporaryDirectory() as tmp, LocalCluster(
            Path(keep or tmp), servers=2, owner_timeout=OWNER_TIMEOUT,
            log_format="json") as cluster:
        result = run_clients(load(cluster, tables, seconds))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
