"""``rebelote play``: the table in the terminal (Textual).

It renders the human seat's view from a :class:`~rebelote.tui.session.TableSession` and
sends the human's actions to it; bots play at a readable pace (adjustable), each trick
stays on the table a moment, the record is saved after every action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from rebelote.cards import Card, cards_of, mode_name
from rebelote.decks import announcement_label, short_label
from rebelote.errors import IllegalAction
from rebelote.hand import BID_BASE, action_name, bid_of
from rebelote.paths import config_dir, data_dir
from rebelote.rules import PRESETS
from rebelote.tui.session import Setup, TableSession
from rebelote.tui.texts import rule_reason, t
from rebelote.view import SeatView

SUIT_ORDER = (0, 1, 3, 2)  # spades, hearts, clubs, diamonds: colours alternate
SPEEDS = (0.01, 0.25, 0.6, 1.0, 1.6)  # seconds between bot actions (x2.5 for a full trick)


def config_path() -> Path:
    return config_dir() / "play.json"


def default_record_path() -> Path:
    return data_dir() / "current-game.json"


def load_setup() -> Setup:
    """The options chosen last time (or the defaults)."""
    try:
        data = json.loads(config_path().read_text(encoding="utf-8"))
        return Setup(**{k: v for k, v in data.items() if k in Setup.__dataclass_fields__})
    except (OSError, ValueError, TypeError):
        return Setup()


def save_setup(setup: Setup) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {k: getattr(setup, k) for k in Setup.__dataclass_fields__ if k != "seed"}
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def sorted_hand(cards: int, trump: int) -> list[Card]:
    """Cards by suit (alternating colours, trumps first), strongest first in each suit."""
    from rebelote.cards import WIN_VALUE

    mode = trump if trump >= 0 else 4
    order = sorted(SUIT_ORDER, key=lambda s: (s != trump, SUIT_ORDER.index(s)))
    return sorted(cards_of(cards), key=lambda c: (order.index(c >> 3), -WIN_VALUE[mode][c]))


def card_text(card: Card, style: str, legal: bool = True) -> Text:
    red = (card >> 3) in (1, 2)
    colour = "red" if red else ""
    return Text(short_label(card, style), style=f"bold {colour}" if legal else f"dim {colour}")


class CardWidget(Static):
    """One card of the human's hand; a click plays it."""

    def __init__(self, card: Card, index: int, legal: bool, style: str) -> None:
        super().__init__(card_text(card, style, legal), classes="card legal" if legal else "card")
        self.card = card
        self.index = index

    def on_click(self) -> None:
        app = self.app
        assert isinstance(app, BeloteApp)
        app.try_play(self.card)


