"""End to end in Debian's Chromium (Playwright, launched by path): sign in as a guest,
play a hand against bots by clicking, reload mid-hand and go on."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.servers import free_port as _free_port
from tests.servers import start_server as _start

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAND_SHOWN = "document.querySelectorAll('#hand button').length > 0"


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, by path."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--disable-gpu", "--disable-background-networking"])


def guest(page: Any, server: str, nickname: str) -> None:
    """Open the platform and sign in as a guest: the lobby shows."""
    page.goto(server)
    page.fill("#nickname", nickname)
    page.click("#guest")
    page.wait_for_selector("#lobby:not([hidden])")


def clicked(element: Any) -> bool:
    """Click an element found a moment ago; False when the page redrew it away meanwhile
    (every update from the server redraws the hand and the calls: a bot's move, a
    trick taken), so the caller looks again."""
    from playwright.sync_api import Error

    try:
        element.click()
    except Error as exc:
        if "not attached" not in str(exc):
            raise
        return False
    return True


def hand_of(page: Any) -> list[str]:
    """The cards in hand, by their accessible names (pictures have no text)."""
    return [b.get_attribute("aria-label") or "" for b in page.query_selector_all("#hand button")]


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    port = _free_port()
    proc = _start(port, tmp_path / "e2e.sqlite")
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


def test_a_hand_by_clicking_with_a_reload(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(bypass_csp=True,
                                viewport={"width": 420, "height": 800})  # a phone screen
        guest(page, server, "Ana")
        page.click("#create")
        page.wait_for_selector("#table:not([hidden])")
        reloaded = refused = False
        for step in range(600):  # play on, hand after hand, until all was seen
            if page.inner_text("#scores").strip() and reloaded and refused:
                break
            if "wins" in page.inner_text("#status"):
                break
            calls = page.query_selector_all("#calls button")
            cards = page.query_selector_all("#hand button:enabled:not(.illegal)")
            illegal = page.query_selector_all("#hand button.illegal:enabled")
            if illegal and not refused:  # an illegal click explains itself
                held = hand_of(page)
                if not clicked(illegal[0]):
                    continue
                page.wait_for_function("document.querySelector('#error').innerText.length > 0")
                assert "must" in page.inner_text("#error")
                assert hand_of(page) == held  # nothing changed
                refused = True
                continue
            if calls:
                clicked(calls[-1])
            elif cards:
                if not reloaded and step > 3:  # mid-hand: reload, the table comes back
                    held = hand_of(page)
                    page.reload()
                    page.wait_for_selector("#table:not([hidden])")
                    page.wait_for_function(HAND_SHOWN)
                    assert hand_of(page) == held
                    reloaded = True
                    continue
                clicked(cards[0])
            page.wait_for_timeout(60)
        assert reloaded and refused
        assert "hand 1:" in page.inner_text("#scores")
        page.goto(server + (page.get_attribute("#replay", "href") or ""))  # the replay
        page.wait_for_function("document.querySelector('#deal').innerText.length > 0")
        stepped = False
        for option in page.query_selector_all("#hand-no option"):
            page.select_option("#hand-no", option.get_attribute("value") or "0")
            for _ in range(8):
                page.click("#next")
            if "trick 8" in page.inner_text("#played"):  # a played (not voided) hand
                assert page.inner_text("#result").strip()
                stepped = True
        assert stepped
        browser.close()


def test_the_calculator_page_computes_a_litige(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(bypass_csp=True)
        page.goto(f"{server}/calculator")
        page.fill("#points", "81")  # we took, 81 each: a litige
        page.click("#add")
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 1")
        cells = page.inner_text("#sheet tbody tr").split("\t")
        assert cells[1] == "litige" and cells[2:4] == ["0", "81"] and cells[6] == "81"
        page.fill("#points", "100")  # we make the next hand: the reserve is ours
        page.click("#add")
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2")
        second = page.inner_text("#sheet tbody tr:nth-child(2)").split("\t")
        assert second[2:4] == ["181", "62"]
        page.fill("#points", "170")  # impossible: the form itself refuses it
        page.click("#add")
        assert page.eval_on_selector("#points", "e => e.validity.valid") is False
        page.fill("#points", "90")
        page.fill("#ann0", "20")
        page.fill("#ann1", "20")  # both teams' announcements: the server refuses it
        page.click("#add")
        page.wait_for_function("document.querySelector('#error').innerText.length > 0")
        assert "only one team" in page.inner_text("#error")
        assert len(page.query_selector_all("#sheet tbody tr")) == 2  # nothing added
        browser.close()


def test_a_friend_joins_by_invite_link(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        ana = browser.new_context(bypass_csp=True).new_page()
        guest(ana, server, "Ana")
        ana.check("#private")
        ana.check("#wait")
        ana.click("#create")
        ana.wait_for_selector("#invite:not([hidden])")
        link = ana.input_value("#invite-link")
        assert "invite=" in link
        bruno = browser.new_context(bypass_csp=True).new_page()  # another browser, guest
        guest(bruno, server, "Bruno")
        bruno.goto(link)
        bruno.reload()
        bruno.wait_for_selector("#table:not([hidden])")
        ana.wait_for_function("document.querySelector('#seat-west').innerText.includes('guest')"
                              " || document.querySelector('#seat-north').innerText.length > 0")
        ana.click("#fill")  # bots take the two seats left
        ana.wait_for_function(HAND_SHOWN)
        bruno.wait_for_function(HAND_SHOWN)
        assert set(hand_of(ana)) != set(hand_of(bruno))
        assert ana.query_selector("#hand svg use") is not None  # the card pictures
        browser.close()


def test_the_interface_in_french(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(bypass_csp=True)
        page.goto(server)
        page.select_option("#lang", "fr")
        assert page.inner_text("#guest") == "Jouer en invité"
        page.fill("#nickname", "Zoé")
        page.click("#guest")
        page.wait_for_selector("#lobby:not([hidden])")
        assert page.inner_text("#create") == "Créer la table"
        page.select_option("#deck", "spanish")
        page.click("#create")
        page.wait_for_function(HAND_SHOWN)
        assert "totaux" in page.inner_text("#status")
        labels = " ".join(hand_of(page))
        assert any(word in labels for word in ("oros", "copas", "espadas", "bastos"))
        browser.close()


def test_a_phone_plays_by_tapping(server: str) -> None:
    """A phone (360 px wide, touch): nothing wider than the screen, every card in hand on
    screen and big enough to tap, and taps play."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(bypass_csp=True, viewport={"width": 360, "height": 740},
                                      is_mobile=True,
                                      has_touch=True, device_scale_factor=2)
        page = context.new_page()
        guest(page, server, "Ana")
        page.tap("#create")
        page.wait_for_selector("#table:not([hidden])")
        page.wait_for_function(HAND_SHOWN)
        played = 0
        for _ in range(200):
            width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
            assert width[0] <= width[1], "the page scrolls sideways"
            for card in page.query_selector_all("#hand button"):
                box = card.bounding_box()
                if box is None:  # redrawn meanwhile (a bot played): look again
                    continue
                assert box["x"] >= 0 and box["x"] + box["width"] <= 360
                assert box["width"] >= 40 and box["height"] >= 40  # a finger's size
            calls = page.query_selector_all("#calls button")
            cards = page.query_selector_all("#hand button:enabled:not(.illegal)")
            if calls:
                calls[-1].tap()
            elif cards:
                before = len(hand_of(page))
                cards[0].tap()
                page.wait_for_function(f"document.querySelectorAll('#hand button').length"
                                       f" != {before}")
                played += 1
                if played == 3:
                    break
            page.wait_for_timeout(60)
        assert played == 3
        browser.close()


