"""What an operator sees of a server process: health, readiness, metrics, logs.

- ``GET /healthz``: the process is up and its event loop answers (200).
- ``GET /readyz``: the database answers ``SELECT 1`` and, in the scale-out mode, Redis
  answers ``PING`` (200), else 503 with what failed: a balancer sends no new clients to
  a process that is not ready.
- ``GET /metrics``: the Prometheus text format (prometheus-client), one registry per
  application (see :class:`Observability` for each metric).
- Logs: one JSON object a line or plain text (the ``log_format`` setting), each with the
  process's name and, where there is one, the request id (a balancer's ``X-Request-ID``
  or a new one, sent back in the response) and the table id.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import functools
import json
import logging
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rebelote import __version__

if TYPE_CHECKING:
    from rebelote.server.cluster import Cluster
    from rebelote.server.settings import Settings
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

log = logging.getLogger("rebelote.server")
request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id",
                                                                         default=None)
table_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("table_id", default=None)
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_EVERY_S = 0.25
SLOW_MESSAGE_S = 5.0
"""A WebSocket message still being handled this long is logged, once, with what its
handler awaits: an answer that never comes is otherwise invisible."""


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, process name, request and
    table ids, and the exception if any."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name,
            "message": record.getMessage(), "process": self.name}
        for key in ("request_id", "table_id"):
            value = getattr(record, key, None)
            if value:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    def __init__(self, name: str) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [" + name + "] %(message)s%(ids)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = [f"{k}={getattr(record, k)}" for k in ("request_id", "table_id")
               if getattr(record, k, None)]
        record.ids = (" " + " ".join(ids)) if ids else ""
        return super().format(record)


class _Context(logging.Filter):
    """Adds the current request and table ids to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = request_id.get()
        if not getattr(record, "table_id", None):
            record.table_id = table_id.get()
        return True


def configure_logging(settings: Settings, stream: Any = None) -> None:
    """The root logger (and uvicorn's) write to stderr in the chosen format and level."""
    handler = logging.StreamHandler(stream or sys.stderr)
    name = settings.name or "rebelote"
    handler.setFormatter(JsonFormatter(name) if settings.log_format == "json"
                         else PlainFormatter(name))
    handler.addFilter(_Context())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(settings.logging_level)
    for noisy in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(noisy).handlers.clear()
        logging.getLogger(noisy).propagate = True
    logging.getLogger("uvicorn.access").disabled = True  # our middleware logs requests
    # Alembic's migration chatter (its plugins, the DDL mode) only when debugging: at info
    # it came before a failed start's one sentence.
    logging.getLogger("alembic").setLevel(
        logging.DEBUG if settings.logging_level <= logging.DEBUG else logging.WARNING)


def _count(counts: dict[str, int], kind: str) -> float:
    return float(counts.get(kind, 0))


