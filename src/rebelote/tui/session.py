"""A game at one table: a human seat, bots elsewhere, saved after every action.

No user interface here: the terminal app drives a :class:`TableSession` and renders its
state (the human's :class:`~rebelote.view.SeatView` only). The record is written
(atomically) after every action, so an interrupted game loses nothing and resumes; a new
game never overwrites a saved one: the old record is kept as a backup first.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

from rebelote.bots import Bot, is_level, make_bot
from rebelote.decks import STYLES
from rebelote.errors import IllegalAction
from rebelote.game import Game
from rebelote.hand import HandState
from rebelote.i18n import LANGS, tr
from rebelote.record import game_to_record, replay_file, write_record
from rebelote.rules import PRESETS, Rules, RulesError
from rebelote.tricks import team_of
from rebelote.view import SeatView

TARGETS = (500, 501, 700, 701, 1000, 1500, 2000)
"""The targets the setup screen offers (0 stands for the preset's own)."""
DIRECTIONS = ("counterclockwise", "clockwise")
LANG_DECKS = {"fr": "french", "en": "international", "es": "international"}
"""The deck a language shows by default (a preset with its own deck, as the Moroccan
game's Spanish deck, wins)."""


def default_deck(preset: str, lang: str) -> str:
    """The deck style shown when none is chosen: the preset's, else the language's."""
    own = Rules.preset_named(preset).deck_style
    return own if own != "french" else LANG_DECKS.get(lang, "french")


BOT_THREADS = min(4, os.cpu_count() or 1)
"""The expert's solver threads at a table in the terminal: the bots think one at a time,
on the player's machine, as colver's bots use every core."""


@dataclass(frozen=True, slots=True)
class Setup:
    """The table's options (what the setup screen asks)."""

    preset: str = "classic"
    target: int = 0  # 0: the preset's target
    bots: str = "heuristic"
    seat: int = 0
    lang: str = "en"
    deck: str = ""  # "": the preset's or the language's deck (see default_deck)
    seed: int | None = None
    announcements: bool | None = None  # None: the preset's choice
    direction: str | None = None

    def rules(self) -> Rules:
        rules = Rules.preset_named(self.preset)
        changes: dict[str, object] = {}
        if self.target:
            changes["target"] = self.target
        if self.announcements is not None and rules.players == 4 and rules.game != "auction":
            changes["announcements"] = self.announcements
        if self.direction is not None:
            changes["direction"] = self.direction
        return rules.replace(**changes) if changes else rules

    @property
    def deck_style(self) -> str:
        """The deck actually shown."""
        return self.deck or default_deck(self.preset, self.lang)

    def check(self) -> None:
        """:class:`ValueError` naming the first option that is not valid."""
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}")
        if self.target != 0 and self.target not in TARGETS:
            raise ValueError(f"target {self.target!r} is not offered")
        if not is_level(self.bots):
            raise ValueError(f"unknown bot level {self.bots!r}")
        if self.lang not in LANGS:
            raise ValueError(f"unknown language {self.lang!r}")
        if self.deck and self.deck not in STYLES:
            raise ValueError(f"unknown deck {self.deck!r}")
        if self.direction is not None and self.direction not in DIRECTIONS:
            raise ValueError(f"unknown direction {self.direction!r}")
        if self.announcements not in (None, True, False):
            raise ValueError(f"announcements must be on, off or the preset's, not "
                             f"{self.announcements!r}")
        try:
            players = self.rules().players
        except (RulesError, TypeError) as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(self.seat, int) or self.seat not in range(players):
            raise ValueError(f"seat {self.seat!r} is not at a {players}-player table")


def you_names() -> set[str]:
    """The name the human's seat carries in a record, in every language."""
    return {tr("you", lang) for lang in LANGS}


def backup_path(path: Path) -> Path:
    """Where the previous saved game goes when a new one starts."""
    return path.with_name(path.stem + ".backup" + path.suffix)


def human_seat(game: Game, fallback: int) -> int:
    """The seat the record calls "You" (in any language), else ``fallback``."""
    names = you_names()
    seats = [s for s, name in enumerate(game.players) if name in names]
    return seats[0] if len(seats) == 1 else fallback


