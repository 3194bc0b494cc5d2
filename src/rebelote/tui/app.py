"""``rebelote play``: the table in the terminal (Textual).

It renders the human seat's view from a :class:`~rebelote.tui.session.TableSession` and
sends the human's actions to it. The table is drawn as a table: the seats around it, each
trick's cards at their players' places with the leader and the winner marked, the
contract always shown, each hand's score broken down. Bots choose off the event loop at a
readable pace (adjustable); each trick stays on the table a moment; the record is saved
after every action.
"""

from __future__ import annotations

import asyncio
import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Footer, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from rebelote.actions import (
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    SURCOINCHE,
    action_name,
    bid_of,
    bid_value,
    is_bid,
    parse_action,
)
from rebelote.bots import OFFERED_LEVELS
from rebelote.cards import ALL_TRUMP, NO_TRUMP, Card, held_order, parse_contract
from rebelote.decks import STYLES, announcement_label, short_label, suit_label
from rebelote.errors import IllegalAction
from rebelote.hand import HandState, call_seats
from rebelote.i18n import LANGS, colon, level_label, preset_name
from rebelote.paths import config_dir, data_dir
from rebelote.record import RecordError, replay_file
from rebelote.rules import PRESETS, Rules
from rebelote.scoring import HandScore, Term
from rebelote.tricks import team_of
from rebelote.tui.session import (
    DIRECTIONS,
    TARGETS,
    Setup,
    TableSession,
    backup_path,
    default_deck,
    human_seat,
)
from rebelote.tui.texts import rule_reason, t
from rebelote.view import SeatView, Trick

SPEEDS = (0.01, 0.25, 0.6, 1.0, 1.6)  # seconds between bot actions (x2.5 for a full trick)
CARD_KEYS = "1234567890abc"
"""The key of each card of the human's hand, in the order shown (découverte: 11 cards)."""
NBSP = "\u00a0"


def config_path() -> Path:
    return config_dir() / "play.json"


def default_record_path() -> Path:
    return data_dir() / "current-game.json"


