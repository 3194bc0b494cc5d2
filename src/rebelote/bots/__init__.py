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
MAX_BUDGET_MS = 10_000
"""The longest time budget a bot level may ask for (ms per decision)."""


def parse_level(spec: str) -> tuple[str, float | None]:
    """A bot level and its time budget: ``expert`` (a fixed number of sampled worlds, the
    same play on any machine) or ``expert:250`` (anytime, 250 ms per card and per bid,
    1..:data:`MAX_BUDGET_MS`); the other levels take no budget. A clear ``ValueError``
    otherwise."""
    level, sep, budget = spec.partition(":")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {spec!r} (known: {', '.join(LEVELS)}, "
                         "expert:MS for a time budget)")
    if not sep:
        return level, None
    if level != "expert":
        raise ValueError(f"only the expert takes a time budget, not {level!r}")
    if not budget.isdigit() or not 1 <= int(budget) <= MAX_BUDGET_MS:
        raise ValueError(f"the budget in {spec!r} must be a whole number of ms from 1 "
                         f"to {MAX_BUDGET_MS}")
    return level, float(budget)


OFFERED_LEVELS = ("random", "heuristic", "expert", "expert:200", "expert:500")
"""What the terminal game's setup and the web tables offer: the three levels, and the
expert thinking 0.2 s or 0.5 s a card (as long as players said they would happily wait;
the server offers no longer budgets, its bot workers are shared by every table)."""


def is_level(spec: str) -> bool:
    """Whether ``spec`` names a bot level (:func:`parse_level`)."""
    try:
        parse_level(spec)
    except ValueError:
        return False
    return True


def make_bot(level: str, seed: int | None = None, threads: int = 1) -> Bot:
    """A bot of the named level: ``random``, ``heuristic``, ``expert`` or ``expert:MS``
    (the expert with a time budget of MS ms a decision, :func:`parse_level`).
    ``threads``: the expert's solver threads (one where many bots share the machine)."""
    name, budget = parse_level(level)
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        from rebelote.bots.heuristic import HeuristicBot

        return HeuristicBot(seed)
    from rebelote.bots.expert import ExpertBot

    return ExpertBot(seed, budget_ms=budget, threads=threads)
