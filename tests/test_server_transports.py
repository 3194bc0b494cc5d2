"""Closed connections are freed when they close, not left to the garbage collector;
the loop watch that found them names the loop's longest callbacks."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest

from rebelote.server.app import free_closed_transports
from rebelote.server.offloop import LoopWatch


def _closed_connections_left_as_garbage(count: int) -> int:
    """How many socket transports a collection finds as garbage after ``count``
    connections to a local server were opened and closed."""

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        for _ in range(count):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            await reader.read()  # the server closed it
            writer.close()
            await writer.wait_closed()
        server.close()
        await server.wait_closed()
        await asyncio.sleep(0.05)  # every connection_lost called

    gc.collect()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        asyncio.run(main())
        gc.collect()
        found = sum(1 for o in gc.garbage if type(o).__name__ == "_SelectorSocketTransport")
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return found


def test_closed_transports_are_not_cyclic_garbage() -> None:
    free_closed_transports()
    free_closed_transports()  # twice: patched once
    assert _closed_connections_left_as_garbage(30) == 0


def test_the_loop_watch_names_its_longest_callbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    """With callbacks traced (benches: REBELOTE_LOOP_REPORT), a callback that holds the
    loop is reported with its coroutine's name, and short ones are not."""
    # Restored after the test: tracing patches every loop of the process.
    monkeypatch.setattr(asyncio.events.Handle, "_run", asyncio.events.Handle._run)
    watch = LoopWatch()
    watch.trace_callbacks()

    async def holds_the_loop() -> None:
        time.sleep(0.03)

    async def main() -> None:
        for _ in range(20):
            await asyncio.sleep(0)
        await asyncio.create_task(holds_the_loop())

    asyncio.run(main())
    assert watch.slow, "the 30 ms callback was not seen"
    took, what = watch.slow[0]
    assert took >= 25 and "holds_the_loop" in what
    assert all(ms > 5 for ms, _ in watch.slow)
    assert watch.report()["slow_callbacks"] == watch.slow