def load_setup() -> Setup:
    """The options chosen last time; an option that is missing or not valid any more
    (an edited or old file) falls back on its default, the others are kept."""
    try:
        data = json.loads(config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Setup()
    if not isinstance(data, dict):
        return Setup()
    setup = Setup()
    for name in Setup.__dataclass_fields__:
        if name in data and name != "seed":
            candidate = _replace(setup, **{name: data[name]})
            try:
                candidate.check()
            except ValueError:
                continue
            setup = candidate
    return setup


def _replace(setup: Setup, **changes: Any) -> Setup:
    from dataclasses import replace

    return replace(setup, **changes)


def save_setup(setup: Setup) -> None:
    """Remember the options (only valid ones are ever written)."""
    setup.check()
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {k: getattr(setup, k) for k in Setup.__dataclass_fields__ if k != "seed"}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(path)


def saved_game_summary(path: Path, lang: str) -> tuple[str | None, str | None]:
    """(a line describing the unfinished game saved at ``path``, or None; why it cannot
    be read, or None)."""
    if not path.exists():
        return None, None
    try:
        game = replay_file(path)[-1].game
    except (RecordError, OSError, ValueError) as exc:
        return None, str(exc)
    if game.is_over:
        return None, None
    team = team_of(human_seat(game, 0), game.rules.players)
    if game.sides == 2:
        score = f"{t('us', lang)} {game.totals[team]} · {t('them', lang)} {game.totals[1 - team]}"
    else:
        score = " · ".join(f"{name} {x}" for name, x in zip(game.players, game.totals,
                                                               strict=False))
    return t("saved_game", lang, preset=preset_name(game.rules.preset, lang), hand=len(game.hands),
             score=score), None


def card_text(card: Card, style: str, legal: bool = True) -> Text:
    red = (card >> 3) in (1, 2)
    colour = "red" if red else ""
    return Text(short_label(card, style), style=f"bold {colour}" if legal else f"dim {colour}",
                no_wrap=True)


class CardWidget(Static):
    """One card of the human's hand (or, in découverte, of its face-up table cards); its
    key in the top border; a click plays it."""

    def __init__(self, card: Card, index: int, legal: bool, style: str, up: bool) -> None:
        classes = "card" + (" legal" if legal else "") + (" up" if up else "")
        super().__init__(card_text(card, style, legal), classes=classes)
        self.card = card
        self.index = index
        self.border_title = CARD_KEYS[index] if index < len(CARD_KEYS) else ""

    def on_click(self) -> None:
        app = self.app
        assert isinstance(app, BeloteApp)
        app.selected = self.index
        app.try_play(self.card)


class TrickBox(Static):
    """The middle of the table. Drawn again when its size changes: the list of calls
    opening under it shrinks it after its drawing was made for the larger box."""

    drawn_for: tuple[int, int] = (0, 0)

    def on_resize(self, event: Any) -> None:
        app = self.app
        if isinstance(app, BeloteApp) and self.drawn_for != tuple(self.content_size):
            app.redraw_trick()


class SheetScreen(ModalScreen[None]):
    """The score sheet: every hand, running totals, the litige reserve."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,s,q", "dismiss", "close")]

    def __init__(self, session: TableSession, lang: str) -> None:
        super().__init__()
        self.session = session
        self.lang = lang

    def compose(self) -> ComposeResult:
        table: DataTable[str] = DataTable(id="sheet")
        yield Vertical(Label(t("sheet", self.lang)), table,
                       Label(t("sheet_close", self.lang)), id="sheet-box")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        game = self.session.game
        lang = self.lang
        if game.sides == 2:
            order = [self.session.team, 1 - self.session.team]
            sides = [t("us", lang), t("them", lang)]
        else:
            order = list(range(game.sides))
            sides = [seat_label(self.session, s, lang) for s in order]
        table.add_columns("#", t("contract", lang), t("outcome", lang), *sides,
                          t("reserve", lang))
        totals = [0] * game.sides
        for i, (hand, score) in enumerate(zip(game.hands, game.scores, strict=False), 1):
            for side, pts in enumerate(score.scored):
                totals[side] += pts
            contract = "—" if hand.is_void else (
                f"{seat_label(self.session, hand.taker, lang)} {self.contract(hand)}")
            outcome = t(score.outcome, lang)
            if score.capot is not None:
                outcome += " · capot"
            table.add_row(str(i), contract, outcome,
                          *[f"{score.scored[s]} ({totals[s]})" for s in order],
                          str(score.reserve) if score.reserve else "")

    def contract(self, hand: HandState) -> str:
        app = self.app
        return app.hand_contract(hand) if isinstance(app, BeloteApp) else hand.contract_name()


def seat_label(session: TableSession, seat: int, lang: str) -> str:
    """A seat's name as shown: "You" in the player's language, the record's name else."""
    return t("you", lang) if seat == session.human else session.game.players[seat]


RESUME = "resume"


def seat_choice(seat: int, players: int, lang: str) -> str:
    """A seat as the setup offers it: its number as records write it and, with four
    players, the partner's ("seat 0 (partner: seat 2)")."""
    if players != 4:
        return t("seat_n", lang, n=seat)
    return t("seat_with_partner", lang, n=seat, p=(seat + 2) % 4)


HELP_KEYS: tuple[tuple[str, str], ...] = (
    ("1-8", "help_card_key"), ("← →  ⏎", "help_choose_card"),
    ("↑ ↓  ⏎", "help_choose_call"), ("h", "help_hint"), ("l", "help_last"),
    ("s", "help_sheet"), ("+ -", "help_speed"), ("n", "help_next"), ("q", "help_quit"),
    ("?  F1", "help_help"),
)
"""The keys the help screen lists, and what each does (its catalog key)."""


class HelpScreen(ModalScreen[None]):
    """The keys of the table and what they do (``?`` or F1)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,q", "dismiss", "close")]

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        lang = self.lang
        keys = RichTable.grid(padding=(0, 2))
        keys.add_column(style="bold yellow", no_wrap=True)
        keys.add_column()  # what it does: wrapped lines stay in their column
        for key, what in HELP_KEYS:
            keys.add_row(key, t(what, lang))
        yield Vertical(Label(t("help_title", lang), id="help-title"),
                       Static(keys, id="help-keys"),
                       Label(t("help_close", lang), classes="note"), id="help-box")


class SetupScreen(Screen[Setup | str]):
    """The options of a new game, remembered for next time; resuming the saved game is
    offered first. Every list holds valid choices only (no blank entry)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.quit", "quit")]

    def __init__(self, setup: Setup, record: Path) -> None:
        super().__init__()
        self.setup = setup
        self.record = record
        self.drawn = (setup.lang, setup.preset)
        """The language and rules the screen is drawn for."""

    def compose(self) -> ComposeResult:
        s = self.setup
        lang = s.lang
        self.drawn = (s.lang, s.preset)
        rules = Rules.preset_named(s.preset)
        saved, broken = saved_game_summary(self.record, lang)
        rows: list[Any] = [Static(t("setup_title", lang), id="setup-title")]
        if saved is not None:
            rows.append(Horizontal(
                Button(t("resume_game", lang), id="resume", variant="success", compact=True),
                Static(saved, classes="saved-line"), classes="setup-row"))
            rows.append(Static(t("new_game_keeps_backup", lang,
                                 path=backup_path(self.record).name), classes="note"))
        elif broken is not None:
            rows.append(Static(t("saved_unreadable", lang, why=broken,
                                 path=backup_path(self.record).name), classes="note"))

        def row(label: str, widget: Select[Any]) -> Horizontal:
            return Horizontal(Static(t(label, lang), classes="setup-label"), widget,
                              classes="setup-row")

        def select(options: list[tuple[str, Any]], value: Any, widget_id: str,
                   disabled: bool = False) -> Select[Any]:
            values = [v for _label, v in options]
            return Select(options, value=value if value in values else values[0],
                          allow_blank=False, compact=True, id=widget_id, disabled=disabled)

        default_target = rules.target or rules.hands_limit
        levels = [*OFFERED_LEVELS, *([s.bots] if s.bots not in OFFERED_LEVELS else [])]
        rows += [
            row("language", select([(t("lang_name", x), x) for x in LANGS], lang, "lang")),
            row("rules", select([(f"{preset_name(p, lang)} — {t('preset_about_' + p, lang)}",
                                  p) for p in PRESETS],
                                s.preset, "preset")),
            row("target", select([(t("preset_target", lang, n=default_target), 0)]
                                 + [(str(x), x) for x in TARGETS], s.target, "target")),
            row("announcements", select(
                [(t("preset_choice", lang), "preset"), (t("on", lang), "on"),
                 (t("off", lang), "off")],
                "preset" if s.announcements is None else ("on" if s.announcements else "off"),
                "announcements", disabled=rules.players != 4 or rules.game == "auction")),
            row("seat", select([(seat_choice(x, rules.players, lang), x)
                                for x in range(rules.players)], s.seat, "seat")),
            row("deck", select([(t("deck_default", lang,
                                   deck=t("deck_" + default_deck(s.preset, lang), lang)), "")]
                               + [(t("deck_" + d, lang), d) for d in STYLES], s.deck, "deck")),
            row("direction", select([(t(d, lang), d) for d in DIRECTIONS],
                                    s.direction or rules.direction, "direction")),
            row("bot_level", select([(level_label(x, lang), x) for x in levels], s.bots,
                                    "bots")),
            Horizontal(Button(t("start", lang), id="start", variant="primary", compact=True),
                       Static(t("setup_keys", lang), classes="note"), classes="setup-row"),
        ]
        yield VerticalScroll(*rows, id="setup-box")

    def on_mount(self) -> None:
        self.query_one("#resume" if self.query("#resume") else "#start").focus()

    def chosen(self) -> Setup:
        def value(widget_id: str) -> Any:
            return self.query_one(f"#{widget_id}", Select).value

        ann = value("announcements")
        preset = str(value("preset"))
        players = Rules.preset_named(preset).players
        seat = int(value("seat"))
        return Setup(preset=preset, target=int(value("target")), bots=str(value("bots")),
                     seat=seat if seat < players else 0, lang=str(value("lang")),
                     deck=str(value("deck")), seed=self.setup.seed,
                     announcements=None if ann == "preset" else ann == "on",
                     direction=str(value("direction")))

    async def on_select_changed(self, event: Select.Changed) -> None:
        changed = event.select.id
        try:
            setup = self.chosen()
        except NoMatches:  # a list changed while the screen is being redrawn
            return
        self.setup = setup
        if (setup.lang, setup.preset) != self.drawn:
            # Labels, seats, the default target and deck depend on these: redraw.
            await self.recompose()
            if changed in ("lang", "preset") and self.query(f"#{changed}"):
                self.query_one(f"#{changed}").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "resume":
            self.dismiss(RESUME)
            return
        setup = self.chosen()
        setup.check()
        self.dismiss(setup)


class BeloteApp(App[None]):
    """The table."""

    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { layout: vertical; }
    #header { height: 1; background: $primary 30%; }
    #contract { height: 1; background: $primary 15%; text-style: bold; }
    #table { height: 1fr; }
    #north { height: auto; min-height: 1; text-align: center; width: 100%; }
    #south-label { height: auto; min-height: 1; text-align: center; width: 100%; }
    #middle { height: 1fr; min-height: 5; }
    #west, #east { width: 22; height: 100%; content-align: center middle; text-align: center;
                   padding: 0 1; }
    #trick { width: 1fr; height: 100%; border: round $accent; border-title-align: center;
             text-wrap: nowrap; text-overflow: ellipsis; }
    .wide-box #west, .wide-box #east { display: none; }
    #hand { height: 3; align: center middle; }
    .card { width: 7; height: 3; margin: 0; content-align: center middle;
            border: round $panel-lighten-2; border-title-align: center; }
    .card.up { border: dashed $warning; }
    .card.legal { border: round $success; }
    .card.up.legal { border: dashed $success; }
    .card.selected { background: $accent 50%; border: heavy $accent; }
    .tall #hand { height: 5; }
    .tall .card { height: 5; width: 9; }
    #calls { height: auto; max-height: 7; display: none; }
    .tall #calls { max-height: 16; }
    #calls.active { display: block; }
    #message { height: 2; color: $warning; }
    #setup-box, #sheet-box { padding: 0 1; width: 78; height: auto; max-height: 100%;
                             border: round $accent; }
    #setup-title { height: 1; text-style: bold; color: $accent; }
    .setup-row { height: 1; margin-top: 1; }
    .setup-label { width: 16; }
    .setup-row Select { width: 1fr; }
    .saved-line { width: 1fr; padding: 0 1; }
    .note { height: auto; color: $text-muted; padding: 0 1; }
    #sheet { height: auto; max-height: 18; }
    #help-box { padding: 0 1; width: 78; max-width: 100%; height: auto; max-height: 100%;
                border: round $accent; }
    #help-title { text-style: bold; color: $accent; }
    SheetScreen, SetupScreen, HelpScreen { align: center middle; }
    """

    KEYS: ClassVar[tuple[tuple[str, str, str, bool], ...]] = (
        ("left", "move(-1)", "", False),
        ("right", "move(1)", "", False),
        ("enter", "confirm", "key_confirm", True),
        ("h", "hint", "key_hint", True),
        ("l", "last_trick", "key_last", True),
        ("s", "sheet", "key_sheet", True),
        ("plus", "speed(-1)", "key_speed", True),
        ("equals_sign", "speed(-1)", "", False),
        ("minus", "speed(1)", "", False),
        ("n", "next_hand", "", False),
        ("q", "quit_game", "key_quit", True),
        ("question_mark", "help", "key_help", True),
        ("f1", "help", "", False),
    )

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
        self.paused_trick: Trick | None = None
        self.hand_cards: list[Card] = []
        self.hint_running = False
        self._timer_pending = False
        self._bot_busy = False
        self.min_trick_pause = 0.0
        """Seconds a finished trick stays at least (the speed sets it otherwise)."""
        self.translate_keys()

    def translate_keys(self) -> None:
        """The key bar in the player's language (Enter takes precedence over any list)."""
        keys = self._bindings.key_to_bindings
        for key, action, label, show in self.KEYS:
            keys[key] = [Binding(key, action, t(label, self.lang) if label else "",
                                 show=show, priority=key == "enter",
                                 key_display={"enter": "⏎", "plus": "+/-",
                                              "question_mark": "?"}.get(key))]
        self.refresh_bindings()

    def table_widget(self, selector: str, expect: type[Any] = Widget) -> Any:
        """A widget of the table's screen (whichever screen is on top: setup, sheet)."""
        return self.screen_stack[0].query_one(selector, expect)

    @property
    def lang(self) -> str:
        return self.setup_options.lang

    @property
    def style(self) -> str:
        return self.setup_options.deck_style

    # -- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        yield Static(id="contract")
        yield Vertical(
            Static(id="north"),
            Horizontal(Static(id="west"), TrickBox(id="trick"), Static(id="east"),
                       id="middle"),
            Static(id="south-label"), id="table")
        yield Horizontal(id="hand")
        yield OptionList(id="calls", disabled=True)
        yield Static(id="message")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.screen.set_class(self.size.height >= 34 and self.size.width >= 100, "tall")
        if self.resume_game:
            self.start_session(RESUME)
        elif self.ask_setup:
            self.push_screen(SetupScreen(self.setup_options, self.record_path),
                             self.start_session)
        else:
            self.start_session(self.setup_options)

    def start_session(self, setup: Setup | str | None) -> None:
        if setup is None:
            return
        if isinstance(setup, str):
            self.session = TableSession.resume(self.record_path, self.setup_options.seat,
                                               self.setup_options.bots)
        else:
            self.setup_options = setup
            save_setup(setup)
            self.session = TableSession.new(setup, self.record_path)
        self.translate_keys()
        self.refresh_table()
        self.schedule_bots()

    # -- rendering --------------------------------------------------------------------

    def seat_name(self, seat: int) -> str:
        assert self.session is not None
        return seat_label(self.session, seat, self.lang)

    def side_name(self, seat: int) -> str:
        """Us / Them for a seat (empty with three players, each for himself)."""
        assert self.session is not None
        if self.session.game.sides != 2:
            return ""
        return t("us" if team_of(seat, self.session.game.rules.players) == self.session.team
                 else "them", self.lang)

    def refresh_table(self) -> None:
        session = self.session
        if session is None or not self.screen_stack or not self.screen_stack[0].query(
                "#header"):
            return  # not mounted yet, or being shut down
        view = session.view()
        lang = self.lang
        game = session.game
        if game.sides == 2:
            me = session.team
            totals = f"{t('us', lang)} {game.totals[me]} · {t('them', lang)} " \
                     f"{game.totals[1 - me]}"
        else:
            totals = " · ".join(f"{self.seat_name(i)} {x}" for i, x in enumerate(game.totals))
        reserve = f" · {t('reserve', lang)} {view.reserve}" if view.reserve else ""
        rules = view.rules
        target = t("to_target", lang, n=rules.target) if rules.target else t(
            "in_hands", lang, n=rules.hands_limit)
        self.table_widget("#header", Static).update(Text(
            f" {preset_name(rules.preset, lang)} · {target} · "
            f"{t('hand_n', lang, n=len(game.hands))} · {totals}{reserve}",
            no_wrap=True, overflow="ellipsis"))
        self.table_widget("#contract", Static).update(self.contract_text(view))
        positions = self.positions(rules.players)
        for where in ("north", "west", "east"):
            seat = positions.get(where)
            self.table_widget(f"#{where}", Static).update(
                self.seat_text(view, seat, wide=where == "north") if seat is not None else "")
        self.table_widget("#south-label", Static).update(
            self.seat_text(view, session.human, wide=True))
        # a narrow terminal gives the hand's summary the whole width (the seats beside
        # it left 33 columns of 80 for a table of 36)
        summary = session.hand_over and self.paused_trick is None and not (
            self.show_last_trick and view.tricks)
        self.screen_stack[0].set_class(summary and self.size.width < 100, "wide-box")
        self.redraw_trick(view)
        self.render_hand(view)
        self.render_calls(view)
        self.table_widget("#message", Static).update(self.status_text(view))

    def redraw_trick(self, view: SeatView | None = None) -> None:
        """The trick box's title and drawing, for its size now."""
        if self.session is None or not self.screen_stack[0].query("#trick"):
            return
        view = view or self.session.view()
        box = self.table_widget("#trick", TrickBox)
        title, body = self.trick_text(view, self.positions(view.rules.players))
        box.border_title = title
        box.update(body)
        box.drawn_for = (box.content_size.width, box.content_size.height)

    def status_text(self, view: SeatView) -> str:
        session = self.session
        assert session is not None
        game = session.game
        lang = self.lang
        if game.is_over:
            winner = game.winner
            me = session.team
            if game.sides == 2:
                score = f"{game.totals[me]} - {game.totals[1 - me]}"
                key = "game_we_win" if winner == me else "game_they_win"
                return t(key, lang, score=score)
            score = " - ".join(map(str, game.totals))
            if winner == me:
                return t("game_you_win", lang, score=score)
            return t("game_player_wins", lang, name=self.seat_name(winner or 0), score=score)
        if self.message:
            return self.message
        if session.hand_over and self.paused_trick is None:
            return t("next_hand", lang)
        if session.waiting_for_human:
            if view.phase == "auction":
                if self.second_round(view):
                    return t("your_turn_call_round_2", lang,
                             suit=self.contract_label(view.retourne >> 3))
                return t("your_turn_call", lang)
            keys = CARD_KEYS[:len(self.hand_cards)]
            shown = keys if len(keys) <= 1 else f"{keys[0]}-{keys[-1]}"
            if len(keys) > 9:
                shown = f"1-9, {', '.join(keys[9:])}"
            return t("your_turn_play", lang, keys=shown)
        return ""

    def contract_label(self, contract: int) -> str:
        if contract == NO_TRUMP:
            return t("no_trump", self.lang)
        if contract == ALL_TRUMP:
            return t("all_trump", self.lang)
        if self.style == "spanish":
            return suit_label(contract, "spanish")
        return "♠♥♦♣"[contract]

    def hand_contract(self, hand: HandState) -> str:
        """A hand's contract as the header says it, for its summary and the sheet: the
        trump's sign (not its letter) and, in auction games, the bid and any coinche
        ("110 ♦ ×2")."""
        label = self.contract_label(hand.contract)
        if hand.rules.game != "auction":
            return label
        o = hand.outcome()
        bid = "capot" if o.capot_bid else str(o.bid)
        return f"{bid} {label}" + (f" ×{o.double}" if o.double > 1 else "")

    def contract_text(self, view: SeatView) -> Text:
        """The contract line: during the auction the retourne or the highest bid so far,
        then the contract (its bid and coinche in auction games) and who holds it."""
        lang = self.lang
        info = view.contract_info
        text = Text(no_wrap=True, overflow="ellipsis")
        bid = ""
        double = ""
        if info is not None:
            if info.level >= 0:
                bid = ("capot" if info.is_capot else str(info.value)) + " "
            if view.rules.auction_scoring == "acorralada" and info.double > 1:
                double = " · " + (t("web_contrad", lang) if info.double == 2
                                  else t("web_recontrad", lang, n=info.double))
            elif info.double > 1:
                double = " · " + t("coinched" if info.double == 2 else "surcoinched", lang)
        if info is not None and info.final:
            text.append(f" {t('contract', lang)}{colon(lang)}")
            text.append(f"{bid}{self.contract_label(info.kind)}", style="bold yellow")
            side = self.side_name(info.bidder)
            text.append(" " + t("taken_by", lang, who=self.seat_name(info.bidder)
                                + (f" ({side})" if side else "")))
            text.append(double, style="bold magenta")
            return text
        text.append(f" {t('auction', lang)}{colon(lang)}")
        if info is not None:
            text.append(t("best_bid", lang, bid=bid + self.contract_label(info.kind),
                          who=self.seat_name(info.bidder)), style="bold")
            text.append(double, style="bold magenta")
        elif view.retourne >= 0:
            text.append(f"{t('retourne', lang)} ")
            text.append_text(card_text(view.retourne, self.style))
        else:
            text.append(t("no_bid_yet", lang))
        if view.phase == "over":
            text.append(" · " + t("void", lang))
        return text

    def positions(self, n: int) -> dict[str, int]:
        """Where each seat sits around the table, the human at the bottom; the next
        player is on the right when the game turns counterclockwise."""
        assert self.session is not None
        me = self.session.human
        clockwise = self.session.game.rules.direction == "clockwise"
        after, before = ("west", "east") if clockwise else ("east", "west")
        if n == 4:
            return {"south": me, after: (me + 1) % 4, "north": (me + 2) % 4,
                    before: (me + 3) % 4}
        if n == 3:
            return {"south": me, after: (me + 1) % 3, before: (me + 2) % 3}
        return {"south": me, "north": (me + 1) % 2}

    def seat_text(self, view: SeatView, seat: int, wide: bool = False) -> Text:
        """A seat's place: name, side, dealer, taker, turn, last call, announcements,
        belote; in découverte the opponent's face-up table cards."""
        lang = self.lang
        sep = "  " if wide else "\n"
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(self.seat_name(seat), style="bold reverse" if view.turn == seat
                    and view.phase != "over" else "bold")
        side = self.side_name(seat)
        if side and seat != self.session_human():
            text.append(f" ({side})", style="dim")
        if seat == view.dealer:
            text.append(f"{sep}{t('dealer', lang)}", style="dim")
        if seat == view.taker and view.contract >= 0:
            text.append(f"{sep}★{NBSP}{t('taker_short', lang)}{NBSP}"
                        f"{self.contract_label(view.contract)}", style="bold yellow")
        n = view.rules.players
        since = n if self.second_round(view) else 0  # round 2: its own calls only
        calls = [a for i, (a, s) in enumerate(zip(view.calls, self.call_seats(view),
                                                 strict=True))
                 if i >= since and s == seat] if view.phase == "auction" else []
        if view.phase == "auction" and calls:
            text.append(f"{sep}«{NBSP}{self.call_label(calls[-1])}{NBSP}»", style="cyan")
        if view.phase != "auction" and view.rules.game == "auction":
            double = self.doubled_by(view).get(seat)
            if double:  # who coinched (and surcoinched) stays shown during the play
                text.append(f"{sep}{self.double_word(double, view.rules)}",
                            style="bold magenta")
        for ann in view.announcements:
            if ann.seat == seat:
                text.append(f"{sep}{announcement_label(ann.kind, self.style)}", style="cyan")
        for s, word, _card in view.belote_said:
            if s == seat:
                text.append(f"{sep}{word}", style="magenta")
        if view.rules.players == 2 and view.table and seat == self.session_human() \
                and view.table[seat]:
            text.append(f"{sep}{t('your_table', lang)}", style="dim")
        if view.rules.players == 2 and view.table and seat != self.session_human():
            text.append(f"\n{t('table', lang)}{colon(lang).rstrip()}{NBSP}")
            for i, c in enumerate(held_order(view.table[seat], view.contract)):
                if i:
                    text.append(" ")
                text.append_text(card_text(c, self.style))
        return text

    def session_human(self) -> int:
        assert self.session is not None
        return self.session.human

    def trick_text(self, view: SeatView, positions: dict[str, int]) -> tuple[str, Text]:
        """The trick box's title and body: the trick's cards at their players' places
        (leader and winner marked), the auction's retourne, or the hand's summary."""
        lang = self.lang
        n = view.rules.players
        session = self.session
        assert session is not None
        trick: Trick | None
        if self.show_last_trick and view.tricks:
            trick = view.tricks[-1]
            title = t("last_trick", lang)
        elif self.paused_trick is not None:
            trick = self.paused_trick
            title = t("trick_n", lang, n=len(view.tricks), of=32 // n if n != 3 else 8)
        elif session.hand_over:
            return t("hand_summary", lang), self.centred_block(self.summary_text())
        elif view.trick is not None or view.phase == "play":
            trick = view.trick
            title = t("trick_n", lang, n=len(view.tricks) + 1, of=32 // n if n != 3 else 8)
        else:
            title = t("auction_round_2" if self.second_round(view) else "auction", lang)
            return title, self.auction_grid(view)
        return title, self.draw_trick(view, trick, positions)

    def double_word(self, action: int, rules: Rules | None) -> str:
        """Coinche or surcoinche as the rules name it: contra and recontra in the
        acorralada (as the web says them)."""
        acorralada = rules is not None and rules.auction_scoring == "acorralada"
        if action == COINCHE:
            return t("web_contra" if acorralada else "coinche", self.lang)
        return t("web_recontra" if acorralada else "surcoinche", self.lang)

    @staticmethod
    def doubled_by(view: SeatView) -> dict[int, int]:
        """Who said coinche and surcoinche in this hand's auction (the call by seat),
        as the contract records them."""
        info = view.contract_info
        if info is None:
            return {}
        said = {info.doubled_by: COINCHE, info.redoubled_by: SURCOINCHE}
        return {seat: call for seat, call in said.items() if seat >= 0}

    @staticmethod
    def call_seats(view: SeatView) -> list[int]:
        """The seat of each call so far (:func:`rebelote.hand.call_seats`)."""
        return call_seats(view)

    @staticmethod
    def second_round(view: SeatView) -> bool:
        """Whether a classic auction (a retourne) is in its second round."""
        return (view.phase == "auction" and view.rules.game == "retourne"
                and view.retourne >= 0 and len(view.calls) >= view.rules.players)

    def auction_grid(self, view: SeatView) -> Text:
        """Every call so far, as a bidding table: a column per seat in speaking order
        (its name on top), a line per round, "…" where the next call goes; the last lines
        when they do not all fit. Centred in the trick box."""
        n = view.rules.players
        box = self.table_widget("#trick", Static)
        width, height = max(box.content_size.width, 20), max(box.content_size.height, 2)
        seats = [(view.first_hand + i) % n for i in range(n)]
        column_of = {s: i for i, s in enumerate(seats)}
        said = [(column_of[s], self.call_label(a, short=True))
                for a, s in zip(view.calls, self.call_seats(view), strict=True)]
        if view.phase == "auction" and view.turn >= 0:
            said.append((column_of[view.turn], "…"))
        rows: list[list[str]] = [[]]
        for col, text in said:  # a new line once the turn comes round (or jumps back)
            if len(rows[-1]) > col:
                rows.append([])
            rows[-1] += [""] * (col - len(rows[-1])) + [text]
        cells = [c for _col, c in said]
        names = [self.seat_name(s) for s in seats]
        column = min(max(len(x) for x in [*names, *cells, "····"]) + 2, width // n)

        def fit(text: str) -> str:
            text = text if len(text) < column else text[:column - 2] + "…"
            return text.center(column)

        out = Text(no_wrap=True, overflow="crop")
        pad = " " * max(0, (width - column * n) // 2)
        shown = rows[-(height - 1):]
        top = max(0, (height - 1 - len(shown)) // 2)
        out.append("\n" * top)
        out.append(pad)
        for s, name in zip(seats, names, strict=True):
            out.append(fit(name), style="bold reverse" if s == view.turn else "bold")
        for row in shown:
            out.append("\n" + pad)
            for cell in row:
                out.append(fit(cell), style="bold" if cell == "…" else "cyan")
        return out

    def draw_trick(self, view: SeatView, trick: Trick | None,
                   positions: dict[str, int]) -> Text:
        """The trick's cards at the players' places around the box; framed cards when
        the box is large."""
        lang = self.lang
        n = view.rules.players
        box = self.table_widget("#trick", Static)
        width = max(box.content_size.width, 30)
        height = max(box.content_size.height, 3)
        cards: dict[int, Card] = {}
        leader = winner = None
        if trick is not None:
            cards = {trick.seat_of(i, n): c for i, c in enumerate(trick.cards)}
            leader = trick.leader if trick.cards else None
            winner = trick.winner if trick.winner is not None else (
                view.master if view.master >= 0 else None)

        def cell(where: str) -> tuple[Text, Text]:
            """The card at ``where`` and, under it, its marks (led, holds / wins)."""
            seat = positions.get(where)
            card, marks = Text(no_wrap=True), Text(no_wrap=True)
            if seat is None:
                return card, marks
            if seat in cards:
                card.append_text(card_text(cards[seat], self.style))
            else:
                card.append("··", style="dim")
            if seat == leader:
                marks.append("▸" + t("mark_lead", lang), style="cyan")
            if seat == winner and trick is not None and trick.cards:
                key = "mark_won" if trick.winner is not None else "mark_best"
                if marks:
                    marks.append(" ")
                marks.append("★" + t(key, lang), style="bold yellow")
            return card, marks

        def place(text: Text, where: str) -> Text:
            if where == "left":
                pad = 0
            elif where == "right":
                pad = max(0, width - text.cell_len)
            else:
                pad = max(0, (width - text.cell_len) // 2)
            return Text(" " * pad) + text

        def side_by_side(left: Text, right: Text) -> Text:
            gap = max(1, width - left.cell_len - right.cell_len)
            return left + Text(" " * gap) + right

        big = height >= 16 and width >= 40

        def drawn(where: str) -> list[Text]:
            """The card's lines (a framed card on a large terminal), then its marks."""
            card, marks = cell(where)
            if not big:
                return [card, marks]
            inner = Text(" ") + card + Text(" " * max(1, 4 - card.cell_len))
            edge = "─" * inner.cell_len
            return [Text(f"╭{edge}╮", style="dim"), Text("│", style="dim") + inner
                    + Text("│", style="dim"), Text(f"╰{edge}╯", style="dim"), marks]

        blocks: list[list[Text]] = []
        if "north" in positions:
            blocks.append([place(line, "centre") for line in drawn("north")])
        if "west" in positions or "east" in positions:
            blocks.append([side_by_side(w, e) for w, e in zip(drawn("west"), drawn("east"),
                                                               strict=True)])
        blocks.append([place(line, "centre") for line in drawn("south")])
        used = sum(len(b) for b in blocks)
        spare = max(0, height - used)
        gaps = len(blocks) + 1
        out = Text(no_wrap=True)
        lines: list[Text] = []
        for i, block in enumerate(blocks):
            lines += [Text()] * (spare // gaps + (1 if i < spare % gaps - 1 else 0))
            lines += block
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            out.append_text(line)
        return out

    def centred_block(self, text: Text) -> Text:
        """A block of lines moved to the middle of the trick box."""
        box = self.table_widget("#trick", Static)
        width = box.content_size.width
        lines = text.split("\n")
        widest = max((line.cell_len for line in lines), default=0)
        pad = Text(" " * max(0, (width - widest) // 2))
        top = max(0, (box.content_size.height - len(lines)) // 3)
        out = Text("\n" * top, no_wrap=True)
        for i, line in enumerate(lines):
            if i:
                out.append("\n")
            out.append_text(pad + line)
        return out

    def summary_text(self) -> Text:
        """The hand's score broken down: card points, announcements, belote, each side's
        total and what it scores; who took, made or failed, capot."""
        session = self.session
        assert session is not None
        lang = self.lang
        game = session.game
        hand = game.hands[-1]
        score = game.scores[-1]
        out = Text(no_wrap=True)
        if hand.is_void:
            out.append(f"\n{t('void', lang)}")
            return out
        taker = self.seat_name(hand.taker)
        taker += f" ({self.hand_contract(hand)})"
        verdict = t(score.outcome, lang)
        capot = score.capot
        if capot is not None:
            verdict += " · capot"
        width = self.table_widget("#trick", Static).content_size.width
        head = f"{t('taken_by', lang, who=taker)}{colon(lang)}"
        out.append(head if len(head) + len(verdict) <= width else head.rstrip() + "\n",
                   style="bold")  # the verdict under it when both do not fit on a line
        out.append(verdict + "\n", style="bold green" if score.outcome == "made" else
                   "bold red")
        if game.sides == 2:
            order = [session.team, 1 - session.team]
            heads = [t("us", lang), t("them", lang)]
        else:
            order = list(range(game.sides))
            heads = [self.seat_name(s)[:8] for s in order]
        rows: list[tuple[str, list[str]]] = []
        if game.sides == 2:
            o = hand.outcome()
            cards = ["capot" if capot == s else str(o.card_points[s]) for s in order]
            rows.append((t("card_points", lang), cards))
            if game.rules.announcements:
                rows.append((t("announcements", lang),
                             [str(o.announcements[s]) if o.announcements[s] else "—"
                              for s in order]))
            rows.append((t("belote_row", lang),
                         [str(o.belote[s]) if o.belote[s] else "—" for s in order]))
        rows.append((t("total", lang), [str(score.totals[s]) for s in order]))
        rows.append((t("scored", lang), [str(score.scored[s]) for s in order]))
        label_w = max(len(r[0]) for r in rows) + 1
        # each column as wide as its longest entry (9 each overflowed an 80x24 box)
        col_w = max(len(x) for x in [*heads, *(v for r in rows for v in r[1])]) + 2
        out.append(" " * label_w + "".join(f"{h:>{col_w}}" for h in heads) + "\n",
                   style="bold")
        for label, values in rows:
            style = "bold" if label == t("scored", lang) else ""
            out.append(f"{label:<{label_w}}" + "".join(f"{v:>{col_w}}" for v in values)
                       + "\n", style=style)
        if game.sides == 2 and game.rules.game == "auction":
            for line in self.term_lines(len(game.hands) - 1, score, order, heads):
                out.append(line + "\n", style="yellow")
        winner = self.announcement_team(hand)
        if winner is not None:
            out.append(t("announcements_of", lang, side=winner) + "\n", style="cyan")
        if score.reserve:
            out.append(f"{t('reserve', lang)}{colon(lang)}{score.reserve}\n")
        return out

    def term_lines(self, index: int, score: HandScore, order: list[int],
                   heads: list[str]) -> list[str]:
        """How hand ``index``'s score was made in an auction game, for each side whose
        rows above do not add up to it (a bid counted, a ×2): "Us: (penalty 160 + bid
        110) × 2 = 540"."""
        game = self.session.game if self.session else None
        assert game is not None
        terms = game.hand_terms(index)

        def text(term: Term, inner: bool = False) -> str:
            if term.name == "sum":
                joined = " + ".join(text(p) for p in term.parts)
                return f"({joined})" if inner and len(term.parts) > 1 else joined
            if term.name == "times":
                return f"{text(term.parts[0], True)} × {term.parts[1].value}"
            return f"{t('term_' + term.name, self.lang)} {term.value}"

        def telling(term: Term) -> bool:
            return term.name in ("bid", "times") or any(telling(p) for p in term.parts)

        lines = []
        for side, head in zip(order, heads, strict=True):
            term = terms[side]
            if term.value and telling(term):
                shown = f"{head}{colon(self.lang)}{text(term)} = {term.value}"
                if score.scored[side] != term.value:  # rounded
                    shown += f" → {score.scored[side]}"
                lines.append(shown)
        return lines

    def announcement_team(self, hand: Any) -> str | None:
        """Which side's announcements scored (with what), from the public view."""
        session = self.session
        assert session is not None
        view = session.view()
        if not view.announcement_seats:
            return None
        seats = set(view.announcement_seats)
        kinds = [announcement_label(a.kind, self.style) for a in view.announcements
                 if a.seat in seats]
        side = self.side_name(view.announcement_seats[0])
        return f"{side} ({', '.join(kinds)})" if kinds else side

    def render_hand(self, view: SeatView) -> None:
        box = self.table_widget("#hand", Horizontal)
        box.remove_children()
        legal = set(view.legal_actions) if view.phase == "play" else set()
        up = view.table[view.seat] if view.rules.players == 2 and view.table else 0
        contract = view.contract
        cards = held_order(view.hand & ~up, contract) + held_order(view.hand & up, contract)
        self.hand_cards = cards
        if self.selected >= len(cards):
            self.selected = max(0, len(cards) - 1)
        widgets = []
        for i, c in enumerate(cards):
            w = CardWidget(c, i, c in legal, self.style, bool(up >> c & 1))
            if i == self.selected and view.phase == "play" and self.session is not None \
                    and self.session.waiting_for_human:
                w.add_class("selected")
            widgets.append(w)
        box.mount(*widgets)

    def call_label(self, action: int, short: bool = False) -> str:
        """A call as the list of calls says it; ``short``: SA and TA by their letters
        (the auction's table)."""
        if is_bid(action):
            level, contract = bid_of(action)
            value = "capot" if level == CAPOT_LEVEL else str(bid_value(level))
            kind = {NO_TRUMP: "SA", ALL_TRUMP: "TA"}.get(contract, "") if short else ""
            kind = kind or self.contract_label(contract)
            return f"{value}{NBSP}{kind}"
        name = action_name(action)
        if action in (COINCHE, SURCOINCHE):
            return self.double_word(action, self.session.game.rules if self.session else None)
        if name in ("SA", "TA") and short:
            return name
        if name in ("S", "H", "D", "C", "SA", "TA"):
            return self.contract_label(parse_contract(name))
        return t(name, self.lang)

    def render_calls(self, view: SeatView) -> None:
        calls = self.table_widget("#calls", OptionList)
        active = bool(self.session and self.session.waiting_for_human
                      and view.phase == "auction")
        calls.set_class(active, "active")
        calls.disabled = not active
        calls.clear_options()
        if active:  # pass, then (sur)coinche, then the bids: not a coinche 38th of 38
            first = [a for a in view.legal_actions if a in (PASS, COINCHE, SURCOINCHE)]
            order = first + [a for a in view.legal_actions if a not in first]
            calls.add_options([Option(self.call_label(a), id=str(a)) for a in order])
            calls.highlighted = 0
            calls.focus()

    # -- the game's pace --------------------------------------------------------------

    def schedule_bots(self) -> None:
        if self._timer_pending or self._bot_busy or self.session is None:
            return
        self._timer_pending = True
        self.set_timer(SPEEDS[self.speed], self.bot_tick)

    async def bot_tick(self) -> None:
        """The next step: end a trick's pause, or let the bot to act choose (in a
        thread: the event loop stays free) and play."""
        self._timer_pending = False
        session = self.session
        if session is None:
            return
        if self.paused_trick is not None:
            self.paused_trick = None
            self.refresh_table()
        turn = session.bot_turn()
        if turn is None:
            self.refresh_table()
            return
        seat, bot, view = turn
        self._bot_busy = True
        try:
            action = await asyncio.to_thread(bot.choose, view)
        finally:
            self._bot_busy = False
        if self.session is not session:
            return
        before = len(session.view().tricks)
        if session.apply_bot(seat, action):
            self.after_action(before)
        if not session.waiting_for_human:
            self.schedule_bots()

    def after_action(self, tricks_before: int) -> None:
        session = self.session
        assert session is not None
        view = session.view()
        if len(view.tricks) > tricks_before:
            # A trick was just completed: leave it on the table a moment, winner marked.
            self.paused_trick = view.tricks[-1]
            self.refresh_table()
            self._timer_pending = True
            self.set_timer(max(self.min_trick_pause, SPEEDS[self.speed] * 2.5), self.bot_tick)
            return
        self.refresh_table()

    # -- the human's actions ----------------------------------------------------------

    def try_play(self, action: int) -> None:
        session = self.session
        if session is None or not session.waiting_for_human:
            return
        before = len(session.view().tricks)
        try:
            session.play_human(action)
        except IllegalAction as exc:
            self.message = "✗ " + rule_reason(exc, self.lang)
            self.refresh_table()
            return
        self.message = ""
        self.show_last_trick = False
        self.paused_trick = None
        self.after_action(before)
        if not session.waiting_for_human:
            self.schedule_bots()

    def on_key(self, event: Any) -> None:
        key = getattr(event, "character", None) or ""
        if len(key) == 1 and key in CARD_KEYS and self.screen is self.screen_stack[0]:
            i = CARD_KEYS.index(key)
            if 0 <= i < len(self.hand_cards):
                self.selected = i
                self.try_play(self.hand_cards[i])
            event.stop()

    def action_move(self, step: int) -> None:
        if self.hand_cards:
            self.selected = (self.selected + step) % len(self.hand_cards)
            if self.session:
                self.render_hand(self.session.view())

    def action_confirm(self) -> None:
        session = self.session
        if session is None:
            return
        view = session.view()
        if view.phase == "auction":
            calls = self.table_widget("#calls", OptionList)
            if calls.highlighted is not None and calls.option_count:
                option = calls.get_option_at_index(calls.highlighted)
                self.try_play(int(option.id or "0"))
        elif session.hand_over:
            self.action_next_hand()
        elif self.hand_cards:
            self.try_play(self.hand_cards[self.selected])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The table's keys act on the table only (not on the setup or sheet screen)."""
        table_only = ("confirm", "move", "hint", "last_trick", "next_hand")
        return action not in table_only or self.screen is self.screen_stack[0]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.try_play(int(event.option.id or "0"))

    def hint_label(self, action: str) -> str:
        try:
            value = parse_action(action)
        except ValueError:
            return action
        return short_label(value, self.style) if value < 32 else self.call_label(value)

    def action_hint(self) -> None:
        session = self.session
        if session is None or not session.waiting_for_human or self.hint_running:
            return
        self.hint_running = True
        self.message = t("hint_thinking", self.lang)
        self.refresh_table()
        self.run_worker(self.compute_hint(session), exclusive=True)

    async def compute_hint(self, session: TableSession) -> None:
        """The expert's evaluation of each legal action, computed in a thread on a copy
        of the game, shown in the deck's notation with its measure spelt out."""
        from rebelote.analysis import AnalysisError, hint

        game = copy.deepcopy(session.game)
        moves = len(session.hand.calls) + len(session.hand.played)
        try:
            _seat, hints = await asyncio.to_thread(hint, game, 24)
        except AnalysisError:
            self.message = t("no_hint", self.lang)
            hints = []
        finally:
            self.hint_running = False
        if self.session is not session or moves != len(session.hand.calls) + len(
                session.hand.played):
            self.message = ""
            self.refresh_table()
            return
        if hints:
            self.message = self.format_hints(hints)
        self.refresh_table()

    def format_hints(self, hints: list[Any]) -> str:
        lang = self.lang
        measure = h_measure(hints)
        parts = []
        for h in hints[:6]:
            label = self.hint_label(h.action)
            if measure == "chance_made" and h.action == "pass":
                parts.append(t("hint_pass_line", lang, n=f"{h.value:.0f}"))
            elif measure == "chance_made":
                parts.append(f"{label}{NBSP}{h.value:.0f}%")
            elif measure == "expected_score":
                parts.append(f"{label}{NBSP}{h.value:+.0f}")
            else:
                parts.append(f"{label}{NBSP}{h.value:.0f}")
        return f"{t('hint', lang)} ({t(measure, lang)}): " + " · ".join(parts)

    def action_last_trick(self) -> None:
        self.show_last_trick = not self.show_last_trick
        self.refresh_table()

    def action_sheet(self) -> None:
        if self.session is not None:
            self.push_screen(SheetScreen(self.session, self.lang))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.lang))

    def action_speed(self, step: int) -> None:
        self.speed = min(max(self.speed + step, 0), len(SPEEDS) - 1)
        self.message = t("speed", self.lang, n=len(SPEEDS) - self.speed)
        self.refresh_table()

    def action_next_hand(self) -> None:
        """The next hand; once the game is over, a new game with the same options (new
        deals; the finished one kept as the backup)."""
        session = self.session
        if session is not None and session.game.is_over:
            seed = self.setup_options.seed
            self.message = ""
            self.paused_trick = None
            self.show_last_trick = False
            self.start_session(replace(self.setup_options,
                                       seed=None if seed is None else seed + 1))
            return
        if session is None or not session.hand_over:
            return
        session.next_hand()
        self.message = ""
        self.paused_trick = None
        self.show_last_trick = False
        self.refresh_table()
        self.schedule_bots()

    def action_quit_game(self) -> None:
        if self.session is not None:
            self.session.save()
        self.exit()

    def on_resize(self, event: Any) -> None:
        self.screen_stack[0].set_class(self.size.height >= 34 and self.size.width >= 100,
                                       "tall")
        self.refresh_table()


_MEASURES = {"expected points": "expected_points", "expected score": "expected_score",
             "% made": "chance_made"}


def h_measure(hints: list[Any]) -> str:
    """The translation key of the hints' measure (see :class:`rebelote.analysis.Hint`)."""
    return _MEASURES.get(hints[0].measure, "strength") if hints else "strength"
