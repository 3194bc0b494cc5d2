"""Work that must not run on the event loop, and the watch kept on that loop.

:class:`OffLoop` runs CPU-bound work elsewhere: threads for what releases the GIL
(argon2 runs in C without it) or must read the tables in memory (statistics), worker
processes for the bots, the hints and the score calculator (pure Python around the
solver's ``nogil`` numba kernels: sampling and rollouts hold the GIL, so in threads they
starved the loop). Each kind of work has its own pool, bounded: past ``limit`` jobs
waiting, :class:`Busy` is raised at once, so that a flood of hints is refused rather than
queued for minutes.

:class:`BotRunner` makes bots think off the loop, one decision at a time per table (a
table's order is kept; the tables are independent).

:class:`LoopWatch` measures how late the loop wakes up: its largest stall.

:func:`within` and :func:`stop_tasks` bound each step of a stop, so that one step that
never ends (a task deaf to its cancellation, a Redis close that never returns) is logged
with where it waits instead of keeping the process up; :func:`log_tasks` (``kill -USR2``)
logs every task of the loop and where it waits.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import io
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rebelote.bots import Bot, make_bot
from rebelote.server.tables import Message, StorageFailure, TableService
from rebelote.view import SeatView

log = logging.getLogger(__name__)
T = TypeVar("T")
Out = list[tuple[str, Message]]


STOP_STEP_S = 3.0
"""The longest one step of a stop is waited for (tasks cancelled, a connection closed)."""


def task_stack(task: asyncio.Future[Any]) -> str:
    """Where ``task`` waits: its coroutine's frames (a plain future: nothing)."""
    if not isinstance(task, asyncio.Task):
        return ""
    out = io.StringIO()
    task.print_stack(file=out)
    return out.getvalue()


def log_tasks() -> None:
    """Every task of the running loop and where it waits (``kill -USR2``: the
    faulthandler's ``kill -USR1`` shows the threads, in which a loop waiting for a task
    that never ends is only a ``select``)."""
    for task in sorted(asyncio.all_tasks(), key=lambda t: t.get_name()):
        log.warning("task %s waits in:\n%s", task.get_name(), task_stack(task))


async def within(step: Awaitable[Any], what: str, seconds: float | None = None) -> None:
    """Await ``step`` of a stop for at most ``seconds`` (:data:`STOP_STEP_S`). One that
    overruns is logged with where it waits, cancelled and left behind (the process stops
    all the same); one that fails is logged: a stop goes on to its next step whatever
    this one did."""
    seconds = STOP_STEP_S if seconds is None else seconds
    task = asyncio.ensure_future(step)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except BaseException:  # the stop itself cancelled: so is this step, as an await was
        task.cancel()
        task.add_done_callback(_seen)
        raise
    if not done:
        log.error("stopping: %s did not end within %.1f s; left behind, waiting in:\n%s",
                  what, seconds, task_stack(task))
        task.cancel()
        task.add_done_callback(_seen)
    elif not task.cancelled() and task.exception() is not None:
        log.warning("stopping: %s failed: %r", what, task.exception())


def _seen(task: asyncio.Future[Any]) -> None:
    """A task left behind by a stop, once it ends: its failure read (not "never
    retrieved" at exit)."""
    if not task.cancelled():
        task.exception()


async def stop_tasks(tasks: list[asyncio.Task[Any]], what: str,
                     seconds: float | None = None) -> None:
    """Cancel ``tasks`` and wait at most ``seconds`` (:data:`STOP_STEP_S`) for them to
    end. One still running then (it caught its cancellation, or waits in a ``finally``)
    is logged with where it waits and left behind. (They were awaited one by one without
    end; CI once saw a server still up 20 s after SIGTERM, its loop idle, waiting in its
    stop for something that never ended.)"""
    seconds = STOP_STEP_S if seconds is None else seconds
    live = [t for t in tasks if not t.done()]
    for task in live:
        task.cancel()
    stuck: set[asyncio.Task[Any]] = set()
    if live:
        _, stuck = await asyncio.wait(live, timeout=seconds)
    for task in stuck:
        log.error("stopping %s: task %s did not end within %.1f s of its cancellation; "
                  "left behind, waiting in:\n%s", what, task.get_name(), seconds,
                  task_stack(task))
        task.add_done_callback(_seen)
    for task in tasks:  # their failures seen, those that ended before the stop too
        if task.done():
            _seen(task)


class Busy(RuntimeError):
    """Too much work waits already: try again in a moment."""


