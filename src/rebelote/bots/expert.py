"""The expert level: sample the hidden hands from what the seat knows, weight each
sampled world by how likely the observed play is there, evaluate every legal card in
each world, play the best on average.

Each world is solved exactly by the compiled solver once few enough cards remain for it
to answer within the time budget (``solve_cards``: from the third trick on; a world then
takes about 3 ms, 25 ms at most, against 21 / 170 ms one trick earlier); earlier in the
hand each card is valued by compiled random rollouts. Bidding uses the heuristic level's
evaluation: in auction games a model of the points a contract makes, fitted on exact
solves (:func:`rebelote.bots.heuristic.contract_points`).
"""

from __future__ import annotations

import random
import time

from rebelote.bots import actions_of
from rebelote.bots.heuristic import HeuristicBot
from rebelote.bots.knowledge import (
    SamplingError,
    knowledge_of,
    play_likelihood,
    sample_hands,
)
from rebelote.cards import Card, points_table
from rebelote.solver import Solver, child_position, position_from_view, rollouts
from rebelote.view import SeatView


class ExpertBot:
    """Sampling + exact solving (perfect-information Monte Carlo), within a time budget."""

    name = "expert"

    def __init__(self, seed: int | None = None, samples: int = 16,
                 budget_s: float | None = None, min_samples: int = 6, solve_cards: int = 24,
                 rollouts_per_card: int = 64, weighted: bool = True) -> None:
        """``samples`` worlds per decision: a fixed number, so that a seed gives the same
        play on any machine; with ``budget_s`` the bot stops sampling when the time is up
        (after ``min_samples``) instead."""
        self.rng = random.Random(seed)
        self.heuristic = HeuristicBot(seed)
        self.solver = Solver()
        self.budget_s = budget_s
        self.min_samples = min_samples
        self.max_samples = samples
        self.solve_cards = solve_cards
        self.rollouts_per_card = rollouts_per_card
        self.weighted = weighted
        self.samples_used = 0

    def choose(self, view: SeatView) -> int:
        actions = actions_of(view)
        if len(actions) == 1:
            return actions[0]
        if view.phase == "auction" or view.rules.players == 2:
            return self.heuristic.choose(view)
        values = self.evaluate(view)
        if not values:
            return self.heuristic.choose(view)
        points = points_table(view.contract, view.rules.all_trump_points)
        return max(actions, key=lambda c: (values[c], -points[c], -c))

    def evaluate(self, view: SeatView) -> dict[Card, float]:
        """Expected points (for the seat's side, from now on) of each legal card."""
        n = view.rules.players
        me = view.seat
        my_team = me & 1 if n == 4 else (0 if me == view.taker else 1)
        k = knowledge_of(view)
        cards_left = view.hand.bit_count() + sum(k.counts[s] for s in range(n) if s != me)
        legal = list(view.legal_actions)
        sums = dict.fromkeys(legal, 0.0)
        total_weight = 0.0
        deadline = time.perf_counter() + (self.budget_s or 0.0)
        samples = 0
        while samples < self.max_samples:
            try:
                hands = sample_hands(k, self.rng)
            except SamplingError:
                break
            weight = play_likelihood(view, hands) if self.weighted else 1.0
            total_weight += weight
            pos = position_from_view(view, hands, my_team)
            if cards_left <= self.solve_cards:
                values = self.solver.move_values(pos)
                for c in legal:
                    sums[c] += weight * values[c]
            else:
                seed = self.rng.getrandbits(31)
                for c in legal:
                    child, gain = child_position(pos, c)
                    mean = rollouts(child, self.rollouts_per_card, seed)[my_team]
                    sums[c] += weight * (gain + mean)
            samples += 1
            if (self.budget_s is not None and samples >= self.min_samples
                    and time.perf_counter() > deadline):
                break
        self.samples_used = samples
        if samples == 0 or total_weight <= 0:
            return {}
        return {c: s / total_weight for c, s in sums.items()}