class Observability:
    """The metrics, routes and middleware of one application.

    Metrics: ``rebelote_open_tables`` (tables this process runs),
    ``rebelote_connected_sockets``, ``rebelote_actions_total`` (actions stored, by kind:
    ``rate()`` of it is actions per second), ``rebelote_messages_total`` (by type and
    result), ``rebelote_answer_seconds`` (from a message's arrival to its answers sent,
    a histogram), ``rebelote_event_loop_lag_seconds`` (how late a 250 ms timer fires),
    ``rebelote_store_write_seconds`` (each commit of actions), ``rebelote_job_queue_depth``
    (jobs of each kind off the loop, waiting or running: ``bots``, ``hints``, ``auth``,
    ``stats``, ``calc``), ``rebelote_slow_messages_total`` (messages still handled
    :data:`SLOW_MESSAGE_S` after arriving; each is logged with what its handler awaits),
    ``rebelote_socket_open_seconds`` (a WebSocket's opening: its session read, accept,
    presence), ``rebelote_info``.
    """

    def __init__(self, settings: Settings, service: TableService, store: Store,
                 sockets: Callable[[], int], cluster: Cluster | None = None,
                 jobs: dict[str, int] | None = None) -> None:
        self.settings = settings
        self.service = service
        self.store = store
        self.cluster = cluster
        self.registry = registry = CollectorRegistry()
        Gauge("rebelote_open_tables", "Tables this process runs.",
              registry=registry).set_function(lambda: len(service.tables))
        Gauge("rebelote_connected_sockets", "WebSockets open on this process.",
              registry=registry).set_function(sockets)
        depth = Gauge("rebelote_job_queue_depth",
                      "Jobs off the event loop (bots, hints, passwords, statistics, the "
                      "calculator) waiting or running, by kind.", ["kind"], registry=registry)
        waiting = jobs if jobs is not None else {}
        for kind in waiting:
            depth.labels(kind).set_function(functools.partial(_count, waiting, kind))
        info = Gauge("rebelote_info", "Version and process name.", ["version", "process"],
                     registry=registry)
        info.labels(__version__, settings.name or "").set(1)
        self.actions = Counter("rebelote_actions_total", "Actions stored.", ["kind"],
                               registry=registry)
        self.messages = Counter("rebelote_messages_total", "WebSocket messages handled.",
                                ["type", "result"], registry=registry)
        self.answer = Histogram("rebelote_answer_seconds",
                                "From a message's arrival to its answers sent.",
                                ["type"], buckets=LATENCY_BUCKETS, registry=registry)
        self.lag = Histogram("rebelote_event_loop_lag_seconds",
                             "How late the event loop runs a timer.",
                             buckets=LATENCY_BUCKETS, registry=registry)
        self.writes = Histogram("rebelote_store_write_seconds",
                                "Each commit of actions to the store.",
                                buckets=LATENCY_BUCKETS, registry=registry)
        self.write_errors = Counter("rebelote_store_write_errors_total",
                                    "Commits of actions that failed.", registry=registry)
        self.opened = Histogram("rebelote_socket_open_seconds",
                                "From a WebSocket's upgrade request until it reads its "
                                "messages (session, accept, presence).",
                                buckets=LATENCY_BUCKETS, registry=registry)
        self.slow = Counter("rebelote_slow_messages_total",
                            f"Messages still handled {SLOW_MESSAGE_S:g} s after arriving.",
                            ["type"], registry=registry)
        self._children: dict[str, tuple[Any, Any]] = {}
        self._in_flight: dict[object, tuple[float, str, str | None,
                                            asyncio.Task[Any] | None]] = {}
        self._instrument_store()

    def _instrument_store(self) -> None:
        """Time every commit of actions and count what it stored (by kind, one increment
        a kind per commit: one per action, a label lookup and a lock each, held the
        GIL in the writer thread a tenth of its time under load)."""
        append = self.store.append
        counted: dict[str, Any] = {}  # the counter's child of each kind

        def timed_append(actions: list[tuple[str, int, str, dict[str, Any]]]) -> None:
            start = time.perf_counter()
            try:
                append(actions)
            except Exception:
                self.write_errors.inc()
                raise
            self.writes.observe(time.perf_counter() - start)
            for kind, count in collections.Counter(kind for _t, _s, kind, _p in actions).items():
                child = counted.get(kind)
                if child is None:
                    child = counted[kind] = self.actions.labels(kind)
                child.inc(count)

        self.store.append = timed_append  # type: ignore[method-assign]

    # -- routes --------------------------------------------------------------------------

    @property
    def routes(self) -> list[Route]:
        return [Route("/healthz", self.healthz), Route("/readyz", self.readyz),
                Route("/metrics", self.metrics)]

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__})

    async def readyz(self, request: Request) -> Response:
        checks: dict[str, str] = {}
        try:
            await asyncio.wait_for(asyncio.to_thread(self._ping_database), 3.0)
            checks["database"] = "ok"
        except Exception as exc:
            checks["database"] = f"unreachable: {exc.__class__.__name__}"
        if self.cluster is not None:
            try:
                await asyncio.wait_for(self.cluster.redis.ping(), 3.0)
                checks["redis"] = "ok"
            except Exception as exc:
                checks["redis"] = f"unreachable: {exc.__class__.__name__}"
        ready = all(v == "ok" for v in checks.values())
        if not ready:
            log.warning("not ready: %s", checks)
        return JSONResponse({"status": "ready" if ready else "not ready"} | checks,
                            200 if ready else 503)

    def _ping_database(self) -> None:
        from sqlalchemy import text

        with self.store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    async def metrics(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    # -- the event loop and messages ------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While the application runs: the event loop's lag is watched."""
        task = asyncio.create_task(self._watch_lag())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _watch_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(LAG_EVERY_S)
            self.lag.observe(max(0.0, loop.time() - start - LAG_EVERY_S))
            self.report_slow()

    def report_slow(self, after: float = SLOW_MESSAGE_S) -> list[str]:
        """Log each message handled for longer than ``after`` seconds (once), with the
        chain of what its handler awaits; their descriptions."""
        now = time.perf_counter()
        told = []
        for mark, (start, kind, table, task) in list(self._in_flight.items()):
            if now - start < after:
                continue
            del self._in_flight[mark]  # told once
            self.slow.labels(kind).inc()
            where = " -> ".join(awaiting(task)) if task is not None else "?"
            at = f" at table {table}" if table else ""
            told.append(f"{kind}{at} under way for {now - start:.1f} s, awaiting: {where}")
            log.warning("%s", told[-1])
        return told

    def message(self, message: Any) -> MessageWatch:
        """Around the handling of one WebSocket message: its table id in the logs, its
        answer time in the histogram, failures logged."""
        return MessageWatch(self, message)

    def started(self, kind: str, table: str | None, at: float | None = None) -> object:
        """A step started (at ``at``, or now): its mark, to drop from ``_in_flight``
        once it is over (:meth:`watching`, :class:`MessageWatch`)."""
        mark = object()
        self._in_flight[mark] = (time.perf_counter() if at is None else at, kind, table,
                                 _current_task())
        return mark

    def children(self, kind: str) -> tuple[Any, Any]:
        """The "ok" counter and the answer histogram of messages of ``kind``."""
        pair = self._children.get(kind)
        if pair is None:
            pair = self._children[kind] = (self.messages.labels(kind, "ok"),
                                           self.answer.labels(kind))
        return pair

    @contextlib.contextmanager
    def opening(self) -> Iterator[None]:
        """Around a WebSocket's opening: timed, and told if slow."""
        start = time.perf_counter()
        with self.watching("open"):
            yield
        self.opened.observe(time.perf_counter() - start)

    @contextlib.contextmanager
    def watching(self, kind: str, table: str | None = None) -> Iterator[None]:
        """Around a step of a socket's life (a message handled, the socket opened):
        told by :meth:`report_slow` if it lasts too long."""
        mark = self.started(kind, table)
        try:
            yield
        finally:
            self._in_flight.pop(mark, None)


RAW_SEND = "rebelote.send"
"""The scope key of a WebSocket's ASGI send as the server gave it, before the
middleware wrapped it: a frame sent through the middleware and Starlette passed five
coroutines that only look at HTTP responses (:func:`rebelote.server.app.send_frame`)."""


class MessageWatch:
    """:meth:`Observability.message`'s context: a class, and the metrics' children by
    kind kept (two generator-based context managers and three label lookups cost a
    busy server's loop 4 % of its time, a message at every action)."""

    __slots__ = ("kind", "mark", "observe", "start", "token")

    def __init__(self, observe: Observability, message: Any) -> None:
        self.observe = observe
        kind = message.get("type") if isinstance(message, dict) else None
        self.kind = kind if kind in KNOWN_TYPES else "other"
        table = message.get("table") if isinstance(message, dict) else None
        table = table if isinstance(table, str) else None
        self.token = table_id.set(table)
        self.start = time.perf_counter()
        self.mark = observe.started(self.kind, table, self.start)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 _traceback: Any) -> None:
        observe = self.observe
        observe._in_flight.pop(self.mark, None)
        try:
            if kind is None:
                ok, answer = observe.children(self.kind)
                ok.inc()
                answer.observe(time.perf_counter() - self.start)
            elif issubclass(kind, Exception):
                observe.messages.labels(self.kind, "failed").inc()
                log.error("a %s message failed", self.kind, exc_info=exc)
        finally:
            table_id.reset(self.token)