THREADS = {"auth": 2, "stats": 1, "disk": 1}
"""Threads per kind of work that releases the GIL or must read the tables in memory:
argon2 (C, without the GIL), statistics."""
PROCESSES = {"bots": 2, "hints": 1, "calc": 1}
"""Worker processes per kind of pure-Python work (the bots' and hints' sampling and
rollouts hold the GIL: in threads they starved the loop, stalls of a second measured),
each kind its own, so that queued hints never hold a bot back."""
_bots: dict[tuple[str, int], Bot] = {}


def bot_decision(level: str, seed: int, view: SeatView) -> int:
    """A bot's choice (in a worker process: the bot of that level and seed is kept
    there between calls)."""
    bot = _bots.get((level, seed))
    if bot is None:
        if len(_bots) > 4096:
            _bots.clear()
        bot = _bots[(level, seed)] = make_bot(level, seed)
    return bot.choose(view)


def scheduling_class(kind: str) -> int:
    """The Linux scheduling class of a worker of ``kind``: the bots' the idle class, run
    only when no other work waits for a core; the others' (hints, the calculator: a
    person waits for them) the batch class, never preferred at a wakeup.

    Niced alone, a thinking bot kept the event loop off its core (102 ms stalls on a busy
    2-core machine; 56 ms in the batch class). In the batch class, an event loop woken
    still waited for the bot's slice to end, 13-15 % of its time on the 200-table load
    row (``server_loops_percent``); in the idle class 6 %: 2,735/2,609 against
    3,028/2,944 actions a second, p99 106/117 against 100/107 ms, the expert bots' tables
    5-7 % slower. With 100 tables of expert bots (``bench.server_responsiveness``) the
    bots made 9 % fewer moves and the hints and score sheets 60-70 % more. Hints in the
    idle class too waited behind everything else (an earlier trial)."""
    return os.SCHED_IDLE if kind == "bots" else os.SCHED_BATCH


