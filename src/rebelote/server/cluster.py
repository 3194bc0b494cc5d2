"""The scale-out mode: several server processes (on one machine or many) behind one
address, sharing one database (PostgreSQL, or SQLite on one machine) and one Redis.

Each table is run by exactly one process, its *owner*, which alone applies its actions
(the Redis key ``rebelote:owner:{table}``, set only if absent and kept alive while the
process lives; the database's unique (table, seq) index refuses a second writer). A
player's WebSocket may land on any process:

- a message for a table this process owns is handled here; any other is published on
  the owner's channel ``rebelote:worker:{id}``; if nobody listens there (the owner
  died) this process takes the table over, rebuilding it from the database;
- every answer goes to the recipient's sockets here and is published on the
  recipient's channel ``rebelote:player:{id}``, which the processes holding that
  player's other sockets subscribe to;
- presence (how many sockets a player has open, per live process) is kept in Redis, so
  the owner of a table knows when a seated player dropped, whichever process he used;
- the lobby is the Redis hash ``rebelote:lobby`` that owners keep current.

Nothing here knows the game: messages go through :class:`TableService` unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from redis import asyncio as aioredis

from rebelote.server.tables import STORAGE_ERROR, Message, StorageFailure, TableService

log = logging.getLogger(__name__)
PREFIX = "rebelote:"
OWNER_TTL_S = 15
"""An owner that stops renewing its tables loses them after this long."""
RENEW_S = 5.0
TICK_S = 1.0

# Renew a key only if it still holds our id; delete a key only if it holds a given id.
_RENEW = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('expire', KEYS[1], ARGV[2]) else return 0 end"""
_DELETE_IF = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1]) else return 0 end"""

Sender = Callable[[str, str], Awaitable[None]]
"""Sends a JSON text to a player's sockets in this process."""


