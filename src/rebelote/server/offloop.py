"""Work that must not run on the event loop, and the watch kept on that loop.

:class:`OffLoop` runs CPU-bound work elsewhere: a thread pool for what releases the GIL
most of the time (the solver's numba kernels are ``nogil``; argon2 runs in C without the
GIL) and a process pool for pure Python given in picklable form (the score calculator).
Both are bounded: past ``limit`` jobs waiting, :class:`Busy` is raised at once, so that a
flood of hints is refused rather than queued for minutes.

:class:`BotRunner` makes bots think off the loop, one decision at a time per table (a
table's order is kept; the tables are independent).

:class:`LoopWatch` measures how late the loop wakes up: its largest stall.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rebelote.server.tables import Message, StorageFailure, TableService

T = TypeVar("T")
Out = list[tuple[str, Message]]


class Busy(RuntimeError):
    """Too much work waits already: try again in a moment."""


class OffLoop:
    """Thread and process pools with a bound on the jobs waiting."""

    def __init__(self, threads: int = 2, processes: int = 1, limit: int = 64) -> None:
        self.threads = concurrent.futures.ThreadPoolExecutor(
            threads, thread_name_prefix="rebelote-work")
        self._bots = concurrent.futures.ThreadPoolExecutor(
            threads, thread_name_prefix="rebelote-bots")
        self._processes: concurrent.futures.ProcessPoolExecutor | None = None
        self.process_count = processes
        self.limit = limit
        self.waiting = 0

    async def _run(self, pool: concurrent.futures.Executor, fn: Callable[..., T],
                   *args: Any, bounded: bool = True) -> T:
        if bounded and self.waiting >= self.limit:
            raise Busy("the server is busy: try again in a moment")
        self.waiting += bounded
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        finally:
            self.waiting -= bounded

    async def thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the thread pool (bounded)."""
        return await self._run(self.threads, fn, *args)

    async def bot(self, fn: Callable[..., T], *args: Any) -> T:
        """A bot's decision in the bots' own threads (never refused: at most one per
        table waits)."""
        return await self._run(self._bots, fn, *args, bounded=False)

    async def process(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a separate process (bounded; ``fn`` and its arguments are
        pickled: a module-level function of plain data)."""
        if self._processes is None:
            self._processes = concurrent.futures.ProcessPoolExecutor(
                self.process_count, mp_context=multiprocessing.get_context("spawn"))
        return await self._run(self._processes, fn, *args)

    def close(self) -> None:
        self.threads.shutdown(wait=False, cancel_futures=True)
        self._bots.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)


class BotRunner:
    """Plays the bots' turns of every table off the event loop: at most one decision
    per table in flight; each decision applied (if the table has not moved meanwhile),
    committed, then delivered."""

    def __init__(self, service: TableService, work: OffLoop,
                 commit: Callable[[], Awaitable[StorageFailure | None]],
                 deliver: Callable[[Out], Awaitable[None]]) -> None:
        self.service = service
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
        try:
            while True:
                self.service.bots_due.discard(table_id)
                turn = self.service.bot_turn(table_id)
                if turn is None:
                    return
                if turn.bot.name == "random":  # no thinking to speak of
                    action = turn.bot.choose(turn.view)
                else:
                    action = await self.work.bot(turn.bot.choose, turn.view)
                out = self.service.bot_played(turn, action)
                if self.service.uncommitted:
                    failure = await self.commit()
                    if failure is not None:
                        out = [(p, m) for p, m in out if m.get("table") not in failure.tables]
                await self.deliver(out)
        except asyncio.CancelledError:
            raise
        except Exception:
            import logging

            logging.getLogger(__name__).exception("a bot failed at table %s", table_id)
        finally:
            self.tasks.pop(table_id, None)
            if table_id in self.service.bots_due:  # due again meanwhile
                self.kick()

    async def stop(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class LoopWatch:
    """Wakes every ``period`` seconds and notes how late: the loop's stalls."""

    def __init__(self, period: float = 0.005) -> None:
        self.period = period
        self.largest_ms = 0.0
        self.samples = 0
        self.over_20ms = 0

    def reset(self) -> None:
        self.largest_ms, self.samples, self.over_20ms = 0.0, 0, 0

    async def run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.period)
            late = (time.perf_counter() - start - self.period) * 1e3
            self.samples += 1
            self.largest_ms = max(self.largest_ms, late)
            self.over_20ms += late > 20

    def report(self) -> dict[str, float]:
        return {"largest_stall_ms": round(self.largest_ms, 2), "samples": self.samples,
                "stalls_over_20ms": self.over_20ms}
