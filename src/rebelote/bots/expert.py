"""The expert level: sample the hidden hands from what the seat knows, weight each
sampled world by how likely the observed play is there, evaluate every legal card in
each world, play the best on average.

Each world is solved exactly by the compiled solver once few enough cards remain for it
to answer within the time budget (``solve_cards``: from the third trick on; a world then
takes about 3 ms, 25 ms at most, against 21 / 170 ms one trick earlier); earlier in the
hand each card is valued by compiled random rollouts. Bidding uses the heuristic level's
evaluation: in auction games a model of the points a contract makes, fitted on exact
solves (:func:`rebelote.bots.heuristic.contract_points`); with ``bid_worlds`` the close
calls are decided by exact solves of sampled deals instead (:class:`SampledBidder`; no
measured gain for its time, docs/bots.md).
"""

from __future__ import annotations

import random
import statistics
import time

from rebelote.bots import actions_of
from rebelote.bots.heuristic import CONTRACT_SD, HeuristicBot, contract_points
from rebelote.bots.knowledge import (
    SamplingError,
    knowledge_of,
    play_likelihood,
    sample_hands,
)
from rebelote.cards import BELOTE_PAIR, Card, cards_of, mask_of, points_table
from rebelote.hand import BID_BASE, CAPOT_LEVEL, HandState, bid_action, bid_of
from rebelote.solver import Solver, child_position, position_from_view, position_of, rollouts
from rebelote.view import SeatView

# How the taking side's real card points compare with the exact value (the expert on
# every seat, contrée, 300 deals; ``python -m bench.bid_tuning calibrate``): 6 points
# short when the exact value is no capot; an exact capot is made in play 44% of the
# time, and the taking side ends near 135 points otherwise.
EXACT_SHORTFALL = 6
EXACT_CAPOT_MADE = 0.44
EXACT_CAPOT_MISSED = 135


class SampledBidder(HeuristicBot):
    """The heuristic's auction with the contract's points taken from exact solves of
    sampled deals instead of the fitted model: the unseen cards dealt at random to the
    other seats, kept when each bid made fits its bidder's hand by the model (a lenient
    test), solved with this seat as the taker, corrected by the calibration above."""

    def __init__(self, seed: int | None, solver: Solver, worlds: int, band: int = 2) -> None:
        super().__init__(seed)
        self.solver = solver
        self.worlds = worlds
        self.band = band
        self._cache_key: tuple[object, ...] = ()
        self._deals: list[list[list[Card]]] = []

    def _sampled_deals(self, view: SeatView) -> list[list[list[Card]]]:
        key = (view.seat, view.hand, tuple(view.calls))
        if key == self._cache_key:
            return self._deals
        me = view.seat
        unseen = [c for c in range(32) if not (view.hand >> c) & 1]
        bids = []  # (seat, mode, level) of every bid so far
        for i, call in enumerate(view.calls):
            if call >= BID_BASE:
                level, mode = bid_of(call)
                if mode < 4:
                    bids.append(((view.first_hand + i) % 4, mode, level))
        deals: list[list[list[Card]]] = []
        for attempt in range(self.worlds * 20):
            self.rng.shuffle(unseen)
            hands: list[list[Card]] = []
            k = 0
            for seat in range(4):
                if seat == me:
                    hands.append(cards_of(view.hand))
                else:
                    hands.append(sorted(unseen[k:k + 8]))
                    k += 8
            fits = all(
                contract_points(mask_of(hands[seat]), mode,
                                (view.first_hand - seat) % 2 == 0) >= 80 + 10 * level - 40
                for seat, mode, level in bids if seat != me)
            # after many misses, take what comes: the bids only shade the sampling
            if fits or attempt >= self.worlds * 10:
                deals.append(hands)
                if len(deals) == self.worlds:
                    break
        self._cache_key, self._deals = key, deals
        return deals

    def _reachable_level(self, view: SeatView, mode: int, support: bool, z: float) -> int:
        # Solved only where it can change the call: the model's level near the lowest
        # level that outbids in this suit (the only one ever bid), for a suit near the
        # model's best.
        model = super()._reachable_level(view, mode, support, z)
        lowest = next((lvl for lvl in range(CAPOT_LEVEL)
                       if bid_action(lvl, mode) in view.legal_actions), CAPOT_LEVEL)
        levels = sorted((super(SampledBidder, self)._reachable_level(view, m, False, z)
                         for m in range(4)), reverse=True)
        # at most the two best suits by the model are solved (time: about 15 ms a deal)
        if abs(model - lowest) > self.band or model < max(levels[0] - self.band, levels[1]):
            return model
        team = view.seat & 1
        points = []
        for hands in self._sampled_deals(view):
            hand = HandState.with_contract(view.rules, (view.first_hand - 1) % 4, hands,
                                           view.seat, mode, -1, 0, 1)
            exact = self.solver.value(position_of(hand, max_team=team))
            if exact >= 162:
                made = EXACT_CAPOT_MADE * 162 + (1 - EXACT_CAPOT_MADE) * EXACT_CAPOT_MISSED
            else:
                made = max(0, exact - EXACT_SHORTFALL)
            pair = BELOTE_PAIR[mode]
            for seat in (view.seat, (view.seat + 2) % 4):
                if hand.hands[seat] & pair == pair:
                    made += 20  # belote counts towards the contract
            points.append(made)
        mean = statistics.mean(points)
        spread = max(20.0, statistics.stdev(points)) if len(points) > 1 else CONTRACT_SD
        top = mean - spread * z
        return min(int((top - 80) // 10), CAPOT_LEVEL - 1)


class ExpertBot:
    """Sampling + exact solving (perfect-information Monte Carlo), within a time budget."""

    name = "expert"

    def __init__(self, seed: int | None = None, samples: int = 16,
                 budget_s: float | None = None, min_samples: int = 6, solve_cards: int = 24,
                 rollouts_per_card: int = 64, weighted: bool = True,
                 bid_worlds: int = 0) -> None:
        """``samples`` worlds per decision: a fixed number, so that a seed gives the same
        play on any machine; with ``budget_s`` the bot stops sampling when the time is up
        (after ``min_samples``) instead."""
        self.rng = random.Random(seed)
        self.solver = Solver()
        self.heuristic = (SampledBidder(seed, self.solver, bid_worlds) if bid_worlds
                          else HeuristicBot(seed))
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