def test_a_table_with_more_rules(server: str) -> None:
    """The lobby's "more rules" sets any rule option; the lobby lists the table with it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(bypass_csp=True)
        guest(page, server, "Ana")
        page.select_option("#preset", "contree")
        page.click("#more-rules summary")
        page.wait_for_selector("[data-option=announcements]")
        assert page.query_selector("[data-option=game]") is None  # the variant is the preset's
        assert page.input_value("[data-option=announcements]") == "1"  # contrée's: false
        page.select_option("[data-option=announcements]", label="true")
        page.select_option("[data-option=direction]", label="clockwise")
        page.click("#create")
        page.wait_for_selector("#table:not([hidden])")
        lobby = page.evaluate("fetch('/api/tables').then(r => r.json())")
        assert lobby[0]["preset"] == "contree"
        assert lobby[0]["rules"] == {"announcements": True, "direction": "clockwise"}
        browser.close()


def test_the_last_trick_on_demand(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(bypass_csp=True)
        guest(page, server, "Ana")
        page.click("#create")
        page.wait_for_selector("#table:not([hidden])")
        page.wait_for_function(HAND_SHOWN)
        page.keyboard.press("l")
        assert "no trick" in page.inner_text("#last")  # nothing played yet
        page.keyboard.press("l")
        for _ in range(300):
            if page.evaluate("state.tricks.length > 0 && state.phase === 'play'"):
                break
            calls = page.query_selector_all("#calls button")
            cards = page.query_selector_all("#hand button:enabled:not(.illegal)")
            if calls:
                clicked(calls[-1])
            elif cards:
                clicked(cards[0])
            page.wait_for_timeout(60)
        last = page.evaluate("state.tricks[state.tricks.length - 1]")
        page.click("#last-trick")
        shown = page.inner_text("#last")
        assert "won by" in shown and shown.count(":") == len(last["cards"]) == 4
        page.click("#last-trick")
        assert page.is_hidden("#last")
        browser.close()


def test_the_security_policy_holds_and_other_sites_are_refused(server: str,
                                                               tmp_path: Path) -> None:
    """Under the real Content-Security-Policy (no bypass) the client plays: no
    violation reported. A page on another site posts a plain form to sign the victim in
    as someone else, and opens a WebSocket to the platform: both refused, the victim
    keeps who he is."""
    import http.server
    import threading

    from playwright.sync_api import sync_playwright

    evil_port = _free_port()
    (tmp_path / "evil.html").write_text(f"""<!doctype html><html><body>
