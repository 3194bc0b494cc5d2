"""A game at one table: a human seat, bots elsewhere, saved after every action.

No user interface here: the terminal app drives a :class:`TableSession` and renders its
state (the human's :class:`~rebelote.view.SeatView` only). The record is written
(atomically) after every action, so an interrupted game loses nothing and resumes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from rebelote.bots import Bot, make_bot
from rebelote.errors import IllegalAction
from rebelote.game import Game
from rebelote.hand import HandState
from rebelote.record import game_to_record, replay_file, write_record
from rebelote.rules import Rules
from rebelote.view import SeatView


@dataclass(frozen=True, slots=True)
class Setup:
    """The table's options (what the setup screen asks)."""

    preset: str = "classic"
    target: int = 0  # 0: the preset's target
    bots: str = "heuristic"
    seat: int = 0
    lang: str = "en"
    deck: str = "french"
    seed: int | None = None
    announcements: bool | None = None  # None: the preset's choice
    direction: str | None = None

    def rules(self) -> Rules:
        rules = Rules.preset_named(self.preset)
        changes: dict[str, object] = {}
        if self.target:
            changes["target"] = self.target
        if self.announcements is not None and rules.players == 4:
            changes["announcements"] = self.announcements
        if self.direction is not None:
            changes["direction"] = self.direction
        return rules.replace(**changes) if changes else rules


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
        rules = setup.rules()
        seed = setup.seed if setup.seed is not None else random.randrange(2**31)
        rng = random.Random(seed)
        n = rules.players
        names = ["You" if s == setup.seat else f"Bot {s}" for s in range(n)]
        game = Game(rules, rng, players=names, auto_deal=False)  # deals the first hand
        bots: list[Bot | None] = [None if s == setup.seat else make_bot(setup.bots, seed + s)
                                  for s in range(n)]
        return cls(game, setup.seat, bots, path, rng)

    @classmethod
    def resume(cls, path: Path, human: int, level: str, seed: int | None = None
               ) -> TableSession:
        """Continue the game saved in ``path`` (a record, as ``rebelote replay`` reads)."""
        games = replay_file(path)
        game = games[-1].game
        n = game.rules.players
        if human not in range(n):
            raise ValueError(f"seat {human} is not at this {n}-player table")
        rng = random.Random(seed if seed is not None else len(game.hands))
        game.rng = rng
        game.auto_deal = False
        if (game.current is None or game.current.is_over) and not game.is_over:
            game.deal()
        bots: list[Bot | None] = [None if s == human else make_bot(level, rng.randrange(2**31))
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
    def waiting_for_human(self) -> bool:
        return not self.game.is_over and not self.hand.is_over and self.hand.turn == self.human

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

    def step_bot(self) -> int | None:
        """One bot action, if a bot is to act; returns it."""
        if self.game.is_over or self.hand.is_over or self.hand.turn == self.human:
            return None
        seat = self.hand.turn
        bot = self.bots[seat]
        assert bot is not None
        action = bot.choose(self.game.view(seat))
        self.game.apply(action, seat)
        self.save()
        return action

    def next_hand(self) -> None:
        """Deal the next hand once the current one is over."""
        if self.hand.is_over and not self.game.is_over:
            self.game.deal()
            self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_record(game_to_record(self.game), self.path)
