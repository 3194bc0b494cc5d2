"""The terminal game, driven by Textual's Pilot: a whole hand by key presses, a refused
card with its reason, the score sheet, resuming a saved game, the 80×24 layout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.table import Table as RichTable
from textual.widgets import OptionList, Static

from rebelote.actions import COINCHE, PASS, SURCOINCHE
from rebelote.i18n import tr as t
from rebelote.record import replay_file
from rebelote.rules import PRESETS, Rules
from rebelote.tui.app import BeloteApp, SetupScreen, SheetScreen
from rebelote.tui.session import Setup


async def _play_until_hand_over(app: BeloteApp, pilot: object, take: bool = True,
                                want_refusal: bool = True, steps: int = 400) -> list[str]:
    """Play the human seat with key presses until the hand ends; returns the refusals
    shown."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    refusals: list[str] = []
    session = app.session
    assert session is not None
    for _ in range(steps):
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
                contract = str(app.query_one("#contract").render())
                assert contract.startswith(" Contrat\u00a0: "), contract  # not "Contrat:"
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
    from textual.widgets import OptionList

    from rebelote.actions import COINCHE, PASS
    from rebelote.hand import BID_BASE

    coinched = False
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
                listed = app.query_one("#calls", OptionList)
                ids = [int(str(listed.get_option_at_index(i).id))
                       for i in range(listed.option_count)]
                assert sorted(ids) == sorted(legal)
                if COINCHE in legal:  # right after pass, not the 38th of 38
                    coinched = True
                    assert ids[:2] == [PASS, COINCHE], ids
                if not bid_made and any(a >= BID_BASE for a in legal):
                    lowest = next(i for i, a in enumerate(ids) if a >= BID_BASE)
                    await pilot.press(*["down"] * lowest, "enter")  # the lowest bid offered
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
        assert bid_made and clicked and coinched  # (seed 3: a coinche was offered)
        hand = session.hand
        if not hand.is_void:  # the sheet says the contract: its bid, trump and coinche
            from textual.widgets import DataTable

            from rebelote.actions import CAPOT_LEVEL, bid_value

            await pilot.press("s")
            await pilot.pause(0.05)
            cell = app.screen.query_one(DataTable).get_row_at(0)[1]
            bid = "capot" if hand.bid_level == CAPOT_LEVEL else str(bid_value(hand.bid_level))
            assert f"{bid} {app.contract_label(hand.contract)}" in cell, cell
            assert ("×" in cell) == (hand.double > 1), cell


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


# -- issue 18: each item seen by a new user -------------------------------------------------

async def _until(pilot: object, condition: object, steps: int = 600) -> bool:
    """Let the bots play until ``condition()`` holds (False if it never does)."""
    from collections.abc import Callable

    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot) and callable(condition)
    check: Callable[[], bool] = condition
    for _ in range(steps):
        if check():
            return True
        await pilot.pause(0.02)
    return check()


def _play_turn(app: BeloteApp) -> bool:
    session = app.session
    return bool(session and session.waiting_for_human and session.view().phase == "play")


