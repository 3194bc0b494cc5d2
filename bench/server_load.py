"""Load on the web server, on loopback only: TABLES tables, two connected players each
(playing random legal actions as soon as it is their turn) and two bots (expert bots
on a tenth of the tables, random bots on the others); prints
one JSON line: actions per second, latency from an action to its broadcast (p50, p99),
the players' actions a second at the expert bots' tables (how fast those play), server
memory per table, messages dropped.

``python -m bench.server_load [TABLES] [SECONDS] [WORKERS]``: with WORKERS > 1, the
scale-out mode (``rebelote serve --workers N --redis URL``, a Redis of its own), clients
spread over the processes by the kernel as for any load balancer.

The clients run on picows (``BENCH_CLIENT=websockets``: on the websockets library, as
before 2026-12-03): on this 2-core machine the load generator takes its CPU from the
server, 45 % of a core on websockets, 12-17 % on picows, at the same load.
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
import urllib.request
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import orjson
import picows
from websockets.asyncio.client import ClientConnection, connect

from tests.servers import free_port, redis_server, sign_in_guest, start_server


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Seat:
    """What both kinds of client do with a message, their sockets apart: count errors,
    time the answer to the last action, choose the next."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sent_at: float | None = None
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0

    def answer(self, raw: bytes | str, table: str, deadline: float) -> tuple[bool, str | None]:
        """(whether the game is over for this player, the action to send, if any)."""
        message: dict[str, Any] = orjson.loads(raw)
        if message["type"] == "error":
            self.errors += 1
            return False, None
        if message["type"] != "state":
            return False, None
        if self.sent_at is not None:
            self.latencies.append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        if message.get("winner") is not None:
            return True, None
        if (time.perf_counter() < deadline and message.get("turn") == message.get("seat")
                and message.get("legal")):
            self.sent_at = time.perf_counter()
            self.actions += 1
            return False, json.dumps({"type": "act", "table": table,
                                      "action": self.rng.choice(message["legal"])})
        return False, None


class Player(Seat):
    def __init__(self, ws: ClientConnection, rng: random.Random) -> None:
        super().__init__(rng)
        self.ws = ws

    async def run(self, table: str, deadline: float) -> None:
        while True:
            now = time.perf_counter()
            if now >= deadline and self.sent_at is None:
                return
            # After the deadline, wait up to 5 s for an answer still on its way.
            wait = deadline - now if now < deadline else deadline + 5.0 - now
            if wait <= 0:
                return  # unanswered
            try:
                raw = await asyncio.wait_for(self.ws.recv(), timeout=wait)
            except TimeoutError:
                continue
            if now >= deadline and self.sent_at is not None:
                self.latencies.append(time.perf_counter() - self.sent_at)
                self.sent_at = None
                return
            over, action = self.answer(raw, table, deadline)
            if over:
                return
            if action is not None:
                await self.ws.send(action)


