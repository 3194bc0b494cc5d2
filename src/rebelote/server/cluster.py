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
- the lobby is the Redis hash ``rebelote:lobby`` that owners keep current (the tables
  the lobby lists: public, unfinished, a player at them), and each player's "my tables"
  the hash ``rebelote:mine:{player}``; an owner whose tables change the lobby's list
  says so on ``rebelote:lobby-news``, and every process pushes the lobby, read from
  Redis, to the players looking at it through its sockets.

Nothing here knows the game: messages go through :class:`TableService` unchanged.

Failures (docs/operations.md): when the database refuses a commit, nothing of it is
sent and this process forgets every table it runs (they are rebuilt from the database,
the truth, by the next message for each), the sender hears ``unavailable``; when Redis
goes away, messages are refused the same way until it is back, then each process
subscribes again, renews its tables and its players' presence and rewrites the lobby.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import contextvars
import json
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import redis as redis_sync
from redis import asyncio as aioredis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from rebelote.server.offloop import stop_tasks, within
from rebelote.server.tables import (
    STORAGE_ERROR,
    Message,
    StorageFailure,
    Table,
    TableService,
    refusing,
)
from rebelote.server.wire import dumps

log = logging.getLogger(__name__)
PREFIX = "rebelote:"
OWNER_TTL_S = 15
"""An owner that stops renewing its tables loses them after this long (the
``owner_timeout`` setting); it renews them every third of it."""
TICK_S = 1.0
PRESENCE_RETRY_S = 0.5
"""How soon presence is written again after Redis failed to take it."""
LOBBY_NEWS = f"{PREFIX}lobby-news"
SESSIONS_ENDED = f"{PREFIX}sessions-ended"
"""Sessions revoked (a logout, a new password, a closed account): every process closes
their sockets and forgets them from its cache."""
LOBBY_PUSH_S = 0.2
"""Lobby news is gathered this long before the lobby is pushed (one push for a burst)."""
_MOVING = ("hand", "totals")
"""Lobby entry fields that change as a game goes on: written, but no news."""

# Renew a key only if it still holds our id; delete a key only if it holds a given id.
# (A missing key is ours again: Redis was restarted and lost it.)
_RENEW = """local owner = redis.call('get', KEYS[1])
if owner == ARGV[1] then return redis.call('expire', KEYS[1], ARGV[2]) end
if not owner then redis.call('set', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1 end
return 0"""
_UNKNOWN = "\0unknown"
"""A "my tables" entry not known to be in Redis (no entry is written as this)."""
_DELETE_IF = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1]) else return 0 end"""
# Take over tables of a dead process, in one call: KEYS[1] its set of tables, KEYS[2]
# ours, KEYS[3] the set of processes, then the tables' owner keys; ARGV[1] the dead
# process, ARGV[2] us, ARGV[3] the owner timeout, then the tables. A table is ours if its
# key is gone, or held by the dead process (or by us: we forgot it); a table another
# process holds is another's. Either way it leaves the dead one's set. The positions of
# the tables won (from 1); the dead process is forgotten once it has no table left.
_TAKE_OVER = """local won = {}
for i = 4, #KEYS do
  local table_id = ARGV[i]
  local owner = redis.call('get', KEYS[i])
  if (not owner) or owner == ARGV[1] or owner == ARGV[2] then
    redis.call('set', KEYS[i], ARGV[2], 'EX', ARGV[3])
    redis.call('sadd', KEYS[2], table_id)
    won[#won + 1] = i - 3
  end
  redis.call('srem', KEYS[1], table_id)
end
if redis.call('scard', KEYS[1]) == 0 then redis.call('srem', KEYS[3], ARGV[1]) end
return won"""
WORKERS = f"{PREFIX}workers"
"""The set of processes of the cluster (each watched by the others: one that stops
listening on its channel is gone, and its tables are taken over)."""
INTERRUPTED = ("the server process running this table stopped before answering: your last "
               "move may not have been made; the table as it stands follows")
"""Told to a player whose message was passed on to a process that died before any
answer to him came from it (another process runs the table now)."""
FORWARDED_S = 60.0
"""How long a message passed on to another process is remembered (to tell its sender
if that process dies before answering him)."""
TAKE_OVER_BATCH = 100
"""A dead process's tables are taken over at most this many at a time (25, 50, then
100: each batch loaded in three queries, replayed in a thread), so that the first ones
play again soon."""

GONE_S = 60.0
"""How long a process found gone (and its tables claimed) is taken for gone without
looking again: a message for a table it still names the owner of (a stale key, read
before the takeover) claims that table at once instead of waiting two looks."""

FIRST_BATCHES = 2
"""The batches of a takeover run one after the other (25 and 50 tables); the others are
run together."""

Sender = Callable[[str, str], Awaitable[None]]
"""Sends a JSON text to a player's sockets in this process."""
SessionsEnder = Callable[[str, "set[str] | None", "str | None"], Awaitable[None]]
"""(player, sessions or None for all of them, the one kept) -> close their sockets here."""

OUTBOX_BATCH = 1_000
"""Commands the outbox sends to Redis in one round trip at most."""
OUTBOX_MAX = 200_000
"""Commands the outbox holds at most while Redis is slow; past it, new ones are dropped
(logged): a player's client syncs again, the lobby is written again at the table's next
change."""