class TableSession:
    """The referee of one game with a human at ``seat``."""

    def __init__(self, game: Game, human: int, bots: list[Bot | None], path: Path,
                 rng: random.Random) -> None:
        self.game = game
        self.human = human
        self.bots = bots
        self.path = path
        self.rng = rng
        self.save()

    @classmethod
    def new(cls, setup: Setup, path: Path) -> TableSession:
        """A new game; a game already saved at ``path`` is moved to its backup first."""
        rules = setup.rules()
        seed = setup.seed if setup.seed is not None else random.randrange(2**31)
        rng = random.Random(seed)
        n = rules.players
        names = [tr("you", setup.lang) if s == setup.seat else tr("bot_name", setup.lang, n=s)
                 for s in range(n)]
        game = Game(rules, rng, players=names, auto_deal=False)  # deals the first hand
        bots: list[Bot | None] = [None if s == setup.seat else make_bot(setup.bots, seed + s,
                                                                        BOT_THREADS)
                                  for s in range(n)]
        if path.exists():
            path.replace(backup_path(path))
        return cls(game, setup.seat, bots, path, rng)

    @classmethod
    def resume(cls, path: Path, human: int, level: str, seed: int | None = None
               ) -> TableSession:
        """Continue the game saved in ``path`` (a record, as ``rebelote replay`` reads);
        the human takes the seat the record calls "You" (``human`` if none)."""
        games = replay_file(path)
        game = games[-1].game
        n = game.rules.players
        human = human_seat(game, human)
        if human not in range(n):
            raise ValueError(f"seat {human} is not at this {n}-player table")
        rng = random.Random(seed if seed is not None else len(game.hands))
        game.rng = rng
        game.auto_deal = False
        if (game.current is None or game.current.is_over) and not game.is_over:
            game.deal()
        bots: list[Bot | None] = [None if s == human else make_bot(level, rng.randrange(2**31),
                                                                   BOT_THREADS)
                                  for s in range(n)]
        return cls(game, human, bots, path, rng)

    # -- state ----------------------------------------------------------------------

    @property
    def hand(self) -> HandState:
        hand = self.game.current
        assert hand is not None
        return hand

    def view(self) -> SeatView:
        """What the human may see."""
        return self.game.view(self.human)

    @property
    def team(self) -> int:
        """The human's side in the game's totals ("Us")."""
        return team_of(self.human, self.game.rules.players)

    @property
    def waiting_for_human(self) -> bool:
        return not self.game.is_over and not self.hand.is_over and self.hand.turn == self.human

    @property
    def bot_to_act(self) -> bool:
        return not self.game.is_over and not self.hand.is_over and self.hand.turn != self.human

    @property
    def hand_over(self) -> bool:
        return self.hand.is_over

    # -- actions --------------------------------------------------------------------

    def play_human(self, action: int) -> None:
        """The human's action; :class:`IllegalAction` (nothing changed) if not allowed."""
        if not self.waiting_for_human:
            raise IllegalAction("it is not your turn")
        self.game.apply(action, self.human)
        self.save()

    def bot_turn(self) -> tuple[int, Bot, SeatView] | None:
        """The bot to act, with its seat's view (to choose from, off the event loop)."""
        if not self.bot_to_act:
            return None
        seat = self.hand.turn
        bot = self.bots[seat]
        assert bot is not None
        return seat, bot, self.game.view(seat)

    def apply_bot(self, seat: int, action: int) -> bool:
        """Apply a bot's chosen action if that seat is still the one to act."""
        if not self.bot_to_act or self.hand.turn != seat:
            return False
        self.game.apply(action, seat)
        self.save()
        return True

    def step_bot(self) -> int | None:
        """One bot action, if a bot is to act; returns it."""
        turn = self.bot_turn()
        if turn is None:
            return None
        seat, bot, view = turn
        action = bot.choose(view)
        self.apply_bot(seat, action)
        return action

    def next_hand(self) -> None:
        """Deal the next hand once the current one is over."""
        if self.hand.is_over and not self.game.is_over:
            self.game.deal()
            self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_record(game_to_record(self.game), self.path)
