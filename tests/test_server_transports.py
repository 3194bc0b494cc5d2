"""Closed connections are freed when they close, not left to the garbage collector;
garbage is collected by the event loop alone; the loop watch that found them names the
loop's longest and busiest callbacks."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref

import pytest

from rebelote.server.app import collect_on_the_loop, free_closed_transports
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
        time.sleep(0.03)  # waits, without the CPU

    async def works_on_the_loop() -> None:
        end = time.thread_time() + 0.02
        while time.thread_time() < end:
            pass

    async def main() -> None:
        watching = asyncio.create_task(watch.run())
        for _ in range(20):
            await asyncio.sleep(0)
        await asyncio.create_task(holds_the_loop())
        await asyncio.sleep(0.02)  # the watch wakes between the two
        await asyncio.create_task(works_on_the_loop())
        await asyncio.sleep(0.02)
        watching.cancel()

    asyncio.run(main())
    assert watch.slow, "the 30 ms callback was not seen"
    # By name, not by rank: on a loaded machine the 20 ms of CPU may take longer than
    # the 30 ms wait.
    held = [took for took, what in watch.slow if "holds_the_loop" in what]
    assert held and held[0] >= 25, watch.slow
    assert all(ms > 5 for ms, _ in watch.slow)
    assert watch.report()["slow_callbacks"] == watch.slow
    # The busiest by the loop thread's CPU: the one that worked, not the one that waited.
    ran, what = watch.busiest[0]
    assert ran >= 15 and "works_on_the_loop" in what
    assert not any("holds_the_loop" in what for _, what in watch.busiest)
    # Each late wake-up carries the loop's CPU meanwhile: the wait had almost none, the
    # work all of its own.
    assert any(ms >= 25 and cpu < 5 for _, ms, cpu in watch.stalls), watch.stalls[-5:]
    assert any(cpu >= 15 for _, _, cpu in watch.stalls), watch.stalls[-5:]


def test_garbage_is_collected_by_the_loop_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the server runs, Python's automatic collector is off and the loop collects
    young objects past the threshold: cyclic garbage made in another thread is freed,
    and by the loop's thread, never by the thread that made it."""
    monkeypatch.setenv("REBELOTE_GC_THRESHOLD", "2000,5,5")
    ran_in: set[str] = set()

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            ran_in.add(threading.current_thread().name)

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    freed = threading.Event()
    watched: list[weakref.ref[Cycle]] = []  # kept, so that its callback is called

    def makes_garbage() -> None:
        first = Cycle()
        watched.append(weakref.ref(first, lambda _ref: freed.set()))
        del first
        for _ in range(20_000):  # ten times the threshold: Python would collect here
            Cycle()

    async def main() -> bool:
        collecting = asyncio.create_task(collect_on_the_loop(period=0.005))
        await asyncio.sleep(0.01)
        assert not gc.isenabled()
        maker = threading.Thread(target=makes_garbage, name="maker")
        maker.start()
        await asyncio.to_thread(maker.join)
        for _ in range(100):
            if freed.is_set():
                break
            await asyncio.sleep(0.01)
        collecting.cancel()
        await asyncio.sleep(0)
        return freed.is_set()

    gc.collect()
    gc.callbacks.append(note)
    try:
        assert asyncio.run(main()), "the cycle made in the thread was never collected"
    finally:
        gc.callbacks.remove(note)
    assert gc.isenabled()  # back on once the loop stops collecting
    assert ran_in == {threading.main_thread().name}, ran_in