class Cluster:
    """This process's part in the scale-out mode."""

    def __init__(self, service: TableService, redis_url: str, send_local: Sender,
                 worker_id: str | None = None,
                 commit: Callable[[], Awaitable[StorageFailure | None]] | None = None,
                 kick: Callable[[], None] | None = None) -> None:
        self.service = service
        self.commit = commit
        """Commits what the service handled (the web layer's group commit); without
        it, each message is committed on its own."""
        self.kick = kick or (lambda: None)
        """Starts the bots whose turn it is (the web layer's off-loop bot runner)."""
        # A bounded pool that makes callers wait rather than fail under load.
        self.redis = aioredis.Redis(connection_pool=aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=64, timeout=30, decode_responses=True))
        self.send_local = send_local
        self.id = worker_id or secrets.token_hex(6)
        self.local_sockets: dict[str, int] = {}
        self._pubsub: Any = None
        self._owners: dict[str, str] = {}
        """Known owners of other processes' tables (asked again when one is gone)."""
        self._elsewhere: dict[str, bool] = {}
        """Whether a player has sockets in other processes (from presence news)."""
        self._lobby: dict[str, str] = {}
        """What this process last wrote to the lobby for each of its tables."""
        self._tasks: list[asyncio.Task[None]] = []
        self._renew = self.redis.register_script(_RENEW)
        self._delete_if = self.redis.register_script(_DELETE_IF)

    # -- keys and channels ----------------------------------------------------------------

    @staticmethod
    def owner_key(table: str) -> str:
        return f"{PREFIX}owner:{table}"

    @staticmethod
    def worker_channel(worker: str) -> str:
        return f"{PREFIX}worker:{worker}"

    @staticmethod
    def player_channel(player: str) -> str:
        return f"{PREFIX}player:{player}"

    # -- life -----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.set(f"{PREFIX}alive:{self.id}", 1, ex=OWNER_TTL_S)
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(self.worker_channel(self.id), f"{PREFIX}presence")
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._keep())]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            pipe = self.redis.pipeline()
            for table in self.service.tables:
                pipe.delete(self.owner_key(table))
            pipe.delete(f"{PREFIX}alive:{self.id}")
            for player in self.local_sockets:
                pipe.hdel(f"{PREFIX}online:{player}", self.id)
            await pipe.execute()
        if self._pubsub is not None:
            await self._pubsub.aclose()
        await self.redis.aclose()

    async def _keep(self) -> None:
        """Time passes at our tables (turn timers, stand-ins); renew this process's
        liveness and its tables, forget any table another process took over."""
        ticks = 0
        while True:
            await asyncio.sleep(TICK_S)
            ticks += 1
            if ticks * TICK_S >= RENEW_S:
                ticks = 0
                await self.redis.set(f"{PREFIX}alive:{self.id}", 1, ex=OWNER_TTL_S)
                for table in list(self.service.tables):
                    if not await self._renew(keys=[self.owner_key(table)],
                                             args=[self.id, OWNER_TTL_S]):
                        self.service.drop(table)
            await self.deliver(self.service.tick())
            self.kick()

    # -- sockets --------------------------------------------------------------------------

    async def connected(self, player: str) -> None:
        """A socket of ``player`` opened in this process."""
        count = self.local_sockets.get(player, 0) + 1
        self.local_sockets[player] = count
        if count == 1:
            await self._pubsub.subscribe(self.player_channel(player))
        await self.redis.hset(f"{PREFIX}online:{player}", self.id, count)
        await self.redis.publish(f"{PREFIX}presence", player)

    async def disconnected(self, player: str) -> None:
        """A socket of ``player`` closed in this process."""
        count = self.local_sockets.get(player, 1) - 1
        if count <= 0:
            self.local_sockets.pop(player, None)
            await self._pubsub.unsubscribe(self.player_channel(player))
            await self.redis.hdel(f"{PREFIX}online:{player}", self.id)
        else:
            self.local_sockets[player] = count
            await self.redis.hset(f"{PREFIX}online:{player}", self.id, count)
        await self.redis.publish(f"{PREFIX}presence", player)

    async def _online_counts(self, player: str) -> dict[str, int]:
        """How many sockets ``player`` has open, by process."""
        counts = await self.redis.hgetall(f"{PREFIX}online:{player}")
        return {str(w): int(c) for w, c in counts.items()}

    async def online(self, player: str, counts: dict[str, int] | None = None) -> bool:
        """Whether ``player`` has a socket open in any live process."""
        if counts is None:
            counts = await self._online_counts(player)
        for worker, count in counts.items():
            if count > 0 and (worker == self.id or await self.redis.exists(
                    f"{PREFIX}alive:{worker!s}")):
                return True
        return False

    async def _presence(self, player: str) -> None:
        counts = await self._online_counts(player)
        self._elsewhere[player] = any(c > 0 for w, c in counts.items() if w != self.id)
        if await self.online(player, counts):
            self.service.reconnected(player)
        else:
            self.service.disconnected(player)

    # -- messages -------------------------------------------------------------------------

    async def receive(self, player: str, nickname: str, message: Any) -> None:
        """A message from a socket of this process: handle it here or pass it on."""
        table = message.get("table") if isinstance(message, dict) else None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "create" or not isinstance(table, str) or table in self.service.tables:
            await self._handle(player, nickname, message)
            return
        payload = json.dumps({"player": player, "nickname": nickname, "message": message})
        for _attempt in range(3):
            owner = self._owners.get(table)
            if owner is None:
                raw = await self.redis.get(self.owner_key(table))
                owner = None if raw is None else str(raw)
            if owner is None or owner == self.id:
                if await self._claim(table):
                    await self._handle(player, nickname, message)
                    return
                continue  # another process claimed it first: ask again
            if await self.redis.publish(self.worker_channel(owner), payload) > 0:
                self._owners[table] = owner
                return
            # Nobody listens on the owner's channel: that process is gone.
            self._owners.pop(table, None)
            await self._delete_if(keys=[self.owner_key(table)], args=[owner])
        await self._handle(player, nickname, message)  # answers with the service's error

    async def _claim(self, table: str) -> bool:
        """Become the owner of ``table`` if nobody is; rebuild it from the database."""
        if table in self.service.tables:
            return True
        if not await self.redis.set(self.owner_key(table), self.id, nx=True, ex=OWNER_TTL_S):
            return False
        out = self.service.adopt(table)
        if out is None:  # no such table: let the service say so
            await self._delete_if(keys=[self.owner_key(table)], args=[self.id])
            return True
        table_obj = self.service.tables[table]
        for who in table_obj.seats:
            if "player" in who and not await self.online(who["player"]):
                self.service.disconnected(who["player"])
        await self.deliver(out)
        await self._publish_lobby(table)
        self.kick()
        return True

    async def _handle(self, player: str, nickname: str, message: Any) -> None:
        self.service.names[player] = nickname
        before = set(self.service.tables)
        out = self.service.handle(player, message, commit=self.commit is None)
        created = set(self.service.tables) - before
        if self.commit is not None and self.service.uncommitted:
            failure = await self.commit()  # before anyone hears of it
            if failure is not None:  # its players are told by the group commit
                out = [(p, m) for p, m in out if m.get("table") not in failure.tables]
                if player not in {p for p, _m in failure.messages}:
                    out.append((player, {"type": "error", "code": "storage",
                                         "message": STORAGE_ERROR}))
        self.kick()
        for table in created:
            await self.redis.set(self.owner_key(table), self.id, ex=OWNER_TTL_S)
        named = message.get("table") if isinstance(message, dict) else None
        for t in created | ({named} if isinstance(named, str) else set()):
            await self._publish_lobby(t)  # the lobby first: an answer may send people there
        await self.deliver(out)

    async def _publish_lobby(self, table_id: str) -> None:
        table = self.service.tables.get(table_id)
        if table is None:
            return
        entry = self.service.lobby_entry(table)
        if entry is not None:
            text = json.dumps(entry)
            if self._lobby.get(table_id) != text:
                self._lobby[table_id] = text
                await self.redis.hset(f"{PREFIX}lobby", table_id, text)

    async def lobby(self) -> list[Message]:
        """Every public table of every process."""
        entries = await self.redis.hgetall(f"{PREFIX}lobby")
        return [json.loads(v) for _k, v in sorted(entries.items())]

    async def deliver(self, out: list[tuple[str, Message]]) -> None:
        """Each answer to its recipient's sockets, here and in every other process."""
        if not out:
            return
        pipe = self.redis.pipeline(transaction=False)
        published = False
        for recipient, message in out:
            text = json.dumps(message)
            if recipient in self.local_sockets:
                await self.send_local(recipient, text)
            if self._elsewhere.get(recipient, True):
                pipe.publish(self.player_channel(recipient), f"{self.id}|{text}")
                published = True
        if published:
            await pipe.execute()

    async def _listen(self) -> None:
        """Messages passed on by other processes, answers for our players, presence."""
        mine = self.worker_channel(self.id)
        async for item in self._pubsub.listen():
            if item.get("type") != "message":
                continue
            channel, data = item["channel"], item["data"]
            try:
                if channel == mine:
                    request = json.loads(data)
                    await self.receive(request["player"], request["nickname"],
                                       request["message"])
                elif channel == f"{PREFIX}presence":
                    await self._presence(data)
                else:
                    origin, _, text = data.partition("|")
                    if origin != self.id:
                        await self.send_local(channel[len(self.player_channel("")):], text)
            except Exception:  # one bad message must not stop the listener
                log.exception("cluster message on %s dropped", channel)
