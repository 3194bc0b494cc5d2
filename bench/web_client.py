"""The web client as a new visitor gets it: the first load's weight (every file the
lobby needs, the card pictures included, as transferred: compressed) and the time from
"create" to a playable table (the hand drawn and the bidding box, or the first card,
ready), in Debian's Chromium on loopback against a fresh server (new database, the
server's own random deals). Prints one JSON line.

    python -m bench.web_client [tries]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.servers import free_port, start_server

CHROMIUM = "/usr/bin/chromium"
GOAL_KB = 400
PLAYABLE = ("window.room && window.room.state && !window.room.busy && "
            "document.querySelectorAll('#hand button').length > 0 && "
            "(!document.querySelector('#bidbox').hidden || "
            "document.querySelectorAll('#hand button.legal').length > 0 || "
            "window.room.state.turn !== window.room.state.seat)")


def main(tries: int = 3) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        proc = start_server(port, Path(folder) / "bench.sqlite")
        url = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
                page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
                page.goto(url)
                page.fill("#nickname", "Bench")
                page.click("#guest")
                page.wait_for_selector("#lobby:not([hidden])")
                page.wait_for_function("performance.getEntriesByType('resource').some("
                                       "e => e.name.includes('svg-cards.svg') && e.responseEnd)")
                page.wait_for_timeout(300)
                sizes = page.evaluate(
                    "[...performance.getEntriesByType('navigation'),"
                    " ...performance.getEntriesByType('resource')]"
                    ".map(e => [e.name, e.transferSize, e.decodedBodySize])")
                times = []
                for _ in range(tries):
                    page.evaluate("localStorage.setItem('rebelote-pace', '700')")
                    start = time.perf_counter()
                    page.click("#create")
                    page.wait_for_function(PLAYABLE, timeout=60_000)
                    times.append((time.perf_counter() - start) * 1000)
                    page.click("#leave")
                    page.wait_for_selector("#lobby:not([hidden])")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    total = sum(t for _n, t, _d in sizes)
    sprite = sum(t for n, t, _d in sizes if "svg-cards" in n)
    return {"first_load_kb": round(total / 1024, 1), "sprite_kb": round(sprite / 1024, 1),
            "uncompressed_kb": round(sum(d for _n, _t, d in sizes) / 1024, 1),
            "files": len(sizes), "create_to_playable_ms": round(statistics.median(times)),
            "create_to_playable_max_ms": round(max(times))}


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)))
