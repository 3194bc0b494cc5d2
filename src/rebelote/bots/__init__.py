"""Computer players. A bot sees only a :class:`~rebelote.view.SeatView`, never the
referee's state, and returns one of ``view.legal_actions``."""

from __future__ import annotations

import random
from typing import Protocol

from rebelote.view import SeatView


class Bot(Protocol):
    """Anything that picks an action from a seat's view."""

    name: str

    def choose(self, view: SeatView) -> int:
        """One of ``view.legal_actions``."""
        ...


def actions_of(view: SeatView) -> tuple[int, ...]:
    """The legal actions a bot chooses from; a clear error when it is not its turn."""
    if not view.legal_actions:
        raise ValueError(f"seat {view.seat} has nothing to play: it is not its turn")
    return view.legal_actions


class RandomBot:
    """Plays a uniformly random legal action (the baseline level)."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> int:
        actions = actions_of(view)
        return actions[int(self.rng.random() * len(actions))]


LEVELS = ("random", "heuristic", "expert")


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level: ``random``, ``heuristic`` or ``expert``."""
    if level == "random":
        return RandomBot(seed)
    if level == "heuristic":
        from rebelote.bots.heuristic import HeuristicBot

        return HeuristicBot(seed)
    if level == "expert":
        from rebelote.bots.expert import ExpertBot

        return ExpertBot(seed)
    raise ValueError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