QUIET = frozenset({"/healthz", "/readyz", "/metrics"})
"""Routes a balancer or a scraper calls every few seconds: not logged."""
KNOWN_TYPES = frozenset({"create", "join", "watch", "bots", "act", "sync", "hint"})


class RequestContext:
    """ASGI middleware: a request id for every HTTP request and WebSocket (the
    balancer's ``X-Request-ID`` or a new one), in the logs and the response headers;
    one log line per HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        rid = given[:64] if given else secrets.token_hex(8)
        token = request_id.set(rid)
        start = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        if scope["type"] == "websocket":
            # A socket's frames need no header: the server's own send, kept for them
            # (:data:`RAW_SEND`).
            scope[RAW_SEND] = send
        try:
            await self.app(scope, receive,
                           send if scope["type"] == "websocket" else send_with_id)
        finally:
            if scope["type"] == "http" and scope["path"] not in QUIET:
                log.info("%s %s %d %.1f ms", scope["method"], scope["path"], status,
                         (time.perf_counter() - start) * 1e3)
            request_id.reset(token)


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop (a test calling it directly)
        return None


def awaiting(task: asyncio.Task[Any]) -> list[str]:
    """Where a suspended task waits: each coroutine of its await chain (function,
    file:line), innermost last, and what the innermost awaits if not a coroutine."""
    chain: list[str] = []
    step: Any = task.get_coro()
    for _depth in range(64):
        frame = getattr(step, "cr_frame", None) or getattr(step, "ag_frame", None)
        if frame is None:
            if step is not None:
                chain.append(type(step).__name__)
            break
        code = frame.f_code
        chain.append(f"{code.co_name} ({code.co_filename.rsplit('/', 1)[-1]}:"
                     f"{frame.f_lineno})")
        step = getattr(step, "cr_await", None) or getattr(step, "ag_await", None)
    return chain
