"""Players for the cluster's tests and bench: each seat a WebSocket client through the
balancer that plays random legal actions, reconnects whenever its socket drops, and
keeps a log of what it sent and whether it was acknowledged; and the check of that log
against the database (no acknowledged action lost, none applied twice).

Each action is sent with an ``id``; the server's answer says which: the actor's state
after it carries ``"ack": {"id", "seq"}`` (stored at that seq), a refusal the ``id``.
An action is acknowledged only by its ack (a state past its position may be a stand-in's
move, or the answer to an earlier message read late), and the store says who made each
move (``by``: a bot, a stand-in, the turn timer; absent for the player's own)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import create_engine, text
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

LOST_AFTER_S = 8.0
"""An action unanswered this long, the table still waiting for it, was lost on its way
(passed on to an owner that died before handling it): the client plays again."""
Position = tuple[int, int]
"""(hand, action within the hand): where an action stands in a table's game."""


def position(state: dict[str, Any]) -> Position:
    trick = state.get("trick") or {"cards": []}
    return (len(state.get("scores") or []),
            len(state.get("calls") or []) + sum(len(t["cards"]) for t in state.get("tricks") or [])
            + len(trick["cards"]))


def guest(base: str, nickname: str) -> str:
    """A guest's session cookie, signed in through ``base`` (http://host:port)."""
    req = urllib.request.Request(f"{base}/api/guest",
                                 data=json.dumps({"nickname": nickname}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        cookie: str = resp.headers["set-cookie"].split(";")[0]
        return cookie


@dataclass
class Sent:
    position: Position
    action: str
    status: str = "pending"
    """``acked`` (its ack came), ``refused`` (an error naming it came), ``uncertain``
    (neither, and the client went on: the socket lost, a wait given up, the table moved
    on, an error that names no action): stored or not, the check decides."""
    at: float = 0.0
    sent_at: float = 0.0
    """When it was sent (time.monotonic(), as ``acks_at``)."""
    id: int = 0
    seq: int | None = None
    """Where the server says it stored it (from its ack)."""


@dataclass
class SeatClient:
    """One seated player."""

    base: str
    cookie: str
    table: str
    seat: int
    rng: random.Random
    log: list[Sent] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    unavailable: int = 0
    reconnects: int = 0
    acks_at: list[float] = field(default_factory=list)
    acks: list[tuple[float, float]] = field(default_factory=list)
    """(sent, acknowledged) of each acknowledged action (time.monotonic())."""
    dropped_at: list[float] = field(default_factory=list)
    """When each socket was found closed (time.monotonic())."""
    opened_at: list[float] = field(default_factory=list)
    """When each reconnection's socket opened."""
    states_at: list[float] = field(default_factory=list)
    """When the first state came on each socket."""
    connecting: list[tuple[float, float]] = field(default_factory=list)
    """(when, how long) of each reconnection's opening handshake through the balancer."""
    refused: list[float] = field(default_factory=list)
    """When each reconnection attempt failed (refused, timed out, an HTTP error)."""
    finished: bool = False
    last_state: dict[str, Any] | None = None
    first: ClientConnection | None = None
    """The socket the table was opened with (kept open: a player who drops is played
    for by a bot after 10 s)."""

    @property
    def acked(self) -> int:
        return sum(1 for s in self.log if s.status == "acked")

    async def run(self, stop: asyncio.Event) -> None:
        """Play until ``stop`` is set or the game is over."""
        url = self.base.replace("http://", "ws://") + "/ws"
        while not stop.is_set() and not self.finished:
            try:
                if self.first is not None:
                    ws, self.first = self.first, None
                else:
                    began = time.monotonic()
                    try:
                        ws = await connect(url, additional_headers={"Cookie": self.cookie},
                                           open_timeout=10, close_timeout=1)
                    except (OSError, WebSocketException, TimeoutError):
                        self.refused.append(time.monotonic())
                        raise
                    self.opened_at.append(time.monotonic())
                    self.connecting.append((began, self.opened_at[-1] - began))
                try:
                    await self._play(ws, stop)
                finally:
                    await ws.close()
            except (OSError, WebSocketException, TimeoutError):
                pass
            if not stop.is_set():
                self.dropped_at.append(time.monotonic())
            if self.log and self.log[-1].status == "pending":
                self.log[-1].status = "uncertain"
            if not stop.is_set() and not self.finished:
                self.reconnects += 1
                await asyncio.sleep(0.2 + self.rng.random() * 0.3)

    async def _play(self, ws: ClientConnection, stop: asyncio.Event) -> None:
        await ws.send(json.dumps({"type": "sync", "table": self.table}))
        quiet = 0
        first_state = False
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 2.0)
            except TimeoutError:
                quiet += 1
                pending = self.log[-1] if self.log and self.log[-1].status == "pending" \
                    else None
                if pending is not None and (quiet >= 5 or time.perf_counter() - pending.at
                                            >= LOST_AFTER_S):  # lost on its way?
                    pending.status = "uncertain"  # its ack, if it comes, says otherwise
                await ws.send(json.dumps({"type": "sync", "table": self.table}))
                continue
            quiet = 0
            message = orjson.loads(raw)  # the clients' main cost: orjson keeps it light
            if not first_state and message["type"] == "state":
                first_state = True
                self.states_at.append(time.monotonic())
            last = self.log[-1] if self.log else None
            if message["type"] == "error":
                named = self._sent(message.get("id"))
                if named is not None and named.status != "acked":
                    named.status = "refused"  # the server says so
                elif named is None and last is not None and last.status == "pending":
                    last.status = "uncertain"  # an error naming no action (interrupted…)
                if message.get("code") in ("unavailable", "storage"):  # try again
                    self.unavailable += 1
                    await asyncio.sleep(0.3)
                await ws.send(json.dumps({"type": "sync", "table": self.table}))
                continue
            if message["type"] != "state" or message.get("table") != self.table:
                continue
            self.last_state = message
            now = position(message)
            ack = message.get("ack") or {}
            acked = self._sent(ack.get("id"))
            if acked is not None and acked.status != "acked":
                acked.status, acked.seq = "acked", ack.get("seq")
                self.latencies.append(time.perf_counter() - acked.at)
                self.acks_at.append(time.monotonic())
                self.acks.append((acked.sent_at, self.acks_at[-1]))
            if last is not None and last.status == "pending" and now > last.position:
                last.status = "uncertain"  # the table moved on without its ack
            if message.get("winner") is not None:
                self.finished = True
                return
            if message.get("turn") != self.seat or not message.get("legal"):
                continue
            if last is not None and last.status == "pending":
                if last.position != now or time.perf_counter() - last.at < LOST_AFTER_S:
                    continue
                last.status = "uncertain"  # our turn there still, long after: lost?
            action = self.rng.choice(message["legal"])
            self.log.append(Sent(now, action, "pending", time.perf_counter(),
                                 time.monotonic(), len(self.log) + 1))
            await ws.send(json.dumps({"type": "act", "table": self.table, "action": action,
                                      "id": len(self.log)}))

    def _sent(self, ident: Any) -> Sent | None:
        """The action sent with ``ident`` (ids are 1, 2, 3... in the log's order)."""
        if isinstance(ident, int) and 1 <= ident <= len(self.log):
            return self.log[ident - 1]
        return None


async def open_table(base: str, index: int, rng: random.Random,
                     target: int = 10_000) -> list[SeatClient]:
    """A table with two players (seats 0 and 2) and two random bots."""
    url = base.replace("http://", "ws://") + "/ws"
    a, b = guest(base, f"a{index}"), guest(base, f"b{index}")
    ws_a = await connect(url, additional_headers={"Cookie": a}, open_timeout=30)
    ws_b = await connect(url, additional_headers={"Cookie": b}, open_timeout=30)
    try:
        await ws_a.send(json.dumps({"type": "create", "preset": "classic",
                                    "options": {"target": target}}))
        table = await _expect(ws_a, "created")
        await ws_b.send(json.dumps({"type": "join", "table": table["table"], "seat": 2}))
        await _expect(ws_b, "state")
        await ws_a.send(json.dumps({"type": "bots", "table": table["table"],
                                    "level": "random"}))
        await _expect(ws_a, "state")
    except BaseException:
        await ws_a.close()
        await ws_b.close()
        raise
    return [SeatClient(base, a, table["table"], 0, random.Random(rng.random()), first=ws_a),
            SeatClient(base, b, table["table"], 2, random.Random(rng.random()), first=ws_b)]


async def _expect(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if message["type"] == kind:
            return message
        if message["type"] == "error":
            raise AssertionError(f"refused: {message}")


def check(database_url: str, clients: list[SeatClient]) -> dict[str, int]:
    """Each client's log against the stored actions: ``lost`` (acknowledged, and the
    store holds no move of the player's own with that action at the seq its ack named),
    ``duplicated`` (a move stored as the player's own that no action of his accounts
    for: not acknowledged there, and no unanswered one with that action in that hand:
    applied twice, or by nobody's will), ``gaps`` (a table's stored sequence numbers not
    0, 1, 2...), ``played_for`` (moves made for a player's seat by a stand-in or the
    turn timer: his own were refused or came late), and counts."""
    engine = create_engine(database_url)
    stored: dict[str, dict[int, tuple[int, int, str, str | None]]] = {}
    gaps = 0
    with engine.connect() as conn:
        for table in {c.table for c in clients}:
            rows = conn.execute(text("SELECT seq, kind, payload FROM actions WHERE table_id = "
                                     ":t ORDER BY seq"), {"t": table}).all()
            gaps += [r[0] for r in rows] != list(range(len(rows)))
            hand, at = -1, {}
            for seq, kind, payload in rows:
                if kind == "deal":
                    hand += 1
                elif kind == "act":
                    data = json.loads(payload)
                    at[seq] = (hand, data["seat"], data["action"], data.get("by"))
            stored[table] = at
    engine.dispose()
    lost = duplicated = played_for = 0
    for client in clients:
        at = stored[client.table]
        acked = {s.seq: s for s in client.log if s.status == "acked"}
        lost += sum(1 for s in client.log if s.status == "acked") - len(acked)  # one seq
        # acknowledged twice: one of them is not stored there
        for sent in acked.values():
            got = at.get(sent.seq) if sent.seq is not None else None
            if got is None or got[1:] != (client.seat, sent.action, None):
                lost += 1
                print(f"lost? table {client.table} seat {client.seat} at {sent.position}: "
                      f"sent {sent.action}, acknowledged at seq {sent.seq}, stored {got}",
                      file=sys.stderr)
        open_ = [s for s in client.log if s.status in ("uncertain", "pending")]
        for seq, (hand, seat, action, by) in sorted(at.items()):
            if seat != client.seat or seq in acked:
                continue
            if by is not None:
                played_for += by != "bot"
                continue
            match = next((s for s in open_ if s.action == action and s.position[0] == hand),
                         None)
            if match is not None:  # an unanswered action of his, applied
                open_.remove(match)
                continue
            duplicated += 1
            near = [(s.position, s.action, s.status, s.seq) for s in client.log
                    if s.position[0] == hand]
            print(f"duplicated? table {client.table} seat {client.seat} seq {seq} (hand "
                  f"{hand}): {action}; sent in that hand {near}", file=sys.stderr)
    return {"acked": sum(c.acked for c in clients), "lost": lost, "duplicated": duplicated,
            "gaps": gaps, "played_for": played_for,
            "uncertain": sum(1 for c in clients for s in c.log if s.status == "uncertain"),
            "unavailable": sum(c.unavailable for c in clients),
            "reconnects": sum(c.reconnects for c in clients)}


async def play_until(clients: list[SeatClient], stop: asyncio.Event) -> asyncio.Task[Any]:
    """Every client playing (a task to await after ``stop`` is set)."""
    return asyncio.ensure_future(asyncio.gather(*(c.run(stop) for c in clients)))


async def wait_for_acks(clients: list[SeatClient], more: int, timeout: float) -> bool:
    """Until every table has ``more`` acknowledged actions beyond its count now."""
    start = {c.table: 0 for c in clients}
    for c in clients:
        start[c.table] += c.acked
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = {c.table: 0 for c in clients}
        for c in clients:
            now[c.table] += c.acked
        if all(now[t] - start[t] >= more for t in now):
            return True
        await asyncio.sleep(0.1)
    return False


def busiest(cluster: Any, owned: dict[str, str | None]) -> int:
    """The index of the server process that runs the most of the tables ``owned``."""
    counts = [sum(1 for o in owned.values() if o and o.startswith(cluster.server_name(i) + "-"))
              for i in range(cluster.count)]
    return counts.index(max(counts))


def owners(redis_url: str, tables: list[str]) -> dict[str, str | None]:
    """Which process runs each table (from Redis)."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    with contextlib.closing(client):
        return {t: client.get(f"rebelote:owner:{t}") for t in tables}  # type: ignore[misc]
