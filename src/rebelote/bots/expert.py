"""The expert level: sample the hidden hands from what the seat knows, weight each
sampled world by how likely the observed play is there, evaluate every legal card in
each world, play the best on average.

Each world is solved exactly by the compiled solver once few enough cards remain for it
to answer within the time budget (``solve_cards``: from the third trick on; a world then
takes about 3 ms, 25 ms at most, against 21 / 170 ms one trick earlier); earlier in the
hand each card is valued by compiled random rollouts.

In the auction of a four-player auction game (coinche, contrée), the expert bids from
the same evaluation: it samples the other hands, weights each sample by how likely the
calls heard so far are with it (under the heuristic level's bidding model), solves the
deal exactly for each trump in question, and takes the call with the best expected
score by the rules' own scoring: a bid as if it became the contract, a pass as if the
current contract stood (no contract: 0), a coinche as that contract doubled. Classic
calls (take or pass on the retourne) stay the heuristic level's.
"""

from __future__ import annotations

import random
import time
from statistics import NormalDist

from rebelote.bots import actions_of
from rebelote.bots.heuristic import (
    CONTRACT_SD,
    MAKE_Z,
    PARTNER_SUPPORT,
    HeuristicBot,
    contract_points,
)
from rebelote.bots.knowledge import (
    SamplingError,
    knowledge_of,
    play_likelihood,
    sample_hands,
)
from rebelote.cards import KING, QUEEN, Card, CardSet, points_table
from rebelote.hand import BID_BASE, BID_VALUES, CAPOT_LEVEL, COINCHE, PASS, bid_of
from rebelote.rules import Rules
from rebelote.scoring import HandOutcome, score_outcome
from rebelote.solver import (
    Solver,
    child_position,
    deal_position,
    position_from_view,
    rollouts,
)
from rebelote.view import SeatView

BID_SAMPLES = 6
"""Worlds sampled for an auction decision."""
BID_NODE_BUDGET = 4_000_000
"""Solver nodes an auction decision may spend (about 0.25 s); it stops sampling beyond,
after at least two worlds. A node count, not a clock: the same on every machine."""
BID_WINDOW = (40, 180)
"""Our card points matter to a bid only in this range: beyond, a contract is surely made
or surely failed (a capot bid aside), and the search is much narrower."""
CALL_SPREAD = 20.0
"""How loosely the others' calls follow the bidding model (points), for weighting."""


def _bid_points(level: int) -> int:
    return BID_VALUES[level] if level < CAPOT_LEVEL else 250


