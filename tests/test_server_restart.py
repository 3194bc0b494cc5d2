"""Kill the server process mid-hand, start it again: the table resumes, no action lost."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from tests.servers import free_port as _free_port
from tests.servers import sign_in_guest, stop_server
from tests.servers import start_server as _start


async def _dealt(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await ws.recv())
        if message["type"] == "state" and message["phase"] != "waiting":
            return message


def test_a_killed_server_resumes_every_table(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite"
    port = _free_port()
    proc = _start(port, db)
    try:
        cookie = sign_in_guest(port)

        async def play() -> tuple[str, dict[str, Any]]:
            async with connect(f"ws://127.0.0.1:{port}/ws",
                               additional_headers={"Cookie": cookie}) as ws:
                await ws.send(json.dumps({"type": "create", "preset": "classic"}))
                created = json.loads(await ws.recv())
                await ws.send(json.dumps({"type": "bots", "table": created["table"],
                                          "level": "random"}))
                state = await _dealt(ws)
                for _ in range(6):
                    if state["turn"] != 0 or not state["legal"]:
                        break
                    await ws.send(json.dumps({"type": "act", "table": created["table"],
                                              "action": state["legal"][-1]}))
                    state = await _dealt(ws)
                return created["table"], state

        table, before = asyncio.run(play())
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    finally:
        proc.send_signal(signal.SIGKILL)  # no clean shutdown
        proc.wait(timeout=10)
    assert children  # the worker processes (bots, hints, calculator)...
    for _ in range(100):
        if not any(Path(f"/proc/{c}").exists() for c in children):
            break
        time.sleep(0.1)
    assert not any(Path(f"/proc/{c}").exists() for c in children)  # ...go with it
    proc = _start(port, db)
    try:
        async def resync() -> dict[str, Any]:
            async with connect(f"ws://127.0.0.1:{port}/ws",
                               additional_headers={"Cookie": cookie}) as ws:
                await ws.send(json.dumps({"type": "sync", "table": table}))
                return await _dealt(ws)

        after = asyncio.run(resync())
    finally:
        stop_server(proc)
    assert after == before