class Outbox:
    """The Redis writes nobody waits for the answer of (answers published on players'
    channels, lobby entries, lobby news), queued in order and sent by one task, as many
    as are waiting in each round trip, on one connection.

    Before, each message's handler sent its own pipeline: a thousand players
    reconnecting after a takeover queued for the pool's 64 connections, each held for a
    whole turn of the busy loop, and answers waited 5-20 s (seen in
    ``bench.cluster_load``). One queue also keeps the order of what is published to one
    player (two pipelines on two connections could overtake each other). Reads that must
    see these writes (the lobby) wait for :meth:`flushed` first."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._queue: collections.deque[tuple[str, tuple[Any, ...]]] = collections.deque()
        self._queued = 0
        """Commands ever queued (their numbers: 1, 2, ...)."""
        self._sent = 0
        """Commands ever sent (or given up: Redis failed), in order."""
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0
        self._failed = 0
        """Commands given up since Redis last answered (0: it answers)."""
        self.writes_lost = 0
        """Lobby writes (``hset``, ``hdel``) ever given up or dropped: while it grows,
        what Redis holds of this process's lobby entries is not what it meant to write
        (:meth:`Cluster._renew_all` writes them all again)."""

    def publish(self, channel: str, text: str) -> None:
        self._put("publish", channel, text)

    def hset(self, key: str, field: str, value: str) -> None:
        self._put("hset", key, field, value)

    def hdel(self, key: str, field: str) -> None:
        self._put("hdel", key, field)

    def _put(self, command: str, *args: Any) -> None:
        if len(self._queue) >= OUTBOX_MAX:
            self.dropped += 1
            if command != "publish":
                self.writes_lost += 1
            if self.dropped % 10_000 == 1:
                log.warning("redis too slow: %d write(s) dropped so far", self.dropped)
            return
        self._queue.append((command, args))
        self._queued += 1
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while self._queue:
            batch = [self._queue.popleft() for _ in range(min(len(self._queue),
                                                               OUTBOX_BATCH))]
            pipe = self.redis.pipeline(transaction=False)
            for command, args in batch:
                getattr(pipe, command)(*args)
            try:
                await pipe.execute()
                if self._failed:
                    log.warning("redis reachable again: %d answer(s) and lobby write(s) "
                                "were not sent to other processes", self._failed)
                    self._failed = 0
            except (RedisError, OSError) as exc:  # the players' clients sync again
                if not self._failed:  # once an outage, not for every batch
                    log.warning("redis unreachable (%s): answers and lobby writes not sent "
                                "to other processes until it is back",
                                exc.__class__.__name__)
                self._failed += len(batch)
                self.writes_lost += sum(command != "publish" for command, _args in batch)
            finally:
                self._sent += len(batch)
                self._wake()

    def _wake(self) -> None:
        still = []
        for upto, done in self._waiters:
            if self._sent >= upto:
                if not done.done():
                    done.set_result(None)
            else:
                still.append((upto, done))
        self._waiters = still

    async def flushed(self) -> None:
        """Once everything queued so far is sent (or given up)."""
        if self._sent >= self._queued:
            return
        done = asyncio.get_running_loop().create_future()
        self._waiters.append((self._queued, done))
        if self._task is None or self._task.done():  # (cancelled at a stop)
            self._task = asyncio.create_task(self._run())
        await done

    async def close(self, grace: float = 2.0) -> None:
        """Send what waits (for at most ``grace`` seconds), then stop."""
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self.flushed(), grace)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


Loaded = tuple[dict[str, "Table | str"], set[str] | None]
"""Tables rebuilt for a takeover (or why one does not replay), and which of their
players are online (None: Redis could not be asked)."""


class Cluster:
    """This process's part in the scale-out mode."""

    def __init__(self, service: TableService, redis_url: str, send_local: Sender,
                 worker_id: str | None = None,
                 commit: Callable[[], Awaitable[StorageFailure | None]] | None = None,
                 kick: Callable[[], None] | None = None,
                 owner_timeout: float = OWNER_TTL_S, name: str | None = None,
                 end_sessions: SessionsEnder | None = None) -> None:
        self.service = service
        self.end_local_sessions = end_sessions
        """Closes the sockets of revoked sessions in this process (the web layer's)."""
        self.commit = commit
        """Commits what the service handled (the web layer's group commit); without
        it, each message is committed on its own."""
        self.kick = kick or (lambda: None)
        """Starts the bots whose turn it is (the web layer's off-loop bot runner)."""
        # A bounded pool that makes callers wait rather than fail under load.
        self.redis = aioredis.Redis(connection_pool=aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=64, timeout=30, decode_responses=True))
        self.control = aioredis.Redis(connection_pool=aioredis.BlockingConnectionPool.from_url(
            redis_url, max_connections=4, timeout=30, decode_responses=True))
        """Redis for finding dead processes and taking their tables over: its own few
        connections, not queued behind a thousand reconnecting players' commands."""
        self.outbox = Outbox(aioredis.Redis(
            connection_pool=aioredis.BlockingConnectionPool.from_url(
                redis_url, max_connections=2, timeout=30, decode_responses=True)))
        """Answers for other processes and lobby writes (:class:`Outbox`): one queue,
        its own connection."""
        self._takeover_thread = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix="takeover")
        """Loads and replays the tables taken over (not queued behind other threads'
        work: the sessions of the players reconnecting meanwhile are read in threads)."""
        self._thread_redis = redis_sync.Redis.from_url(redis_url, decode_responses=True,
                                                       socket_timeout=10)
        """The takeover thread's own Redis client (presence asked off the loop)."""
        self.send_local = send_local
        self.id = worker_id or (f"{name}-" if name else "") + secrets.token_hex(6)
        self.ttl = max(1, math.ceil(owner_timeout))
        """Seconds an owner key lives unrenewed (renewed every third of it)."""
        self.renew_s = max(TICK_S, self.ttl / 3)
        self.confirm_s = min(1.0, self.ttl / 8)
        """A process is gone when nobody listens on its channel twice this far apart
        (one look could catch it resubscribing after Redis came back)."""
        self.local_sockets: dict[str, int] = {}
        self._pubsub: Any = None
        self._owners: dict[str, str] = {}
        """Known owners of other processes' tables (asked again when one is gone)."""
        self._elsewhere: dict[str, bool] = {}
        """Whether a player has sockets in other processes (from presence news)."""
        self._lobby: dict[str, tuple[str | None, str | None]] = {}
        """What this process last wrote to the lobby for each of its tables (None: not
        listed), and its entry without the fields that move (what makes news)."""
        self._mine: dict[str, dict[str, str | None]] = {}
        """What this process last wrote to each seated player's "my tables", by table."""
        self._lobby_keys: dict[str, tuple[Any, ...]] = {}
        """What each table's lobby entries were last written from (:meth:`_lobby_key`)."""
        self._resync_due = False
        """Redis lost what this process wrote (its liveness key was gone) and it is not
        yet all written again (:meth:`_resync`)."""
        self._writes_lost_seen = 0
        """The outbox's :attr:`Outbox.writes_lost` when the lobby was last written whole."""
        self._push: asyncio.Task[None] | None = None
        self._presence_due: set[str] = set()
        """Players with presence news not yet looked at (:meth:`_presence`)."""
        self._presence_task: asyncio.Task[None] | None = None
        self._presence_unwritten: set[str] = set()
        """Players whose sockets here opened or closed since their presence was last
        written to Redis."""
        self._presence_writer: asyncio.Task[None] | None = None
        self._requests: dict[str, collections.deque[Any]] = {}
        """Messages passed on by other processes, waiting to be handled, by player."""
        self._serving: dict[str, asyncio.Task[None]] = {}
        """The task handling each player's passed-on messages, in order."""
        self._lobby_dirty = False
        self._tasks: list[asyncio.Task[None]] = []
        self._claiming: dict[str, asyncio.Future[None]] = {}
        """Tables being taken over (their owner keys ours, not yet run): a message for
        one waits for it."""
        self._reaping: dict[str, asyncio.Task[None]] = {}
        """Takeovers of dead processes' tables under way, by dead process."""
        self._gone: dict[str, float] = {}
        """Processes found gone by this one (their tables claimed), with when."""
        self._background: set[asyncio.Task[None]] = set()
        """Work a takeover left going (statistics counted in a thread, players told)."""
        self._listed: dict[str, asyncio.Future[None]] = {}
        """By dead process being taken over: done once each of its tables waits in
        :attr:`_claiming` (a message then waits for its own table only)."""
        self._forwarded: dict[str, dict[str, tuple[str, float]]] = {}
        """By process: the players whose last message was passed on to it with no
        answer from it since (the table, when)."""
        self._renew = self.redis.register_script(_RENEW)
        self._delete_if = self.redis.register_script(_DELETE_IF)
        self._take_over = self.redis.register_script(_TAKE_OVER)

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

    @staticmethod
    def tables_key(worker: str) -> str:
        """The set of the tables a process runs (what another takes over if it dies)."""
        return f"{PREFIX}tables:{worker}"

    # -- life -----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.redis.set(f"{PREFIX}alive:{self.id}", 1, ex=self.ttl)
        self._pubsub = self.redis.pubsub()
        await self._pubsub.subscribe(self.worker_channel(self.id), f"{PREFIX}presence",
                                     LOBBY_NEWS, SESSIONS_ENDED)
        await self.redis.sadd(WORKERS, self.id)  # listening already: not taken for dead
        self._tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._keep())]

    async def stop(self) -> None:
        """Its tasks ended, its last messages sent, this process taken out of Redis and
        its connections closed: each step bounded (:func:`within`), the takeover thread
        told to stop however the steps went."""
        try:
            if self._push is not None:
                self._tasks.append(self._push)
            if self._presence_task is not None:
                self._tasks.append(self._presence_task)
            if self._presence_writer is not None:
                self._tasks.append(self._presence_writer)
            self._tasks += [*self._reaping.values(), *self._background,
                            *self._serving.values()]
            await stop_tasks(self._tasks, "the cluster")
            await within(self.outbox.close(), "the outbox's last messages")
            pipe = self.redis.pipeline()
            for table in self.service.tables:
                pipe.delete(self.owner_key(table))
            pipe.delete(f"{PREFIX}alive:{self.id}")
            pipe.delete(self.tables_key(self.id))
            pipe.srem(WORKERS, self.id)
            for player in self.local_sockets:
                pipe.hdel(f"{PREFIX}online:{player}", self.id)
            await within(pipe.execute(), "the removal of this process from Redis")
            # Each close bounded: redis-py's can wait without end for a transport that a
            # cancelled reader still holds (redis/redis-py#3941).
            if self._pubsub is not None:
                await within(self._pubsub.aclose(), "the subscription's close")
            await within(self.redis.aclose(), "the close of the Redis connections")
            await within(self.control.aclose(), "the close of the Redis control connections")
            await within(self.outbox.redis.aclose(), "the close of the outbox's connections")
        finally:  # (even when the application's backstop cut the steps short)
            self._takeover_thread.shutdown(wait=False, cancel_futures=True)
            with contextlib.suppress(Exception):
                self._thread_redis.close()

    async def _keep(self) -> None:
        """Time passes at our tables (turn timers, stand-ins); renew this process's
        liveness and its tables, forget any table another process took over. A failure
        (Redis or the database away) is logged and tried again at the next tick."""
        last_renew = 0.0
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(TICK_S)
            try:
                if loop.time() - last_renew >= self.renew_s:
                    await self._renew_all()
                    last_renew = loop.time()
                await self._find_dead()
                try:
                    out = self.service.tick(commit=self.commit is None)
                    if self.commit is not None:
                        before = self.service.snapshot(out)
                        await self.commit()  # a failure's players told by the group
                        undone = self.service.undone(before)
                        out = [(p, m) for p, m in out if m.get("table") not in undone]
                except StorageFailure as failure:
                    out = failure.messages
                except SQLAlchemyError:
                    self._forget_all("a timed action could not be stored")
                    continue
                await self.deliver(out)
                self.kick()
            except (RedisError, OSError) as exc:
                log.warning("redis unreachable (%s): retrying", exc.__class__.__name__)
            except Exception:
                log.exception("the cluster's timer failed; going on")

    async def _renew_all(self) -> None:
        alive = f"{PREFIX}alive:{self.id}"
        if not await self.redis.set(alive, 1, ex=self.ttl, xx=True):
            # Our liveness key is gone: Redis lost its memory (or we were away longer
            # than the owner timeout). Tell it again who is here and what we run.
            await self.redis.set(alive, 1, ex=self.ttl)
            self._resync_due = True  # (until it is done: a failure in it is tried again)
        if self._resync_due or self.outbox.writes_lost != self._writes_lost_seen:
            await self._resync()
        pipe = self.redis.pipeline(transaction=False)
        tables = list(self.service.tables)
        for table in tables:
            await self._renew(keys=[self.owner_key(table)], args=[self.id, self.ttl], client=pipe)
        lost = []
        for table, kept in zip(tables, await pipe.execute(), strict=True):
            if not kept:
                log.info("table %s is run by another process now", table,
                         extra={"table_id": table})
                self.service.drop(table)
                self._lobby.pop(table, None)
                self._lobby_keys.pop(table, None)
                self._mine.pop(table, None)
                lost.append(table)
        if lost:
            await self.redis.srem(self.tables_key(self.id), *lost)

    async def _resync(self) -> None:
        """Presence of this process's players and the lobby entries of its tables,
        written again, in one round trip: after Redis lost them (restarted empty), or
        after the outbox gave up lobby writes (Redis away, or a stale connection's
        first command after it came back). Until that round trip succeeds, it is tried
        again at each renewal; what the lobby shows was otherwise never written again
        until the table's entry changed (a test saw a table missing from the lobby
        after a Redis restart)."""
        writes_lost = self.outbox.writes_lost
        pipe = self.redis.pipeline(transaction=False)
        for player, count in self.local_sockets.items():
            pipe.hset(f"{PREFIX}online:{player}", self.id, count)
            pipe.publish(f"{PREFIX}presence", player)  # owners count them back in
        pipe.sadd(WORKERS, self.id)
        if self.service.tables:
            pipe.sadd(self.tables_key(self.id), *self.service.tables)
        self._forget_lobby()
        for table in list(self.service.tables):
            self._publish_lobby(table, pipe)
        pipe.publish(LOBBY_NEWS, "")  # every process pushes its lobby, this one too
        try:
            await pipe.execute()
        except BaseException:
            self._forget_lobby()  # not known to be written: all of it again next time
            raise
        self._resync_due = False
        self._writes_lost_seen = writes_lost
        log.info("presence and lobby written again to redis (%d players, %d tables)",
                 len(self.local_sockets), len(self.service.tables))

    def _forget_lobby(self) -> None:
        """Not knowing what Redis holds of this process's lobby entries: each is
        written again (or taken out) at the table's next :meth:`_publish_lobby`,
        the "my tables" entries of players seated there before too."""
        self._lobby.clear()
        self._lobby_keys.clear()
        self._mine = {t: dict.fromkeys(known, _UNKNOWN) for t, known in self._mine.items()
                      if t in self.service.tables}

    def _forget_all(self, why: str) -> None:
        """The database refused a commit: forget every table run here (their state in
        memory may be ahead of the database); the next message for each rebuilds it from
        the database. Their owner keys expire or are renewed by whoever adopts them."""
        log.error("%s: the %d tables run here are reloaded from the database on their "
                  "next message", why, len(self.service.tables))
        for table in list(self.service.tables):
            self.service.drop(table)
        self._forget_lobby()  # (no table run here now: nothing of "my tables" kept)
        self._owners.clear()

    # -- sockets --------------------------------------------------------------------------

    async def connected(self, player: str) -> None:
        """A socket of ``player`` opened in this process."""
        count = self.local_sockets.get(player, 0) + 1
        self.local_sockets[player] = count
        if count == 1:
            await self._pubsub.subscribe(self.player_channel(player))
        self.service.reconnected(player)  # here: back at the tables run here, at once
        self._presence_changed(player)

    async def disconnected(self, player: str) -> None:
        """A socket of ``player`` closed in this process."""
        count = self.local_sockets.get(player, 1) - 1
        if count <= 0:
            self.local_sockets.pop(player, None)
            with contextlib.suppress(RedisError, OSError):  # (resubscribed: no harm)
                await self._pubsub.unsubscribe(self.player_channel(player))
        else:
            self.local_sockets[player] = count
        self._presence_changed(player)

    def _presence_changed(self, player: str) -> None:
        """Write ``player``'s sockets here to Redis soon (:meth:`_write_presence`)."""
        self._presence_unwritten.add(player)
        if self._presence_writer is None or self._presence_writer.done():
            self._presence_writer = asyncio.create_task(self._write_presence())

    async def _write_presence(self) -> None:
        """The presence of the players whose sockets opened or closed here, as it is
        now (how many sockets, or none), with news of each: all of them in one round
        trip, again while more come. Before, each socket's opening made its own round
        trip: a thousand players reconnecting after a takeover waited 5 s and more for
        one of the pool's connections before their first message was read. With Redis
        away, the players wait and are written once it is back."""
        failed = False
        while self._presence_unwritten:
            players = sorted(self._presence_unwritten)
            self._presence_unwritten.clear()
            pipe = self.redis.pipeline(transaction=False)
            for player in players:
                key = f"{PREFIX}online:{player}"
                if player in self.local_sockets:
                    pipe.hset(key, self.id, self.local_sockets[player])
                else:
                    pipe.hdel(key, self.id)
                pipe.publish(f"{PREFIX}presence", player)
            try:
                await pipe.execute()
            except (RedisError, OSError) as exc:
                self._presence_unwritten.update(players)
                if not failed:
                    log.warning("redis unreachable (%s): the presence of %d player(s) is "
                                "written once it is back", exc.__class__.__name__,
                                len(self._presence_unwritten))
                failed = True
                await asyncio.sleep(PRESENCE_RETRY_S)

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

    def _presence_news(self, player: str) -> None:
        """Presence news: ``player`` opened or closed a socket somewhere. Gathered and
        answered together (:meth:`_presence`): one by one, the round trips of a thousand
        players reconnecting after a takeover held the listener for seconds, and their
        seats were taken for away meanwhile (stand-ins played for them)."""
        self._presence_due.add(player)
        if self._presence_task is None or self._presence_task.done():
            self._presence_task = asyncio.create_task(self._presence())

    async def _presence(self) -> None:
        """Whether each player with presence news is online (one round trip for their
        sockets, one for the liveness of the processes that hold them), and so at the
        tables run here."""
        while self._presence_due:
            players = sorted(self._presence_due)
            self._presence_due.clear()
            try:
                counts = await self._counts_many(players, self.redis)
                alive = await self._alive(counts, self.redis)
            except (RedisError, OSError) as exc:
                log.warning("redis unreachable (%s): presence news of %d player(s) dropped",
                            exc.__class__.__name__, len(players))
                continue
            for player, count in zip(players, counts, strict=True):
                self._elsewhere[player] = any(w != self.id for w in count)
                if alive & set(count):
                    self.service.reconnected(player)
                else:
                    self.service.disconnected(player)

    # -- messages -------------------------------------------------------------------------

    async def receive(self, player: str, nickname: str, message: Any) -> None:
        """A message from a socket of this process (or passed on by another): handled
        here or passed on. If the database or Redis fails meanwhile, nothing is
        acknowledged: the sender hears ``unavailable`` and may try again."""
        try:
            await self._receive(player, nickname, message)
        except SQLAlchemyError as exc:
            self._forget_all(f"database unreachable ({exc.__class__.__name__})")
            await self._refuse(player, "the database is unreachable: nothing was done, "
                                       "try again in a moment", message)
        except (RedisError, OSError) as exc:
            log.warning("redis unreachable (%s): a message refused", exc.__class__.__name__)
            await self._refuse(player, "the cluster's Redis is unreachable: nothing was "
                                       "done, try again in a moment", message)

    async def _refuse(self, player: str, text: str, message: Any = None) -> None:
        error = dumps(refusing({"type": "error", "code": "unavailable", "message": text},
                               message))
        if player in self.local_sockets:
            await self.send_local(player, error)
            return
        with contextlib.suppress(RedisError, OSError):
            await self.redis.publish(self.player_channel(player), f"{self.id}|{error}")

    async def _receive(self, player: str, nickname: str, message: Any) -> None:
        table = message.get("table") if isinstance(message, dict) else None
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "create" or not isinstance(table, str) or table in self.service.tables:
            await self._handle(player, nickname, message)
            return
        payload = dumps({"player": player, "nickname": nickname, "message": message})
        if kind in ("join", "watch", "sync"):  # at a table now: not looking at the lobby here
            self.service.lobby_watchers.discard(player)
        for _attempt in range(3):
            claiming = self._claiming.get(table)
            if claiming is not None:  # being taken over here: wait for it
                await asyncio.shield(claiming)
            if table in self.service.tables:
                await self._handle(player, nickname, message)
                return
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
                self._forward(owner, player, table)
                return
            # Nobody listens on the owner's channel: that process is gone (if it stays
            # so); its tables are taken over, this one first.
            self._owners.pop(table, None)
            await self._reap(owner, first=table)
        await self._handle(player, nickname, message)  # answers with the service's error

    def _forward(self, owner: str, player: str, table: str) -> None:
        """Remember that ``player``'s message for ``table`` was passed on to ``owner``."""
        now = asyncio.get_running_loop().time()
        sent = self._forwarded.setdefault(owner, {})
        sent.pop(player, None)  # the newest last
        sent[player] = (table, now)
        while sent and now - next(iter(sent.values()))[1] > FORWARDED_S:
            del sent[next(iter(sent))]

    async def _interrupted(self, worker: str, tables: set[str] | None = None) -> None:
        """Tell the players whose last message went to the dead ``worker`` unanswered
        (at ``tables``, or any) that it may not have been made, and send them the table
        as it stands (a sync on their behalf, answered by whoever runs it now)."""
        sent = self._forwarded.get(worker, {})
        now = asyncio.get_running_loop().time()
        told = [(p, t) for p, (t, at) in sent.items()
                if (tables is None or t in tables) and now - at <= FORWARDED_S]
        for player, _table in told:
            sent.pop(player, None)
        if not sent:
            self._forwarded.pop(worker, None)
        if not told:
            return
        await self.deliver([(p, {"type": "error", "code": "interrupted", "table": t,
                                 "message": INTERRUPTED}) for p, t in told])
        await asyncio.gather(*(self.receive(p, self.service.names.get(p, p),
                                            {"type": "sync", "table": t}) for p, t in told))

    async def _claim(self, table: str) -> bool:
        """Become the owner of ``table`` if nobody is; rebuild it from the database."""
        if table in self.service.tables:
            return True
        claiming = self._claiming.get(table)
        if claiming is not None:  # a takeover claimed it meanwhile: wait for that
            await asyncio.shield(claiming)
            return table in self.service.tables
        done = asyncio.get_running_loop().create_future()
        self._claiming[table] = done  # the messages for it meanwhile wait
        try:
            if not await self.redis.set(self.owner_key(table), self.id, nx=True,
                                        ex=self.ttl) \
                    and await self.redis.get(self.owner_key(table)) != self.id:
                return False  # another process runs it (if the key is ours, we forgot it)
            await self.redis.sadd(self.tables_key(self.id), table)
            await self._adopt([table])
            return True
        finally:
            self._unclaim(table, done)

    def _unclaim(self, table: str, done: asyncio.Future[None]) -> None:
        """The claim ``done`` on ``table`` is over (the table run here, or let go): the
        messages waiting for it go on."""
        if self._claiming.get(table) is done:
            del self._claiming[table]
        done.set_result(None)

    def _load(self, tables: list[str]) -> Loaded:
        """In the takeover thread: ``tables`` rebuilt from the database (three queries),
        and which of their players have a socket open in a live process (two round
        trips of a Redis client of the thread's own; None if Redis is away)."""
        restored = self.service.restore_many(tables)
        players = sorted({w["player"] for t in restored.values() if not isinstance(t, str)
                          for w in t.seats if "player" in w})
        try:
            return restored, self._online_many_sync(players)
        except (RedisError, OSError):
            return restored, None

    def _online_many_sync(self, players: list[str]) -> set[str]:
        """:meth:`_online_many`, for the takeover thread (its own Redis client)."""
        if not players:
            return set()
        pipe = self._thread_redis.pipeline(transaction=False)
        for player in players:
            pipe.hgetall(f"{PREFIX}online:{player}")
        counts = self._socket_counts(pipe.execute())
        workers = self._others(counts)
        pipe = self._thread_redis.pipeline(transaction=False)
        for worker in workers:
            pipe.exists(f"{PREFIX}alive:{worker}")
        alive = self._alive_of(workers, pipe.execute() if workers else [])
        return {p for p, c in zip(players, counts, strict=True) if alive & set(c)}

    async def _adopt(self, tables: list[str], ready: Callable[[], None] | None = None,
                     loaded: Awaitable[Loaded] | None = None,
                     settle_later: bool = False) -> None:
        """Run ``tables``, whose owner keys are ours now: loaded from the database
        together and replayed in a thread, their players' presence asked there too
        (nothing of it on the event loop; or ``loaded``, that work already under way),
        then run here, their players online (there, or with a socket here now) back at
        them, committed if running them stored anything, the states a bot or a deal
        moved on sent; ``ready`` is called then (the messages waiting for them go on).
        Nothing of it waits for a round trip unless a bot or a deal moved a table on: on
        a loop busy with a thousand players reconnecting, each took a second or more.
        Their lobby entries are written, their stored stand-in timers cleared, their
        presence asked again and their statistics counted (in a thread) then, or
        meanwhile with ``settle_later``. A table not stored (or that does not replay) is
        let go: a message for it hears the service's error."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            if loaded is None:
                loaded = loop.run_in_executor(self._takeover_thread, self._load, tables)
            rebuilt, online = await loaded
            read = loop.time()
            rebuilt = {t: r for t, r in rebuilt.items() if t not in self.service.tables}
            out, adopted = self.service.install(rebuilt, commit=self.commit is None)
            players = {w["player"] for t in adopted for w in t.seats if "player" in w}
            here = players & set(self.local_sockets)  # back here meanwhile
            cleared = self.service.back_at_restored(adopted, (online or set()) | here)
            if self.commit is not None and self.service.pending_tables() & {
                    t.id for t in adopted}:
                before = self.service.snapshot(out) | {t.id: t for t in adopted}
                await self.commit()  # a failure's players told by the group
                undone = self.service.undone(before)
                out = [(p, m) for p, m in out if m.get("table") not in undone]
            self.kick()
        except Exception:
            for table in tables:
                self.service.drop(table)
            await self._release(tables)
            raise
        committed = loop.time()
        # a table whose first write failed is back as stored (or gone, if not stored)
        adopted = [self.service.tables[t.id] for t in adopted if t.id in self.service.tables]
        await self._release([t for t in tables if t not in self.service.tables])
        if not adopted:
            return
        await self.deliver(out)
        if ready is not None:
            ready()
        answered = loop.time()
        settle = self._settle(adopted, cleared)
        if settle_later:
            self._later(settle)
        else:
            await settle
        log.info("%d table(s) taken over in %.2f s (loaded, replayed and presence asked "
                 "%.2f s, committed %.2f s, answers %.2f s)", len(adopted),
                 answered - started, read - started, committed - read, answered - committed)

    async def _settle(self, adopted: list[Table], cleared: list[tuple[str, int]]) -> None:
        """Tables just run here, their players online back at them: their lobby entries
        written, the players still counted away asked again (the thread could not ask,
        or their presence news was read before the tables ran here), the stored stand-in
        timers of those back cleared; what a crash left uncounted in the statistics,
        counted in a thread."""
        loop = asyncio.get_running_loop()
        adopted = [t for t in adopted if self.service.tables.get(t.id) is t]
        pipe = self.redis.pipeline(transaction=False)  # their lobby entries, one round trip
        for run in adopted:
            self._publish_lobby(run.id, pipe)
        await pipe.execute()
        away = sorted({w["player"] for t in adopted for s, w in enumerate(t.seats)
                       if "player" in w and s in t.absent_since})
        if away:
            try:
                back = await self._online_many(away)
            except (RedisError, OSError):
                back = set()
            adopted = [t for t in adopted if self.service.tables.get(t.id) is t]
            cleared = cleared + self.service.back_at_restored(adopted, back)
        if cleared:
            try:
                await loop.run_in_executor(self._takeover_thread,
                                           self.service.store.clear_absences, cleared)
            except Exception as exc:  # the timers still run here
                log.warning("could not clear %d stored absences: %s", len(cleared), exc)
        self._later(asyncio.to_thread(self.service.summaries.update, adopted))

    def _later(self, work: Awaitable[None]) -> None:
        """Run ``work`` meanwhile (kept until done; cancelled at stop)."""
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("a takeover's work in the background failed")

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _release(self, tables: list[str]) -> None:
        """Let go of tables claimed here but not run (not stored, or a failure)."""
        if not tables:
            return
        pipe = self.redis.pipeline(transaction=False)
        for table in tables:
            await self._delete_if(keys=[self.owner_key(table)], args=[self.id], client=pipe)
        pipe.srem(self.tables_key(self.id), *tables)
        await pipe.execute()

    async def _online_many(self, players: list[str]) -> set[str]:
        """Which of ``players`` have a socket open in a live process (two round trips
        however many)."""
        if not players:
            return set()
        counts = await self._counts_many(players, self.control)
        alive = await self._alive(counts, self.control)
        return {p for p, c in zip(players, counts, strict=True) if alive & set(c)}

    @classmethod
    async def _counts_many(cls, players: list[str], client: Any) -> list[dict[str, int]]:
        """Each player's open sockets by process (those with any), in one round trip."""
        pipe = client.pipeline(transaction=False)
        for player in players:
            pipe.hgetall(f"{PREFIX}online:{player}")
        return cls._socket_counts(await pipe.execute())

    async def _alive(self, counts: list[dict[str, int]], client: Any) -> set[str]:
        """The processes named in ``counts`` that are alive (this one and those whose
        liveness key stands), in one round trip."""
        workers = self._others(counts)
        if not workers:
            return {self.id}
        pipe = client.pipeline(transaction=False)
        for worker in workers:
            pipe.exists(f"{PREFIX}alive:{worker}")
        return self._alive_of(workers, await pipe.execute())

    @staticmethod
    def _socket_counts(replies: list[dict[Any, Any]]) -> list[dict[str, int]]:
        """Players' ``online`` hashes read back: open sockets by process, those with any."""
        return [{str(w): int(c) for w, c in got.items() if int(c) > 0} for got in replies]

    def _others(self, counts: list[dict[str, int]]) -> list[str]:
        """The other processes holding any of these sockets (whose liveness to ask)."""
        return sorted({w for c in counts for w in c if w != self.id})

    def _alive_of(self, workers: list[str], exists: list[Any]) -> set[str]:
        """This process and those of ``workers`` whose liveness key stands."""
        return {self.id} | {w for w, n in zip(workers, exists, strict=True) if n}

    # -- dead processes -------------------------------------------------------------------

    async def _find_dead(self) -> None:
        """Every tick: a process of the cluster that listens on its channel no more is
        gone; its tables are taken over now, not at the next message for each."""
        workers = sorted(str(w) for w in await self.control.smembers(WORKERS)
                         if w != self.id and w not in self._reaping)
        if not workers:
            return
        counts = await self.control.pubsub_numsub(*[self.worker_channel(w) for w in workers])
        for worker, (_channel, listeners) in zip(workers, counts, strict=True):
            if not int(listeners):
                self._start_reap(worker)

    def _reaped(self, worker: str) -> None:
        self._reaping.pop(worker, None)
        listed = self._listed.pop(worker, None)
        if listed is not None and not listed.done():
            listed.set_result(None)

    def _start_reap(self, worker: str, first: str | None = None) -> asyncio.Task[None]:
        task = self._reaping.get(worker)
        if task is None:
            task = self._reaping[worker] = asyncio.create_task(
                self._take_over_all(worker, first),
                context=contextvars.Context())  # not the request that found it gone
            task.add_done_callback(lambda _t: self._reaped(worker))
        return task

    async def _reap(self, worker: str, first: str) -> None:
        """Take over the tables of ``worker`` if it is gone, once however many messages
        found it gone; return once the table ``first`` (a message for it waits) is run
        here (or the takeover is over): not when all of them are."""
        task = self._start_reap(worker, first)
        listed = self._listed.setdefault(worker, asyncio.get_running_loop().create_future())
        await asyncio.wait([task, listed], return_when=asyncio.FIRST_COMPLETED)
        waiting = self._claiming.get(first)
        await asyncio.shield(waiting if waiting is not None else task)

    async def _take_over_all(self, worker: str, first: str | None) -> None:
        try:
            await self._take_over_tables(worker, first)
        except asyncio.CancelledError:
            raise
        except SQLAlchemyError as exc:
            log.error("taking over the tables of %s failed (database: %s): each is taken "
                      "over at its next message", worker, exc.__class__.__name__)
        except (RedisError, OSError) as exc:
            log.warning("taking over the tables of %s failed (redis: %s): tried again",
                        worker, exc.__class__.__name__)
        except Exception:
            log.exception("taking over the tables of %s failed", worker)

    async def _take_over_tables(self, worker: str, first: str | None) -> None:
        channel = self.worker_channel(worker)
        loop = asyncio.get_running_loop()
        gone_at = self._gone.get(worker)
        known = gone_at is not None and loop.time() - gone_at < GONE_S
        if known:
            # Found gone a moment ago (a message that read its name before the takeover
            # found nobody listening): no second confirmation, no wait.
            if first is None or first in self.service.tables:
                return
        else:
            for look in range(2):  # gone, and still gone a moment later
                if look:
                    await asyncio.sleep(self.confirm_s)
                (_channel, listeners), = await self.control.pubsub_numsub(channel)
                if int(listeners):
                    return
        started = loop.time()
        names = sorted(str(t) for t in await self.control.smembers(self.tables_key(worker)))
        if first is not None:
            names = [first, *(t for t in names if t != first)]
        self._owners = {t: o for t, o in self._owners.items() if o != worker}
        waiting: dict[str, asyncio.Future[None]] = {}
        for table in names:
            if table not in self.service.tables and table not in self._claiming:
                waiting[table] = self._claiming[table] = loop.create_future()
        listed = self._listed.setdefault(worker, loop.create_future())
        if not listed.done():
            listed.set_result(None)  # a message for one of them waits for that one
        log.log(logging.INFO if known else logging.WARNING,
                "process %s is gone: taking its %d table(s) over", worker, len(waiting))
        taken = 0
        try:
            # Every table of the dead process claimed in one call (a key gone or held by
            # it becomes ours; those run here already leave its set), the dead process
            # then forgotten.
            won = await self._take_over(
                keys=[self.tables_key(worker), self.tables_key(self.id), WORKERS,
                      *(self.owner_key(t) for t in names)],
                args=[worker, self.id, self.ttl, *names], client=self.control)
            self._gone[worker] = loop.time()
            ours = {names[int(i) - 1] for i in won}
            batch = [t for t in waiting if t in ours]
            for table in [t for t in waiting if t not in ours]:  # another process's
                self._unclaim(table, waiting.pop(table))
            chunks: list[list[str]] = []
            at = 0
            while at < len(batch):  # small first (those first play again soon), then more
                size = min(TAKE_OVER_BATCH, 25 << len(chunks))
                chunks.append(batch[at:at + size])
                at += size
            # Each batch loaded and replayed in the takeover thread, in order; the first
            # ones run here one after the other (done in a second or so, before the
            # dead process's players are back), then the others together, each as soon
            # as it is loaded: their round trips overlap (on a loop busy with a thousand
            # players reconnecting, one batch after the other took 25 s for 500 tables).
            loads = [loop.run_in_executor(self._takeover_thread, self._load, chunk)
                     for chunk in chunks]

            def go_on(chunk: list[str]) -> None:
                for table in chunk:  # their messages go on
                    if table in waiting:
                        self._unclaim(table, waiting.pop(table))

            async def run(chunk: list[str], load: Awaitable[Loaded]) -> int:
                try:
                    await self._adopt(chunk, lambda: go_on(chunk), load, settle_later=True)
                finally:
                    go_on(chunk)  # run here, or let go (a message claims each)
                    self._later(self._interrupted(worker, set(chunk)))
                return sum(1 for t in chunk if t in self.service.tables)

            pairs = list(zip(chunks, loads, strict=True))
            ran: list[int | BaseException] = []
            for chunk, load in pairs[:FIRST_BATCHES]:  # alone: before the players are back
                ran += await asyncio.gather(run(chunk, load), return_exceptions=True)
            ran += await asyncio.gather(*(run(c, f) for c, f in pairs[FIRST_BATCHES:]),
                                        return_exceptions=True)
            taken = sum(n for n in ran if isinstance(n, int))
            failed = [e for e in ran if isinstance(e, BaseException)]
            if failed:
                raise failed[0]
        finally:
            for table, done in waiting.items():
                self._unclaim(table, done)
        self._later(self._interrupted(worker))
        log.log(logging.INFO if known else logging.WARNING,
                "the tables of %s taken over: %d run here, in %.2f s", worker, taken,
                loop.time() - started)

    async def _handle(self, player: str, nickname: str, message: Any) -> None:
        self.service.names[player] = nickname
        before = self.service.created_count  # (a copy of 1,000 table ids per message
        out = self.service.handle(player, message, commit=self.commit is None)
        made = self.service.created_count - before  # took a tenth of the busy loop)
        created = set(list(self.service.created)[-made:]) if made else set()
        if self.commit is not None:  # even with nothing new: a batch may be in writing
            as_handled = self.service.snapshot(out)
            await self.commit()  # before anyone hears of it
            undone = self.service.undone(as_handled)  # its players told by the group
            if undone:
                out = [(p, m) for p, m in out if m.get("table") not in undone]
                if not any(player in told for told in undone.values()):
                    out.append((player, refusing(
                        {"type": "error", "code": "storage", "message": STORAGE_ERROR},
                        message)))
        created = {t for t in created if t in self.service.tables}  # not undone
        self.kick()
        # Stored (or refused by the store): from here on a Redis failure refuses nothing.
        try:
            for table in created:
                await self.redis.set(self.owner_key(table), self.id, ex=self.ttl)
                await self.redis.sadd(self.tables_key(self.id), table)
            named = message.get("table") if isinstance(message, dict) else None
            changed = False
            for t in created | ({named} if isinstance(named, str) else set()):
                # the lobby first: an answer may send people there
                changed = self._publish_lobby(t) or changed
            if changed:  # this process's lobby watchers are told by the service's answer
                told = any(m.get("type") == "lobby" for _p, m in out)
                self.outbox.publish(LOBBY_NEWS, self.id if told else "")
                await self.outbox.flushed()  # written before anyone hears of the table
        except (RedisError, OSError) as exc:
            log.warning("redis unreachable after a commit (%s): the lobby is written again "
                        "once it is back", exc.__class__.__name__)
        await self.deliver(out)

    def _publish_lobby(self, table_id: str, shared: Any = None) -> bool:
        """Write the table's lobby entry (or take it out: finished, private, nobody at
        it) and each seated player's "my tables" entry, where they changed. Whether the
        lobby's list changed (a table in or out, its seats or status): news for the
        players looking at the lobby. With ``shared``, a pipeline, the writes are
        queued there, for the caller to send (many tables in one round trip); without,
        in the :attr:`outbox`."""
        table = self.service.tables.get(table_id)
        if table is None:
            return False
        made_of = self._lobby_key(table)
        if table_id in self._lobby and self._lobby_keys.get(table_id) == made_of:
            return False  # nothing they show changed (every card of a hand, most often)
        self._lobby_keys[table_id] = made_of
        entry = self.service.listed(table)
        text = None if entry is None else dumps(entry)  # orjson: json's took a tenth
        shape = None if entry is None else dumps(  # of a takeover's busy loop
            {k: v for k, v in entry.items() if k not in _MOVING})
        pipe = shared if shared is not None else self.outbox
        old = self._lobby.get(table_id)
        if old is None or old[0] != text:
            if text is None:
                pipe.hdel(f"{PREFIX}lobby", table_id)
            else:
                pipe.hset(f"{PREFIX}lobby", table_id, text)
        known = self._mine.get(table_id, {})
        seated = {w["player"] for w in table.seats if "player" in w}
        mine: dict[str, str | None] = {}
        for player in sorted(seated | set(known)):
            mine_entry = self.service.my_entry(table, player)
            mine[player] = None if mine_entry is None else dumps(mine_entry)
            if player not in known or known[player] != mine[player]:
                key = f"{PREFIX}mine:{player}"
                if mine[player] is None:
                    pipe.hdel(key, table_id)
                else:
                    pipe.hset(key, table_id, str(mine[player]))
        self._lobby[table_id] = (text, shape)
        self._mine[table_id] = {p: t for p, t in mine.items() if p in seated}
        return (shape is not None) if old is None else old[1] != shape

    def _lobby_key(self, table: Table) -> tuple[Any, ...]:
        """What a table's lobby and "my tables" entries are made of (its rules, seats and
        their names, options, status, hand count and totals): the same key, the same
        entries. Building and encoding them for every message took a tenth of a busy
        survivor's loop (py-spy, ``bench.cluster_load``), for entries that change only
        when a seat does or a hand ends."""
        game = table.game
        return (table.rules, repr(table.seats), repr(table.options),
                tuple(self.service.names.get(w["player"]) for w in table.seats
                      if "player" in w),
                None if game is None else (game.is_over, len(game.hands), tuple(game.totals)))

    async def lobby(self) -> list[Message]:
        """Every public table of every process (the lobby's list)."""
        await self.outbox.flushed()  # this process's own writes read back
        entries = await self.redis.hgetall(f"{PREFIX}lobby")
        return _open([json.loads(v) for _k, v in sorted(entries.items())])

    async def _lobbies(self, players: list[str]) -> dict[str, Message]:
        """The lobby message for each of ``players``: every process's open tables, and
        each one's own tables (from Redis, in one round trip)."""
        await self.outbox.flushed()  # this process's own writes read back
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(f"{PREFIX}lobby")
        for player in players:
            pipe.hgetall(f"{PREFIX}mine:{player}")
        lobby, *mine = await pipe.execute()
        tables = _open([json.loads(v) for _k, v in sorted(lobby.items())])
        return {player: {"type": "lobby", "tables": tables,
                         "mine": _open([json.loads(v) for _k, v in sorted(own.items())])}
                for player, own in zip(players, mine, strict=True)}

    async def _fill_lobbies(self, out: list[tuple[str, Message]]) -> list[tuple[str, Message]]:
        """The service's lobby messages (this process's tables only) made every
        process's; kept as they are if Redis is away."""
        players = sorted({p for p, m in out if m.get("type") == "lobby"})
        if not players:
            return out
        try:
            lobbies = await self._lobbies(players)
        except (RedisError, OSError) as exc:
            log.warning("redis unreachable (%s): a lobby of this process's tables only",
                        exc.__class__.__name__)
            return out
        return [(p, lobbies[p] if m.get("type") == "lobby" else m) for p, m in out]

    def _lobby_changed(self) -> None:
        """Lobby news: push the lobby to the players looking at it here, soon."""
        self._lobby_dirty = True
        if self._push is None or self._push.done():
            self._push = asyncio.create_task(self._push_lobby())

    async def _push_lobby(self) -> None:
        while self._lobby_dirty:
            await asyncio.sleep(LOBBY_PUSH_S)
            self._lobby_dirty = False
            watchers = [p for p in sorted(self.service.lobby_watchers)
                        if p in self.local_sockets]
            if not watchers:
                continue
            try:
                lobbies = await self._lobbies(watchers)
            except (RedisError, OSError) as exc:
                log.warning("redis unreachable (%s): the lobby is not pushed",
                            exc.__class__.__name__)
                continue
            for player, message in lobbies.items():
                await self.send_local(player, dumps(message))

    def _publish_states(self, out: list[tuple[str, Message]]) -> None:
        """The lobby entries of this process's tables whose state is sent (a bot's card,
        a timer, a stand-in: not only players' messages change a table)."""
        tables = sorted({m["table"] for _p, m in out if m.get("type") == "state"
                         and m.get("table") in self.service.tables})
        changed = False
        for table in tables:  # (queued in the outbox: nothing here waits for Redis)
            changed = self._publish_lobby(table) or changed
        if changed:
            self.outbox.publish(LOBBY_NEWS, "")  # every process pushes, this one too

    async def deliver(self, out: list[tuple[str, Message]]) -> None:
        """Each answer to its recipient's sockets, here and in every other process."""
        if not out:
            return
        self._publish_states(out)
        out = await self._fill_lobbies(out)
        for recipient, message in out:
            text = dumps(message)
            if recipient in self.local_sockets:
                await self.send_local(recipient, text)
            if self._elsewhere.get(recipient, True):  # sent in order, soon
                self.outbox.publish(self.player_channel(recipient), f"{self.id}|{text}")

    async def _listen(self) -> None:
        """Messages passed on by other processes, answers for our players, presence;
        when Redis goes away, listen again once it is back (redis-py subscribes the
        same channels again on reconnecting)."""
        while True:
            try:
                await self._listen_once()
            except (RedisError, OSError) as exc:
                log.warning("redis subscription lost (%s): reconnecting",
                            exc.__class__.__name__)
                await asyncio.sleep(0.5)

    async def _listen_once(self) -> None:
        mine = self.worker_channel(self.id)
        async for item in self._pubsub.listen():
            if item.get("type") != "message":
                continue
            channel, data = item["channel"], item["data"]
            try:
                if channel == mine:
                    self._passed_on(json.loads(data))
                elif channel == f"{PREFIX}presence":
                    self._presence_news(data)
                elif channel == LOBBY_NEWS:
                    if data != self.id:  # the sender told its own watchers
                        self._lobby_changed()
                elif channel == SESSIONS_ENDED:
                    ended = json.loads(data)
                    if ended["from"] != self.id and self.end_local_sessions is not None:
                        sessions = ended["sessions"]
                        await self.end_local_sessions(
                            ended["player"], None if sessions is None else set(sessions),
                            ended["keep"])
                else:
                    origin, _, text = data.partition("|")
                    if origin != self.id:
                        player = channel[len(self.player_channel("")):]
                        sent = self._forwarded.get(origin)
                        if sent is not None:  # answered: nothing to tell him if it dies
                            sent.pop(player, None)
                        await self.send_local(player, text)
            except Exception:  # one bad message must not stop the listener
                log.exception("cluster message on %s dropped", channel)

    async def sessions_ended(self, player: str, sessions: set[str] | None,
                             keep: str | None) -> None:
        """Tell every other process that these sessions of ``player`` (None: all but
        ``keep``) are revoked, so that they close their sockets at once (the database
        says so already: this is not what makes them revoked)."""
        await self.redis.publish(SESSIONS_ENDED, json.dumps({
            "from": self.id, "player": player, "keep": keep,
            "sessions": None if sessions is None else sorted(sessions)}))

    def _passed_on(self, request: dict[str, Any]) -> None:
        """A message another process passed on: handled in a task of its player's, in
        the order they came. Handled in the listener itself, each waited for its commit
        before the listener read the next: with half the tables' players on the other
        process, their actions took 0.5-1.3 s each (``bench.server_load 200 20 2``: p99
        0.9-1.3 s, p50 30 ms)."""
        player = request["player"]
        self._requests.setdefault(player, collections.deque()).append(request)
        if player not in self._serving:
            self._serving[player] = asyncio.create_task(self._serve(player))

    async def _serve(self, player: str) -> None:
        queue = self._requests[player]
        try:
            while queue:
                request = queue.popleft()
                try:
                    await self.receive(request["player"], request["nickname"],
                                       request["message"])
                except Exception:  # one bad message must not stop the others
                    log.exception("a message passed on for %s dropped", player)
        finally:
            del self._serving[player]
            if not queue:
                self._requests.pop(player, None)


def _open(entries: list[Message]) -> list[Message]:
    """Lobby entries without finished games (an older process kept them listed)."""
    return [e for e in entries if e.get("status") != "over"]