class LightConnection(picows.WSListener):
    """A picows client connection: its messages queued until its :class:`LightPlayer`
    starts, then handed to it as they come."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.player: LightPlayer | None = None
        self.transport: Any = None

    def on_ws_connected(self, transport: Any) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: Any, frame: Any) -> None:
        if frame.msg_type != picows.WSMsgType.TEXT:
            return
        raw = frame.get_payload_as_bytes()
        if self.player is not None and self.player.done is not None:
            self.player.received(raw)
        else:
            self.queue.put_nowait(raw)

    async def send(self, text: str) -> None:
        self.transport.send(picows.WSMsgType.TEXT, text.encode())

    async def recv(self) -> bytes:
        return await self.queue.get()

    async def close(self) -> None:
        self.transport.disconnect()
        await self.transport.wait_disconnected()


async def light_connect(url: str, cookie: str) -> LightConnection:
    _transport, listener = await picows.ws_connect(
        LightConnection, url, extra_headers={"Cookie": cookie})
    assert isinstance(listener, LightConnection)
    return listener


class LightPlayer(Seat):
    """:class:`Player` on picows (its frames parsed in C, each message handled in the
    connection's callback, no task per message): the load generator's own share of the
    machine's two cores, taken from the server, is what it costs."""

    def __init__(self, ws: LightConnection, rng: random.Random) -> None:
        super().__init__(rng)
        self.ws = ws
        ws.player = self
        self.table = ""
        self.deadline: float | None = None
        self.done: asyncio.Future[None] | None = None

    async def run(self, table: str, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        self.table, self.deadline = table, deadline
        self.done = loop.create_future()
        loop.call_later(max(0.0, deadline - time.perf_counter()), self._at_deadline)
        while not self.ws.queue.empty():  # what came before the start
            self.received(self.ws.queue.get_nowait())
        await self.done

    def _finish(self) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_result(None)

    def _at_deadline(self) -> None:
        if self.sent_at is None:
            self._finish()
        else:  # wait up to 5 s for the answer on its way
            asyncio.get_running_loop().call_later(5.0, self._finish)

    def received(self, raw: bytes) -> None:
        if self.done is None or self.done.done() or self.deadline is None:
            return
        over, action = self.answer(raw, self.table, self.deadline)
        if action is not None:
            self.ws.transport.send(picows.WSMsgType.TEXT, action.encode())
        elif over or (self.sent_at is None and time.perf_counter() >= self.deadline):
            self._finish()


WRITES = "rebelote_store_write_seconds"
"""The server's histogram of its commits of actions (unlabelled)."""


def server_histogram(port: int, family: str = "rebelote_answer_seconds",
                  kind: str | None = "act") -> dict[float, float]:
    """The server's own answer-time histogram of ``act`` messages (or another histogram
    ``family``, of messages of type ``kind``, None: unlabelled): cumulative counts by
    upper bound (seconds), from its ``/metrics``."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out: dict[float, float] = {}
    for found in text_string_to_metric_families(text):
        if found.name != family:
            continue
        for sample in found.samples:
            if sample.name.endswith("_bucket") and sample.labels.get("type") == kind:
                out[float(sample.labels["le"])] = sample.value
    return out


def bucket_quantile(before: dict[float, float], after: dict[float, float],
                    q: float) -> float | None:
    """The upper bound (ms) of the histogram bucket holding quantile ``q`` of what was
    observed between two readings."""
    counts = {le: after[le] - before.get(le, 0.0) for le in sorted(after)}
    total = counts.get(float("inf"), 0.0)
    if total <= 0:
        return None
    for le, count in counts.items():
        if count >= q * total:
            return le * 1e3
    return None


def cpu_s(pid: int) -> float:
    """CPU seconds the process has used (its own threads, not its worker processes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loop_schedule(pid: int) -> tuple[int, int]:
    """(ns on a core, ns runnable but waiting for one) of a process's main thread, its
    event loop: the kernel's own account (``/proc/PID/task/PID/schedstat``; (0, 0) on a
    kernel without it, and the process is left out of the figures)."""
    try:
        on_cpu, waiting, _slices = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0, 0
    return int(on_cpu), int(waiting)


def machine_ticks() -> tuple[int, int, int]:
    """(all, stolen, idle) CPU ticks of the machine so far: on a shared virtual
    machine the host takes some, and the wall-clock figures suffer with it."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(values[:8]), values[7], values[3]


async def load(port: int, tables: int, seconds: float,
               pids: list[int] | None = None) -> dict[str, Any]:
    rng = random.Random()  # fresh deals and play each run
    light = os.environ.get("BENCH_CLIENT", "picows") == "picows"
    url = f"ws://127.0.0.1:{port}/ws"

    async def opened(name: str) -> Any:
        cookie = sign_in_guest(port, name)
        if light:
            return await light_connect(url, cookie)
        return await connect(url, additional_headers={"Cookie": cookie})

    players: list[tuple[Any, str]] = []
    sockets = []
    for t in range(tables):
        a = await opened(f"a{t}")
        b = await opened(f"b{t}")
        sockets += [a, b]
        # The highest target allowed: every table plays for the whole run.
        await a.send(json.dumps({"type": "create", "preset": "classic",
                                 "options": {"target": 10_000}}))
        table = json.loads(await a.recv())["table"]
        await a.recv()
        await b.send(json.dumps({"type": "join", "table": table, "seat": 2}))
        await a.recv()
        await b.recv()
        kind = LightPlayer if light else Player
        players += [(kind(a, random.Random(rng.random())), table),
                    (kind(b, random.Random(rng.random())), table)]
    for t, ((_p, table), ws) in enumerate(zip(players[::2], sockets[::2], strict=True)):
        level = "expert" if t % 10 == 0 else "random"
        await ws.send(json.dumps({"type": "bots", "table": table, "level": level}))
    one_process = pids is not None and len(pids) == 1
    answers_before = server_histogram(port) if one_process else {}
    writes_before = server_histogram(port, WRITES, None) if one_process else {}
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    cpu_before, ticks_before = [cpu_s(pid) for pid in pids or ()], machine_ticks()
    loops_before = [loop_schedule(pid) for pid in pids or ()]
    client_before = time.process_time()
    await asyncio.gather(*(p.run(table, deadline) for p, table in players))
    elapsed = time.perf_counter() - start
    client_cpu = time.process_time() - client_before
    cpu = sum(cpu_s(pid) for pid in pids or ()) - sum(cpu_before)
    loops = [(after[0] - before[0], after[1] - before[1]) for after, before in
             zip((loop_schedule(pid) for pid in pids or ()), loops_before, strict=True)
             if after[0] > before[0]]  # a child that is no server (a resource tracker)
    ticks = [after - before for after, before in zip(machine_ticks(), ticks_before,
                                                     strict=True)]
    answers_after = server_histogram(port) if one_process else {}
    writes_after = server_histogram(port, WRITES, None) if one_process else {}
    writes = writes_after.get(float("inf"), 0.0) - writes_before.get(float("inf"), 0.0)
    for ws in sockets:
        await ws.close()
    latencies = sorted(x for p, _ in players for x in p.latencies)
    actions = sum(p.actions for p, _ in players)
    # the players' actions at the tables of expert bots: each waits for the experts'
    # turns, so this is how fast the experts' tables play (the bots' CPU comes last)
    expert_actions = sum(p.actions for i, (p, _) in enumerate(players) if i // 2 % 10 == 0)
    answered = len(latencies)
    return {"tables": tables, "clients": len(players), "seconds": round(elapsed, 1),
            "actions_per_s": actions / elapsed,
            "p50_ms": statistics.median(latencies) * 1e3 if latencies else None,
            "p90_ms": latencies[int(0.9 * (answered - 1))] * 1e3 if latencies else None,
            "p99_ms": latencies[int(0.99 * (answered - 1))] * 1e3 if latencies else None,
            "expert_tables_player_actions_per_s": round(expert_actions / elapsed, 1),
            "unanswered": actions - answered,  # actions never answered within 5 s
            "errors": sum(p.errors for p, _ in players),
            # The server processes' own CPU per action (their worker processes apart): a
            # figure that the host's stolen time does not change.
            "server_cpu_ms_per_action": round(cpu * 1e3 / actions, 3) if pids and actions
            else None,
            "steal_percent": round(100 * ticks[1] / max(1, ticks[0]), 1),
            "idle_percent": round(100 * ticks[2] / max(1, ticks[0]), 1),
            # Each server process's event loop: [its share of the run on a core,
            # runnable but waiting for one] (the machine's other work, clients included,
            # had the cores): a loop that waits is slowed by the machine, not its work.
            "server_loops_percent": [[round(100 * ns / 1e9 / elapsed, 1) for ns in loop]
                                     for loop in loops],
            # The clients' own share of a core: near 100, they measure their own queue.
            "client_cpu_percent": round(100 * client_cpu / elapsed, 1),
            "client_loop": type(asyncio.get_running_loop()).__module__.split(".")[0],
            "client": "picows" if light else "websockets",
            # The server's own view (one process): from an action's arrival to its
            # answers sent, the upper bound of the bucket of its p50 and p99; the rest of
            # the clients' latency is their sockets, their own loop and the machine.
            "server_act_p50_ms_at_most": bucket_quantile(answers_before, answers_after, 0.5),
            "server_act_p99_ms_at_most": bucket_quantile(answers_before, answers_after, 0.99),
            # The writer's commits of actions (one process): how many a second, and the
            # upper bounds of their p50 and p99 (an action waits for the commit in
            # progress, then its own).
            "writes_per_s": round(writes / elapsed, 1) if one_process else None,
            "write_p50_ms_at_most": bucket_quantile(writes_before, writes_after, 0.5),
            "write_p99_ms_at_most": bucket_quantile(writes_before, writes_after, 0.99)}


def server_rss_kb(pid: int) -> int:
    """Resident memory of the server: the process and its workers."""
    total = rss_kb(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            total += server_rss_kb(int(child))
    return total


def run_clients(work: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """The clients' event loop: uvloop (a lighter instrument: 400 sockets took 45-46 %
    of a core on it, 54-58 % on Python's loop, and the clients' own queue counts as the
    server's latency), Python's with ``BENCH_CLIENT_LOOP=asyncio``."""
    if os.environ.get("BENCH_CLIENT_LOOP", "uvloop") == "uvloop":
        import uvloop

        return uvloop.run(work)
    return asyncio.run(work)


def main() -> None:
    os.environ.setdefault("REBELOTE_GUESTS_PER_HOUR", "0")  # every client is a guest of 127.0.0.1
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as redis_url:
        if workers > 1 and redis_url is None:
            print(json.dumps({"error": "redis-server is not installed"}))
            return
        port = free_port()
        proc = start_server(port, Path(tmp) / "load.sqlite",
                            redis_url if workers > 1 else None, workers)
        try:
            time.sleep(1.0 if workers > 1 else 0)  # every worker up
            for _ in range(150):  # and the server's worker processes warmed up
                children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
                if workers > 1 or len(children.read_text().split()) >= 4:
                    break
                time.sleep(0.1)
            time.sleep(3.0 if workers == 1 else 0)
            # One process: the tables live in it (its worker processes for bots, hints
            # and the calculator are a fixed cost, shown apart); scale-out: every worker.
            measure = rss_kb if workers == 1 else server_rss_kb
            base = measure(proc.pid)
            servers = [proc.pid] if workers == 1 else [
                int(c) for c in Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
                .read_text().split()]
            result = run_clients(load(port, tables, seconds, servers))
            result["memory_per_table_kb"] = (measure(proc.pid) - base) / tables
            if workers == 1:
                result["worker_processes_mb"] = (server_rss_kb(proc.pid)
                                                 - rss_kb(proc.pid)) / 1024
            result["workers"] = workers
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
