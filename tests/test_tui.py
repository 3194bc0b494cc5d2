"""The terminal game, driven by Textual's Pilot: a whole hand by key presses, a refused
card with its reason, the score sheet, resuming a saved game, the 80×24 layout."""

from __future__ import annotations

from pathlib import Path

from rebelote.record import replay_file
from rebelote.tui.app import BeloteApp, SheetScreen
from rebelote.tui.session import Setup


async def _play_until_hand_over(app: BeloteApp, pilot: object, take: bool = True,
                                want_refusal: bool = True) -> list[str]:
    """Play the human seat with key presses until the hand ends; returns the refusals
    shown."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    refusals: list[str] = []
    session = app.session
    assert session is not None
    for _ in range(400):
        await pilot.pause(0.02)
        if session.hand_over or session.game.is_over:
            break
        if not session.waiting_for_human:
            continue
        view = session.view()
        if view.phase == "auction":
            if take and 33 in view.legal_actions:  # TAKE is the second option
                await pilot.press("down", "enter")
            else:
                await pilot.press("enter")  # the first option: pass
            continue
        cards = app.hand_cards
        illegal = [i for i, c in enumerate(cards) if c not in view.legal_actions]
        if want_refusal and illegal and not refusals:
            before = list(session.hand.played)
            await pilot.press(str(illegal[0] + 1))
            message = str(app.query_one("#message").render())
            refusals.append(message)
            assert session.hand.played == before  # nothing changed
            continue
        legal = [i for i, c in enumerate(cards) if c in view.legal_actions]
        await pilot.press(str(legal[0] + 1))
    return refusals


async def test_a_whole_hand_with_the_keyboard(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    for seed in range(1, 30):  # a deal where the human must refuse a card at some point
        app = BeloteApp(Setup(preset="classic", bots="heuristic", seed=seed), record=record,
                        speed=0)
        async with app.run_test(size=(100, 30)) as pilot:
            refusals = await _play_until_hand_over(app, pilot)
            session = app.session
            assert session is not None
            if not session.hand_over or session.hand.is_void or not refusals:
                continue
            assert "✗" in refusals[0] and "must" in refusals[0]
            # Announcements and belote are shown at the place of the seat that made them.
            from rebelote.decks import announcement_label

            for s in range(4):
                text = str(app.seat_text(session.view(), s))
                for a in session.hand.announced[s]:
                    assert announcement_label(a.kind, "french") in text
                for seat, word, _card in session.hand.belote_said:
                    if seat == s:
                        assert word in text
            assert "s: score sheet" in str(app.query_one("#message").render())
            await pilot.press("s")
            assert isinstance(app.screen, SheetScreen)
            await pilot.press("escape")
            assert not isinstance(app.screen, SheetScreen)
            replayed = replay_file(record)[0].game
            assert replayed.totals == session.game.totals
            assert len(replayed.hands[-1].played) == 32
            return
    raise AssertionError("no seed gave a played hand with a refused card")


async def test_refusal_reason_is_in_the_players_language(tmp_path: Path) -> None:
    for seed in range(1, 30):
        app = BeloteApp(Setup(preset="ffb", bots="random", seed=seed, lang="fr"),
                        record=tmp_path / "fr.json", speed=0)
        async with app.run_test(size=(100, 30)) as pilot:
            refusals = await _play_until_hand_over(app, pilot)
            if refusals:
                assert any(word in refusals[0] for word in ("fournir", "couper", "monter",
                                                            "pisser"))
                return
    raise AssertionError("no refusal in 30 seeds")


async def test_resume_a_saved_game(tmp_path: Path) -> None:
    record = tmp_path / "saved.json"
    app = BeloteApp(Setup(preset="ffb", bots="heuristic", seed=4), record=record, speed=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        session = app.session
        assert session is not None
        await pilot.press("q")
    saved = replay_file(record)[0].game
    played_before = list(saved.hands[-1].played)
    calls_before = list(saved.hands[-1].calls)
    again = BeloteApp(Setup(preset="ffb", bots="heuristic"), record=record, resume=True,
                      speed=0)
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.1)
        hand = again.session.hand if again.session else None
        assert hand is not None
        assert hand.played[:len(played_before)] == played_before
        assert hand.calls[:len(calls_before)] == calls_before
        await _play_until_hand_over(again, pilot, want_refusal=False)
        assert again.session is not None and again.session.hand_over


async def test_layout_fits_80_by_24(tmp_path: Path) -> None:
    app = BeloteApp(Setup(preset="classic", bots="heuristic", seed=2), record=tmp_path / "g.json",
                    speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(40):
            await pilot.pause(0.02)
            if app.session and app.session.waiting_for_human:
                break
        cards = list(app.query(".card"))
        assert len(cards) in (5, 8)
        for widget in [*cards, app.query_one("#message"), app.query_one("#header")]:
            region = widget.region
            assert region.width > 0 and region.right <= 80 and region.bottom <= 24, widget


async def test_setup_screen_is_remembered(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = BeloteApp(Setup(), record=tmp_path / "g.json", ask_setup=True, speed=0)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.1)
        from textual.widgets import Select

        app.screen.query_one("#preset", Select).value = "skill7"
        await pilot.click("#start")
        await pilot.pause(0.1)
        assert app.session is not None and app.session.game.rules.preset == "skill7"
    from rebelote.tui.app import load_setup

    assert load_setup().preset == "skill7"


async def test_setup_screen_fits_80_by_24(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = BeloteApp(Setup(), record=tmp_path / "g.json", ask_setup=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        start = app.screen.query_one("#start")
        assert start.region.bottom <= 24 and start.region.height >= 1
        await pilot.click("#start")
        await pilot.pause(0.1)
        assert app.session is not None


async def test_hint_key_in_play_and_where_no_hint_exists(tmp_path: Path) -> None:
    for preset in ("classic", "decouverte"):
        app = BeloteApp(Setup(preset=preset, bots="heuristic", seed=6),
                        record=tmp_path / f"{preset}.json", speed=0)
        async with app.run_test(size=(100, 30)) as pilot:
            session = app.session
            assert session is not None
            for _ in range(300):
                await pilot.pause(0.02)
                if session.waiting_for_human and session.view().phase == "play":
                    break
                if session.waiting_for_human:
                    await pilot.press("down", "enter")  # take / name a suit
                if session.hand_over:
                    await pilot.press("n")
            assert session.waiting_for_human and session.view().phase == "play"
            await pilot.press("h")
            message = str(app.query_one("#message").render())
            assert ("Hint" in message) if preset == "classic" else ("no hint" in message)


async def test_auction_game_bids_from_the_list_and_cards_by_mouse(tmp_path: Path) -> None:
    from rebelote.hand import BID_BASE

    app = BeloteApp(Setup(preset="coinche", bots="heuristic", seed=3, deck="spanish"),
                    record=tmp_path / "coinche.json", speed=0)
    async with app.run_test(size=(100, 30)) as pilot:
        session = app.session
        assert session is not None
        bid_made = clicked = False
        for _ in range(600):
            await pilot.pause(0.02)
            if session.hand_over:
                break
            if not session.waiting_for_human:
                continue
            view = session.view()
            if view.phase == "auction":
                legal = list(view.legal_actions)
                if not bid_made and any(a >= BID_BASE for a in legal):
                    await pilot.press("down", "enter")  # the lowest bid offered
                    assert any(a >= BID_BASE for a in session.hand.calls)
                    bid_made = True
                else:
                    await pilot.press("enter")  # pass
                continue
            legal_cards = [c for c in app.hand_cards if c in view.legal_actions]
            widget = next(w for w in app.query(".card") if getattr(w, "card", -1)
                          == legal_cards[0])
            before = len(session.hand.played)
            await pilot.click(widget)
            assert len(session.hand.played) > before  # the click played the card
            clicked = True
        assert bid_made and clicked


def test_hint_measures_are_named_in_every_language() -> None:
    """Each measure a hint can carry has its own label (an auction's expected score was
    shown as "strength"), translated into French, English and Spanish."""
    from rebelote.analysis import Hint
    from rebelote.i18n import tr
    from rebelote.tui.app import h_measure

    keys = {measure: h_measure([Hint("x", 0.0, measure)])
            for measure in ("expected points", "expected score", "% made", "strength")}
    assert keys == {"expected points": "expected_points", "expected score": "expected_score",
                    "% made": "chance_made", "strength": "strength"}
    for key in keys.values():
        labels = {tr(key, lang) for lang in ("en", "fr", "es")}
        assert len(labels) == 3  # a label of its own in each language
