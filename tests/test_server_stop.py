"""A stop that always ends: each step bounded, and the step that overran named.

CI saw a server still up 20 s after SIGTERM, its event loop idle in ``select``: the
application's stop awaited something that never ended (a cancelled task, or a Redis
close: redis/redis-py#3941). Each step of a stop is now waited for a bounded time and
one that overruns is logged with where it waits."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from rebelote.server.offloop import log_tasks, stop_tasks, within


async def _deaf() -> None:
    """A task that swallows its cancellation and waits on (a bug the stop outlives)."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        await asyncio.sleep(3600)


def test_a_task_deaf_to_its_cancellation_does_not_hold_the_stop(
        caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> tuple[float, bool, bool]:
        quiet = asyncio.create_task(asyncio.sleep(3600), name="quiet")
        deaf = asyncio.create_task(_deaf(), name="deaf")
        await asyncio.sleep(0)
        started = time.perf_counter()
        await stop_tasks([quiet, deaf], "the test", seconds=0.3)
        took = time.perf_counter() - started
        cancelled, still = quiet.cancelled(), not deaf.done()
        deaf.cancel()  # (left behind by the stop: the test's loop ends it)
        return took, cancelled, still

    with caplog.at_level(logging.ERROR, logger="rebelote.server.offloop"):
        took, cancelled, still = asyncio.run(main())
    assert 0.25 <= took < 2.0  # waited its bound, not without end
    assert cancelled and still
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 1 and "task deaf did not end" in logged[0]
    assert "_deaf" in logged[0]  # where it waits: its coroutine's frame


def test_failures_of_the_tasks_a_stop_ends_are_read() -> None:
    """A task that failed before the stop, and one left behind that fails later: their
    exceptions are read, none reported as "never retrieved" when they are collected."""
    import gc

    async def fails() -> None:
        raise ValueError("presence write")

    async def fails_when_cancelled() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(0.5)  # deaf a while, then fails
            raise ValueError("late") from None

    unretrieved: list[str] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(
            lambda _loop, context: unretrieved.append(str(context.get("exception"))))
        early = asyncio.create_task(fails())
        late = asyncio.create_task(fails_when_cancelled())
        await asyncio.sleep(0.01)
        await stop_tasks([early, late], "the test", seconds=0.1)
        await asyncio.sleep(0.6)  # the late one has failed meanwhile
        assert early.done() and late.done()
        del early, late
        gc.collect()

    asyncio.run(main())
    assert unretrieved == []


def test_a_step_that_never_ends_is_cancelled_and_named(
        caplog: pytest.LogCaptureFixture) -> None:
    async def never() -> None:
        await asyncio.Event().wait()

    async def fails() -> None:
        raise ConnectionError("Redis is away")

    async def main() -> float:
        started = time.perf_counter()
        await within(never(), "the connection's close", seconds=0.2)
        await within(fails(), "the removal from Redis", seconds=0.2)  # raises nothing
        await within(asyncio.sleep(0), "a quick step", seconds=0.2)
        return time.perf_counter() - started

    with caplog.at_level(logging.WARNING, logger="rebelote.server.offloop"):
        took = asyncio.run(main())
    assert took < 1.5
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert len(messages) == 2
    assert messages[0][0] == logging.ERROR
    assert "connection's close did not end within 0.2 s" in messages[0][1]
    assert "never" in messages[0][1]
    assert messages[1][0] == logging.WARNING
    assert "removal from Redis failed" in messages[1][1] and "Redis is away" in messages[1][1]


def test_kill_usr2_logs_every_task_and_where_it_waits(
        caplog: pytest.LogCaptureFixture) -> None:
    async def waiting_for_a_reply() -> None:
        await asyncio.sleep(3600)

    async def main() -> None:
        task = asyncio.create_task(waiting_for_a_reply(), name="the-reply")
        await asyncio.sleep(0)
        log_tasks()
        task.cancel()

    with caplog.at_level(logging.WARNING, logger="rebelote.server.offloop"):
        asyncio.run(main())
    about = [r.getMessage() for r in caplog.records if "the-reply" in r.getMessage()]
    assert len(about) == 1 and "waiting_for_a_reply" in about[0]


def test_a_cluster_whose_redis_close_hangs_still_stops(
        tmp_path: Path, redis_url: str, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The subscription's close never returns (redis-py#3941): the cluster's stop ends
    all the same, after its bound, the step named in the log, the other connections
    closed and this process taken out of Redis."""
    from redis import asyncio as aioredis

    from rebelote.server import offloop
    from rebelote.server.cluster import PREFIX, WORKERS, Cluster
    from rebelote.server.store import Store
    from rebelote.server.tables import TableService

    monkeypatch.setattr(offloop, "STOP_STEP_S", 0.5)
    service = TableService(Store(f"sqlite:///{tmp_path / 'server.sqlite'}"), seed=5,
                           load_all=False)

    async def scenario() -> tuple[float, bool, set[str], list[str]]:
        async def send(_player: str, _text: str) -> None:
            pass

        cluster = Cluster(service, redis_url, send, worker_id="here")
        await cluster.start()
        assert cluster._pubsub is not None

        async def hangs() -> None:
            await asyncio.Event().wait()

        cluster._pubsub.aclose = hangs
        closed: list[str] = []
        for name, client in (("redis", cluster.redis), ("control", cluster.control),
                             ("outbox", cluster.outbox.redis)):
            def spy(close: Any = client.aclose, name: str = name) -> Any:
                closed.append(name)
                return close()
            client.aclose = spy  # type: ignore[method-assign]
        started = time.perf_counter()
        await within(cluster.stop(), "the cluster's stop", seconds=10)
        took = time.perf_counter() - started
        probe = aioredis.Redis.from_url(redis_url, decode_responses=True)
        alive = bool(await probe.exists(f"{PREFIX}alive:here"))
        workers = {str(w) for w in await probe.smembers(WORKERS)}
        await probe.aclose()
        return took, alive, workers, closed

    with caplog.at_level(logging.WARNING, logger="rebelote.server.offloop"):
        took, alive, workers, closed = asyncio.run(scenario())
    assert took < 5.0  # its own bound (0.5 s a step), not the backstop's 10 s
    assert not alive and "here" not in workers  # the steps before it were taken...
    assert closed == ["redis", "control", "outbox"]  # ... and those after it
    stuck = [r.getMessage() for r in caplog.records if "did not end" in r.getMessage()]
    assert len(stuck) == 1 and "subscription's close" in stuck[0] and "hangs" in stuck[0]


def test_a_served_process_exits_within_its_bound_after_the_application_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rebelote serve`` arms an exit (the threads' stacks, then status 1) once the
    application has stopped: what asyncio runs after it cannot keep the process up. An
    application run inside another program (a test) arms none."""
    import faulthandler

    from starlette.testclient import TestClient

    from rebelote.server.app import create_app

    armed: list[tuple[float, bool]] = []
    monkeypatch.setattr(faulthandler, "dump_traceback_later",
                        lambda timeout, exit=False: armed.append((timeout, exit)))
    served = create_app(f"sqlite:///{tmp_path / 'a.sqlite'}", secret="t", seed=1,
                        exit_after_stop=7.5)
    with TestClient(served) as client:
        assert client.get("/api/tables").status_code == 200
        assert armed == []  # not while it runs
    assert armed == [(7.5, True)]
    armed.clear()
    with TestClient(create_app(f"sqlite:///{tmp_path / 'b.sqlite'}", secret="t",
                               seed=1)) as client:
        client.get("/api/tables")
    assert armed == []


def test_kill_usr2_logs_a_running_servers_tasks(tmp_path: Path) -> None:
    """The signal reaches the server's own handler (not Python's default, which would
    end the process): its tasks and where each waits are in its log."""
    import signal

    from tests.servers import free_port, start_server, stop_server

    port = free_port()
    proc = start_server(port, tmp_path / "usr2.sqlite")
    try:
        proc.send_signal(signal.SIGUSR2)
        log = tmp_path / f"server-{port}.log"
        deadline = time.monotonic() + 10
        # each task is logged on its own: wait for the one looked for, not the first
        while "LoopWatch.run" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        text = log.read_text()
        assert proc.poll() is None  # still serving
    finally:
        stop_server(proc)
    assert "waits in:" in text and "LoopWatch.run" in text  # a task and its frame
    assert proc.returncode in (0, -signal.SIGTERM)  # a plain stop (the backstop exits 1)
