"""A fault soak on loopback: tables played by connected players while the server is
killed (``kill -9``) at random moments and its disk fills up at others; then every
table must replay and no acknowledged action be missing.

The database lives on a small tmpfs of its own (mounting one needs the right to; else
the write failures are left out and the result says so); filling the tmpfs with a file
makes every write fail with a full disk until the file is removed. A player counts an
action as acknowledged when the state that follows shows it: the table's progress
(hands scored, calls, cards played) after it. At the end, a fresh service replays the
database: every table must load (none quarantined), with unique, gap-free sequence
numbers (the store checks, and the soak counts actions stored twice and holes
in the database itself), and reach at least the last acknowledged progress of each
of its players. Prints one JSON line of counts.

``python -m bench.server_faults [SECONDS] [TABLES]``
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.servers import free_port, sign_in_guest, start_server

Progress = tuple[int, int, int]


def progress(state: dict[str, Any]) -> Progress:
    """How far a table has gone: hands scored, calls, cards played in the hand."""
    played = sum(len(t["cards"]) for t in state.get("tricks", []))
    if state.get("trick"):
        played += len(state["trick"]["cards"])
    return (len(state.get("scores", [])), len(state.get("calls", [])), played)


class Client:
    """A player who plays random legal actions at his table as soon as it is his turn
    and, when its game is over, asks for the rematch and plays on there (a game to
    10,000 points lasts a few seconds at this pace)."""

    def __init__(self, cookie: str, rng: random.Random, table: str) -> None:
        self.cookie = cookie
        self.rng = rng
        self.table = table
        self.tables = [table]  # every table he played at, in order
        self.acked: dict[str, Progress] = {}
        self.actions = self.acks = self.storage_errors = self.other_errors = 0
        self.rematches = 0

    async def play(self, port: int, until: float) -> None:
        with contextlib.suppress(Exception):
            async with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5,
                               additional_headers={"Cookie": self.cookie}) as ws:
                await ws.send(json.dumps({"type": "sync", "table": self.table}))
                await self._loop(ws, until)

    async def _loop(self, ws: ClientConnection, until: float) -> None:
        sent_at: Progress | None = None
        asked = False  # the rematch of the current table, on this connection
        while time.perf_counter() < until:
            try:
                raw = await asyncio.wait_for(ws.recv(), until - time.perf_counter())
            except TimeoutError:
                return
            message = json.loads(raw)
            if message["type"] == "error":
                if message["code"] == "storage":
                    self.storage_errors += 1
                else:
                    self.other_errors += 1
                sent_at = None
                asked = False
                await ws.send(json.dumps({"type": "sync", "table": self.table}))
                continue
            if message["type"] != "state" or message.get("table") != self.table:
                continue
            if message.get("winner") is not None:  # over: on to the rematch
                new = message.get("rematch")
                if asked and new:
                    self.table = new
                    self.tables.append(new)
                    self.rematches += 1
                    sent_at, asked = None, False
                    await ws.send(json.dumps({"type": "sync", "table": new}))
                elif not asked:
                    asked = True
                    await ws.send(json.dumps({"type": "rematch", "table": self.table}))
                continue
            if message.get("phase") == "waiting":
                continue
            table = self.table
            now = progress(message)
            if sent_at is not None and now > sent_at:
                self.acks += 1
                self.acked[table] = max(self.acked.get(table, now), now)
                sent_at = None
            if (message.get("turn") == message.get("seat") and message.get("legal")
                    and message.get("winner") is None and sent_at is None):
                sent_at = now
                self.actions += 1
                await ws.send(json.dumps({"type": "act", "table": table,
                                          "action": self.rng.choice(message["legal"])}))


def main() -> None:
    os.environ.setdefault("REBELOTE_GUESTS_PER_HOUR", "0")  # every client is a guest of 127.0.0.1
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rng = random.Random()
    result: dict[str, Any] = {"kills": 0, "disk_full": 0}
    with tempfile.TemporaryDirectory() as tmp:
        disk = Path(tmp) / "disk"
        disk.mkdir()
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs",
                                  str(disk)], capture_output=True).returncode == 0
        result["write_failures"] = "tmpfs full" if mounted else "not available (no mount)"
        db, data = disk / "soak.sqlite", Path(tmp) / "data"
        port = free_port()
        try:
            proc = start_server(port, db, data=data)
            clients: list[Client] = []

            async def setup() -> None:
                for t in range(count):
                    cookies = sign_in_guest(port, f"a{t}"), sign_in_guest(port, f"b{t}")
                    async with connect(f"ws://127.0.0.1:{port}/ws",
                                       additional_headers={"Cookie": cookies[0]}) as ws:
                        await ws.send(json.dumps({"type": "create",
                                                  "options": {"target": 10_000}}))
                        table = json.loads(await ws.recv())["table"]
                        async with connect(f"ws://127.0.0.1:{port}/ws",
                                           additional_headers={"Cookie": cookies[1]}) as wb:
                            await wb.send(json.dumps({"type": "join", "table": table,
                                                      "seat": 2}))
                            await wb.recv()
                        await ws.send(json.dumps({"type": "bots", "table": table,
                                                  "level": "random"}))
                        await ws.recv()
                    clients.extend(Client(cookie, random.Random(rng.random()), table)
                                   for cookie in cookies)

            asyncio.run(setup())
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                phase = rng.uniform(1.0, 4.0)
                until = time.perf_counter() + phase

                async def round_(until: float = until) -> None:
                    async def faults() -> None:
                        if not mounted or rng.random() < 0.4:
                            return
                        await asyncio.sleep(rng.uniform(0.1, max(0.2, until
                                                                 - time.perf_counter() - 0.5)))
                        filler = disk / "filler"
                        with contextlib.suppress(OSError), filler.open("wb") as f:
                            while True:
                                f.write(b"\0" * 65536)
                        result["disk_full"] += 1
                        await asyncio.sleep(rng.uniform(0.2, 0.8))
                        filler.unlink()

                    await asyncio.gather(faults(), *(c.play(port, until) for c in clients))

                asyncio.run(round_())
                with contextlib.suppress(FileNotFoundError):
                    (disk / "filler").unlink()
                with contextlib.suppress(FileNotFoundError):  # the log kept in check
                    wal = (disk / "soak.sqlite-wal").stat().st_size / 1e6
                    result["wal_max_mb"] = round(max(result.get("wal_max_mb", 0), wal), 1)
                proc.send_signal(signal.SIGKILL)  # mid-play: no clean shutdown
                proc.wait(timeout=10)
                result["kills"] += 1
                proc = start_server(port, db, data=data)
            proc.terminate()
            proc.wait(timeout=30)
            from rebelote.server.store import Store
            from rebelote.server.tables import TableService

            service = TableService(Store(f"sqlite:///{db}"))
            with contextlib.closing(sqlite3.connect(db)) as raw:
                # An action stored twice, or a hole: (table, seq) pairs beyond one each.
                duplicated, = raw.execute(
                    "SELECT count(*) - count(DISTINCT table_id || ':' || seq) "
                    "FROM actions").fetchone()
                holes, = raw.execute(
                    "SELECT coalesce(sum(top + 1 - n), 0) FROM (SELECT max(seq) AS top, "
                    "count(DISTINCT seq) AS n FROM actions GROUP BY table_id)").fetchone()
            lost = 0
            played = {table for c in clients for table in c.tables}
            for client in clients:
                for table in client.tables:
                    t = service.tables.get(table)
                    acked = client.acked.get(table)
                    if t is None or acked is None:
                        lost += acked is not None
                        continue
                    view = service.handle(t.creator, {"type": "sync", "table": table})[0][1]
                    lost += progress(view) < acked  # the public progress: any seat's view
            result.update({
                "tables": count, "clients": len(clients), "seconds": seconds,
                "games_played": len(played),
                "rematches_seen": sum(c.rematches for c in clients),
                "actions_sent": sum(c.actions for c in clients),
                "acknowledged": sum(c.acks for c in clients),
                "storage_errors_seen": sum(c.storage_errors for c in clients),
                "other_errors_seen": sum(c.other_errors for c in clients),
                "tables_replayed": len(service.tables),
                "quarantined": len(service.quarantined),
                "acknowledged_lost": lost,
                "actions_stored_twice": duplicated, "action_holes": holes,
                "stored_actions": sum(t.seq for t in service.tables.values())})
        except Exception:
            keep = os.environ.get("SOAK_KEEP")
            if keep:
                import shutil
                shutil.copytree(disk, keep, dirs_exist_ok=True)
            for log in disk.glob("server-*.log"):  # what the server said, before it goes
                print(f"--- {log.name}, last lines:", *log.read_text().splitlines()[-30:],
                      sep="\n", file=sys.stderr)
            raise
        finally:
            with contextlib.suppress(Exception):
                proc.kill()
            if mounted:
                subprocess.run(["umount", "-l", str(disk)], capture_output=True)
    result["ok"] = (result.get("quarantined") == 0 and result.get("acknowledged_lost") == 0
                    and result.get("actions_stored_twice") == 0
                    and result.get("action_holes") == 0
                    and result.get("tables_replayed", 0) >= result.get("games_played", count))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