<form id="f" method="post" action="{server}/api/guest" enctype="text/plain">
<input name='{{"nickname": "Attacker", "x": "' value='"}}'></form>
<script>
const ws = new WebSocket("{server.replace('http', 'ws')}/ws");
ws.onopen = () => {{ document.title = "ws-open"; }};
ws.onclose = () => {{ if (document.title !== "ws-open") document.title = "ws-refused"; }};
</script></body></html>""")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", evil_port), Quiet)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = launch(p)
            context = browser.new_context()  # the victim's browser: the same cookies
            page = context.new_page()
            violations: list[str] = []
            page.on("console", lambda m: violations.append(m.text)
                    if "Content Security Policy" in m.text else None)
            guest(page, server, "Victim")
            me = page.evaluate("fetch('/api/me').then(r => r.json())")
            page.click("#create")
            page.wait_for_selector("#table:not([hidden])")
            page.wait_for_selector("#hand button")  # the client works under the policy
            assert violations == []
            attack = context.new_page()
            attack.goto(f"http://127.0.0.1:{evil_port}/evil.html")
            attack.wait_for_function("document.title !== ''", polling=100, timeout=10_000)
            assert attack.title() == "ws-refused"
            with attack.expect_navigation():
                attack.evaluate("document.getElementById('f').submit()")
            assert "Attacker" not in attack.content()
            assert page.evaluate("fetch('/api/me').then(r => r.json())") == me
            browser.close()
    finally:
        evil.shutdown()
