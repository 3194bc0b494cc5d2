"""Responsiveness of one server process while others make it work, on loopback.

Two runs of a fresh server: *quiet* (nobody else) and *busy*: 100 tables where a
connected player plays beside three expert bots, 10 players asking a hint at each of
their turns, 2 clients sending wrong passwords without pause, 1 client posting a
20,000-hand score sheet again and again. Meanwhile a probe (its own process) asks
``GET /api/tables`` and the ``sync`` of an idle table every 50 ms. Prints one JSON
line: for each run, the p99 and max of both (goal p99 <= 50 ms) and the event loop's
largest stall as the server measured it (goal <= 20 ms).

``python -m bench.server_responsiveness [SECONDS]``
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.servers import free_port, sign_in_guest, start_server

EXPERT_TABLES = 100
HINT_PLAYERS = 10
PASSWORD_CLIENTS = 2
SHEET_HANDS = 20_000


def _post(port: int, path: str, body: Any) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:  # no answer in time
        return 0


async def _player(ws: ClientConnection, table: str, rng: random.Random, hints: bool,
                  deadline: float, counts: dict[str, int]) -> None:
    """Plays a random legal action at each turn (after asking a hint, if ``hints``)."""
    while time.perf_counter() < deadline:
        try:
            raw = await asyncio.wait_for(ws.recv(),
                                         timeout=max(0.01, deadline - time.perf_counter()))
        except (TimeoutError, Exception):
            return
        message = json.loads(raw)
        if message["type"] == "hint":
            counts["hints"] += 1
            continue
        if message["type"] != "state" or message.get("table") != table:
            continue
        if message.get("turn") == message.get("seat") and message.get("legal"):
            if hints:
                await ws.send(json.dumps({"type": "hint", "table": table}))
            await ws.send(json.dumps({"type": "act", "table": table,
                                      "action": rng.choice(message["legal"])}))
            counts["actions"] += 1


async def _table(port: int, name: str, level: str) -> tuple[ClientConnection, str]:
    ws = await connect(f"ws://127.0.0.1:{port}/ws",
                       additional_headers={"Cookie": sign_in_guest(port, name)})
    await ws.send(json.dumps({"type": "create", "options": {"target": 10_000}}))
    table = json.loads(await ws.recv())["table"]
    await ws.recv()
    await ws.send(json.dumps({"type": "bots", "table": table, "level": level}))
    return ws, table


async def busy(port: int, seconds: float) -> dict[str, int]:
    """The busy clients, for ``seconds``."""
    counts = {"actions": 0, "hints": 0, "logins": 0, "sheets": 0}
    rng = random.Random()
    players = [await _table(port, f"x{i}", "expert") for i in range(EXPERT_TABLES)]
    hinted = [await _table(port, f"h{i}", "random") for i in range(HINT_PLAYERS)]
    _post(port, "/api/register", {"name": "victim", "password": "a long phrase 1"})
    deadline = time.perf_counter() + seconds
    loop = asyncio.get_running_loop()

    def passwords() -> None:
        while time.perf_counter() < deadline:
            status = _post(port, "/api/login", {"name": "victim", "password": "wrong guess"})
            counts["logins"] += 1
            counts[f"login_{status}"] = counts.get(f"login_{status}", 0) + 1

    sheet = {"rules": {"preset": "classic", "target": 10**9},
             "hands": [{"taker": rng.randrange(2), "points": rng.randrange(82, 163)}
                       for _ in range(SHEET_HANDS)]}

    def sheets() -> None:
        while time.perf_counter() < deadline:
            status = _post(port, "/api/score/game", sheet)
            counts["sheets"] += 1
            counts[f"sheet_{status}"] = counts.get(f"sheet_{status}", 0) + 1

    jobs = [loop.run_in_executor(None, passwords) for _ in range(PASSWORD_CLIENTS)]
    jobs.append(loop.run_in_executor(None, sheets))
    await asyncio.gather(*(_player(ws, t, random.Random(rng.random()), False, deadline, counts)
                           for ws, t in players),
                         *(_player(ws, t, random.Random(rng.random()), True, deadline, counts)
                           for ws, t in hinted), *jobs)
    return counts


async def probe(port: int, seconds: float) -> dict[str, Any]:
    """GET /api/tables and an idle table's sync every 50 ms: their latencies."""
    ws = await connect(f"ws://127.0.0.1:{port}/ws",
                       additional_headers={"Cookie": sign_in_guest(port, "probe")})
    await ws.send(json.dumps({"type": "create"}))
    table = json.loads(await ws.recv())["table"]
    await ws.recv()
    loop = asyncio.get_running_loop()

    def lobby_ms() -> float:
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=30) as r:
            r.read()
        return (time.perf_counter() - t0) * 1e3

    lobby, sync = [], []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        lobby.append(await loop.run_in_executor(None, lobby_ms))
        t0 = time.perf_counter()
        await ws.send(json.dumps({"type": "sync", "table": table}))
        await ws.recv()
        sync.append((time.perf_counter() - t0) * 1e3)
        await asyncio.sleep(0.05)
    await ws.close()

    def p99(xs: list[float]) -> float:
        xs = sorted(xs)
        return round(xs[int(0.99 * (len(xs) - 1))], 1)

    return {"lobby_p99_ms": p99(lobby), "lobby_max_ms": round(max(lobby), 1),
            "sync_p99_ms": p99(sync), "sync_max_ms": round(max(sync), 1),
            "samples": len(lobby)}


