"""The scale-out mode: two server processes sharing one database and one Redis.

A player on each process plays at one table; the process that runs the table is killed
mid-hand, the other takes the table over from the database and play goes on. Needs the
``redis-server`` program (``.ci/run`` installs it); each test starts one of its own.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.servers import free_port as _free_port
from tests.servers import sign_in_guest, start_server, stop_server


def _lobby(port: int) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=5) as resp:
        tables: list[dict[str, Any]] = json.loads(resp.read())
        return tables


async def _next(ws: ClientConnection, kind: str, timeout: float = 10) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if message["type"] == kind:
            return message


async def _latest_state(ws: ClientConnection) -> dict[str, Any]:
    """The last state sent so far (after waiting for at least one)."""
    state = await _next(ws, "state")
    while True:
        try:
            message = json.loads(await asyncio.wait_for(ws.recv(), 0.3))
        except TimeoutError:
            return state
        if message["type"] == "state":
            state = message


@pytest.fixture
def two_servers(tmp_path: Path, redis_url: str) -> Iterator[tuple[list[int],
                                                               list[subprocess.Popen[bytes]]]]:
    db = tmp_path / "server.sqlite"
    ports = [_free_port(), _free_port()]
    procs = [start_server(ports[0], db, redis_url)]  # the first one migrates the database
    procs.append(start_server(ports[1], db, redis_url))
    try:
        yield ports, procs
    finally:
        faults = []
        for proc in procs:  # each one stopped, even after one that would not stop
            try:
                stop_server(proc)
            except AssertionError as fault:
                faults.append(fault)
        if faults:
            raise faults[0]


def test_players_on_two_processes_share_a_table_which_survives_its_owner(
        two_servers: tuple[list[int], list[subprocess.Popen[bytes]]]) -> None:
    ports, procs = two_servers
    ana, bo = sign_in_guest(ports[0], "Ana"), sign_in_guest(ports[1], "Bo")

    async def scenario() -> None:
        async with connect(f"ws://127.0.0.1:{ports[0]}/ws",
                           additional_headers={"Cookie": ana}) as ws_a, \
                connect(f"ws://127.0.0.1:{ports[1]}/ws",
                        additional_headers={"Cookie": bo}) as ws_b:
            await ws_a.send(json.dumps({"type": "create", "preset": "classic"}))
            table = (await _next(ws_a, "created"))["table"]
            # The lobby of the other process lists the table.
            assert any(t["table"] == table for t in _lobby(ports[1]))
            await ws_b.send(json.dumps({"type": "join", "table": table, "seat": 2}))
            joined = await _next(ws_b, "state")
            assert joined["seat"] == 2 and joined["seats"][0] == "Ana"
            # A refused message passed on to the owner comes back to its sender only.
            await ws_b.send(json.dumps({"type": "bots", "table": table, "level": "random"}))
            assert (await _next(ws_b, "error"))["code"] == "not_creator"
            await ws_a.send(json.dumps({"type": "bots", "table": table, "level": "random"}))
            sockets = {0: ws_a, 2: ws_b}
            states = {0: await _latest_state(ws_a), 2: await _latest_state(ws_b)}
            for seat, state in states.items():
                assert state["seat"] == seat and len(state["hand"]) >= 5
            assert set(states[0]["hand"]).isdisjoint(states[2]["hand"])

            async def play(moves: int) -> None:
                for _ in range(moves):
                    turn = states[0]["turn"]
                    if turn not in sockets or states[0]["winner"] is not None:
                        return
                    legal = states[turn]["legal"]
                    await sockets[turn].send(json.dumps({"type": "act", "table": table,
                                                         "action": legal[0]}))
                    states[0] = await _latest_state(ws_a)
                    states[2] = await _latest_state(ws_b)
                    assert states[0]["trick"] == states[2]["trick"]

            await play(4)
            before = states[2]
            # Kill the process that runs the table (the creator's); Bo's process takes over.
            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait(timeout=10)
            await ws_b.send(json.dumps({"type": "sync", "table": table}))
            after = await _next(ws_b, "state")
            assert {k: v for k, v in after.items() if k != "seats"} == {
                k: v for k, v in before.items() if k != "seats"}
            # Ana comes back through the surviving process and finds her seat and hand.
            async with connect(f"ws://127.0.0.1:{ports[1]}/ws",
                               additional_headers={"Cookie": ana}) as ws_a2:
                await ws_a2.send(json.dumps({"type": "sync", "table": table}))
                again = await _next(ws_a2, "state")
                assert again["seat"] == 0 and again["hand"] == states[0]["hand"]
                sockets[0] = ws_a2
                ws_a = ws_a2
                states[0] = again
                seq_before = len(again["calls"]) + sum(len(t["cards"]) for t in again["tricks"])
                await play(6)
                seq_after = (len(states[0]["calls"])
                             + sum(len(t["cards"]) for t in states[0]["tricks"]))
                assert seq_after > seq_before  # play went on at the adopted table

    asyncio.run(scenario())


def test_the_pushed_lobby_lists_every_process_tables(
        two_servers: tuple[list[int], list[subprocess.Popen[bytes]]]) -> None:
    """Cy looks at the lobby through process 1; Ana creates a table there, Bo one on
    process 2: the lobby pushed to Cy lists both (as GET /api/tables does), and each
    player's "my tables" names his own tables whichever process runs them."""
    ports, _procs = two_servers
    ana, bo, cy = (sign_in_guest(ports[0], "Ana"), sign_in_guest(ports[1], "Bo"),
                   sign_in_guest(ports[0], "Cy"))

    def ws(port: int, cookie: str) -> Any:
        return connect(f"ws://127.0.0.1:{port}/ws", additional_headers={"Cookie": cookie})

    async def pushed(sock: ClientConnection, tables: set[str]) -> dict[str, Any]:
        """The first lobby pushed to ``sock`` that lists ``tables``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            lobby = await _next(sock, "lobby", timeout=max(0.1, deadline - loop.time()))
            if tables <= {t["table"] for t in lobby["tables"]}:
                return lobby

    async def scenario() -> None:
        async with ws(ports[0], cy) as ws_c, ws(ports[0], ana) as ws_a, \
                ws(ports[1], bo) as ws_b:
            await ws_c.send(json.dumps({"type": "lobby"}))
            assert (await _next(ws_c, "lobby"))["tables"] == []
            await ws_a.send(json.dumps({"type": "create", "preset": "classic",
                                        "options": {}}))
            first = (await _next(ws_a, "created"))["table"]
            await ws_b.send(json.dumps({"type": "create", "preset": "contree",
                                        "options": {}}))
            second = (await _next(ws_b, "created"))["table"]
            await ws_b.send(json.dumps({"type": "create", "preset": "classic",
                                        "options": {"private": True}}))
            hidden = (await _next(ws_b, "created"))
            lobby = await pushed(ws_c, {first, second})  # pushed, no request
            listed = {t["table"]: t for t in lobby["tables"]}
            assert set(listed) == {first, second}  # the private table is not listed
            assert listed[first]["seats"][0] == "Ana" and listed[second]["seats"][0] == "Bo"
            assert lobby["mine"] == []
            assert sorted(t["table"] for t in _lobby(ports[0])) == sorted(listed)
            # "My tables", asked through the other process than the one running them.
            async with ws(ports[0], bo) as ws_b1:
                await ws_b1.send(json.dumps({"type": "lobby"}))
                mine = {t["table"]: t for t in (await _next(ws_b1, "lobby"))["mine"]}
                assert set(mine) == {second, hidden["table"]}
                assert mine[hidden["table"]]["invite"] == hidden["invite"]
                assert mine[second]["seat"] == 0
            await ws_a.send(json.dumps({"type": "lobby"}))
            lobby = await _next(ws_a, "lobby")
            assert {t["table"] for t in lobby["tables"]} == {first, second}
            assert [t["table"] for t in lobby["mine"]] == [first]
            # Bo, through process 2, sits at Ana's table (run by process 1): Cy hears it.
            await ws_b.send(json.dumps({"type": "join", "table": first, "seat": 2}))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 10
            while True:
                lobby = await pushed(ws_c, {first, second})
                if {t["table"]: t for t in lobby["tables"]}[first]["seats"][2] == "Bo":
                    break
                assert loop.time() < deadline

    asyncio.run(scenario())


def test_several_workers_on_one_port(tmp_path: Path, redis_url: str) -> None:
    """``rebelote serve --workers 2 --redis URL``: a table played through the port the
    two processes share (connections land on either)."""
    port = _free_port()
    proc = start_server(port, tmp_path / "w.sqlite", redis_url, workers=2)
    try:
        cookie = sign_in_guest(port, "Ana")

        async def play() -> dict[str, Any]:
            async with connect(f"ws://127.0.0.1:{port}/ws",
                               additional_headers={"Cookie": cookie}) as ws:
                await ws.send(json.dumps({"type": "create", "preset": "contree"}))
                table = (await _next(ws, "created"))["table"]
                await ws.send(json.dumps({"type": "bots", "table": table, "level": "random"}))
                state = await _latest_state(ws)
                for _ in range(5):
                    if state["turn"] != 0:
                        break
                    await ws.send(json.dumps({"type": "act", "table": table,
                                              "action": state["legal"][0]}))
                    state = await _latest_state(ws)
            assert any(t["table"] == table for t in _lobby(port))
            return state

        state = asyncio.run(play())
        assert state["seat"] == 0 and state["phase"] in ("auction", "play")
    finally:
        stop_server(proc)


def test_several_workers_need_redis(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "rebelote", "serve", "--workers", "2",
                           "--database", f"sqlite:///{tmp_path / 'x.sqlite'}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--redis" in done.stderr


def _post(port: int, path: str, body: dict[str, Any], cookie: str | None = None
          ) -> tuple[int, str | None]:
    """POST JSON: the status and the session cookie it set, if any."""
    headers = {"content-type": "application/json"}
    if cookie:
        headers["cookie"] = cookie
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers,
                                 data=json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            set_cookie = resp.headers.get("set-cookie")
            return resp.status, set_cookie.split(";")[0] if set_cookie else None
    except urllib.error.HTTPError as exc:
        return exc.code, None


def _me(port: int, cookie: str) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/me", headers={"cookie": cookie})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_sessions_ended_on_one_process_end_on_the_other_at_once(
        two_servers: tuple[list[int], list[subprocess.Popen[bytes]]]) -> None:
    """A new password on one process logs out the account's other browser, whose socket
    and cached session are on the other process (they stayed open there, and its cookie
    worked there for 5 s more); log out everywhere the same, the kept browser's too."""
    from websockets.exceptions import ConnectionClosed

    ports, _procs = two_servers
    status, here = _post(ports[0], "/api/register", {"name": "Iris",
                                                     "password": "tapis vert 42"})
    assert status == 200 and here
    status, there = _post(ports[1], "/api/login", {"name": "Iris",
                                                   "password": "tapis vert 42"})
    assert status == 200 and there
    assert _me(ports[1], there) == 200  # its session now in process 1's cache

    async def closed(ws: ClientConnection) -> int:
        with pytest.raises(ConnectionClosed) as info:
            while True:
                await asyncio.wait_for(ws.recv(), 5)
        assert info.value.rcvd is not None
        return info.value.rcvd.code

    async def scenario() -> None:
        async with connect(f"ws://127.0.0.1:{ports[1]}/ws",
                           additional_headers={"Cookie": there}) as theirs, \
                connect(f"ws://127.0.0.1:{ports[1]}/ws",
                        additional_headers={"Cookie": here}) as mine:
            for ws in (theirs, mine):
                await ws.send(json.dumps({"type": "lobby"}))
                await _next(ws, "lobby")
            status, _ = _post(ports[0], "/api/password", {"password": "tapis vert 42",
                                                          "new": "tapis vert 43"}, here)
            assert status == 200
            assert await closed(theirs) == 4401
            assert _me(ports[1], there) == 401  # not after the cache's 5 s
            await mine.send(json.dumps({"type": "lobby"}))
            assert (await _next(mine, "lobby"))["type"] == "lobby"  # the kept one
            assert _post(ports[0], "/api/logout", {"everywhere": True}, here)[0] == 200
            assert await closed(mine) == 4401

    asyncio.run(scenario())
