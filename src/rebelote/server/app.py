"""The web server: Starlette routes over the :class:`~rebelote.server.tables.TableService`.

- ``POST /api/guest`` ``{"nickname": ...}``: play at once as a guest; a signed session
  cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) names a server-side session.
- ``POST /api/register`` / ``/api/login`` ``{"name", "password"}``, ``/api/logout``
  (``{"everywhere": true}``: every session of the player): optional accounts, passwords
  hashed with argon2, attempts throttled per name and per address.
- ``GET /api/me``, ``GET /api/tables`` (the lobby), ``GET /`` and ``/static/*`` (the
  plain HTML, CSS and JavaScript client; no build step).
- ``/ws``: one WebSocket per open tab; every message goes through the service, whose
  answers are sent to each recipient's open tabs (a new tab gets the full state with a
  ``sync``); an error, a hint or a new table's id goes to the sending tab only.

Nothing CPU-bound runs on the event loop (:mod:`rebelote.server.offloop`): bots, hints,
password hashing, statistics and the calculator run in pools. State-changing requests
must be JSON from the same origin; every response carries the security headers.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import concurrent.futures
import contextlib
import faulthandler
import gc
import hashlib
import json
import logging
import os
import re
import secrets
import signal
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from rebelote.bots import OFFERED_LEVELS
from rebelote.i18n import LANGS, error_text
from rebelote.rules import OPTION_NAMES, OPTIONS, PRESETS
from rebelote.server import tables as tables_module
from rebelote.server.names import Refused, check_name, check_password, name_key
from rebelote.server.observability import (
    RAW_SEND,
    Observability,
    RequestContext,
    configure_logging,
)
from rebelote.server.offloop import (
    STOP_STEP_S,
    BotRunner,
    Busy,
    LoopWatch,
    OffLoop,
    log_tasks,
    within,
)
from rebelote.server.settings import Settings
from rebelote.server.store import Store
from rebelote.server.summary import SETTLE_S
from rebelote.server.tables import TABLE_FIXED_OPTIONS, ServiceError, StorageFailure, TableService
from rebelote.server.wire import JSONResponse, encoded, text_of

if TYPE_CHECKING:
    from rebelote.server.cluster import Cluster

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 4096
"""The largest WebSocket message (characters) a client may send."""
MAX_BODY = 16 * 1024
"""The largest request body (bytes), but for the score calculator's."""
MAX_SHEET_BODY = 2 * 1024 * 1024
"""The largest score sheet posted to the calculator (bytes)."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects a JSON message may have."""
MAX_SOCKETS = 8
"""Open WebSockets one player may have (tabs)."""
LOGIN_FREE_FAILURES = 5
"""Wrong passwords allowed per name and per address before the backoff starts."""
LOGIN_MAX_WAIT_S = 900.0
LOGIN_REFUSAL_PAUSE_S = 1.0
"""The longest pause before a held-back login attempt is refused (half its wait, at
most this): a client that keeps trying waits for each refusal instead of sending
hundreds a second (two such clients took a fifth of a busy server's event loop)."""
LOGIN_PAUSED_PER_ADDRESS = 4
"""Refusals paused at once per address; past that they are answered at once (so that
many parallel attempts cannot hold many connections open)."""
CHECKPOINT_S = 1.0
"""How often SQLite's write-ahead log is copied into the database file (in the writer
thread): the log holds about this long's writes."""
SHUTDOWN_GRACE_S = 5.0
"""On SIGTERM, the longest wait for the connections and requests in progress to end
before the server cancels them and writes its last batch (nothing they do can hold a
stop for longer)."""
EXIT_AFTER_STOP_S = 10.0
"""``rebelote serve``: once the application has stopped, the process exits within this
long, or its threads' stacks are written to its log and it exits with status 1 (what
runs after the application, asyncio cancelling the tasks left and joining its thread
pool, waits without end for a task deaf to cancellation or a thread that hangs)."""