def run(seconds: float, loaded: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        report = Path(tmp) / "loop.json"
        proc = start_server(port, Path(tmp) / "r.sqlite", env={"REBELOTE_LOOP_REPORT":
                                                               str(report)})
        load = None
        try:
            if loaded:
                # The busy clients stand for other machines: they yield the CPU to
                # the server and the probe (nice 5) on this shared one.
                load = subprocess.Popen(["nice", "-n", "5", sys.executable, "-m",
                                         "bench.server_responsiveness", "--busy", str(port),
                                         str(seconds + 25)], stdout=subprocess.PIPE, text=True)
                time.sleep(20)  # its 110 tables set up and playing
            else:
                time.sleep(8)  # the worker processes warmed up (the kernels loaded)
            since = time.time()
            result = asyncio.run(probe(port, seconds))
            until = time.time()
            if load is not None:
                out, _ = load.communicate(timeout=120)
                result["load"] = json.loads(out.strip().splitlines()[-1])
        finally:
            if load is not None and load.poll() is None:
                load.kill()
            proc.terminate()
            proc.wait(timeout=30)
        if report.exists():  # the stalls while the probe ran
            watch = json.loads(report.read_text())
            timed = [(ms, cpu) for at, ms, cpu in watch["stalls"] if since <= at <= until]
            stalls = [ms for ms, _ in timed]
            result["longest_gc_ms"] = watch["longest_gc_ms"]
            result["longest_gc"] = watch.get("longest_gc")
            result["longest_commit_ms"] = watch["longest_ms"].get("commit")
            result["largest_stall_ms"] = round(max(stalls, default=0.0), 1)
            result["stalls_over_20ms"] = sum(ms > 20 for ms in stalls)
            # the loop thread's own CPU in them: a stall with little of it waited for
            # the GIL or for a core (the machine), one with as much ran something
            result["largest_stall_cpu_ms"] = max((cpu for _, cpu in timed), default=0.0)
            result["stalls_over_20ms_running"] = sum(ms > 20 and cpu > ms / 2
                                                     for ms, cpu in timed)
            result["slow_callbacks"] = watch.get("slow_callbacks", [])[:8]
            result["busiest_callbacks"] = watch.get("busiest_callbacks", [])[:8]
        return result


def main() -> None:
    os.environ.setdefault("REBELOTE_GUESTS_PER_HOUR", "0")  # every client is a guest of 127.0.0.1
    if len(sys.argv) > 1 and sys.argv[1] == "--busy":
        print(json.dumps(asyncio.run(busy(int(sys.argv[2]), float(sys.argv[3])))))
        return
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 15.0
    print(json.dumps({"quiet": run(seconds, False), "busy": run(seconds, True)}))


if __name__ == "__main__":
    main()