def yield_to_the_loop(kind: str) -> None:
    """This process niced and in :func:`scheduling_class` (where the system has them)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)
        os.sched_setscheduler(0, scheduling_class(kind), os.sched_param(0))


def worker_start(kind: str, server: int) -> None:
    """A worker process's start: it yields the CPU to the server's event loop
    (:func:`yield_to_the_loop`), it exits when the server is gone (even killed), and for
    bots and hints, the expert and its solver are loaded now (numba's compiled kernels
    from its cache), so that the first real decision is not the slow one."""
    yield_to_the_loop(kind)

    def orphaned() -> None:  # the server (pid given: it may be gone already) was killed
        while os.getppid() == server:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=orphaned, daemon=True, name="parent-watch").start()
    if kind in ("bots", "hints"):
        warm()


def warm() -> None:
    """Every solver kernel loaded (and frozen out of the collector's sight,
    :func:`~rebelote.solver.warm.warm_up`), then the expert's first decision made once,
    to load what else it needs."""
    import random

    from rebelote.game import Game
    from rebelote.hand import HandState, deal_deck
    from rebelote.rules import Rules
    from rebelote.solver.warm import warm_up

    game = Game(Rules.classic(), dealer=0)
    game.start_hand(HandState.deal(game.rules, 0, deal_deck(random.Random(0), 4)))
    hand = game.current
    assert hand is not None
    with contextlib.suppress(Exception):
        warm_up()
        make_bot("expert", 0).choose(game.view(hand.turn))


class OffLoop:
    """Thread and process pools, one per kind of work, each with a bound on the jobs
    waiting. ``processes=False`` runs every kind in threads (tests that replace a
    function of this process)."""

    def __init__(self, processes: bool = True, limit: int = 32) -> None:
        self.use_processes = processes
        self.limit = limit
        self.pools: dict[str, concurrent.futures.Executor] = {
            name: concurrent.futures.ThreadPoolExecutor(count, thread_name_prefix=name)
            for name, count in THREADS.items()}
        self.waiting: dict[str, int] = dict.fromkeys([*THREADS, *PROCESSES], 0)

    def pool(self, kind: str) -> concurrent.futures.Executor:
        """The pool for ``kind`` of work (a process pool is started at its first use)."""
        pool = self.pools.get(kind)
        if pool is None:
            count = PROCESSES[kind]
            if self.use_processes:
                pool = concurrent.futures.ProcessPoolExecutor(
                    count, mp_context=multiprocessing.get_context("spawn"),
                    initializer=worker_start, initargs=(kind, os.getpid()))
            else:
                pool = concurrent.futures.ThreadPoolExecutor(count, thread_name_prefix=kind)
            self.pools[kind] = pool
        return pool

    async def run(self, kind: str, fn: Callable[..., T], *args: Any,
                  bounded: bool = True) -> T:
        """``fn(*args)`` in the pool for ``kind``; :class:`Busy` at once if ``bounded``
        and ``limit`` jobs of that kind wait already. In a process pool, ``fn`` and its
        arguments are pickled (a module-level function of plain data)."""
        if bounded and self.waiting[kind] >= self.limit:
            raise Busy("the server is busy: try again in a moment")
        self.waiting[kind] += 1
        try:
            pool = self.pool(kind)
            try:
                return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
            except concurrent.futures.BrokenExecutor:
                self.pools.pop(kind, None)  # a worker died: a new pool next time
                raise Busy("a worker stopped: try again in a moment") from None
        finally:
            self.waiting[kind] -= 1

    async def start(self) -> None:
        """Start every worker process now, so that they warm up before anyone waits
        (a pool otherwise starts its processes at their first jobs)."""
        if not self.use_processes:
            return
        loop = asyncio.get_running_loop()
        for kind, count in PROCESSES.items():
            pool = self.pool(kind)
            for _ in range(count):
                loop.run_in_executor(pool, os.getpid)

    def close(self) -> None:
        """Stop every pool now: worker processes are terminated (a decision or a sheet
        half computed is of no use to a server that stops), so that a stop is quick."""
        for pool in self.pools.values():
            processes = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                with contextlib.suppress(Exception):
                    process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        self.pools.clear()


class BotRunner:
    """Plays the bots' turns of every table off the event loop: at most one decision
    per table in flight; each decision applied (if the table has not moved meanwhile),
    committed, then delivered."""

    def __init__(self, service: TableService, work: OffLoop,
                 commit: Callable[[], Awaitable[StorageFailure | None]],
                 deliver: Callable[[Out], Awaitable[None]],
                 prepare: Callable[[Out], Out] | None = None) -> None:
        self.service = service
        self.prepare = prepare
        self.work = work
        self.commit = commit
        self.deliver = deliver
        self.tasks: dict[str, asyncio.Task[None]] = {}

    def kick(self) -> None:
        """Start a runner for every table whose bot is to act."""
        for table_id in list(self.service.bots_due):
            if table_id not in self.tasks:
                self.tasks[table_id] = asyncio.create_task(self._run(table_id))

    async def _run(self, table_id: str) -> None:
        failures = 0
        try:
            while True:
                self.service.bots_due.discard(table_id)
                turn = self.service.bot_turn(table_id)
                if turn is None:
                    return
                try:
                    if turn.level == "random":  # no thinking to speak of
                        action = turn.bot.choose(turn.view)
                    else:
                        action = await self.work.run("bots", bot_decision, turn.level,
                                                     turn.seed, turn.view, bounded=False)
                except Exception:
                    failures += 1
                    log.exception("a bot failed at table %s (attempt %d)", table_id, failures)
                    if failures >= 3:
                        return
                    await asyncio.sleep(1.0)
                    continue
                out = self.service.bot_played(turn, action)
                if self.service.uncommitted:
                    before = self.service.snapshot(out)
                    if self.prepare is not None:  # made ready while the write is waited for
                        out = self.prepare(out)
                    await self.commit()  # a failure's players are told by the commit
                    undone = self.service.undone(before)
                    out = [(p, m) for p, m in out if m.get("table") not in undone]
                await self.deliver(out)
        finally:
            self.tasks.pop(table_id, None)
            if table_id in self.service.bots_due:  # due again meanwhile
                self.kick()

    async def stop(self) -> None:
        await stop_tasks(list(self.tasks.values()), "the bots")


class LoopWatch:
    """Wakes every ``period`` seconds and notes how late: the loop's stalls."""

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.largest_ms = 0.0
        self.samples = 0
        self.over_20ms = 0
        self.stalls: list[tuple[float, float, float]] = []
        """(Unix time, ms late, ms of the loop thread's CPU meanwhile) of the wake-ups
        more than 2 ms late (the last 10,000 or more): a late wake-up with little CPU
        waited (for the GIL, or for a core), one with as much ran something."""
        self.gc_ms = [0.0, 0.0, 0.0]
        """The longest garbage collection of each generation (a cause of stalls)."""
        self._gc_start = self._gc_cpu = 0.0
        self._gc_count = 0
        self.gc_longest: list[dict[str, Any]] = [{}, {}, {}]
        """The longest collection of each generation: wall and CPU ms, young objects,
        the garbage objects it found, the thread that ran it."""
        self.longest_ms: dict[str, float] = {}
        """The longest of other things that ran on the loop (the commits)."""
        self.slow: list[tuple[float, str]] = []
        """With ``trace_callbacks``: the loop's longest callbacks (ms, what), longest first."""
        self.busiest: list[tuple[float, str]] = []
        """With ``trace_callbacks``: the callbacks that used the most of the loop
        thread's CPU (ms, what), most first (a long callback may only have waited)."""

    def trace_callbacks(self) -> None:
        """Times every callback the loop runs and keeps the 30 longest with their names:
        a diagnosis for benches (``REBELOTE_LOOP_REPORT``), too costly to leave on."""
        handle_run = asyncio.events.Handle._run
        watch = self

        def timed(handle: asyncio.events.Handle) -> None:
            owner = getattr(getattr(handle, "_callback", None), "__self__", None)
            frame = (getattr(owner.get_coro(), "cr_frame", None)
                     if isinstance(owner, asyncio.Task) else None)
            scope = getattr(frame.f_locals.get("self"), "scope", None) if frame else None
            start, cpu = time.perf_counter(), time.thread_time()
            handle_run(handle)
            took = (time.perf_counter() - start) * 1e3
            ran = (time.thread_time() - cpu) * 1e3
            if took > 5 and (len(watch.slow) < 30 or took > watch.slow[-1][0]):
                watch.slow.append((round(took, 1), watch._what(handle, scope)))
                watch.slow.sort(key=lambda item: -item[0])
                del watch.slow[30:]
            if ran > 2 and (len(watch.busiest) < 30 or ran > watch.busiest[-1][0]):
                watch.busiest.append((round(ran, 1), watch._what(handle, scope)))
                watch.busiest.sort(key=lambda item: -item[0])
                del watch.busiest[30:]

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def _what(self, handle: asyncio.events.Handle, scope: object) -> str:
        what = self.describe(handle)
        if isinstance(scope, dict):  # an HTTP request or a WebSocket: its path
            what += f" {scope.get('method', '')} {scope.get('path', '')}"
        return what

    @staticmethod
    def describe(handle: asyncio.events.Handle) -> str:
        """A callback's name; for a task's step, its coroutine and where it stopped."""
        owner = getattr(getattr(handle, "_callback", None), "__self__", None)
        if isinstance(owner, asyncio.Task):
            coro = owner.get_coro()
            frame = getattr(coro, "cr_frame", None)
            where = f" line {frame.f_lineno}" if frame is not None else ""
            return f"task {getattr(coro, '__qualname__', coro)}{where}"
        return repr(handle)[:200]

    def note(self, what: str, ms: float) -> None:
        self.longest_ms[what] = max(self.longest_ms.get(what, 0.0), round(ms, 1))

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
            self._gc_cpu = time.thread_time()
            self._gc_count = gc.get_count()[0]
        else:
            took = (time.perf_counter() - self._gc_start) * 1e3
            generation = info.get("generation", 0)
            if took > self.gc_ms[generation]:
                self.gc_ms[generation] = took
                self.gc_longest[generation] = {
                    "ms": round(took, 1),
                    "cpu_ms": round((time.thread_time() - self._gc_cpu) * 1e3, 1),
                    "young": self._gc_count, "collected": info.get("collected", 0),
                    "thread": threading.current_thread().name}

    async def run(self) -> None:
        gc.callbacks.append(self._gc)
        while True:
            start, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.period)
            late = (time.perf_counter() - start - self.period) * 1e3
            self.samples += 1
            self.largest_ms = max(self.largest_ms, late)
            self.over_20ms += late > 20
            if late > 2:
                self.stalls.append((time.time(), round(late, 2),
                                    round((time.thread_time() - cpu) * 1e3, 2)))
                if len(self.stalls) > 20_000:
                    del self.stalls[:10_000]

    def report(self) -> dict[str, Any]:
        return {"largest_stall_ms": round(self.largest_ms, 2), "samples": self.samples,
                "stalls_over_20ms": self.over_20ms, "stalls": self.stalls,
                "longest_gc_ms": [round(x, 1) for x in self.gc_ms],
                "longest_gc": self.gc_longest,
                "longest_ms": self.longest_ms, "slow_callbacks": self.slow,
                "busiest_callbacks": self.busiest}