def auction_likelihood(view: SeatView, hands: list[CardSet]) -> float:
    """How likely the calls the other seats made are, were ``hands`` theirs, under the
    heuristic level's bidding model (a bid says its contract is likely made, a pass
    that none was), each call softened by ``CALL_SPREAD`` points."""
    spread = NormalDist(0, CALL_SPREAD)
    weight = 1.0
    highest = -1
    bids: dict[int, int] = {}  # seat -> its last bid
    for i, action in enumerate(view.calls):
        seat = (view.first_hand + i) % 4
        if seat != view.seat and (action == PASS or action >= BID_BASE):
            leads = (view.first_hand - seat) % 2 == 0
            tops = []
            for t in range(4):
                top = contract_points(hands[seat], t, leads) - CONTRACT_SD * MAKE_Z
                partner_bid = bids.get((seat + 2) % 4)
                if partner_bid is not None and bid_of(partner_bid)[1] == t:
                    top += PARTNER_SUPPORT
                tops.append(top)
            if action >= BID_BASE:
                level, mode = bid_of(action)
                if mode < 4:
                    weight *= spread.cdf(tops[mode] - _bid_points(level))
            else:  # a pass: no contract was worth the next level
                floor = 80 if highest < 0 else _bid_points(bid_of(highest)[0]) + 10
                weight *= spread.cdf(floor - max(tops))
        if action >= BID_BASE:
            highest = action
            bids[seat] = action
    return weight



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
        if (view.phase == "auction" and view.rules.game == "auction"
                and view.rules.players == 4):
            return self.bid(view)
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

    # -- auction ---------------------------------------------------------------------

    def bid_values(self, view: SeatView) -> dict[int, float]:
        """Expected score difference (our side's minus the other's) of each call the
        expert considers: bids in the trumps in question, pass, coinche."""
        rules = view.rules
        me = view.seat
        ours = me & 1
        legal = set(view.legal_actions)
        last, bidder, double = -1, -1, 1
        for i, action in enumerate(view.calls):
            if action >= BID_BASE:
                last, bidder, double = action, (view.first_hand + i) % 4, 1
            elif action == COINCHE:
                double = 2
            elif action != PASS:
                double = 4
        by_model = sorted(range(4), key=lambda t: -contract_points(
            view.hand, t, (view.first_hand - me) % 2 == 0))
        trumps = {by_model[0]}
        current = bid_of(last) if last >= 0 else None
        if current is not None and current[1] < 4:
            trumps.add(current[1])
        trumps_list = sorted(trumps)
        k = knowledge_of(view)
        worlds: list[tuple[float, dict[int, int], list[CardSet]]] = []
        start = int(self.solver.stats[0])
        while len(worlds) < BID_SAMPLES:
            try:
                hands = sample_hands(k, self.rng)
            except SamplingError:
                break
            weight = auction_likelihood(view, hands)
            values = {t: self.solver.value_within(deal_position(
                rules, hands, t, view.first_hand, ours, me), *BID_WINDOW) for t in trumps_list}
            worlds.append((weight, values, hands))
            if len(worlds) >= 2 and self.solver.stats[0] - start > BID_NODE_BUDGET:
                break
        total = sum(w for w, _v, _h in worlds)
        if not worlds or total <= 0:
            return {}

        def expected(taker_team: int, level: int, trump: int, times: int) -> float:
            out = 0.0
            for weight, values, hands in worlds:
                out += weight * _score_difference(rules, ours, values[trump], hands, trump,
                                                  taker_team, level, times)
            return out / total

        result: dict[int, float] = {}
        if current is not None and current[1] < 4:
            result[PASS] = expected(bidder & 1, current[0], current[1], double)
            if COINCHE in legal:
                result[COINCHE] = expected(bidder & 1, current[0], current[1], 2)
        elif current is None:
            result[PASS] = 0.0
        for action in legal:
            if action >= BID_BASE:
                level, mode = bid_of(action)
                if mode in trumps:
                    result[action] = expected(ours, level, mode, 1)
        return result

    def bid(self, view: SeatView) -> int:
        """The call with the best expected score (the heuristic's if none is valued)."""
        values = self.bid_values(view)
        if PASS not in values or len(values) < 2:
            return self.heuristic.choose(view)
        return max(values, key=lambda a: (values[a], a == PASS, -a))


def _score_difference(rules: Rules, ours: int, value: int, hands: list[CardSet], trump: int,
                      taker_team: int, level: int, double: int) -> float:
    """Our side's score minus the other's if the contract (``level`` in ``trump`` by
    ``taker_team``, doubled ``double`` times) is played and we make ``value`` (the exact
    solver's card points for us, capot bonus included)."""
    if value > 162:
        points, capot = (162, 0), ours
    elif value <= 0:
        points, capot = (0, 162), 1 - ours
    else:
        points, capot = (value, 162 - value), None
    card_points = points if ours == 0 else (points[1], points[0])
    pair = (1 << (trump * 8 + KING)) | (1 << (trump * 8 + QUEEN))
    belote = [0, 0]
    for seat in range(4):
        if hands[seat] & pair == pair:
            belote[seat & 1] = 20
    outcome = HandOutcome(taker_team, card_points, capot,
                          (0, 0), (belote[0], belote[1]),
                          _bid_points(level) if level < CAPOT_LEVEL else rules.capot_bid_value,
                          level == CAPOT_LEVEL, double)
    scored = score_outcome(rules, outcome).scored
    return float(scored[ours] - scored[1 - ours])