class RateWindow:
    """Events per key over a sliding window: whether one more is allowed (new guests
    per address: one script could otherwise make identities without end, and with them
    tables, sockets and stored players past every per-player limit)."""

    def __init__(self, limit: int, window_s: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self.times: dict[str, collections.deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Count one event under ``key`` if the limit allows it (0: no limit)."""
        if self.limit <= 0:
            return True
        now = self.clock()
        seen = self.times.setdefault(key, collections.deque())
        while seen and seen[0] <= now - self.window_s:
            seen.popleft()
        if len(seen) >= self.limit:
            return False
        seen.append(now)
        if len(self.times) > 100_000:  # forget the keys with nothing in the window
            for old in [k for k, v in self.times.items() if not v or v[-1] <= now - self.window_s]:
                del self.times[old]
        return True


class CachedStatic(StaticFiles):
    """The client's files: the card pictures are cached a week (they never change); the
    code is revalidated (ETag) so that a new version shows at once."""

    def file_response(self, full_path: Any, stat_result: os.stat_result, scope: Any,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        cards = "/cards/" in str(full_path)
        response.headers["cache-control"] = ("public, max-age=604800" if cards
                                             else "no-cache")
        return response


def data_dir() -> Path:
    """The data folder (:mod:`rebelote.paths`, made if missing)."""
    return Settings().folder


def default_database_url() -> str:
    return Settings().database_url


def load_secret() -> str:
    """The key that signs session cookies (:meth:`Settings.secret`)."""
    return Settings().secret()


class BadJSON(ValueError):
    """A request or message that is not acceptable JSON (the reason, for the client)."""


def parse_json(data: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``data`` parsed as JSON, or :class:`BadJSON` saying why not: not UTF-8, not
    JSON, nested deeper than ``max_depth``, or text with a lone surrogate (which no
    answer could carry)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text)
    except UnicodeDecodeError:
        raise BadJSON("the message is not UTF-8 text") from None
    except RecursionError:
        raise BadJSON(f"the message is nested too deeply (at most {max_depth} levels)") from None
    except ValueError:
        raise BadJSON("the message is not JSON") from None
    if (text.count("{") + text.count("[") <= max_depth and text.isascii()
            and "\\u" not in text):
        # No deeper than its brackets, and no surrogate without an escape: the walk
        # below would find nothing (an act message: 0.2 µs here, 1.3 µs walked).
        return value
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadJSON("the message holds a lone surrogate (\\ud800-\\udfff): "
                              "not text") from None
        elif isinstance(item, dict | list):
            if depth > max_depth:
                raise BadJSON(f"the message is nested too deeply (at most {max_depth} levels)")
            children = list(item.items()) if isinstance(item, dict) else item
            for child in children:
                if isinstance(child, tuple):
                    stack.append((child[0], depth))
                    stack.append((child[1], depth + 1))
                else:
                    stack.append((child, depth + 1))
    return value


INLINE_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)


def inline_script_hashes() -> list[str]:
    """CSP hashes of the inline scripts of the static pages (none today: each page loads
    its script from /static; a ``<script type="module">`` written inline was missed by
    a pattern for ``<script>`` alone, and the browser blocked the statistics page)."""
    hashes = []
    for page in STATIC.glob("*.html"):
        for attributes, script in INLINE_SCRIPT.findall(page.read_text()):
            if re.search(r"\bsrc\s*=", attributes):
                continue
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            hashes.append(f"'sha256-{digest}'")
    return hashes


def security_headers() -> list[tuple[bytes, bytes]]:
    script = " ".join(["'self'", *inline_script_hashes()])
    csp = (f"default-src 'self'; script-src {script}; style-src 'self'; "
           "img-src 'self' data:; connect-src 'self'; object-src 'none'; "
           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    return [(b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY"),
            (b"cross-origin-opener-policy", b"same-origin")]


def check_given_password(password: Any) -> None:
    """A password given to be checked (a login, the current one): any text of 1 to 200
    characters (ValueError if not); the policy is for new ones."""
    if not isinstance(password, str) or not 1 <= len(password) <= 200:
        raise ValueError("a password is 1 to 200 characters")


def _json_error(status: int, code: str, message: str) -> Response:
    return JSONResponse({"error": message, "code": code}, status)


class Guard:
    """ASGI middleware in front of everything: security headers on every response;
    state-changing requests only as JSON from this site (Content-Type, Origin,
    Sec-Fetch-Site: cross-site request forgery); request bodies size-limited; a
    WebSocket opened from another site refused."""

    SAFE = frozenset({"GET", "HEAD", "OPTIONS"})

    def __init__(self, app: ASGIApp, hsts: bool = False) -> None:
        self.app = app
        self.headers = security_headers()
        if hsts:
            self.headers.append((b"strict-transport-security", b"max-age=31536000"))

    @staticmethod
    def foreign(scope: Scope) -> str | None:
        """Why the request does not come from this site, if it does not."""
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return f"a request from another site ({site}) is refused"
        origin = headers.get("origin")
        if origin is not None:
            host = headers.get("host", "")
            netloc = origin.split("://", 1)[-1].rstrip("/")
            if origin == "null" or netloc.lower() != host.lower():
                return f"a request from another origin ({origin[:80]}) is refused"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if self.foreign(scope) is not None:
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 4403})
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: AsgiMessage) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + self.headers
            await send(message)

        if scope["method"] in self.SAFE:
            await self.app(scope, receive, with_headers)
            return
        why = self.foreign(scope)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        ctype = headers.get("content-type", "").split(";")[0].strip().lower()
        limit = MAX_SHEET_BODY if scope["path"] == "/api/score/game" else MAX_BODY
        refusal: Response | None = None
        if why is not None:
            refusal = _json_error(403, "cross_origin", why)
        elif ctype != "application/json" and scope["path"] != "/api/logout":
            refusal = _json_error(415, "bad_content_type",
                                  "send the request as JSON (Content-Type: application/json)")
        elif int(headers.get("content-length", "0") or 0) > limit:
            refusal = _json_error(413, "too_large", f"a request body is at most {limit} bytes")
        body = b""
        if refusal is None:
            while True:  # the whole body, within the limit
                message = await receive()
                body += message.get("body", b"")
                if len(body) > limit:
                    refusal = _json_error(413, "too_large",
                                          f"a request body is at most {limit} bytes")
                    break
                if not message.get("more_body"):
                    break
        if refusal is not None:
            await refusal(scope, receive, with_headers)
            return
        sent = False

        async def replay() -> AsgiMessage:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, with_headers)


async def send_frame(websocket: WebSocket, text: str) -> None:
    """A text frame on ``websocket`` by the server's own send (:data:`RAW_SEND`), with
    Starlette's checks and errors: its ``send_text`` went through five coroutines of
    middleware that only look at HTTP responses, at every frame of a busy server."""
    raw = websocket.scope.get(RAW_SEND)
    if raw is None or websocket.application_state != WebSocketState.CONNECTED:
        await websocket.send_text(text)
        return
    try:
        await raw({"type": "websocket.send", "text": text})
    except OSError:  # the client went away (what Starlette's send does)
        websocket.application_state = WebSocketState.DISCONNECTED
        raise WebSocketDisconnect(code=1006) from None


class Connections:
    """Open WebSockets by player (a player may have several tabs)."""

    def __init__(self) -> None:
        self.by_player: dict[str, set[WebSocket]] = defaultdict(set)
        self.session_of: dict[WebSocket, str] = {}

    async def send(self, player: str, message: dict[str, Any]) -> None:
        await self.send_text(player, text_of(message))

    async def send_text(self, player: str, text: str) -> None:
        for socket in list(self.by_player.get(player, ())):
            try:
                await send_frame(socket, text)
            except (RuntimeError, WebSocketDisconnect, OSError):
                self.by_player[player].discard(socket)

    def renew_session(self, player: str, old: str, new: str) -> None:
        """``player``'s sockets opened with session ``old`` belong to ``new`` (the same
        browser, given a new cookie)."""
        for socket in self.by_player.get(player, ()):
            if self.session_of.get(socket) == old:
                self.session_of[socket] = new

    async def close_sessions(self, sessions: set[str] | None, player: str,
                             keep: str | None = None) -> None:
        """Close the sockets opened with these sessions (None: all of ``player``'s but
        those of ``keep``)."""
        for socket in list(self.by_player.get(player, ())):
            session = self.session_of.get(socket)
            if (session in sessions if sessions is not None
                    else keep is None or session != keep):
                with contextlib.suppress(Exception):
                    await socket.close(code=4401)


GC_THRESHOLDS = (5_000, 200, 100)
"""When the loop collects: young objects past the first number; the middle generation
every that many young collections, the oldest every that many of those (as often as
Python's thresholds 50,000 / 20 / 100 did, young collections ten times smaller)."""


def garbage_thresholds() -> tuple[int, int, int]:
    """:data:`GC_THRESHOLDS`, or ``REBELOTE_GC_THRESHOLD`` ("g0,g1,g2", a diagnosis)."""
    given = os.environ.get("REBELOTE_GC_THRESHOLD")
    if not given:
        return GC_THRESHOLDS
    first, middle, oldest = (int(x) for x in given.split(","))
    return first, middle, oldest


def tune_garbage_collector() -> None:
    """The tables loaded at start frozen out of the collector's sight. (Measured with
    200 busy tables: Python's default thresholds put full collections of every game
    state in the way of answers, p99 165 ms; fewer of them, 77 ms.)"""
    gc.freeze()


async def collect_on_the_loop(period: float = 0.01) -> None:
    """Garbage collected by the event loop itself, never by another thread: Python
    collects in whichever thread allocates past its threshold, and a collection holds
    the GIL from start to end, so one in the writer thread kept the loop waiting for
    all of it and for any time that thread lost its core meanwhile (a young collection
    of 50,000 objects: 15-25 ms of CPU, 40-86 ms of the loop's time on a busy 2-core
    machine). Here the automatic collector is off while the server runs, and the loop
    collects every ``period`` seconds once enough young objects are waiting
    (:func:`garbage_thresholds`): 5,000 young objects take 1-7 ms of its CPU (10,000:
    5-13 ms, the busy responsiveness bench)."""
    first, middle, oldest = garbage_thresholds()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        while True:
            await asyncio.sleep(period)
            young, collected, middle_collected = gc.get_count()
            if young < first:
                continue
            generation = 0
            if collected >= middle:
                generation = 2 if middle_collected >= oldest else 1
            gc.collect(generation)
    finally:
        if was_enabled:
            gc.enable()


def free_closed_transports() -> None:
    """Closed connections freed at once rather than by the garbage collector: Python
    3.11's socket transport keeps a bound method of itself (``_read_ready_cb``), so each
    closed connection stayed behind as a reference cycle (the transport, its socket and
    its extras) until a collection, which then ran every transport's ``__del__``: 4,500
    connections' worth in one young collection, 70-100 ms of the loop (measured with
    ``gc.DEBUG_SAVEALL`` on the responsiveness bench). The cycle is broken once the
    transport is closed."""
    from asyncio import selector_events

    transport: Any = getattr(selector_events, "_SelectorSocketTransport", None)
    if transport is None:
        return
    if getattr(transport, "_rebelote_frees", False) or not hasattr(
            transport, "_call_connection_lost"):
        return
    lost = transport._call_connection_lost

    def call_connection_lost(self: Any, exc: BaseException | None) -> None:
        try:
            lost(self, exc)
        finally:
            self._read_ready_cb = None

    transport._call_connection_lost = call_connection_lost
    transport._rebelote_frees = True


def prefer_the_loop() -> None:
    """The GIL handed back sooner to the event loop: each socket write or read lets the
    GIL go, and the loop then waited up to Python's switch interval (5 ms) for it
    whenever the writer thread or a pool's feeder held it, many times per turn of the
    loop on a busy server. At 0.5 ms those waits stay short."""
    sys.setswitchinterval(0.0005)


class GroupCommit:
    """Writes the actions of the messages handled meanwhile in one transaction, in a
    writer thread (a commit on the event loop stalled every client 98 ms on a quiet
    machine, 276 ms on a busy one, the statistics counted after it included), before any
    answer to them is sent: under load one commit serves many tables.

    Batches are written one at a time, in order. While one is written, the loop goes on
    with other work; a message handled meanwhile waits for the next batch, even one that
    stored nothing (its answer may show actions still being written). A failed write
    undoes its tables, with the actions taken on them meanwhile; its messages (the
    tables' players told, the tables as stored) are delivered once, and whoever waited
    drops the answers about undone tables (:meth:`TableService.undone`).

    The writer thread hands a finished write straight to the loop, which starts the
    next batch before its own waiters resume: a write's end reached its waiters through
    four turns of a busy loop (the executor's future, the commit's task, a lock, a
    shield), 62 ms of waiting for a 23 ms cycle of writes (``bench.server_load``)."""

    def __init__(self, service: TableService,
                 deliver: Callable[[list[tuple[str, dict[str, Any]]]],
                                   Coroutine[Any, Any, None]],
                 watch: LoopWatch | None = None) -> None:
        self.service = service
        self.deliver = deliver
        self.watch = watch
        self._waiters: list[asyncio.Future[StorageFailure | None]] = []
        """Who waits for the next batch."""
        self._starting = False
        self._writing = False
        self.in_flight: set[str] = set()
        """The tables of the batch being written."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="writer")
        self._beside = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="beside")
        """The thread of :meth:`beside_batches`."""
        self._settling: asyncio.TimerHandle | None = None
        self.settle_after = SETTLE_S
        """Seconds after a write before what it left waiting in the summaries is counted,
        should no other write count it first."""

    @property
    def busy(self) -> bool:
        """Whether actions are being written or wait for it."""
        return self._writing or bool(self._waiters)

    def unstored(self, tables: Iterable[str]) -> bool:
        """Whether any of ``tables`` has actions not yet written (waiting or in the
        batch being written): an answer about it waits for the write; others need not
        (an idle table's sync waited for every batch, 90 ms p99 on a busy server)."""
        pending = self.service.pending_tables() | self.in_flight
        return any(t in pending for t in tables)

    async def flush(self) -> StorageFailure | None:
        """Wait until everything handled so far is written: None, or the failure of the
        batch it was in (whether an answer may be sent: :meth:`TableService.undone`)."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[StorageFailure | None] = loop.create_future()
        self._waiters.append(waiter)
        if not self._writing and not self._starting:
            # the messages handled in this turn of the loop join the batch
            self._starting = True
            loop.call_soon(self._start)
        return await waiter

    def _start(self) -> None:
        """The next batch, taken now and handed to the writer thread."""
        self._starting = False
        loop = asyncio.get_running_loop()
        waiters, self._waiters = self._waiters, []
        batch = self.service.take_pending()
        absences, self.service.absences = self.service.absences, {}
        if not batch and not absences:
            self._resolve(waiters, None)
            return
        tables = self.service.tables_of(batch)
        self.in_flight = {t for t, *_ in batch}  # from the take on: unstored() sees them
        self._writing = True
        started = time.perf_counter()

        told = False

        def tell(error: BaseException | None = None) -> None:  # from the writer thread
            nonlocal told
            told = True
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._written, batch, waiters, started, error)

        def write() -> None:  # in the writer thread
            try:
                if absences:  # stand-in timers (a failure is logged, never refuses one)
                    self.service.store_absences(absences)
                if batch:  # the loop told once they are stored, before they are counted
                    self.service.store_batch(batch, tables, stored=tell)
            except BaseException as exc:  # told to the loop, which undoes the batch
                if told:  # the count's own failure: the actions are stored
                    log.exception("counting the summaries failed")
                else:
                    tell(exc)
            if not told:
                tell()

        try:
            self._writer.submit(write)
        except RuntimeError as exc:  # the writer stopped (the server is stopping)
            self._written(batch, waiters, started, exc)

    def _written(self, batch: list[tuple[str, int, str, dict[str, Any]]],
                 waiters: list[asyncio.Future[StorageFailure | None]], started: float,
                 error: BaseException | None) -> None:
        """A write's end, on the loop: a failed batch undone (its players told), the
        next batch started, then this one's waiters resumed."""
        loop = asyncio.get_running_loop()
        self._writing = False
        self.in_flight = set()
        if self.watch is not None:
            self.watch.note("commit", (time.perf_counter() - started) * 1e3)
        failure: StorageFailure | None = None
        problem: BaseException | None = None
        try:
            if error is not None:
                failure = self.service.not_stored(batch, error)  # undone, on the loop
                task = loop.create_task(self.deliver(failure.messages))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif self._settling is None and self.service.statistics_waiting():
                self._settling = loop.call_later(self.settle_after, self._settle)
        except Exception as exc:  # every waiter hears of it; nothing is sent
            problem = exc
        if self._waiters and not self._starting:
            self._start()  # what was handled during this write: written now
        if problem is not None:
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(problem)
        else:
            self._resolve(waiters, failure)

    @staticmethod
    def _resolve(waiters: list[asyncio.Future[StorageFailure | None]],
                 result: StorageFailure | None) -> None:
        for waiter in waiters:
            if not waiter.done():  # (a waiter cancelled meanwhile)
                waiter.set_result(result)

    async def between_batches(self, job: Callable[[], None]) -> None:
        """Run ``job`` in the writer thread, after the batch being written and before
        the next (a checkpoint: no write of this process beside it)."""
        await asyncio.get_running_loop().run_in_executor(self._writer, job)

    async def beside_batches(self, job: Callable[[], None]) -> None:
        """Run ``job`` in a thread of its own while batches go on being written (most of
        a checkpoint's copying: :meth:`Store.copy_log`)."""
        await asyncio.get_running_loop().run_in_executor(self._beside, job)

    def _settle(self) -> None:
        """What the last batches left waiting in the summaries counted, even if no
        other batch comes (in the writer thread, after the batch being written)."""
        self._settling = None
        future = asyncio.get_running_loop().run_in_executor(
            self._writer, self.service.settle_statistics)
        future.add_done_callback(lambda done: done.exception())  # logged by the count

    def close(self) -> None:
        """The writer stopped, once it has counted what waits in the summaries."""
        if self._settling is not None:
            self._settling.cancel()
            self._settling = None
        self._beside.shutdown(wait=True, cancel_futures=True)  # a copy: 0.1 s at most
        try:
            counting = self._writer.submit(self.service.settle_statistics)
        except RuntimeError:  # stopped already (an application started twice)
            return
        with contextlib.suppress(Exception):  # a database gone: counted at the next start
            counting.result(timeout=SHUTDOWN_GRACE_S)
        self._writer.shutdown(wait=counting.done())


class SessionReader:
    """Sessions read from the database together: the lookups asked while a read is on
    its way wait for the next, which asks for all of them in one query, in a thread. A
    thousand players reconnecting at once (a server process died) made a thousand
    queries, a thread job each holding the GIL for a few milliseconds: their sockets
    opened 7.8 s after the kill (median, ``bench.cluster_load`` at 1,000 tables)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._wanted: dict[str, list[asyncio.Future[str | None]]] = {}
        self._reading: asyncio.Task[None] | None = None

    async def player(self, token: str) -> str | None:
        """The player signed in by ``token``; None if revoked or unknown."""
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._wanted.setdefault(token, []).append(future)
        if self._reading is None:
            self._reading = asyncio.create_task(self._read())
        return await future

    async def _read(self) -> None:
        try:
            while self._wanted:
                await asyncio.sleep(0)  # this turn's lookups gathered
                wanted, self._wanted = self._wanted, {}
                try:
                    found = await asyncio.to_thread(self.store.session_players, list(wanted))
                except Exception as exc:  # each of them hears it
                    for futures in wanted.values():
                        for future in futures:
                            if not future.done():
                                future.set_exception(exc)
                    continue
                for token, futures in wanted.items():
                    for future in futures:
                        if not future.done():
                            future.set_result(found.get(token))
        finally:
            self._reading = None


class Throttle:
    """Wrong passwords per key (a folded name, an address): a few are free, then each
    one doubles the wait before the next attempt (up to ``LOGIN_MAX_WAIT_S``)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, tuple[int, float]] = {}

    def wait(self, *keys: str) -> float:
        """Seconds before the next attempt under any of ``keys`` is heard."""
        now, longest = self.clock(), 0.0
        for key in keys:
            count, last = self.failures.get(key, (0, 0.0))
            if count >= LOGIN_FREE_FAILURES:
                delay = min(LOGIN_MAX_WAIT_S, 2.0 ** (count - LOGIN_FREE_FAILURES))
                longest = max(longest, last + delay - now)
        return max(0.0, longest)

    def failed(self, *keys: str) -> None:
        now = self.clock()
        for key in keys:
            count, _ = self.failures.get(key, (0, 0.0))
            self.failures[key] = (count + 1, now)
        if len(self.failures) > 100_000:  # forget the oldest
            for key in sorted(self.failures, key=lambda k: self.failures[k][1])[:50_000]:
                del self.failures[key]

    def succeeded(self, key: str) -> None:
        self.failures.pop(key, None)


MAX_SHEET_HANDS = 20_000
"""The most hands a score sheet posted to the calculator may have."""


def score_sheet_report(body: bytes, lang: str = "en") -> tuple[int, bytes]:
    """The calculator's computation on a posted sheet: (HTTP status, JSON answer, its
    refusal said in ``lang``). It runs in a worker process, parsing and answering
    included (a 20,000-hand sheet's JSON alone took 0.5 s)."""
    from rebelote.calculator import ScoreSheet
    from rebelote.scoring import ScoreError

    def answer(status: int, value: Any) -> tuple[int, bytes]:
        return status, json.dumps(value, ensure_ascii=False).encode()

    try:
        sheet = parse_json(body)
    except BadJSON as exc:
        return answer(400, {"error": str(exc), "code": "bad_request"})
    hands = sheet.get("hands") if isinstance(sheet, dict) else None
    if isinstance(hands, list) and len(hands) > MAX_SHEET_HANDS:
        return answer(413, {"error": f"a score sheet has at most {MAX_SHEET_HANDS} hands",
                            "code": "too_large"})
    try:
        report: dict[str, Any] = ScoreSheet.from_json(sheet).report()
    except ScoreError as exc:
        return answer(400, {"error": error_text(exc, lang), "code": "bad_sheet"})
    except (ValueError, TypeError, KeyError) as exc:
        return answer(400, {"error": str(exc), "code": "bad_sheet"})
    return answer(200, report)


def create_app(database_url: str | None = None, secret: str | None = None,
               seed: int | None = None, redis_url: str | None = None,
               migrate: bool = True, https: bool | None = None,
               work: OffLoop | None = None, prestart: bool = False,
               settings: Settings | None = None,
               exit_after_stop: float | None = None) -> Starlette:
    """The application, with its store (SQLite by default, any SQLAlchemy URL). With a
    ``redis_url``, one process of the scale-out mode (:mod:`rebelote.server.cluster`).
    ``https`` (default: $REBELOTE_HTTPS=1): the site is served over HTTPS, so the
    session cookie is ``Secure``. ``prestart``: start the worker processes with the
    server (``rebelote serve``), not at their first job. ``settings`` gives everything
    at once (:mod:`rebelote.server.settings`); the other arguments override it.
    ``exit_after_stop``: the process is to exit this many seconds after the application
    stops, at the latest (:data:`EXIT_AFTER_STOP_S`; a program that goes on after it,
    such as a test, leaves it None)."""
    if https is None:
        https = os.environ.get("REBELOTE_HTTPS") == "1"
    base = settings or Settings()
    settings = base.with_(database=database_url or base.database,
                          redis=redis_url or base.redis, migrate=migrate and base.migrate)
    redis_url = settings.redis or None
    store = Store(settings.database_url, migrate=settings.migrate)
    service = TableService(store, seed=seed, load_all=redis_url is None)
    service.defer_bots = True
    service.defer_absences = True
    work = work or OffLoop()
    watch = LoopWatch()
    connections = Connections()
    cluster: Cluster | None = None

    async def deliver(out: list[tuple[str, dict[str, Any]]]) -> None:
        if cluster is not None:
            await cluster.deliver(out)
            return
        for recipient, answer in out:
            await connections.send(recipient, answer)

    session_cache: dict[str, tuple[str, float]] = {}
    """Session id -> (player, when read): a session read within 5 s is not read again."""

    async def end_local_sessions(player: str, sessions: set[str] | None,
                                 keep: str | None) -> None:
        """Revoked sessions of ``player`` (None: all but ``keep``) forgotten by this
        process's cache and their sockets here closed."""
        for sid, (owner, _t) in list(session_cache.items()):
            if owner == player and (sid in sessions if sessions is not None else sid != keep):
                del session_cache[sid]
        await connections.close_sessions(sessions, player, keep)

    async def end_sessions(player: str, sessions: set[str] | None = None,
                           keep: str | None = None) -> None:
        """Revoked sessions (already so in the database) ended in every process: their
        sockets closed, at once, wherever they are."""
        await end_local_sessions(player, sessions, keep)
        if cluster is not None:
            try:
                await cluster.sessions_ended(player, sessions, keep)
            except Exception as exc:  # Redis away: the others' 5 s cache ends them
                log.warning("sessions ended here only (%s)", exc.__class__.__name__)

    group = GroupCommit(service, deliver, watch)
    # One process: the messages written as soon as made, not kept as trees of objects
    # while their write is waited for (:class:`Encoded`); a cluster publishes them.
    bots = BotRunner(service, work, group.flush, deliver,
                     prepare=encoded if redis_url is None else None)
    if redis_url is not None:
        from rebelote.server.cluster import Cluster  # needs rebelote[cluster]

        cluster = Cluster(service, redis_url, connections.send_text, commit=group.flush,
                          kick=bots.kick, owner_timeout=settings.owner_timeout,
                          name=settings.name, end_sessions=end_local_sessions)
    observe = Observability(settings, service, store, cluster=cluster, jobs=work.waiting,
                            sockets=lambda: sum(len(s) for s in connections.by_player.values()))
    hasher = PasswordHasher()
    throttle = Throttle()
    sessions = SessionReader(store)
    paused: collections.Counter[str] = collections.Counter()
    """Refused login attempts being paused, per address."""
    new_guests = RateWindow(settings.guests_per_hour)
    dummy_hash: list[str] = []

    async def who(conn: HTTPConnection) -> tuple[str, str] | None:
        """(player, nickname) of the connection's live session, if any (the database
        asked in a thread: with the writer thread writing, SQLite may make it wait)."""
        sid = conn.session.get("sid")
        if not isinstance(sid, str):
            return None
        cached = session_cache.get(sid)
        if cached is None or time.monotonic() - cached[1] > 5.0:
            player = await sessions.player(sid)
            if player is None:
                session_cache.pop(sid, None)
                return None
            cached = session_cache[sid] = (player, time.monotonic())
        return cached[0], service.names.get(cached[0], cached[0])

    async def sign_in(request: Request, player: str, nickname: str) -> Response:
        sid = secrets.token_urlsafe(24)
        await asyncio.to_thread(store.add_session, sid, player)
        service.names[player] = nickname
        request.session.clear()
        request.session["sid"] = sid
        return JSONResponse({"player": player, "nickname": nickname})

    async def body_of(request: Request) -> Any:
        return parse_json(await request.body())

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def calculator(request: Request) -> Response:
        return FileResponse(STATIC / "calculator.html")

    async def guest(request: Request) -> Response:
        try:
            body = await body_of(request)
            if not isinstance(body, dict):
                raise BadJSON("send a JSON object with a nickname")
            nickname = check_name(body.get("nickname"), "a nickname")
        except ValueError as exc:
            return _json_error(400, "bad_request", str(exc))
        if not new_guests.allow(request.client.host if request.client else "?"):
            return _json_error(429, "too_many_guests",
                               f"at most {settings.guests_per_hour} new guests an hour from "
                               "one address: play on as the guest you are, or sign in")
        player = "guest-" + secrets.token_hex(6)
        if not await asyncio.to_thread(store.add_player, player, nickname, name_key(nickname)):
            return _json_error(409, "name_taken",
                               f"the name {nickname!r} (or one that looks the same) is taken")
        return await sign_in(request, player, nickname)

    async def credentials(request: Request, new: bool) -> tuple[str, str] | Response:
        try:
            body = await body_of(request)
            if not isinstance(body, dict):
                raise BadJSON("send a JSON object with a name and a password")
            name = check_name(body.get("name"))
            password = body.get("password")
            if new:
                check_password(password)
            else:
                check_given_password(password)
        except ValueError as exc:  # a refused name or password says which rule
            return _json_error(400, exc.code if isinstance(exc, Refused) else "bad_request",
                               str(exc))
        assert isinstance(password, str)
        return name, password

    async def register(request: Request) -> Response:
        got = await credentials(request, new=True)
        if isinstance(got, Response):
            return got
        name, password = got
        try:
            hashed = await work.run("auth", hasher.hash, password)
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        current = await who(request)
        # a guest's account is the guest itself: its tables, history and rating kept
        kept = None if current is None else await asyncio.to_thread(
            store.guest_to_account, current[0], name, hashed, name_key(name))
        if kept is not None and current is not None:
            account, stored = current[0], kept
        else:  # nobody signed in, or an account already: a new account
            account = "acct-" + secrets.token_hex(6)
            stored = await asyncio.to_thread(store.add_account, account, name, hashed,
                                             name_key(name))
        if not stored:
            return _json_error(409, "name_taken",
                               f"the name {name!r} (or one that looks the same) is taken")
        old = request.session.get("sid")
        answer = await sign_in(request, account, name)
        if kept and isinstance(old, str):  # the guest's cookie ends with the guest
            await asyncio.to_thread(store.revoke_sessions, token=old)
            session_cache.pop(old, None)
            connections.renew_session(account, old, str(request.session["sid"]))
        return answer

    async def verified(request: Request, name: str, password: str
                       ) -> tuple[str, str] | Response:
        """(account id, password hash) if ``password`` is the account ``name``'s, else
        the refusal: wrong passwords throttled per name and per address, an unknown name
        costing the same verification as a wrong password (login, a new password,
        closing the account)."""
        key = name_key(name)
        address = "addr:" + (request.client.host if request.client else "?")
        wait = throttle.wait("name:" + key, address)
        if wait > 0:
            if paused[address] < LOGIN_PAUSED_PER_ADDRESS:
                paused[address] += 1
                try:
                    await asyncio.sleep(min(wait / 2, LOGIN_REFUSAL_PAUSE_S))
                finally:
                    paused[address] -= 1
                    if not paused[address]:
                        del paused[address]
                wait = max(0.1, throttle.wait("name:" + key, address))
            return JSONResponse({"error": f"too many wrong passwords: try again in "
                                          f"{wait:.0f} s", "code": "too_many",
                                 "retry_after": round(wait, 1)}, 429,
                                headers={"retry-after": str(int(wait) + 1)})
        found = await asyncio.to_thread(store.account, name, key)
        try:
            if not dummy_hash:
                dummy_hash.append(await work.run("auth", hasher.hash,
                                                 secrets.token_hex(16)))
            stored_hash = dummy_hash[0] if found is None else found[1]
            await work.run("auth", hasher.verify, stored_hash, password)
            if found is None:
                raise VerifyMismatchError
        except (VerificationError, InvalidHashError):
            throttle.failed("name:" + key, address)
            return _json_error(401, "wrong_password", "wrong name or password")
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        throttle.succeeded("name:" + key)
        return found

    async def login(request: Request) -> Response:
        got = await credentials(request, new=False)
        if isinstance(got, Response):
            return got
        name, password = got
        found = await verified(request, name, password)
        if isinstance(found, Response):
            return found
        if hasher.check_needs_rehash(found[1]):
            rehashed = await work.run("auth", hasher.hash, password)
            await asyncio.to_thread(store.set_password_hash, found[0], rehashed)
        nickname = await asyncio.to_thread(store.account_name, found[0])
        return await sign_in(request, found[0], nickname or name)

    async def own_account(request: Request, fields: tuple[str, ...]
                          ) -> tuple[str, str, dict[str, Any]] | Response:
        """(account id, name, body) of a signed-in account whose body's ``password`` is
        its password and whose other ``fields`` are texts; else the refusal."""
        current = await who(request)
        if current is None:
            return _json_error(401, "not_signed_in", "sign in first")
        name = await asyncio.to_thread(store.account_name, current[0])
        if name is None:
            return _json_error(403, "not_an_account", "a guest has no password: create "
                                                      "an account first")
        try:
            body = await body_of(request)
        except ValueError as exc:
            return _json_error(400, "bad_request", str(exc))
        if not isinstance(body, dict) or not all(
                isinstance(body.get(field), str) for field in ("password", *fields)):
            return _json_error(400, "bad_request", "send a JSON object with "
                               + " and ".join(("password", *fields)) + " as texts")
        try:
            check_given_password(body["password"])
        except ValueError as exc:
            return _json_error(400, "bad_request", str(exc))
        found = await verified(request, name, body["password"])
        if isinstance(found, Response) and found.status_code != 401:
            return found  # too many tries, busy
        if isinstance(found, Response) or found[0] != current[0]:
            return _json_error(401, "wrong_current_password", "wrong password")
        return current[0], name, body

    async def new_password(request: Request) -> Response:
        """A signed-in account's new password, given its password: every other browser
        signed in with it is logged out (a stolen session ends with the old password)."""
        got = await own_account(request, ("new",))
        if isinstance(got, Response):
            return got
        account, _name, body = got
        try:
            check_password(body["new"])
        except Refused as exc:
            return _json_error(400, exc.code, str(exc))
        if body["new"] == body["password"]:
            return _json_error(400, "password_same", "the new password is the old one")
        try:
            hashed = await work.run("auth", hasher.hash, body["new"])
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        sid = request.session.get("sid")
        keep = sid if isinstance(sid, str) else None
        await asyncio.to_thread(store.set_password_hash, account, hashed)
        await asyncio.to_thread(store.revoke_sessions, player=account, keep=keep)
        await end_sessions(account, keep=keep)
        return JSONResponse({"ok": True})

    async def close_account(request: Request) -> Response:
        """The signed-in account closed, given its password: nobody can log in with it
        again, every browser is logged out; its name stays on its games, taken, and at a
        game in progress a stand-in bot takes the seat as for any player gone."""
        got = await own_account(request, ())
        if isinstance(got, Response):
            return got
        account = got[0]
        await asyncio.to_thread(store.close_account, account)
        await end_sessions(account)
        request.session.clear()
        return JSONResponse({"ok": True})

    async def logout(request: Request) -> Response:
        everywhere = False
        with contextlib.suppress(ValueError):
            body = parse_json(await request.body() or b"{}")
            everywhere = isinstance(body, dict) and body.get("everywhere") is True
        sid = request.session.get("sid")
        current = await who(request)
        if isinstance(sid, str):
            if everywhere and current is not None:
                await asyncio.to_thread(store.revoke_sessions, player=current[0])
                await end_sessions(current[0])
            else:
                await asyncio.to_thread(store.revoke_sessions, token=sid)
                if current is not None:  # its sockets closed, its cache entry dropped
                    await end_sessions(current[0], {sid})
                else:
                    session_cache.pop(sid, None)
        request.session.clear()
        return JSONResponse({"ok": True, "everywhere": everywhere})

    async def session(request: Request) -> Response:
        """Who you are, or nobody (always 200: a new visitor's page logs no error)."""
        current = await who(request)
        account = current is not None and await asyncio.to_thread(
            store.account_name, current[0]) is not None
        return JSONResponse({"player": None if current is None else current[0],
                             "nickname": None if current is None else current[1],
                             "account": account})

    async def texts(request: Request) -> Response:
        """The one text catalog (rebelote.i18n) in ``?lang=`` for the web pages, and
        each deck style's card labels (rebelote.decks) and the cards' spoken names in
        each deck (their ARIA labels)."""
        from rebelote.cards import card_name
        from rebelote.decks import STYLES, short_label
        from rebelote.i18n import catalog, spoken_cards

        lang = request.query_params.get("lang", "en")
        decks = {style: {card_name(c): short_label(c, style) for c in range(32)}
                 for style in STYLES}
        return JSONResponse(catalog(lang) | {"lang": lang, "decks": decks,
                                             "spoken": spoken_cards(lang)},
                            headers={"cache-control": "no-cache"})

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                            headers={"cache-control": "public, max-age=604800"})

    async def me(request: Request) -> Response:
        current = await who(request)
        if current is None:
            return _json_error(401, "not_signed_in", "not signed in")
        return JSONResponse({"player": current[0], "nickname": current[1]})

    presets = [make() for make in PRESETS.values()]
    catalog = {  # the same for every request
        "options": [{"name": o.name, "values": o.values, "doc": o.doc, "minimum": o.minimum,
                     "game": o.game}
                    for o in OPTIONS if o.name not in TABLE_FIXED_OPTIONS],
        "presets": {r.preset: {o: getattr(r, o) for o in OPTION_NAMES}
                    for r in presets},
        "levels": list(OFFERED_LEVELS)}

    async def rule_options(request: Request) -> Response:
        """Every rule option a table may set, each preset's values (the lobby's "more
        rules") and the bot levels a table may call in."""
        return JSONResponse(catalog)

    async def tables(request: Request) -> Response:
        if cluster is not None:
            return JSONResponse(await cluster.lobby())
        return JSONResponse(service.public_tables())

    async def viewer(request: Request) -> str | None:
        current = await who(request)
        return None if current is None else current[0]

    async def record(request: Request) -> Response:
        try:
            job = service.record_job(request.path_params["table"], await viewer(request),
                                     request.query_params.get("invite"))
            data = await work.run("stats", job)  # a long game's record: off the loop
        except ServiceError as exc:
            return JSONResponse({"error": str(exc), "code": exc.code},
                                403 if exc.code == "private" else 404)
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        return JSONResponse(data, headers={
            "content-disposition": f'attachment; filename="{request.path_params["table"]}.json"'})

    async def score_game(request: Request) -> Response:
        """The score calculator page's computation: the same code as `rebelote score`,
        in a worker process."""
        try:
            lang = request.query_params.get("lang", "en")
            status, answer = await work.run("calc", score_sheet_report, await request.body(),
                                            lang if lang in LANGS else "en")
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        return Response(answer, status, media_type="application/json")

    async def history(request: Request) -> Response:
        try:
            job = service.history_job(request.path_params["table"], await viewer(request),
                                      request.query_params.get("invite"))
            return JSONResponse(await work.run("stats", job))  # off the loop
        except ServiceError as exc:
            return JSONResponse({"error": str(exc), "code": exc.code},
                                403 if exc.code == "private" else 404)
        except Busy as exc:
            return _json_error(503, "busy", str(exc))

    async def replay_page(request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def stats(request: Request) -> Response:
        player = request.query_params.get("player") or await viewer(request)
        if not player:
            return JSONResponse({"error": "whose statistics? sign in or give ?player="}, 400)
        try:
            mine = await work.run("stats", service.stats, player)
            rating = await work.run("stats", service.rating, player)
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        return JSONResponse(mine | {"rating": rating})

    async def ratings(request: Request) -> Response:
        try:
            board = sorted((await work.run("stats", service.ratings)).items(),
                           key=lambda kv: -kv[1]["ordinal"])
        except Busy as exc:
            return _json_error(503, "busy", str(exc))
        return JSONResponse([{"player": service.names.get(p, p)} | r for p, r in board])

    async def stats_page(request: Request) -> Response:
        return FileResponse(STATIC / "stats.html")

    async def answer_hint(websocket: WebSocket, player: str, message: dict[str, Any]) -> None:
        """A hint computed in a worker process, sent to the asking tab."""
        try:
            table = service.running_table(message.get("table"))
            view = service.hint_view(table, player)
            answer = await work.run("hints", tables_module.compute_hint, table.id, view)
        except ServiceError as exc:
            from rebelote.server.tables import error_message

            answer = error_message(exc)
        except Busy as exc:
            answer = {"type": "error", "code": "busy", "message": str(exc)}
        await send_to(websocket, answer)

    async def send_to(websocket: WebSocket, message: dict[str, Any]) -> None:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await send_frame(websocket, text_of(message))

    def error(code: str, text: str) -> dict[str, Any]:
        return {"type": "error", "code": code, "message": text}

    async def socket(websocket: WebSocket) -> None:
        with observe.opening():  # timed, and told if slow as a message is
            current = await who(websocket)
            if current is None:
                await websocket.close(code=4401)
                return
            player, nickname = current
            await websocket.accept()
            if len(connections.by_player[player]) >= MAX_SOCKETS:
                await send_to(websocket, error("limit", f"at most {MAX_SOCKETS} open tabs: "
                                               "close one first"))
                await websocket.close(code=4429)
                return
            connections.by_player[player].add(websocket)
            connections.session_of[websocket] = str(websocket.session.get("sid"))
            if cluster is not None:
                await cluster.connected(player)
            else:
                service.reconnected(player)
        hints: set[asyncio.Task[None]] = set()
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                if text is None:
                    await send_to(websocket, error("bad_message",
                                                   "send text frames of JSON, not binary"))
                    continue
                if len(text) > MAX_MESSAGE:
                    await send_to(websocket, error(
                        "too_large", f"a message is at most {MAX_MESSAGE} characters"))
                    continue
                try:
                    message: Any = parse_json(text)
                except BadJSON as exc:
                    await send_to(websocket, error("bad_message", str(exc)))
                    continue
                with observe.message(message):
                    if cluster is not None:
                        await cluster.receive(player, nickname, message)
                        continue
                    if isinstance(message, dict) and message.get("type") == "hint":
                        if hints:  # one hint at a time per tab
                            await send_to(websocket, error("busy", "a hint is on its way"))
                            continue
                        task = asyncio.create_task(answer_hint(websocket, player, message))
                        hints.add(task)
                        task.add_done_callback(hints.discard)
                        continue
                    recorded = service.pending_count
                    out = service.handle(player, message, commit=False)
                    before = service.snapshot(out)
                    out = encoded(out)  # text while it waits (:class:`Encoded`)
                    # its own actions (a "left" names no table), or a table it speaks of
                    # with actions not yet written: the answers wait for the write
                    if service.pending_count > recorded or group.unstored(before):
                        await group.flush()
                        undone = service.undone(before)  # its players told by the group
                        if undone:
                            out = [(p, m) for p, m in out if m.get("table") not in undone]
                            if not any(player in told for told in undone.values()):
                                await send_to(websocket, error("storage", failure_text()))
                    bots.kick()
                    for recipient, answer in out:
                        if recipient == player and answer["type"] in ("error", "created",
                                                                      "hint"):
                            await send_to(websocket, answer)  # the asking tab only
                        else:
                            await connections.send(recipient, answer)
        except WebSocketDisconnect:
            pass
        finally:
            for task in hints:
                task.cancel()
            connections.by_player[player].discard(websocket)
            connections.session_of.pop(websocket, None)
            if websocket.client_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close()
            if cluster is not None:
                await cluster.disconnected(player)
            elif not connections.by_player[player]:  # the last tab closed
                service.disconnected(player)

    def failure_text() -> str:
        from rebelote.server.tables import STORAGE_ERROR

        return STORAGE_ERROR

    async def checkpoints() -> None:
        """The SQLite log copied into its file every second: most of it beside the
        writes (:meth:`Store.copy_log`), then the rest in the writer thread between two
        batches (:meth:`Store.checkpoint`: beside the writes, the log never started
        over). Done all between two batches, the copy held the writes back 46 ms a
        second (median, ``bench.server_load``), and the actions of those 50 ms waited
        for it: most of that row's p99."""
        while True:
            await asyncio.sleep(CHECKPOINT_S)
            try:
                await group.beside_batches(store.copy_log)
                await group.between_batches(store.checkpoint)
            except Exception as exc:  # a full disk: the next one tries again
                log.warning("checkpoint of the database failed: %s", exc)

    async def ticker() -> None:
        while True:
            await asyncio.sleep(1.0)
            out = service.tick(commit=False)
            if service.uncommitted or service.absences or group.busy:
                before = service.snapshot(out)
                await group.flush()  # a failure's players are told by the group
                undone = service.undone(before)
                out = [(p, m) for p, m in out if m.get("table") not in undone]
            bots.kick()
            for recipient, answer in out:
                await connections.send(recipient, answer)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tune_garbage_collector()
        prefer_the_loop()
        free_closed_transports()
        if prestart:
            await work.start()
        loop = asyncio.get_running_loop()
        log.info("serving %d table(s) on the %s event loop", len(service.tables),
                 type(loop).__module__.split(".")[0])
        if os.environ.get("REBELOTE_LOOP_REPORT") and isinstance(loop, asyncio.BaseEventLoop):
            watch.trace_callbacks()  # through asyncio's handles: not uvloop's
        watching = asyncio.create_task(watch.run())
        collecting = asyncio.create_task(collect_on_the_loop())
        observing = observe.running()
        await observing.__aenter__()
        checkpointing = asyncio.create_task(checkpoints())
        for table_id in list(service.tables):  # bots whose turn it was at the restart
            if service.bot_turn(table_id) is not None:
                service.bots_due.add(table_id)
        bots.kick()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGUSR2, log_tasks)  # (not in a test's thread)
        try:
            if cluster is not None:  # the cluster's own loop makes time pass
                await cluster.start()
                try:
                    yield
                finally:  # (each of its steps bounded: this one is a backstop)
                    await within(cluster.stop(), "the cluster's stop", 8 * STOP_STEP_S)
                return
            task = asyncio.create_task(ticker())
            try:
                yield
            finally:
                task.cancel()
        finally:
            watching.cancel()
            collecting.cancel()
            await within(observing.__aexit__(None, None, None), "the lag watch")
            checkpointing.cancel()
            await bots.stop()
            with contextlib.suppress(Exception):  # the last batch written, if any
                if service.uncommitted or service.absences or group.busy:
                    await group.flush()
            group.close()
            work.close()
            report = os.environ.get("REBELOTE_LOOP_REPORT")
            if report:
                Path(report).write_text(json.dumps(watch.report()))
            if exit_after_stop is not None:  # stacks to the log, then exit status 1
                faulthandler.dump_traceback_later(exit_after_stop, exit=True)

    routes = [
        Route("/", index),
        Route("/calculator", calculator),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/password", new_password, methods=["POST"]),
        Route("/api/close-account", close_account, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/session", session),
        Route("/api/texts", texts),
        Route("/favicon.ico", favicon),
        Route("/api/tables", tables),
        Route("/api/rules", rule_options),
        Route("/api/tables/{table}/record", record),
        Route("/api/tables/{table}/history", history),
        Route("/replay", replay_page),
        Route("/api/score/game", score_game, methods=["POST"]),
        Route("/api/stats", stats),
        Route("/api/ratings", ratings),
        Route("/stats", stats_page),
        WebSocketRoute("/ws", socket),
        Mount("/static", CachedStatic(directory=STATIC), name="static"),
        *observe.routes,
    ]
    middleware = [Middleware(RequestContext), Middleware(Guard, hsts=https),
                  Middleware(GZipMiddleware, minimum_size=1024),
                  Middleware(SessionMiddleware, secret_key=secret or settings.secret(),
                             same_site="lax", https_only=https)]
    async def storage_failed(request: Request, exc: Exception) -> Response:
        log.error("the database failed on %s: %s", request.url.path, exc)
        return _json_error(503, "storage", "the server could not read or save this: "
                           "try again in a moment")

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                    exception_handlers={SQLAlchemyError: storage_failed,
                                        OSError: storage_failed})
    app.state.service = service
    app.state.loop_watch = watch
    app.state.work = work
    app.state.observe = observe
    return app


def app_from_environment() -> Starlette:
    """One worker of ``rebelote serve --workers N``: the settings from the environment
    (:meth:`Settings.to_env`; the parent ran the migrations)."""
    settings = Settings.load()
    configure_logging(settings)
    return create_app(settings=settings, prestart=True, exit_after_stop=EXIT_AFTER_STOP_S)


def run(settings: Settings) -> None:
    """``rebelote serve``: one process, or ``workers`` sharing the port (uvicorn).
    :class:`~rebelote.server.store.StoreError` if the database cannot be used."""
    import uvicorn

    from rebelote.server.store import check_database
    from rebelote.server.websocket import WebSocketProtocol

    configure_logging(settings)
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1: every stack
    # States are small: compressing each WebSocket message costs more than it saves.
    options: dict[str, Any] = {"host": settings.host, "port": settings.port,
                               "log_config": None, "access_log": False,
                               "ws": WebSocketProtocol, "ws_per_message_deflate": False,
                               # A stop waits at most this long for open connections.
                               "timeout_graceful_shutdown": SHUTDOWN_GRACE_S,
                               "loop": settings.loop}
    if settings.workers == 1:
        uvicorn.run(create_app(settings=settings, prestart=True,
                               exit_after_stop=EXIT_AFTER_STOP_S), **options)
        return
    if settings.migrate:
        check_database(settings.database_url)  # migrated once, before the workers start
    os.environ.update(settings.with_(migrate=False).to_env(),
                      REBELOTE_SECRET=settings.secret())
    uvicorn.run("rebelote.server.app:app_from_environment", factory=True,
                workers=settings.workers, **options)