async def test_setup_lists_offer_no_blank_choice_and_bad_saved_values_fall_back(
        tmp_path: Path) -> None:
    """Item 1: no list of the setup screen has a blank entry (picking it crashed the app
    after saving 'Select.NULL'); a config file with bad values still starts a game."""
    from textual.widgets import Select

    from rebelote.tui.app import config_path, load_setup, save_setup

    config_path().parent.mkdir(parents=True)
    config_path().write_text('{"preset": "Select.NULL", "target": "Select.NULL", '
                             '"bots": "expert", "lang": "xx", "seat": 7}')
    setup = load_setup()
    assert (setup.preset, setup.target, setup.bots, setup.lang, setup.seat) == (
        "classic", 0, "expert", "en", 0)
    app = BeloteApp(setup, record=tmp_path / "g.json", ask_setup=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        selects = list(app.screen.query(Select))
        assert {s.id for s in selects} >= {"lang", "preset", "target", "announcements",
                                          "seat", "deck", "direction", "bots"}
        for select in selects:
            assert not select._allow_blank, select.id
            assert not select.is_blank(), select.id
        await pilot.click("#start")
        await pilot.pause(0.1)
        assert app.session is not None
    import pytest

    from rebelote.tui.session import Setup as S

    with pytest.raises(ValueError):
        save_setup(S(preset="Select.NULL"))
    assert "Select.NULL" not in config_path().read_text()


async def test_setup_offers_the_saved_game_first_and_a_new_game_keeps_a_backup(
        tmp_path: Path) -> None:
    """Item 2: the setup screen offers to resume the saved game (focused first); starting
    a new game keeps the old one as a backup instead of deleting it."""
    from rebelote.tui.session import TableSession, backup_path

    record = tmp_path / "current.json"
    old = TableSession.new(Setup(preset="ffb", seed=9), record)
    while old.step_bot() is not None:
        pass
    saved = record.read_text()
    app = BeloteApp(Setup(), record=record, ask_setup=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert app.screen.focused is not None and app.screen.focused.id == "resume"
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert app.session is not None and app.session.game.rules.preset == "ffb"
        assert app.session.hand.calls[:len(old.hand.calls)] == old.hand.calls
    app = BeloteApp(Setup(), record=record, ask_setup=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        await pilot.click("#start")
        await pilot.pause(0.1)
        assert app.session is not None and app.session.game.rules.preset == "classic"
    kept = replay_file(backup_path(record))[0].game
    assert kept.rules.preset == "ffb" and saved.startswith(backup_path(record).read_text()[:50])


async def test_enter_plays_a_card_when_the_bots_ended_the_auction(tmp_path: Path) -> None:
    """Item 3: Enter plays the selected card even when the human never spoke in the
    auction (the hidden call list kept the focus and swallowed Enter)."""
    for seed in range(40):
        app = BeloteApp(Setup(preset="classic", seat=3, bots="heuristic", seed=seed),
                        record=tmp_path / f"g{seed}.json", speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.session
            assert session is not None
            if session.waiting_for_human and session.view().phase == "auction":
                continue  # the human speaks in this deal
            assert await _until(pilot, lambda app=app: bool(
                app.session and app.session.waiting_for_human))
            view = session.view()
            if view.phase != "play" or any(
                    (view.first_hand + i) % 4 == 3 for i in range(len(view.calls))):
                continue
            legal = [i for i, c in enumerate(app.hand_cards) if c in view.legal_actions]
            for _ in range(legal[0] - app.selected):
                await pilot.press("right")
            before = len(session.hand.played)
            await pilot.press("enter")
            assert len(session.hand.played) > before
            return
    raise AssertionError("no deal where the bots ended the auction before the human")


async def test_resume_keeps_the_seat_played(tmp_path: Path) -> None:
    """Item 5: resuming gives the human the seat the record calls "You"."""
    from rebelote.tui.session import TableSession

    record = tmp_path / "seat2.json"
    TableSession.new(Setup(preset="classic", seat=2, seed=5, lang="fr"), record)
    assert replay_file(record)[0].game.players[2] == "Vous"
    app = BeloteApp(Setup(seat=0), record=record, resume=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.05)
        assert app.session is not None and app.session.human == 2
        assert app.session.bots[2] is None and app.session.bots[0] is not None


async def test_us_and_them_follow_the_humans_team(tmp_path: Path) -> None:
    """Item 6: with seat 1 (or 3) "Us" is team 1, in the header and on the sheet."""
    from textual.widgets import DataTable

    app = BeloteApp(Setup(preset="ffb", seat=1, bots="random", seed=2),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(100, 30)) as pilot:
        session = app.session
        assert session is not None
        for _ in range(200):
            if session.hand_over:
                break
            if session.waiting_for_human:
                session.play_human(session.view().legal_actions[0])
            else:
                session.step_bot()
        assert session.hand_over and not session.hand.is_void
        app.refresh_table()
        scored = session.game.scores[-1].scored
        header = str(app.query_one("#header").render())
        assert f"Us {session.game.totals[1]} · Them {session.game.totals[0]}" in header
        await pilot.press("s")
        await pilot.pause(0.05)
        table = app.screen.query_one(DataTable)
        row = table.get_row_at(0)
        assert row[3].startswith(f"{scored[1]} ") and row[4].startswith(f"{scored[0]} ")
        assert [str(c.label) for c in table.columns.values()][3:5] == ["Us", "Them"]


async def test_decouverte_shows_both_tables_and_every_card_has_a_key(tmp_path: Path) -> None:
    """Item 7: découverte is playable: the opponent's face-up cards show, the human's 11
    cards (hand and face-up) fit 80 columns, each has a key (1-9, 0, a) and plays."""
    from rebelote.cards import cards_of
    from rebelote.decks import short_label

    for seed in range(20):
        app = BeloteApp(Setup(preset="decouverte", bots="heuristic", seed=seed),
                        record=tmp_path / f"d{seed}.json", speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.session
            assert session is not None
            for _ in range(300):
                await pilot.pause(0.02)
                if _play_turn(app) or session.hand_over:
                    break
                if session.waiting_for_human:
                    await pilot.press("down", "enter")
            if not _play_turn(app):
                continue
            view = session.view()
            style = app.style
            north = str(app.query_one("#north").render())
            for card in cards_of(view.table[1 - session.human]):
                assert short_label(card, style) in north
            await pilot.pause(0.05)  # a redraw's old cards are removed after the new mount
            cards = list(app.query(".card"))
            assert len(cards) == len(cards_of(view.hand)) == len(app.hand_cards)
            if len(cards) < 11:
                continue
            for widget in cards:
                assert widget.region.right <= 80 and widget.region.width > 0
            assert len(app.query(".card.up")) == 5
            message = str(app.query_one("#message").render())
            assert "1-9, 0, a" in message
            legal = [i for i, c in enumerate(app.hand_cards) if c in view.legal_actions]
            key = "1234567890a"[legal[-1]]
            card = app.hand_cards[legal[-1]]
            await pilot.press(key)
            assert card in session.hand.played
            return
    raise AssertionError("no découverte deal reached the play with 11 cards")


def test_the_tests_never_write_the_real_setup_file() -> None:
    """Item 8: every data and config path of the app points into the test's folder."""
    from rebelote.cli import default_sheet_path
    from rebelote.server.app import data_dir
    from rebelote.tui.app import config_path, default_record_path, save_setup
    from tests.conftest import REAL_CONFIG_HOME, REAL_DATA_HOME, REAL_HOME

    real = REAL_CONFIG_HOME / "rebelote" / "play.json"
    before = real.stat().st_mtime_ns if real.exists() else None
    save_setup(Setup(preset="skill7"))
    for path in (config_path(), default_record_path(), default_sheet_path(), data_dir()):
        for root in (REAL_HOME, REAL_CONFIG_HOME, REAL_DATA_HOME):
            assert not path.is_relative_to(root) or root == Path("/"), path
    assert config_path().exists()
    assert (real.stat().st_mtime_ns if real.exists() else None) == before
    import os

    assert not [k for k in os.environ if k.startswith("REBELOTE_")
                and not k.startswith(("REBELOTE_TEST_", "REBELOTE_SKIP_"))]


async def test_languages_decks_and_the_key_bar(tmp_path: Path) -> None:
    """Item 10: the key bar and the seat's name follow the language; the saved language
    and deck are read back; the Moroccan game shows the Spanish deck and English the
    international one by default."""
    from textual.widgets._footer import FooterKey

    from rebelote.tui.app import load_setup, save_setup

    save_setup(Setup(lang="fr", deck="german"))
    remembered = load_setup()
    assert (remembered.lang, remembered.deck) == ("fr", "german")
    assert Setup(preset="moroccan", lang="fr").deck_style == "spanish"
    assert Setup(preset="classic", lang="en").deck_style == "international"
    assert Setup(preset="classic", lang="fr").deck_style == "french"
    app = BeloteApp(None, record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await _until(pilot, lambda: len(app.query(FooterKey)) >= 6, 100)
        assert app.lang == "fr" and app.style == "german"
        keys = {k.key: k for k in app.query(FooterKey)}
        assert keys["q"].description == "quitter" and keys["h"].description == "conseil"
        south = str(app.query_one("#south-label").render())
        assert "Vous" in south and "You" not in south


async def test_the_key_bar_fits_80_columns_in_every_language(tmp_path: Path) -> None:
    """Item 11: at 80 columns every key of the bar is shown, "q quit" included."""
    from textual.widgets._footer import FooterKey

    for lang in ("en", "fr", "es"):
        app = BeloteApp(Setup(lang=lang, seed=1), record=tmp_path / f"{lang}.json", speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await _until(pilot, lambda app=app: all(
                k.region.width for k in app.query(FooterKey)) and len(app.query(FooterKey))
                >= 6, 100)
            shown = list(app.query(FooterKey))
            assert {k.key for k in shown} >= {"enter", "h", "l", "s", "plus", "q"}
            for key in shown:
                assert key.region.width > 0 and key.region.right <= 80, (lang, key.key)


async def test_the_trick_is_drawn_at_the_players_places(tmp_path: Path) -> None:
    """Item 11: each card of the trick at its player's place, the leader and the card
    that holds the trick marked; a finished trick stays a moment marked with its
    winner; the hand's summary is broken down."""
    app = BeloteApp(Setup(preset="ffb", bots="heuristic", seed=11), record=tmp_path / "g.json",
                    speed=0)
    async with app.run_test(size=(120, 40)) as pilot:
        session = app.session
        assert session is not None
        for _ in range(900):
            await pilot.pause(0.01)
            if session.hand_over or (_play_turn(app) and session.view().trick is not None):
                break
            if session.waiting_for_human and session.view().phase == "auction":
                await pilot.press("down", "enter")  # take
            elif _play_turn(app):  # leading: any legal card
                legal = [i for i, c in enumerate(app.hand_cards) if c in
                         session.view().legal_actions]
                await pilot.press(str(legal[0] + 1))
        if session.hand_over:
            return
        view = session.view()
        trick = view.trick
        assert trick is not None
        body = app.query_one("#trick").render()
        text = str(body)
        assert "▸led" in text and "★holds it" in text
        positions = app.positions(4)
        lines = text.splitlines()
        where = {seat: place for place, seat in positions.items()}
        from rebelote.decks import short_label

        card_row = {i for i, line in enumerate(lines)
                    if short_label(trick.cards[0], app.style) in line}
        leader_place = where[trick.leader]
        row = min(card_row)
        if leader_place == "north":
            assert row < len(lines) / 2
        elif leader_place in ("west", "east"):
            col = lines[row].index(short_label(trick.cards[0], app.style))
            assert (col < 40) == (leader_place == "west")
        assert app.query_one("#trick").region.height >= 20  # a large terminal is used
        assert "╭" in text  # framed cards on a large terminal
        # Finish the hand: each trick stays, marked with its winner; then the summary.
        app.min_trick_pause = 0.3
        seen_won = False
        for _ in range(900):
            await pilot.pause(0.01)
            if app.paused_trick is not None:
                seen_won = seen_won or "★wins" in str(app.query_one("#trick").render())
            if session.hand_over and app.paused_trick is None:
                break
            if _play_turn(app):
                legal = [i for i, c in enumerate(app.hand_cards) if c in
                         session.view().legal_actions]
                await pilot.press(str(legal[0] + 1))
        assert seen_won and session.hand_over
        await pilot.pause(0.05)
        summary = str(app.query_one("#trick").render())
        for word in ("Card points", "Belote", "Total", "Scored"):
            assert word in summary
        score = session.game.scores[-1]
        assert str(score.scored[0]) in summary and str(score.scored[1]) in summary
        assert app.query_one("#trick").border_title == "The hand's score"


async def test_hints_use_the_decks_notation_and_say_what_pass_means(tmp_path: Path) -> None:
    """Item 11: hints show cards as the hand does ("R♥ 66", not "KH 66"); in a classic
    call the pass line reads as the expert's threshold, not a chance of passing."""
    from rebelote.analysis import Hint

    app = BeloteApp(Setup(lang="fr", seed=1), record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.05)
        played = app.format_hints([Hint("KH", 66.0, "expected points"),
                                   Hint("7S", 12.0, "expected points")])
        assert "R♥\u00a066" in played and "KH" not in played
        assert "points espérés" in played
        called = app.format_hints([Hint("take", 67.0, "% made"), Hint("pass", 75.0, "% made")])
        assert "67%" in called and "l'expert prend dès 75 %" in called


async def test_setup_title_shows_and_the_setup_fits_80_by_24(tmp_path: Path) -> None:
    """Item 11: the setup screen's title is on screen; every row fits 80×24 (with the
    resume line)."""
    from rebelote.tui.session import TableSession

    record = tmp_path / "g.json"
    TableSession.new(Setup(seed=3), record)
    for lang in ("en", "fr", "es"):
        app = BeloteApp(Setup(lang=lang), record=record, ask_setup=True, speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
            title = app.screen.query_one("#setup-title")
            assert title.region.height == 1 and title.region.y >= 0
            for widget_id in ("#resume", "#lang", "#bots", "#start"):
                region = app.screen.query_one(widget_id).region
                assert region.height >= 1 and region.bottom <= 24, (lang, widget_id)


async def test_setup_language_redraws_and_seats_follow_the_rules(tmp_path: Path) -> None:
    """Item 10: the setup screen asks the language, deck and seat; choosing French
    redraws it in French; a three-player preset offers three seats."""
    from textual.css.query import NoMatches
    from textual.widgets import Select

    app = BeloteApp(Setup(), record=tmp_path / "g.json", ask_setup=True, speed=0)

    async def choose(selector: str, value: object) -> None:
        """Set a list's value; the screen may be redrawing itself (a new language
        recomposes it): then wait and try again."""
        for _ in range(100):
            try:
                app.screen.query_one(selector, Select).value = value
                return
            except NoMatches:
                await pilot.pause(0.05)
        raise AssertionError(f"{selector} never took {value!r}")

    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.1)
        await choose("#lang", "fr")
        def title() -> str:
            found = app.screen.query("#setup-title")
            return str(found.first().render()) if found else ""

        assert await _until(pilot, lambda: "Nouvelle partie" in title(), 100)
        await choose("#preset", "three")

        def seats() -> list[object]:
            found = app.screen.query("#seat")
            return [value for _label, value in found.first(Select)._options] if found else []

        assert await _until(pilot, lambda: seats() == [0, 1, 2], 100)
        await choose("#seat", 2)
        await choose("#deck", "german")
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert await _until(pilot, lambda: (screen.setup.seat, screen.setup.deck) == (
            2, "german"), 100)
        await pilot.click("#start")
        await pilot.pause(0.2)
        session = app.session
        assert session is not None and session.human == 2 and session.game.rules.players == 3
        assert app.style == "german" and app.lang == "fr"


async def test_every_preset_plays_a_hand_by_keys(tmp_path: Path) -> None:
    """Every preset can be played to the end of a hand with the keyboard at 80×24."""
    from rebelote.rules import PRESETS

    for preset in PRESETS:
        app = BeloteApp(Setup(preset=preset, bots="random", seed=4),
                        record=tmp_path / f"{preset}.json", speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await _play_until_hand_over(app, pilot, want_refusal=False, steps=3000)
            assert app.session is not None and app.session.hand_over, preset
            contract = str(app.query_one("#contract").render())
            assert contract.strip(), preset


def test_the_catalog_is_complete_in_three_languages() -> None:
    """Every text of the catalog (the terminal game's and the pad's) exists in French,
    English and Spanish, and each placeholder is the same in the three."""
    import string

    from rebelote.i18n import _TEXT, LANGS

    for key, entry in _TEXT.items():
        assert set(LANGS) <= set(entry), key
        fields = {lang: {f for _t, f, _s, _c in string.Formatter().parse(entry[lang]) if f}
                  for lang in LANGS}
        assert fields["fr"] == fields["en"] == fields["es"], key


async def test_each_key_of_the_catalog_has_one_text_and_each_preset_is_told_right() -> None:
    """The terminal's texts and the web's share no key (the terminal's preset
    descriptions were hidden by the web's names of the same keys: the setup read
    "coinche — coinche"); each preset's description names its target and says whether
    it has announcements, in the three languages."""
    from rebelote.i18n import _TERMINAL_TEXT, _TEXT, LANGS
    from rebelote.i18n_web import WEB_TEXT

    assert not set(_TERMINAL_TEXT) & set(WEB_TEXT)
    for key in _TEXT:  # French puts a space before a colon (the table's labels too)
        assert not re.search(r"[^\s\u00a0\u202f\"]:(\s|$)", _TEXT[key]["fr"]), key
    for preset in PRESETS:
        rules = Rules.preset_named(preset)
        for lang in LANGS:
            about = t(f"preset_about_{preset}", lang)
            assert re.search(rf"\b{rules.target}\b", about), (preset, lang, about)
            says = t("announcements", lang).lower() in about
            assert says == rules.announcements, (preset, lang, about)


async def test_a_label_and_its_card_never_wrap_apart(tmp_path: Path) -> None:
    """Item 11: in Spanish the taker's label and its suit stay on one line."""
    app = BeloteApp(Setup(preset="moroccan", lang="es", bots="random", seed=3),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        session = app.session
        assert session is not None
        for _ in range(300):
            await pilot.pause(0.02)
            if session.view().contract >= 0 or session.hand_over:
                break
            if session.waiting_for_human:
                await pilot.press("down", "enter")
        view = session.view()
        if view.contract < 0:
            return
        text = app.seat_text(view, view.taker)
        assert "toma\u00a0" in text.plain and text.no_wrap


async def test_bots_play_on_while_the_sheet_is_open(tmp_path: Path) -> None:
    """The table keeps updating under the score sheet (it drew on the top screen)."""
    app = BeloteApp(Setup(preset="ffb", seat=2, bots="random", seed=8),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        session = app.session
        assert session is not None
        await pilot.press("s")
        assert isinstance(app.screen, SheetScreen)
        before = len(session.hand.calls) + len(session.hand.played)
        for _ in range(50):
            await pilot.pause(0.02)
            if session.waiting_for_human or session.hand_over:
                break
        assert isinstance(app.screen, SheetScreen) and app.is_running
        after = len(session.hand.calls) + len(session.hand.played)
        assert after > before or session.waiting_for_human
        await pilot.press("escape")
        header = str(app.query_one("#header").render())
        assert header.startswith(" FFB · to 1000")  # the preset's name, not its id


def _grid_lines(app: BeloteApp) -> list[str]:
    """The auction table's lines as drawn in the trick box (blank lines left out)."""
    return [line.strip() for line in str(app.query_one("#trick").render()).split("\n")
            if line.strip()]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_auction_is_a_table_of_every_call_that_fits_its_box(
        tmp_path: Path, size: tuple[int, int]) -> None:
    """The trick box holds the auction as a bidding table: the seats in speaking order
    on top, a line per round, every call in its place and "…" where the human's goes.
    At 80x24 the box, shrunk by the list of calls opening under it, is drawn again for
    its new size (it drew the large box's layout: one call in its middle)."""
    app = BeloteApp(Setup(preset="coinche", bots="heuristic", seed=3),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=size) as pilot:
        session = app.session
        assert session is not None
        for _ in range(3):  # a few rounds, so that the table has several lines
            assert await _until(pilot, lambda: session.waiting_for_human)
            if session.view().phase != "auction" or len(session.view().calls) >= 6:
                break
            await pilot.press("enter")  # pass (first in the list)
        view = session.view()
        assert view.phase == "auction" and len(view.calls) >= 4, view.calls
        await pilot.pause(0.2)
        box = app.query_one("#trick")
        assert box.border_title == "Auction"
        lines = _grid_lines(app)
        raw = str(box.render()).rstrip("\n").split("\n")
        assert len(raw) <= box.content_size.height, (raw, box.content_size)
        names = [app.seat_name((view.first_hand + i) % 4) for i in range(4)]
        assert lines[0].split() == " ".join(names).split()
        cells = [app.call_label(a, short=True) for a in view.calls] + ["…"]
        rows = [cells[i:i + 4] for i in range(0, len(cells), 4)]
        for line, row in zip(lines[1:], rows[-(len(lines) - 1):], strict=True):
            assert line.split() == " ".join(row).split(), (line, row)
        assert lines[-1].endswith("…")


async def test_classic_round_two_is_said_and_shows_its_own_calls(tmp_path: Path) -> None:
    """Classic's second round is said in the box's title and the prompt (which names the
    suit that may no longer be taken); the seats show round 2's calls only."""
    for seed in range(1, 40):
        app = BeloteApp(Setup(preset="classic", bots="random", seed=seed),
                        record=tmp_path / f"g{seed}.json", speed=0)
        async with app.run_test(size=(80, 24)) as pilot:
            session = app.session
            assert session is not None
            ready = (lambda s: lambda: s.waiting_for_human or s.hand_over)(session)
            while await _until(pilot, ready):
                view = session.view()
                if view.phase != "auction" or len(view.calls) >= 4:
                    break
                await pilot.press("enter")  # pass
            view = session.view()
            if view.phase != "auction" or not session.waiting_for_human:
                continue
            await pilot.pause(0.1)
            assert app.query_one("#trick").border_title == "Auction · round 2"
            suit = "♠♥♦♣"[view.retourne >> 3]
            message = str(app.query_one("#message").render())
            assert message.startswith(f"Round 2: name a trump other than {suit}"), message
            spoken = {(view.first_hand + i) % 4 for i in range(4, len(view.calls))}
            for seat in range(4):
                shown = "«" in app.seat_text(view, seat).plain
                assert shown == (seat in spoken), (seat, view.calls)
            return
    raise AssertionError("no deal where the human speaks in round 2")


@pytest.mark.parametrize(("preset", "word", "line"), [
    ("coinche", "coinche", "coinched ×2"), ("acorralada", "contra", "contra ×2")])
async def test_who_coinched_is_shown_at_the_seat_during_the_play(
        tmp_path: Path, preset: str, word: str, line: str) -> None:
    """The coinche stays written at the seat that said it once the play starts (only
    the contract line said "coinched", not by whom); the acorralada's is its contra, in
    the list of calls, at the seat and on the contract line (as the web says it)."""
    for seed in range(3, 40):
        if await _coinched_at_the_seat(tmp_path / f"{seed}.json", preset, seed, word, line):
            return
    raise AssertionError("no deal where the human could coinche")


async def _coinched_at_the_seat(record: Path, preset: str, seed: int, word: str,
                                line: str) -> bool:
    app = BeloteApp(Setup(preset=preset, bots="heuristic", seed=seed), record=record,
                    speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        session = app.session
        assert session is not None
        while await _until(pilot, lambda: session.waiting_for_human):
            view = session.view()
            if view.phase != "auction":
                break
            if COINCHE in view.legal_actions:
                labels = [str(o.prompt) for o in app.query_one("#calls", OptionList).options]
                assert word in labels, labels
            session.play_human(COINCHE if COINCHE in view.legal_actions else PASS)
            app.refresh_table()
            app.schedule_bots()
        view = session.view()
        if view.phase != "play" or COINCHE not in view.calls:
            return False
        me = session.human
        assert word in app.seat_text(view, me).plain
        others = [s for s in range(4) if s != me]
        assert not any(word in app.seat_text(view, s).plain for s in others
                       if SURCOINCHE not in view.calls)
        assert line in str(app.query_one("#contract").render())
        return True


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
async def test_question_mark_opens_the_keys_and_escape_closes_them(
        tmp_path: Path, lang: str) -> None:
    """A help screen (there was none): ``?`` and F1 list every key of the table with what
    it does, in the player's language; Esc goes back to the table."""
    from rebelote.tui.app import HELP_KEYS, HelpScreen

    app = BeloteApp(Setup(preset="coinche", bots="heuristic", seed=3, lang=lang),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for key in ("question_mark", "f1"):
            await pilot.press(key)
            await pilot.pause(0.1)
            assert isinstance(app.screen, HelpScreen), key
            grid = app.screen.query_one("#help-keys", Static).content
            assert isinstance(grid, RichTable)
            rows = list(zip(*(c.cells for c in grid.columns), strict=True))
            assert rows == [(keys, t(what, lang)) for keys, what in HELP_KEYS]
            await pilot.press("escape")
            await pilot.pause(0.1)
            assert not isinstance(app.screen, HelpScreen)
        footer = " ".join(str(w.render()) for w in app.query("FooterKey"))
        assert t("key_help", lang) in footer


async def test_an_unreadable_saved_game_is_not_offered_and_is_kept(tmp_path: Path) -> None:
    """Item 4: a saved game that cannot be read is said so on the setup screen (no
    crash, no resume button); a new game keeps it as the backup."""
    from rebelote.tui.session import backup_path

    record = tmp_path / "current.json"
    record.write_text('{"rules": {"preset": "classic"}, "hands": "many"}')
    app = BeloteApp(Setup(), record=record, ask_setup=True, speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert not app.screen.query("#resume")
        notes = " ".join(str(w.render()) for w in app.screen.query(".note"))
        assert "cannot be read" in notes
        await pilot.click("#start")
        await pilot.pause(0.1)
        assert app.session is not None
    assert "many" in backup_path(record).read_text()


async def test_setup_offers_the_expert_s_thinking_times(tmp_path: Path,
                                                      monkeypatch: object) -> None:
    """Issue 20: the terminal game exposes the expert's time budget (expert:MS)."""
    import pytest
    from textual.widgets import Select

    from rebelote.bots.expert import ExpertBot

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = BeloteApp(Setup(lang="fr"), record=tmp_path / "g.json", ask_setup=True, speed=0)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause(0.1)
        levels = app.screen.query_one("#bots", Select)
        labels = {value: str(label) for label, value in levels._options}
        assert labels["expert:500"] == "expert, 0,5 s par carte", labels
        levels.value = "expert:500"
        await pilot.click("#start")
        assert await _until(pilot, lambda: app.session is not None, 100)
        assert app.session is not None
        bots = [b for b in app.session.bots if b is not None]
        assert bots and all(isinstance(b, ExpertBot) and b.budget_ms == 500 for b in bots)
        from rebelote.tui.session import BOT_THREADS

        assert all(isinstance(b, ExpertBot) and b.solver.threads == BOT_THREADS for b in bots)
    from rebelote.tui.app import load_setup

    assert load_setup().bots == "expert:500"
    with pytest.raises(ValueError, match="bot level"):
        Setup(bots="expert:0").check()
    Setup(bots="expert:1500").check()  # the command line may ask for more: no error


async def test_the_game_end_says_who_won_in_each_language(tmp_path: Path) -> None:
    """A game played to its end says "We win" / "They win" ("Us win the game", "Nous
    gagnent la partie" before), in the player's language."""
    for lang, we, they in (("en", "We win the game", "They win the game"),
                           ("fr", "Nous gagnons la partie", "Ils gagnent la partie"),
                           ("es", "Ganamos la partida", "Ellos ganan la partida")):
        app = BeloteApp(Setup(preset="ffb", target=500, bots="random", seed=3, lang=lang),
                        record=tmp_path / f"g-{lang}.json", speed=0)
        async with app.run_test(size=(100, 30)) as pilot:
            session = app.session
            assert session is not None
            for _ in range(3000):
                if session.game.is_over:
                    break
                if session.hand_over:
                    session.next_hand()
                elif session.waiting_for_human:
                    session.play_human(session.view().legal_actions[0])
                else:
                    session.step_bot()
            assert session.game.is_over
            text = app.status_text(session.view())
            me = session.team
            assert (we if session.game.winner == me else they) in text, text
            totals = session.game.totals
            assert f"({totals[me]} - {totals[1 - me]})" in text, text
            if lang == "en":  # n: a new game with the same options (it was a dead end)
                assert "n: new game" in text
                await pilot.press("n")
                await pilot.pause(0.05)
                again = app.session
                assert again is not None and again is not session
                assert not again.game.is_over and len(again.game.hands) == 1
                assert again.game.rules == session.game.rules
                assert (tmp_path / "g-en.backup.json").exists()  # the finished game kept


async def test_a_seats_tags_read_right_for_the_player_too(tmp_path: Path) -> None:
    """The dealer's and the taker's tags are nouns, as in French ("You dealer", "★ taker
    ♠"): "You deals" and "You ★ takes ♠" were said at the player's own seat."""
    app = BeloteApp(Setup(preset="classic", bots="random", seed=5), record=tmp_path / "g.json",
                    speed=0)
    async with app.run_test(size=(100, 30)):
        session = app.session
        assert session is not None
        for _ in range(200):  # up to the play, the contract taken
            view = session.view()
            if view.phase == "play" or session.hand_over:
                break
            if session.waiting_for_human:
                session.play_human(view.legal_actions[-1])  # a take where offered
            else:
                session.step_bot()
        view = session.view()
        dealer = app.seat_text(view, view.dealer).plain
        assert "dealer" in dealer and "deals" not in dealer, dealer
        if view.taker >= 0 and view.contract >= 0:
            taker = app.seat_text(view, view.taker).plain
            assert "★\u00a0taker\u00a0" in taker and "takes" not in taker, taker


async def test_an_auction_hands_summary_says_how_its_score_was_made(tmp_path: Path) -> None:
    """A coinche hand's summary writes the scores the rows do not add up to ("Total 250 →
    Scored 360" before): the bid, the chute, a ×2, as the rules computed them, each line
    adding up to what its side scored."""
    import re

    for seed in range(1, 30):
        app = BeloteApp(Setup(preset="coinche", bots="random", seed=seed),
                        record=tmp_path / f"c{seed}.json", speed=0)
        async with app.run_test(size=(100, 30)):
            session = app.session
            assert session is not None
            for _ in range(300):
                if session.hand_over:
                    break
                view = session.view()
                if session.waiting_for_human:  # a bid where offered, else pass
                    session.play_human(view.legal_actions[1 if view.phase == "auction"
                                                          and len(view.legal_actions) > 1
                                                          else 0])
                else:
                    session.step_bot()
            if session.hand.is_void:
                continue
            text = app.summary_text().plain
            lines = [x for x in text.splitlines() if " = " in x]
            assert lines, text
            scored = session.game.scores[-1].scored
            for line in lines:
                side, formula = line.split(": ", 1)
                assert re.search(r"(bid|penalty) \d+", formula), line
                expression = re.sub(r"[a-z ]+ (\d+)", r"\1", formula.split(" =")[0])
                value = int(formula.split("= ")[1].split(" ")[0])
                assert eval(expression.replace("×", "*")) == value, line  # adds up
                mine = scored[session.team if side == "Us" else 1 - session.team]
                assert formula.endswith(f"= {mine}") or formula.endswith(f"→ {mine}"), line
            return
    raise AssertionError("no coinche hand was played out in 29 seeds")


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
async def test_a_hands_summary_fits_an_80x24_terminal(tmp_path: Path, lang: str) -> None:
    """At 80x24 the hand's summary is drawn whole: its table took 9 columns a side
    beside the two seats' columns and wrapped ('Ellos' under 'Nosotros', the values a
    line below their row). Now the seats beside it step aside while it shows, its columns
    are as wide as their entries, and no line is wider than the box."""
    app = BeloteApp(Setup(preset="coinche", bots="heuristic", seed=5, lang=lang),
                    record=tmp_path / "g.json", speed=0)
    async with app.run_test(size=(80, 24)) as pilot:
        session = app.session
        assert session is not None
        for _ in range(3000):
            if session.hand_over:
                break
            view = session.view()
            if session.waiting_for_human:
                session.play_human(view.legal_actions[1 if view.phase == "auction"
                                                      and len(view.legal_actions) > 1 else 0])
            else:
                session.step_bot()
        assert session.hand_over and not session.hand.is_void
        app.paused_trick = None
        app.refresh_table()
        await pilot.pause(0.3)
        assert not app.query_one("#west").display and not app.query_one("#east").display
        box = app.query_one("#trick")
        lines = str(box.render()).split("\n")
        assert max(len(line) for line in lines) <= box.content_size.width, lines
        assert len(lines) <= box.content_size.height, lines
        heads = [t("us", lang), t("them", lang)]
        header = next(line for line in lines if heads[0] in line)
        assert header.split() == heads  # both sides on one line
        scored = next(line for line in lines if line.strip().startswith(t("scored", lang)))
        numbers = re.findall(r"\d+", scored)
        assert [int(x) for x in numbers] == [session.game.scores[-1].scored[s] for s in
                                             (session.team, 1 - session.team)], scored
        session.next_hand()
        app.refresh_table()
        await pilot.pause(0.2)
        assert app.query_one("#west").display  # the seats come back for the next hand


def test_each_call_is_placed_at_the_seat_that_said_it_in_every_auction() -> None:
    """The acorralada's bidder raises out of turn and only the bidder's opponents may
    say contra, so a call's seat is not "first hand plus its index" there (the seats
    showed the contra at the wrong player); the auction table and the seats read each
    call's seat from the replayed auction."""
    import random

    from rebelote.bots import make_bot
    from rebelote.hand import HandState

    out_of_turn = 0
    for preset in ("coinche", "acorralada", "classic"):
        rules = Rules.preset_named(preset)
        bot = make_bot("heuristic", 1)
        for seed in range(40):
            hand = HandState.new(rules, seed % 4, random.Random(seed))
            seats = []
            while hand.phase == 0:
                seats.append(hand.turn)
                hand.apply(bot.choose(hand.view(hand.turn)))
            view = hand.view(0)
            assert BeloteApp.call_seats(view) == seats, (preset, seed)
            out_of_turn += seats != [(view.first_hand + i) % 4 for i in range(len(seats))]
    assert out_of_turn > 0  # the acorralada's raises were met