class SheetScreen(ModalScreen[None]):
    """The score sheet: every hand, running totals, the litige reserve."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,s,q", "dismiss", "close")]

    def __init__(self, session: TableSession, lang: str) -> None:
        super().__init__()
        self.session = session
        self.lang = lang

    def compose(self) -> ComposeResult:
        table: DataTable[str] = DataTable(id="sheet")
        yield Vertical(Label(t("sheet", self.lang)), table, id="sheet-box")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        game = self.session.game
        sides = [t("us", self.lang), t("them", self.lang)] if game.sides == 2 else [
            game.players[s] for s in range(game.sides)]
        table.add_columns("#", t("contract", self.lang), t("outcome", self.lang),
                          *sides, t("reserve", self.lang))
        totals = [0] * game.sides
        for i, (hand, score) in enumerate(zip(game.hands, game.scores, strict=False), 1):
            for side, pts in enumerate(score.scored):
                totals[side] += pts
            contract = "—" if hand.is_void else (
                f"{game.players[hand.taker]} {mode_name(hand.mode)}")
            table.add_row(str(i), contract, t(score.outcome, self.lang),
                          *[f"{p} ({tot})" for p, tot in zip(score.scored, totals,
                                                              strict=True)],
                          str(score.reserve) if score.reserve else "")


class SetupScreen(Screen[Setup]):
    """The options of a new game, remembered for next time."""

    def __init__(self, setup: Setup) -> None:
        super().__init__()
        self.setup = setup

    def compose(self) -> ComposeResult:
        s = self.setup
        lang = s.lang
        yield Vertical(
            Label(t("setup_title", lang), id="setup-title"),
            Horizontal(Label(t("rules", lang)), Select([(p, p) for p in PRESETS],
                                                       value=s.preset, id="preset")),
            Horizontal(Label(t("target", lang)), Select(
                [(t("preset_target", lang), 0)] + [(str(x), x) for x in
                                                   (500, 501, 700, 701, 1000, 1500, 2000)],
                value=s.target, id="target")),
            Horizontal(Label(t("announcements", lang)), Select(
                [(t("preset_choice", lang), "preset"), (t("on", lang), "on"),
                 (t("off", lang), "off")],
                value="preset" if s.announcements is None else (
                    "on" if s.announcements else "off"), id="announcements")),
            Horizontal(Label(t("direction", lang)), Select(
                [(t("counterclockwise", lang), "counterclockwise"),
                 (t("clockwise", lang), "clockwise")],
                value=s.direction or "counterclockwise", id="direction")),
            Horizontal(Label(t("bot_level", lang)), Select(
                [(x, x) for x in ("random", "heuristic", "expert")], value=s.bots, id="bots")),
            Button(t("start", lang), id="start", variant="primary"),
            id="setup-box")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        def value(widget_id: str) -> Any:
            return self.query_one(f"#{widget_id}", Select).value

        ann = value("announcements")
        setup = Setup(preset=str(value("preset")), target=int(value("target")),
                      bots=str(value("bots")), seat=self.setup.seat, lang=self.setup.lang,
                      deck=self.setup.deck, seed=self.setup.seed,
                      announcements=None if ann == "preset" else ann == "on",
                      direction=str(value("direction")))
        self.dismiss(setup)


class BeloteApp(App[None]):
    """The table."""

    CSS = """
    Screen { layout: vertical; }
    #header { height: 1; background: $primary 30%; }
    #north, #south-label { height: 1; content-align: center middle; width: 100%; }
    #middle { height: 7; }
    #west, #east { width: 18; content-align: center middle; height: 100%; }
    #trick { width: 1fr; height: 100%; content-align: center middle; border: round $accent; }
    #hand { height: 3; align: center middle; }
    .card { width: 5; height: 1; margin: 0 1 0 0; content-align: center middle; }
    .card.legal { background: $success 25%; }
    .card.selected { background: $accent 60%; }
    #calls { height: 5; display: none; }
    #calls.active { display: block; }
    #message { height: 2; color: $warning; }
    #setup-box, #sheet-box { padding: 0 1; width: 76; height: auto; max-height: 100%;
                             border: round $accent; }
    #setup-title { height: 1; text-style: bold; }
    #setup-box Horizontal { height: 3; }
    #setup-box Label { width: 18; padding: 1 0; }
    #setup-box Select { width: 40; }
    SheetScreen, SetupScreen { align: center middle; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "←", show=False),
        Binding("right", "move(1)", "→", show=False),
        Binding("enter", "confirm", "play / call"),
        Binding("h", "hint", "hint"),
        Binding("l", "last_trick", "last trick"),
        Binding("s", "sheet", "score sheet"),
        Binding("plus,equals_sign", "speed(-1)", "faster"),
        Binding("minus", "speed(1)", "slower"),
        Binding("n", "next_hand", "next hand", show=False),
        Binding("q", "quit_game", "quit"),
    ]

    def __init__(self, setup: Setup | None = None, record: Path | None = None,
                 resume: bool = False, speed: int = 2, ask_setup: bool = False) -> None:
        super().__init__()
        self.setup_options = setup or load_setup()
        self.record_path = record or default_record_path()
        self.resume_game = resume
        self.ask_setup = ask_setup
        self.speed = speed
        self.session: TableSession | None = None
        self.selected = 0
        self.message = ""
        self.show_last_trick = False
        self.paused_trick: tuple[int, tuple[Card, ...]] | None = None
        self._timer_pending = False

    @property
    def lang(self) -> str:
        return self.setup_options.lang

    @property
    def style(self) -> str:
        return self.setup_options.deck

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="north")
        yield Horizontal(Static(id="west"), Static(id="trick"), Static(id="east"), id="middle")
        yield Static(id="south-label")
        yield Horizontal(id="hand")
        yield OptionList(id="calls")
        yield Static(id="message")
        yield Footer()

    async def on_mount(self) -> None:
        lang = self.lang
        for keys, action, key in (("enter", "confirm", "key_confirm"), ("h", "hint", "key_hint"),
                                  ("l", "last_trick", "key_last"), ("s", "sheet", "key_sheet"),
                                  ("plus,equals_sign", "speed(-1)", "key_faster"),
                                  ("minus", "speed(1)", "key_slower"), ("q", "quit_game",
                                                                        "key_quit")):
            self.bind(keys, action, description=t(key, lang))
        if self.resume_game:
            self.start_session(None)
        elif self.ask_setup:
            self.push_screen(SetupScreen(self.setup_options), self.start_session)
        else:
            self.start_session(self.setup_options)

    def start_session(self, setup: Setup | None) -> None:
        if setup is None:
            self.session = TableSession.resume(self.record_path, self.setup_options.seat,
                                               self.setup_options.bots)
        else:
            self.setup_options = setup
            save_setup(setup)
            self.session = TableSession.new(setup, self.record_path)
        self.refresh_table()
        self.schedule_bots()

    # -- rendering --------------------------------------------------------------------

    def seat_name(self, seat: int) -> str:
        assert self.session is not None
        return self.session.game.players[seat]

    def refresh_table(self) -> None:
        session = self.session
        if session is None:
            return
        view = session.view()
        lang = self.lang
        game = session.game
        totals = " · ".join(
            f"{t('us', lang) if i == 0 else t('them', lang)} {x}" if game.sides == 2
            else f"{game.players[i]} {x}" for i, x in enumerate(game.totals))
        contract = ""
        if view.contract >= 0:
            contract = f" · {t('taker', lang)} {self.seat_name(view.taker)} " \
                       f"{self.mode_label(view.contract)}"
            if view.rules.game == "auction":
                hand = session.hand
                contract += f" {hand.contract_value()}" + {1: "", 2: " ×2", 4: " ×4"}[
                    hand.double]
        reserve = f" · {t('reserve', lang)} {view.reserve}" if view.reserve else ""
        target = view.rules.target or f"{view.rules.hands_limit}h"
        self.query_one("#header", Static).update(
            f"{view.rules.preset} → {target} · {totals}{reserve}{contract}")
        n = view.rules.players
        positions = self.positions(n)
        for where, seat in positions.items():
            if where == "south":
                continue
            self.query_one(f"#{where}", Static).update(self.seat_text(view, seat))
        for where in ("north", "west", "east"):
            if where not in positions:
                self.query_one(f"#{where}", Static).update("")
        self.query_one("#south-label", Static).update(self.seat_text(view, session.human))
        self.query_one("#trick", Static).update(self.trick_text(view, positions))
        self.render_hand(view)
        self.render_calls(view)
        status = self.message
        if game.is_over:
            winner = game.winner
            who = (t("us", lang) if winner == session.human % 2 else t("them", lang)) \
                if game.sides == 2 else game.players[winner or 0]
            status = t("game_winner", lang, team=who, score=" - ".join(map(str, game.totals)))
        elif session.hand_over:
            score = game.scores[-1]
            capot = " · capot" if session.hand.capot_team() is not None else ""
            status = (f"{t(score.outcome, lang)}{capot}: " + " - ".join(map(str, score.scored))
                      + f" · {t('next_hand', lang)}")
        elif session.waiting_for_human and not status:
            status = t("your_turn_call" if view.phase == "auction" else "your_turn_play", lang)
        self.query_one("#message", Static).update(status)

    def mode_label(self, mode: int) -> str:
        if mode >= 4:
            return mode_name(mode)
        from rebelote.decks import suit_label

        return suit_label(mode, "international" if self.style == "french" else self.style) \
            if self.style == "spanish" else "♠♥♦♣"[mode]

    def positions(self, n: int) -> dict[str, int]:
        assert self.session is not None
        me = self.session.human
        if n == 4:
            return {"south": me, "west": (me + 1) % 4, "north": (me + 2) % 4,
                    "east": (me + 3) % 4}
        if n == 3:
            return {"south": me, "west": (me + 1) % 3, "east": (me + 2) % 3}
        return {"south": me, "north": (me + 1) % 2}

    def seat_text(self, view: SeatView, seat: int) -> Text:
        lang = self.lang
        text = Text(self.seat_name(seat), style="bold")
        if seat == view.dealer:
            text.append(f" ({t('dealer', lang)})")
        if seat == view.taker:
            text.append(f" ★{self.mode_label(view.contract)}", style="bold yellow")
        if view.turn == seat:
            text.append(" ◀", style="bold")
        calls = [a for i, a in enumerate(view.calls)
                 if (view.first_hand + i) % view.rules.players == seat]
        if view.phase == "auction" and calls:
            text.append(f" · {self.call_label(calls[-1])}")
        for ann in view.announcements:
            if ann.seat == seat:
                text.append(f" · {announcement_label(ann.kind, self.style)}", style="cyan")
        for s, word, _card in view.belote_said:
            if s == seat:
                text.append(f" · {word}", style="magenta")
        if view.rules.players == 2 and view.table and seat != self.session_human():
            up = " ".join(short_label(c, self.style) for c in cards_of(view.table[seat]))
            text.append(f"\n{t('table', lang)}: {up}")
        return text

    def session_human(self) -> int:
        assert self.session is not None
        return self.session.human

    def trick_text(self, view: SeatView, positions: dict[str, int]) -> Text:
        lang = self.lang
        if self.show_last_trick and view.tricks:
            trick = view.tricks[-1]
            cards = {trick.seat_of(i, view.rules.players): c for i, c in enumerate(trick.cards)}
            title = t("last_trick", lang)
        elif self.paused_trick is not None:
            leader, shown = self.paused_trick
            cards = {(leader + i) % view.rules.players: c for i, c in enumerate(shown)}
            title = ""
        elif view.trick is not None:
            cards = {view.trick.seat_of(i, view.rules.players): c
                     for i, c in enumerate(view.trick.cards)}
            title = ""
        else:
            cards = {}
            title = ""
            if view.phase == "auction" and view.retourne >= 0:
                text = Text(f"{t('retourne', lang)}: ")
                text.append_text(card_text(view.retourne, self.style))
                return text
        text = Text(title + "\n" if title else "")
        for where in ("north", "west", "east", "south"):
            if where in positions and positions[where] in cards:
                text.append(f"{t(where, lang)}: ")
                text.append_text(card_text(cards[positions[where]], self.style))
                text.append("   ")
        return text

    def render_hand(self, view: SeatView) -> None:
        box = self.query_one("#hand", Horizontal)
        box.remove_children()
        legal = set(view.legal_actions) if view.phase == "play" else set()
        cards = sorted_hand(view.hand, view.contract if view.contract < 4 else -1)
        self.hand_cards = cards
        if self.selected >= len(cards):
            self.selected = max(0, len(cards) - 1)
        widgets = []
        for i, c in enumerate(cards):
            w = CardWidget(c, i, c in legal, self.style)
            if i == self.selected and view.phase == "play":
                w.add_class("selected")
            widgets.append(w)
        box.mount(*widgets)

    def call_label(self, action: int) -> str:
        if action >= BID_BASE:
            level, mode = bid_of(action)
            value = "capot" if level == 9 else str(80 + 10 * level)
            return f"{value} {self.mode_label(mode)}"
        name = action_name(action)
        if name in ("S", "H", "D", "C", "SA", "TA"):
            from rebelote.cards import parse_mode

            return self.mode_label(parse_mode(name))
        return t(name, self.lang)

    def render_calls(self, view: SeatView) -> None:
        calls = self.query_one("#calls", OptionList)
        active = bool(self.session and self.session.waiting_for_human
                      and view.phase == "auction")
        calls.set_class(active, "active")
        calls.clear_options()
        if active:
            calls.add_options([Option(self.call_label(a), id=str(a))
                               for a in view.legal_actions])
            calls.highlighted = 0
            calls.focus()

    # -- the game's pace --------------------------------------------------------------

    def schedule_bots(self) -> None:
        if self._timer_pending or self.session is None:
            return
        self._timer_pending = True
        self.set_timer(SPEEDS[self.speed], self.bot_tick)

    def bot_tick(self) -> None:
        self._timer_pending = False
        session = self.session
        if session is None:
            return
        if self.paused_trick is not None:
            self.paused_trick = None
            self.refresh_table()
        if session.game.is_over or session.hand_over or session.waiting_for_human:
            self.refresh_table()
            return
        before = len(session.hand.trick_winners)
        session.step_bot()
        self.after_action(before)
        if not session.waiting_for_human:
            self.schedule_bots()

    def after_action(self, tricks_before: int) -> None:
        session = self.session
        assert session is not None
        hand = session.hand
        if len(hand.trick_winners) > tricks_before and not hand.is_over:
            # A trick was just completed: leave it on the table a moment.
            n = hand.n
            self.paused_trick = (hand.trick_leaders[-1], tuple(hand.played[-n:]))
            self.refresh_table()
            self._timer_pending = True
            self.set_timer(SPEEDS[self.speed] * 2.5, self.bot_tick)
            return
        self.refresh_table()

    # -- the human's actions ----------------------------------------------------------

    def try_play(self, action: int) -> None:
        session = self.session
        if session is None or not session.waiting_for_human:
            return
        before = len(session.hand.trick_winners)
        try:
            session.play_human(action)
        except IllegalAction as exc:
            self.message = "✗ " + rule_reason(exc, self.lang)
            self.refresh_table()
            return
        self.message = ""
        self.show_last_trick = False
        self.after_action(before)
        if not session.waiting_for_human:
            self.schedule_bots()

    def key_to_index(self, key: str) -> None:
        if not key.isdigit():
            return
        i = int(key) - 1
        cards = getattr(self, "hand_cards", [])
        if 0 <= i < len(cards):
            self.selected = i
            self.try_play(cards[i])

    def on_key(self, event: Any) -> None:
        if event.key in "12345678" and len(event.key) == 1:
            self.key_to_index(event.key)
            event.stop()

    def action_move(self, step: int) -> None:
        cards = getattr(self, "hand_cards", [])
        if cards:
            self.selected = (self.selected + step) % len(cards)
            if self.session:
                self.render_hand(self.session.view())

    def action_confirm(self) -> None:
        session = self.session
        if session is None:
            return
        view = session.view()
        if view.phase == "auction":
            calls = self.query_one("#calls", OptionList)
            if calls.highlighted is not None:
                option = calls.get_option_at_index(calls.highlighted)
                self.try_play(int(option.id or "0"))
        elif getattr(self, "hand_cards", []):
            self.try_play(self.hand_cards[self.selected])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.try_play(int(event.option.id or "0"))

    def action_hint(self) -> None:
        session = self.session
        if session is None or not session.waiting_for_human:
            return
        from rebelote.analysis import AnalysisError, hint

        try:
            _seat, hints = hint(session.game, samples=24)
        except AnalysisError:
            self.message = t("no_hint", self.lang)
            self.refresh_table()
            return
        shown = " · ".join(f"{h.action} {h.value:.0f}" for h in hints[:6])
        self.message = f"{t('hint', self.lang)} ({t(h_measure(hints), self.lang)}): {shown}"
        self.refresh_table()

    def action_last_trick(self) -> None:
        self.show_last_trick = not self.show_last_trick
        self.refresh_table()

    def action_sheet(self) -> None:
        if self.session is not None:
            self.push_screen(SheetScreen(self.session, self.lang))

    def action_speed(self, step: int) -> None:
        self.speed = min(max(self.speed + step, 0), len(SPEEDS) - 1)
        self.message = t("speed", self.lang, n=len(SPEEDS) - self.speed)
        self.refresh_table()

    def action_next_hand(self) -> None:
        session = self.session
        if session is None or not session.hand_over or session.game.is_over:
            return
        session.next_hand()
        self.message = ""
        self.refresh_table()
        self.schedule_bots()

    def action_quit_game(self) -> None:
        if self.session is not None:
            self.session.save()
        self.exit()


_MEASURES = {"expected points": "expected_points", "expected score": "expected_score",
             "% made": "chance_made"}


def h_measure(hints: list[Any]) -> str:
    """The translation key of the hints' measure (see :class:`rebelote.analysis.Hint`)."""
    return _MEASURES.get(hints[0].measure, "strength") if hints else "strength"
