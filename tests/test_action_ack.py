"""An action's answer says which action it answers (``id`` echoed: the actor's state
``ack`` with the seq it is stored at, a refusal the ``id``), and the store says who made
each move (``by``): the cluster's check (tests/cluster_play.py) counts from these, not
from guesses. The case it once guessed wrong: a stand-in plays a dropped player's turn
while the player's own move is on its way; the state after the stand-in's move was taken
for the player's acknowledgement (a "lost" action), the stand-in's move for one nobody
sent (a "duplicated" one)."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from rebelote.server.store import Store
from rebelote.server.tables import STAND_IN_AFTER_S, Message, TableService
from tests.cluster_play import SeatClient, check


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _table(tmp_path: Path) -> tuple[TableService, Clock, str, str]:
    """A classic table: player a at seat 0, b at seat 2, random bots; played on until
    it is seat 0's turn (b plays his turns). The service, its clock, the table, its URL."""
    url = f"sqlite:///{tmp_path / 'server.sqlite'}"
    clock = Clock()
    service = TableService(Store(url), seed=3, clock=clock)
    created = service.handle("a", {"type": "create", "preset": "classic"})
    table = next(m["table"] for _p, m in created if m["type"] == "created")
    service.handle("b", {"type": "join", "table": table, "seat": 2})
    service.handle("a", {"type": "bots", "table": table, "level": "random"})
    while (state := _state(service, "b", table))["turn"] != 0:
        service.handle("b", {"type": "act", "table": table, "action": state["legal"][0]})
    return service, clock, table, url


def _state(service: TableService, player: str, table: str) -> Message:
    out = service.handle(player, {"type": "sync", "table": table})
    return next(m for p, m in out if p == player and m["type"] == "state")


def _stored(url: str, table: str) -> dict[int, dict[str, Any]]:
    """The stored moves of ``table``, by seq."""
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT seq, kind, payload FROM actions WHERE table_id = "
                                 ":t ORDER BY seq"), {"t": table}).all()
    engine.dispose()
    return {seq: json.loads(p) for seq, k, p in rows if k == "act"}


def test_an_action_is_answered_by_its_id(tmp_path: Path) -> None:
    """The actor's state names the action it acknowledges and where it is stored; a
    refusal names the action it refuses; a bad id is refused, changing nothing."""
    service, _clock, table, url = _table(tmp_path)
    state = _state(service, "a", table)
    out = service.handle("a", {"type": "act", "table": table, "action": state["legal"][0],
                               "id": 7})
    mine = [m for p, m in out if p == "a" and m["type"] == "state"]
    assert len(mine) == 1 and mine[0]["ack"]["id"] == 7
    # and on the wire: the text the actor is sent carries it, the others' do not
    from rebelote.server.wire import encoded, text_of

    texts = {p: json.loads(text_of(m)) for p, m in encoded(out) if m["type"] == "state"}
    assert texts["a"]["ack"] == mine[0]["ack"] and texts["a"] == mine[0]
    assert all("ack" not in t for p, t in texts.items() if p != "a")
    assert all("ack" not in m for p, m in out if p != "a")  # the actor's own answer only
    stored = _stored(url, table)
    # stored at the seq it names, as his own move
    assert stored[mine[0]["ack"]["seq"]] == {"seat": 0, "action": state["legal"][0]}
    # The random bots' moves are stored as theirs.
    assert {p.get("by") for p in stored.values() if p["seat"] in (1, 3)} == {"bot"}
    assert all("by" not in p for p in stored.values() if p["seat"] in (0, 2))
    # Out of turn: refused, naming the action.
    refused = service.handle("a", {"type": "act", "table": table, "action": "pass",
                                   "id": "x-1"})
    assert [m["type"] for _p, m in refused] == ["error"]
    assert refused[0][1]["id"] == "x-1" and refused[0][1]["code"] == "not_your_turn"
    before = service.tables[table].seq
    for bad in (True, 1.5, "x" * 65, [1]):
        out = service.handle("b", {"type": "act", "table": table, "action": "pass",
                                   "id": bad})
        assert [m["code"] for _p, m in out] == ["bad_message"]
        assert "id" not in out[0][1]
    assert service.tables[table].seq == before


class FakeSocket:
    """The client's side of a WebSocket: what the server sends, queued by the test."""

    def __init__(self) -> None:
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.sent: list[Message] = []

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def recv(self) -> str:
        return await self.inbox.get()

    async def close(self) -> None:
        pass


def test_a_stand_in_move_is_neither_the_player_s_ack_nor_a_duplicate(
        tmp_path: Path) -> None:
    """Seat 0's player is away long enough for a stand-in; back, he sends a move from
    the state he had; the stand-in's move lands first and his is refused. His client
    takes the stand-in's state for no acknowledgement, the refusal for his move's, and
    the check counts the stand-in's move as played for him: nothing lost, nothing
    duplicated."""
    service, clock, table, url = _table(tmp_path)
    before = _state(service, "a", table)  # his turn, as his client last saw it
    service.disconnected("a")
    clock.now += STAND_IN_AFTER_S + 1
    moved = service.tick()  # the stand-in plays seat 0 (the bots on to seat 2)
    after = next(m for p, m in moved if p == "a" and m["type"] == "state")
    assert after["turn"] != 0
    stand_in = [p for p in _stored(url, table).values() if p["seat"] == 0][-1]
    service.reconnected("a")

    async def play() -> SeatClient:
        socket = FakeSocket()
        # His client chooses a move the stand-in did not make, so the old guess shows.
        legal = [a for a in before["legal"] if a != stand_in["action"]]
        before["legal"] = legal
        client = SeatClient("http://127.0.0.1:1", "", table, 0, random.Random(1))
        stop = asyncio.Event()
        await socket.inbox.put(json.dumps(before))
        task = asyncio.create_task(client._play(socket, stop))  # type: ignore[arg-type]
        while not any(m["type"] == "act" for m in socket.sent):
            await asyncio.sleep(0.01)
        act = next(m for m in socket.sent if m["type"] == "act")
        await socket.inbox.put(json.dumps(after))  # the stand-in's move reaches him first
        answer = service.handle("a", act)  # then his own move reaches the server
        for _p, m in answer:
            await socket.inbox.put(json.dumps(m))
        while client.log[-1].status != "refused":
            await asyncio.sleep(0.01)
        stop.set()
        await socket.inbox.put(json.dumps(after))
        await task
        return client

    client = asyncio.run(play())
    assert [s.status for s in client.log] == ["refused"] and client.acked == 0
    result = check(url, [client])
    assert result["lost"] == 0 and result["duplicated"] == 0, result
    assert result["played_for"] == 1, result
    assert stand_in["seat"] == 0 and stand_in["by"] == "stand_in"
