"""The expert level: sample the hidden hands from what the seat knows, weight each
sampled world by how likely the observed play is there, evaluate every legal card in
each world, play the best on average.

Each world is solved exactly by the compiled solver once few enough cards remain for it
to answer in time (``solve_cards``: from the third trick on; a world then takes about 3
ms, 25 ms at most, against 21 / 170 ms one trick earlier; with a time budget, as soon as
two worlds fit in it); earlier in the hand each card is valued by compiled random
rollouts. Without a budget, bidding uses the same evaluation (:class:`SampledBidder`):
deals sampled to fit the auction so far, solved exactly with the
bidder (or, for a coinche, the opponent) as taker, corrected by how far real play falls
short of the exact value, scored by the rules. Clear hands are decided by the heuristic's
rules of thumb, which the solves would only confirm (docs/bots.md).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence

from rebelote.actions import bid_value, is_bid
from rebelote.bots import actions_of
from rebelote.bots.heuristic import (
    NAME_THRESHOLD,
    TAKE_THRESHOLD,
    HeuristicBot,
    contract_points,
    suit_strength,
)
from rebelote.bots.knowledge import (
    PlayModel,
    SamplingError,
    dealt_hands,
    knowledge_of,
    sample_hands,
)
from rebelote.cards import (
    ACE,
    ALL_TRUMP,
    BELOTE_PAIR,
    JACK,
    NINE,
    NO_TRUMP,
    TEN,
    Card,
    CardSet,
    cards_of,
    has_trump_suit,
    mask_of,
    points_table,
)
from rebelote.hand import (
    CALL_SPADES,
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    SURCOINCHE,
    TAKE,
    HandState,
    bid_action,
    bid_of,
)
from rebelote.scoring import HandOutcome, score_outcome
from rebelote.solver import (
    Position,
    Solver,
    child_position,
    position_from_view,
    position_of,
    rollouts,
    warm,
)
from rebelote.tricks import (
    CARD_POINTS_TOTAL,
    partner_of,
    raw_total,
    scaled_pair,
    side_of,
    team_of,
)
from rebelote.view import SeatView

# How the taking side's real card points compare with the exact value (the expert on
# every seat, contrée, 300 deals; ``python -m bench.bid_tuning calibrate``): 6 points
# short when the exact value is no capot; an exact capot is made in play 44% of the
# time, and the taking side ends near 135 points otherwise.
EXACT_SHORTFALL = 6
EXACT_CAPOT_MADE = 0.44
EXACT_CAPOT_MISSED = 135


TAKE_MAKE_PROBABILITY = 0.75
"""Classic: take (or name a suit) when the contract is made this often — the break-even
of classic scoring, where a failed contract gives the other side all 162 points."""
LEVEL_MAKE_PROBABILITY = 0.56
"""Auction games: bid the lowest level that outbids when the sampled deals make it this
often (measured with ``python -m bench.bid_tuning --expert-variants``, docs/bots.md)."""
AUCTION_WORLDS = CLASSIC_WORLDS = 16
"""Sampled deals a bidding decision solves: one null-window search each."""
COINCHE_WORLDS = 8
"""The first of them solved exactly to value a coinche (16 took up to 1.1 s a decision)."""
LEVEL_BAND = 1
"""Auction levels are solved when the model's level is within this of the bid's."""
MAX_BID_WORLDS = 256
"""With a time budget: at most this many sampled deals a bidding decision..."""
MIN_BID_WORLDS = 4
"""... and at least this many in its first pass..."""
LATE_BID_WORLDS = 2
"""... or this many for an evaluation that starts once the time is up."""
BID_SOLVE_MS = 2.5
"""With a time budget: about what one sampled deal costs a bidding decision (ms), to
size its first pass."""
COINCHE_MIN_MS = 50
"""With a shorter budget, a coinche is decided by the model: its exact solves of whole
deals take 5-30 ms each."""
NO_TRUMP_MIN_MS = 100
"""With a shorter budget, sans atout and tout atout are not solved for (their deals
take up to 0.3 s each)."""
NO_TRUMP_MODES = (NO_TRUMP, ALL_TRUMP)
"""Sans atout and tout atout, bid from solved deals where the rules allow them."""


def belote_points(contract: int, dealt: Sequence[CardSet]) -> tuple[int, int]:
    """Each team's belote when the four seats were dealt ``dealt``: 20 to the team whose
    seat held the trump king and queen (nothing without a trump suit)."""
    if has_trump_suit(contract):
        pair = BELOTE_PAIR[contract]
        for seat, held in enumerate(dealt):
            if held & pair == pair:
                return (20, 0) if team_of(seat) == 0 else (0, 20)
    return (0, 0)


def calibrated_result(hand: HandState, exact: int) -> tuple[float, float]:
    """For a 4-seat hand whose contract is set (cards dealt, taker, suit, bid), when the
    taking side's exact value is ``exact`` card points: team 0's score minus team 1's
    by the rules, and whether the contract is made (1, litige 0.5, 0), both expected
    over the calibration (real play falls ``EXACT_SHORTFALL`` short of the exact value;
    an exact capot is made ``EXACT_CAPOT_MADE`` of the time). Announcements are left out."""
    rules = hand.rules
    team = team_of(hand.taker)
    belote = belote_points(hand.contract, hand.hands)
    auction = rules.game == "auction"

    def scored(points: int, capot: int | None) -> tuple[float, float]:
        card_points = (points, 162 - points) if team == 0 else (162 - points, points)
        outcome = HandOutcome(team, card_points, capot, (0, 0), belote,
                              hand.contract_value() if auction else 0,
                              auction and hand.bid_level == CAPOT_LEVEL,
                              hand.double if auction else 1)
        result = score_outcome(rules, outcome)
        made = {"made": 1.0, "litige": 0.5}.get(result.outcome, 0.0)
        return float(result.scored[0] - result.scored[1]), made

    if exact >= 162:  # an exact capot: made in real play only part of the time
        (d1, m1), (d2, m2) = scored(162, team), scored(EXACT_CAPOT_MISSED, None)
        p = EXACT_CAPOT_MADE
        return p * d1 + (1 - p) * d2, p * m1 + (1 - p) * m2
    real = max(0, exact - EXACT_SHORTFALL)
    return scored(real, 1 - team if real == 0 else None)


class HandScorer:
    """A world's exact card values turned into what the hand scores: one side's final
    card points (those won so far plus a card's exact value from now on) scored by the
    rules (:func:`~rebelote.scoring.score_outcome`), as that side's score minus the
    other's. The score is a monotone function of the points, so in a world of known
    cards the best play for points is also best for the score, and the value of each
    card there is the score of its exact points. Averaged over worlds, a card is then
    worth the hand's expected score — a contract made 60% of the time, not 3 points
    more — which is what the match counts. Four seats, a contract set."""

    __slots__ = ("_full", "_memo", "_won_trick", "announcements", "bid",
                 "capot_bid", "contract", "double", "rules", "scale", "taker_team", "team",
                 "view", "won")

    TIE_BREAK = 0.01
    """A card's points from now on, times this, are added to its score: between cards
    of the same score in every world (a contract already made or lost), the points."""

    def __init__(self, view: SeatView, team: int) -> None:
        rules = view.rules
        info = view.contract_info
        assert info is not None and view.taker >= 0 and rules.players == 4
        auction = rules.game == "auction"
        self.view = view
        self.rules = rules
        self.team = team
        self.taker_team = team_of(view.taker)
        self.contract = view.contract
        self.bid = info.value if auction else 0
        self.capot_bid = auction and info.level == CAPOT_LEVEL
        self.double = info.double if auction else 1
        self.announcements = view.announcement_points
        self.won = view.card_points[team]
        self._full = raw_total(self.contract, rules.all_trump_points)
        self.scale = CARD_POINTS_TOTAL / self._full
        won = [False, False]
        for trick in view.tricks:
            if trick.winner is not None:
                won[team_of(trick.winner)] = True
        self._won_trick = won
        self._memo: dict[tuple[int, tuple[int, int]], float] = {}

    def belote(self, hands: list[CardSet]) -> tuple[int, int]:
        """Each team's belote in the world ``hands`` (each seat's current cards): 20 to
        the team whose seat was dealt the trump king and queen."""
        return belote_points(self.contract, dealt_hands(self.view, hands))

    def value(self, raw: int, belote: tuple[int, int]) -> float:
        """The score difference for :attr:`team` when its exact raw points from now on
        are ``raw`` (the solver's value), plus the points' tie-break."""
        total = self.won + raw
        key = (total, belote)
        score = self._memo.get(key)
        if score is None:
            score = self._memo[key] = self._score(total, belote)
        return score + self.TIE_BREAK * raw * self.scale

    def _score(self, total: int, belote: tuple[int, int]) -> float:
        team = self.team
        full = self._full
        capot: int | None = None
        if total > full:  # the kernel's capot bonus: every trick
            capot, total = team, full
        elif total <= 0 and not self._won_trick[team]:
            capot = 1 - team
        raw = (total, full - total) if team == 0 else (full - total, total)
        points = scaled_pair(raw, self.contract, self.rules.all_trump_points,
                             self.taker_team)
        outcome = HandOutcome(self.taker_team, points, capot, self.announcements, belote,
                              self.bid, self.capot_bid, self.double)
        scored = score_outcome(self.rules, outcome).scored
        return float(scored[team] - scored[1 - team])


def no_trump_candidate(hand: CardSet, contract: int) -> bool:
    """Whether ``hand`` has the cards to consider sans atout (contract 4: aces and tens,
    each ace counting double, at least 6) or tout atout (contract 5: two jacks and three
    jacks or nines): the bids are solved only then."""
    ranks = [c & 7 for c in cards_of(hand)]
    if contract == NO_TRUMP:
        return 2 * ranks.count(ACE) + ranks.count(TEN) >= 6
    jacks = ranks.count(JACK)
    return jacks >= 2 and jacks + ranks.count(NINE) >= 3


class _OutOfTime(Exception):
    """A bidding decision's solve would have overrun its time (see :func:`cap_ms`)."""


class SampledBidder(HeuristicBot):
    """Bids from the expert's evaluation: exact solves of sampled deals, corrected by the
    calibration above (:func:`calibrated_result`). The unseen cards are dealt at random
    to the other seats (in classic the taker also gets the retourne and two more), kept
    when each bid made fits its bidder's hand by the model (a lenient test). Only close
    calls are solved — a clear hand is decided as the heuristic decides it, which the
    solves would only confirm:

    - classic: take the retourne / name a suit when the contract is made in at least
      ``TAKE_MAKE_PROBABILITY`` of the deals (hand strength within ``strength_band`` of
      the heuristic's threshold; at most the two strongest suits in the second round);
    - auction games: the level each suit reaches (the model's level within ``band`` of
      the lowest level that outbids, in the model's two best suits), and a coinche when
      it raises our expected score over the sampled deals (trump strength within
      ``strength_band`` of the style's);
    - sans atout / tout atout, where the rules let them be bid: when the hand has their
      cards (:func:`no_trump_candidate`) and no partner bid, at the lowest level that
      outbids, when made at least ``level_probability`` of the deals and more often
      than the suit the model chose at that level."""

    def __init__(self, seed: int | None, solver: Solver, worlds: int = AUCTION_WORLDS,
                 classic_worlds: int | None = None, band: int = LEVEL_BAND,
                 strength_band: float = 1.5,
                 take_probability: float = TAKE_MAKE_PROBABILITY,
                 level_probability: float = LEVEL_MAKE_PROBABILITY,
                 solve_coinche: bool = True, no_trump_bids: bool = True,
                 budget_ms: float | None = None) -> None:
        """``worlds`` sampled deals a decision in auction games, ``classic_worlds`` in
        classic (default: the same); with ``budget_ms`` a close call is decided again on
        twice as many deals while the time spent leaves room for it (the deals' solves
        are kept, so each pass costs about what all the earlier ones did), up to
        :data:`MAX_BID_WORLDS`; the rest are the knobs the bidding bench compares."""
        super().__init__(seed)
        self.budget_ms = budget_ms
        self._worlds_now: int | None = None
        """With a budget: the sampled deals of the pass in progress..."""
        self._deadline = math.inf
        """... and when the decision's time is up: an evaluation then stops after
        :data:`LATE_BID_WORLDS` deals (a first pass may be cut short)."""
        self._solves = 0
        self._cap = math.inf
        """With a budget: when a solve is given up (:func:`cap_ms` in)..."""
        self._model = HeuristicBot(seed)
        """... and the model that then decides (a heuristic whose calls solve nothing)."""
        self._memo: dict[tuple[object, ...], int] = {}
        self.no_trump_bids = no_trump_bids
        self.take_probability = take_probability
        self.level_probability = level_probability
        self.solve_coinche = solve_coinche
        self.solver = solver
        self.auction_worlds = worlds
        self.classic_worlds = worlds if classic_worlds is None else classic_worlds
        self.band = band
        self.strength_band = strength_band
        self._cache_key: tuple[object, ...] = ()
        self._deals: list[list[list[Card]]] = []

    def bid(self, view: SeatView) -> int:
        if view.rules.players != 4:
            return super().bid(view)
        if self.budget_ms is None:
            return self._bid_once(view)
        start = time.perf_counter()
        base = self.auction_worlds if view.rules.game == "auction" else self.classic_worlds
        # a first pass on few deals when the budget is short (a solve takes a few ms)
        self._worlds_now = max(MIN_BID_WORLDS, min(base, int(self.budget_ms / BID_SOLVE_MS)))
        self._deadline = start + self.budget_ms / 1000
        self._cap = start + cap_ms(self.budget_ms) / 1000
        self._solves = 0
        try:
            action = self._bid_once(view)
        except _OutOfTime:  # one deal's solve would have overrun the budget
            action = self._model.bid(view)
        else:
            while self._solves and self._worlds_now * 2 <= MAX_BID_WORLDS:
                spent = time.perf_counter() - start
                # the next pass solves as many new deals as all the passes so far together
                if spent * 2.2 > self.budget_ms / 1000:
                    break
                self._worlds_now *= 2
                try:
                    action = self._bid_once(view)
                except _OutOfTime:  # the last pass's decision stands
                    break
        finally:
            self._worlds_now = None
            self._deadline = self._cap = math.inf
        return action

    def _solve(self, pos: Position, target: int | None = None) -> int:
        """The solver's value of ``pos`` (or whether it reaches ``target``: 1 or 0),
        within the decision's cap: :class:`_OutOfTime` if it would overrun it."""
        cap = None if self._cap == math.inf else self._cap
        if target is None:
            result = self.solver.value_within(pos, None, cap)
        else:
            reached = self.solver.at_least_within(pos, target, None, cap)
            result = None if reached is None else int(reached)
        if result is None:
            raise _OutOfTime
        return result

    def _bid_once(self, view: SeatView) -> int:
        if view.rules.game == "auction":
            return self._auction_bid(view)
        return self._classic_bid(view)

    # -- sampling and solving ---------------------------------------------------------

    def _sampled_deals(self, view: SeatView) -> list[list[list[Card]]]:
        """``worlds`` full deals (8 cards a seat) that keep this seat's cards; in
        classic this seat gets the retourne and two unseen cards (it would take). Deals
        fit the auction so far: each bid by the model (leniently), each classic pass by
        the five cards its seat spoke with; after many misses any deal is taken."""
        key = (view.seat, view.hand, tuple(view.calls))
        worlds = self.auction_worlds if view.rules.game == "auction" else self.classic_worlds
        if self._worlds_now is not None:
            worlds = self._worlds_now
        if key == self._cache_key and len(self._deals) >= worlds:
            return self._deals[:worlds]
        if key != self._cache_key:
            self._deals, self._memo = [], {}
        me = view.seat
        own = view.hand | ((1 << view.retourne) if view.retourne >= 0 else 0)
        unseen = [c for c in range(32) if not (own >> c) & 1]
        extra = 8 - own.bit_count()  # classic: the taker's completion
        bids = []  # (seat, contract, level) of every bid so far
        for i, call in enumerate(view.calls):
            if is_bid(call):
                level, contract = bid_of(call)
                if has_trump_suit(contract):
                    bids.append(((view.first_hand + i) % 4, contract, level))
        passes = []  # classic: (seat, round) of every pass so far
        if view.rules.game != "auction":
            passes = [((view.first_hand + i) % 4, i // 4) for i, call in enumerate(view.calls)
                      if call == PASS and (view.first_hand + i) % 4 != me]
        deals = self._deals
        need = worlds - len(deals)
        for attempt in range(need * 20):
            self.rng.shuffle(unseen)
            hands: list[list[Card]] = []
            five = [0] * 4  # classic: the five cards each other seat spoke with
            k = extra
            for seat in range(4):
                if seat == me:
                    hands.append(sorted(cards_of(own) + unseen[:extra]))
                else:
                    hands.append(sorted(unseen[k:k + 8]))
                    five[seat] = mask_of(unseen[k:k + 5])
                    k += 8
            fits = all(
                contract_points(mask_of(hands[seat]), contract,
                                team_of(view.first_hand) == team_of(seat))
                >= bid_value(level) - 40
                for seat, contract, level in bids if seat != me) and all(
                self._would_pass(five[seat], view.retourne, second) for seat, second in passes)
            # after many misses, take what comes: the bids only shade the sampling
            if fits or attempt >= need * 10:
                deals.append(hands)
                if len(deals) >= worlds:
                    break
        self._cache_key = key
        return deals[:worlds]

    @staticmethod
    def _would_pass(five: CardSet, retourne: Card, second_round: int) -> bool:
        """Classic: whether five cards pass as the heuristic bids (on the retourne in the
        first round, on every other suit in the second)."""
        trump = retourne >> 3
        if not second_round:
            return suit_strength(five, trump, retourne) < TAKE_THRESHOLD
        return all(suit_strength(five, s) < NAME_THRESHOLD for s in range(4) if s != trump)

    @staticmethod
    def _contract(view: SeatView, hands: list[list[Card]], taker: int, contract: int,
                  level: int = -1, double: int = 1) -> HandState:
        """A sampled deal played by ``taker`` in ``contract``: auction games at ``level``
        and ``double``, classic with the retourne in the taker's hand."""
        if view.rules.game == "auction":
            return HandState.with_contract(view.rules, view.dealer, hands, taker, contract, -1,
                                           level, double)
        return HandState.with_contract(view.rules, view.dealer, hands, taker, contract,
                                       view.retourne)

    def _exact(self, hand: HandState) -> int:
        """The taking side's exact value, on the 162 scale (kept for the decision)."""
        key = ("value", tuple(hand.hands), hand.taker, hand.contract)
        if key not in self._memo:
            pos = position_of(hand, max_team=team_of(hand.taker))
            self._memo[key] = round(self._solve(pos) * pos.scale)
            self._solves += 1
        return self._memo[key]

    def _at_least(self, hand: HandState, seat: int, points: int) -> bool:
        """Whether ``seat``'s side makes at least ``points`` (162 scale) in ``hand``:
        one null-window search, kept for the decision."""
        key = ("at_least", tuple(hand.hands), hand.taker, hand.contract, team_of(seat), points)
        if key not in self._memo:
            pos = position_of(hand, max_team=team_of(seat))
            self._memo[key] = self._solve(pos, math.ceil(points / pos.scale - 1e-9))
            self._solves += 1
        return bool(self._memo[key])

    def _results(self, view: SeatView, taker: int, contract: int, level: int = -1,
                 doubles: tuple[int, ...] = (1,)) -> list[list[tuple[float, float]]]:
        """For each of ``doubles``: :func:`calibrated_result` of the first
        ``COINCHE_WORLDS`` sampled deals played by ``taker`` in ``contract`` (each deal solved
        once, exactly: a coinche's worth depends on the points, not only on the contract
        made), the score difference seen from this seat's side."""
        sign = 1 if team_of(view.seat) == 0 else -1
        out: list[list[tuple[float, float]]] = [[] for _ in doubles]
        first = COINCHE_WORLDS if self._worlds_now is None else max(
            MIN_BID_WORLDS, self._worlds_now // 2)
        for i, hands in enumerate(self._sampled_deals(view)[:first]):
            if i >= LATE_BID_WORLDS and time.perf_counter() > self._deadline:
                break
            exact = self._exact(self._contract(view, hands, taker, contract, level))
            for i, double in enumerate(doubles):
                hand = self._contract(view, hands, taker, contract, level, double)
                diff, made = calibrated_result(hand, exact)
                out[i].append((sign * diff, made))
        return out

    # -- classic ------------------------------------------------------------------------

    def _classic_bid(self, view: SeatView) -> int:
        actions = view.legal_actions
        if TAKE in actions:
            contract = view.retourne >> 3
            strength = suit_strength(view.hand, contract, view.retourne)
            if abs(strength - TAKE_THRESHOLD) > self.strength_band:
                return super().bid(view)
            return TAKE if self._made(view, contract) >= self.take_probability else PASS
        suits = sorted(((suit_strength(view.hand, a - CALL_SPADES), a) for a in actions
                        if CALL_SPADES <= a < CALL_SPADES + 4), reverse=True)
        close = [a for strength, a in suits[:2]
                 if strength >= NAME_THRESHOLD - self.strength_band]
        if not close or suits[0][0] > NAME_THRESHOLD + self.strength_band:
            return super().bid(view)
        made, action = max((self._made(view, a - CALL_SPADES), a) for a in close)
        return action if made >= self.take_probability else PASS

    # -- auction games --------------------------------------------------------------------

    def _auction_bid(self, view: SeatView) -> int:
        action = super()._auction_bid(view)
        short = self.budget_ms is not None and self.budget_ms < NO_TRUMP_MIN_MS
        if not self.no_trump_bids or short or action in (COINCHE, SURCOINCHE):
            return action
        info = view.contract_info  # the highest bid so far
        if info is not None and info.bidder == partner_of(view.seat):
            return action  # partner's contract: the model raises it or passes
        best, best_made = action, -1.0
        for contract in NO_TRUMP_MODES:
            if not no_trump_candidate(view.hand, contract):
                continue
            level = next((lvl for lvl in range(CAPOT_LEVEL)
                          if bid_action(lvl, contract) in view.legal_actions), -1)
            if level < 0:
                continue
            made = self._made(view, contract, level)
            if made >= self.level_probability and made > best_made:
                best, best_made = bid_action(level, contract), made
        if best == action or action == PASS:
            return best
        # the suit the model chose, at the level of the sans/tout atout found (the
        # lowest that outbids: the model's too)
        if self._made(view, bid_of(action)[1], bid_of(best)[0]) >= best_made:
            return action
        return best

    def _coinches(self, view: SeatView, bid: int, bidder: int) -> bool:
        level, contract = bid_of(bid)
        short = self.budget_ms is not None and self.budget_ms < COINCHE_MIN_MS
        if not self.solve_coinche or short or not has_trump_suit(contract) or abs(
                suit_strength(view.hand, contract) - self.style.coinche_strength
        ) > self.strength_band:
            return super()._coinches(view, bid, bidder)
        passed, coinched = self._results(view, bidder, contract, level, (1, 2))
        return sum(d for d, _ in coinched) > sum(d for d, _ in passed)

    def _reachable_level(self, view: SeatView, contract: int, support: bool, z: float) -> int:
        # Solved only where it can change the call: the model's level near the lowest
        # level that outbids in this suit (the only one ever bid), for a suit near the
        # model's best. The solves say whether that lowest level is made often enough.
        model = super()._reachable_level(view, contract, support, z)
        lowest = next((lvl for lvl in range(CAPOT_LEVEL)
                       if bid_action(lvl, contract) in view.legal_actions), CAPOT_LEVEL)
        levels = sorted((super(SampledBidder, self)._reachable_level(view, m, False, z)
                         for m in range(4)), reverse=True)
        # at most the two best suits by the model are solved
        if (lowest == CAPOT_LEVEL or abs(model - lowest) > self.band
                or model < max(levels[0] - self.band, levels[1])):
            return model
        if self._made(view, contract, lowest) >= self.level_probability:
            return max(model, lowest)
        return min(model, lowest - 1)

    def _made(self, view: SeatView, contract: int, level: int = -1) -> float:
        """How often this seat's contract ``contract`` (auction games: at ``level``) is
        made over the sampled deals: one null-window search a deal, at the least exact
        value that makes it by the rules."""
        made = 0
        deals = self._sampled_deals(view)
        for i, hands in enumerate(deals):
            if i >= LATE_BID_WORLDS and time.perf_counter() > self._deadline:
                deals = deals[:i]
                break
            hand = self._contract(view, hands, view.seat, contract, level)
            low, high = 0, 163  # the least exact value whose calibrated result is made
            while low < high:
                mid = (low + high) // 2
                if calibrated_result(hand, mid)[1] >= 1.0:
                    high = mid
                else:
                    low = mid + 1
            made += self._at_least(hand, view.seat, low)
        return made / len(deals)

    def bid_values(self, view: SeatView) -> tuple[str, dict[int, float]]:
        """Each legal call valued from the sampled deals (what ``rebelote hint`` shows):
        auction games, the expected score difference (our side's minus the other's) if
        the call became the contract, pass 0, a coinche or surcoinche its gain over
        passing; classic, how often (%) the contract would be made, pass at the line."""
        actions = view.legal_actions
        if view.rules.game != "auction":
            return "% made", {
                a: 100 * (self._made(view, view.retourne >> 3) if a == TAKE
                          else self._made(view, a - CALL_SPADES) if a >= CALL_SPADES
                          else self.take_probability) for a in actions}
        values: dict[int, float] = dict.fromkeys(actions, 0.0)
        info = view.contract_info  # the highest bid so far
        for action in actions:
            if action in (COINCHE, SURCOINCHE) and info is not None:
                doubles = (1, 2) if action == COINCHE else (2, 4)
                plain, doubled = self._results(view, info.bidder, info.kind, info.level,
                                               doubles)
                values[action] = (statistics.mean(d for d, _ in doubled)
                                  - statistics.mean(d for d, _ in plain))
        bids = [a for a in actions if is_bid(a)]
        for contract in sorted({bid_of(a)[1] for a in bids}):
            exact = [(hands, self._exact(self._contract(view, hands, view.seat, contract, 0)))
                     for hands in self._sampled_deals(view)]
            sign = 1 if team_of(view.seat) == 0 else -1
            for action in bids:
                level, m = bid_of(action)
                if m == contract:
                    values[action] = statistics.mean(
                        sign * calibrated_result(
                            self._contract(view, hands, view.seat, contract, level), value)[0]
                        for hands, value in exact)
        return "expected score", values


class ExpertBot:
    """Sampling + exact solving (perfect-information Monte Carlo), within a time budget.

    Without a budget a decision takes ``samples`` worlds: a seed gives the same play on
    any machine. With ``budget_ms`` the bot is anytime: it keeps sampling worlds until the
    budget is spent (or the best card is clear, :data:`CLEAR_Z` standard errors ahead of
    the next), solving each world exactly as soon as its expected solve time, learned
    from the decisions so far, lets :data:`EXACT_WORLDS` worlds fit in the budget, and
    by compiled rollouts before; its bids are the model's (:data:`BUDGET_BIDS_BY_MODEL`),
    or with ``bid_worlds`` given, the sampled bidder's within ``bid_budget_ms`` (default:
    the same)."""

    name = "expert"

    def __init__(self, seed: int | None = None, samples: int = 16,
                 budget_s: float | None = None, min_samples: int = 6, solve_cards: int = 24,
                 rollouts_per_card: int = 64, weighted: bool = True,
                 bid_worlds: int | None = None, budget_ms: float | None = None,
                 bid_budget_ms: float | None = None, misfit_weight: float = 1.0,
                 threads: int = 1, model_middle: float = 0.0, model_last: float = 0.0,
                 objective: str = "score") -> None:
        """``samples`` worlds per decision: a fixed number, so that a seed gives the same
        play on any machine; with ``budget_s`` the bot stops sampling when the time is up
        (after ``min_samples``) instead. ``budget_ms``: the anytime mode above. Bids
        from solved deals (:class:`SampledBidder`, ``bid_worlds`` a decision; default:
        ``AUCTION_WORLDS`` / ``CLASSIC_WORLDS``; with ``budget_ms``, the model's unless
        ``bid_worlds`` is given: :data:`BUDGET_BIDS_BY_MODEL`); ``bid_worlds=0`` bids with
        the heuristic's model. ``misfit_weight``: in auction games, a world's weight
        is multiplied by it for each other seat's bid that the bidding model would not
        have made with that seat's hand there (:func:`auction_fit`; 1: the bids are not
        read in card play). ``threads``: the solver's threads for one world's cards (the
        kernel runs without the GIL): more worlds within a budget on a machine with cores
        to spare, as colver's search uses every core. ``model_middle``, ``model_last``:
        the worlds are weighted by how likely the others' plays are under
        :class:`~rebelote.bots.knowledge.PlayModel` with these betas (0: each legal card
        as likely). ``objective``: what a card is worth in a world solved exactly:
        ``points`` (the side's card points from now on) or ``score`` (the hand's score
        by the rules: :class:`HandScorer`; four seats; the default, +5.7 a deal at 10 ms
        and +11.9 at 100 ms against ``points`` in self-play). Hints keep ``points``."""
        if objective not in ("points", "score"):
            raise ValueError(f"objective must be 'points' or 'score', not {objective!r}")
        if budget_ms is not None and budget_ms <= 0:
            raise ValueError(f"budget_ms must be positive, not {budget_ms!r}")
        self.rng = random.Random(seed)
        self.solver = Solver(threads)
        self.budget_ms = budget_ms
        self.bid_budget_ms = budget_ms if bid_budget_ms is None else bid_budget_ms
        self.heuristic: HeuristicBot
        if bid_worlds is None and budget_ms is not None and BUDGET_BIDS_BY_MODEL:
            self.heuristic = HeuristicBot(seed)  # the model: see BUDGET_BIDS_BY_MODEL
        elif bid_worlds is None:
            self.heuristic = SampledBidder(seed, self.solver, AUCTION_WORLDS, CLASSIC_WORLDS,
                                           budget_ms=self.bid_budget_ms)
        elif bid_worlds:
            self.heuristic = SampledBidder(seed, self.solver, bid_worlds,
                                           budget_ms=self.bid_budget_ms)
        else:
            self.heuristic = HeuristicBot(seed)
        self.stand_in = HeuristicBot(seed)
        """Plays while the solver compiles in the background (:mod:`rebelote.solver.warm`)."""
        self.budget_s = budget_s
        self.min_samples = min_samples
        self.max_samples = samples
        self.solve_cards = solve_cards
        self.rollouts_per_card = rollouts_per_card
        self.weighted = weighted
        self.misfit_weight = misfit_weight
        self.model_middle = model_middle
        self.model_last = model_last
        self.objective = objective
        self.samples_used = 0
        self.solved = False
        """Whether the last decision solved its worlds exactly (else rollouts)."""
        self.stopped = ""
        """Why the last anytime decision stopped: ``budget``, ``clear`` (the best card
        clear), ``cap`` (a world given up at :func:`cap_ms`) or ``worlds`` (no more)."""
        self._world_ms: dict[tuple[bool, int], float] = dict(WORLD_MS_PRIOR)
        """Expected ms of one world, by (solved exactly, cards left): learned as it plays."""

    def choose(self, view: SeatView) -> int:
        actions = actions_of(view)
        if len(actions) == 1:
            return actions[0]
        if not warm.ready():  # the solver still compiles elsewhere: never freeze
            return self.stand_in.choose(view)
        if view.phase == "auction" or view.rules.players == 2:
            return self.heuristic.choose(view)
        values = self.evaluate(view)
        if not values:
            return self.heuristic.choose(view)
        points = points_table(view.contract, view.rules.all_trump_points)
        return max(actions, key=lambda c: (values[c], -points[c], -c))

    def _world_cost(self, exact: bool, tricks_left: int) -> float:
        """Expected ms of one world solved exactly (or by rollouts), ``tricks_left``."""
        key = (exact, tricks_left)
        if key in self._world_ms:
            return self._world_ms[key]
        near = min(self._world_ms, key=lambda k: (k[0] != exact, abs(k[1] - tricks_left)))
        return self._world_ms[near]

    def _learn_cost(self, exact: bool, tricks_left: int, ms: float) -> None:
        key = (exact, tricks_left)
        old = self._world_ms.get(key)
        self._world_ms[key] = ms if old is None else 0.7 * old + 0.3 * ms

    def evaluate(self, view: SeatView) -> dict[Card, float]:
        """Expected points (for the seat's side, from now on) of each legal card."""
        n = view.rules.players
        me = view.seat
        my_team = side_of(me, n, view.taker)
        k = knowledge_of(view)
        cards_left = view.hand.bit_count() + sum(k.counts[s] for s in range(n) if s != me)
        legal = list(view.legal_actions)
        tricks_left = -(-cards_left // n)
        start = time.perf_counter()
        anytime = self.budget_ms is not None
        if anytime:
            budget = float(self.budget_ms or 0.0)
            cost = self._world_cost(True, tricks_left)
            exact = cost * EXACT_WORLDS <= budget
            max_samples = MAX_WORLDS
            deadline = start + budget / 1000
        else:
            exact = cards_left <= self.solve_cards
            max_samples = self.max_samples
            deadline = start + (self.budget_s or 0.0)
        likelihood = PlayModel(view, self.model_middle, self.model_last)
        scorer = (HandScorer(view, my_team) if exact and self.objective == "score"
                  and n == 4 and view.taker >= 0 else None)
        sums = dict.fromkeys(legal, 0.0)
        evidence = Evidence(legal)
        total_weight = 0.0
        samples = 0
        self.stopped = "worlds"
        while samples < max_samples:
            t = time.perf_counter()
            if anytime and samples >= 1:
                if t + self._world_cost(exact, tricks_left) / 1000 > deadline:
                    self.stopped = "budget"
                    break
                if samples >= MIN_WORLDS and samples % 4 == 0 and evidence.clear():
                    self.stopped = "clear"
                    break
            try:
                hands = sample_hands(k, self.rng)
            except SamplingError:
                self.stopped = "worlds"
                break
            weight = likelihood(hands) if self.weighted else 1.0
            if self.misfit_weight != 1.0:
                weight *= auction_fit(view, hands, self.misfit_weight)
            pos = position_from_view(view, hands, my_team)
            values: dict[Card, float]
            if exact and anytime:  # a world that would overrun the budget is given up
                solved = self.solver.move_values_within(
                    pos, None, start + cap_ms(budget) / 1000)
                if solved is None:
                    self.stopped = "cap"
                    break
                values = {c: float(v) for c, v in solved.items()}
            elif exact:
                values = {c: float(v) for c, v in self.solver.move_values(pos).items()}
            else:
                seed = self.rng.getrandbits(31)
                values = {}
                for c in legal:
                    child, gain = child_position(pos, c)
                    values[c] = gain + rollouts(child, self.rollouts_per_card, seed)[my_team]
            if scorer is not None:
                belote = scorer.belote(hands)
                values = {c: scorer.value(int(v), belote) for c, v in values.items()}
            for c in legal:
                sums[c] += weight * values[c]
            total_weight += weight
            samples += 1
            if anytime:
                evidence.add(weight, values)
                self._learn_cost(exact, tricks_left, (time.perf_counter() - t) * 1000)
            elif (self.budget_s is not None and samples >= self.min_samples
                  and time.perf_counter() > deadline):
                break
        self.samples_used = samples
        self.solved = exact
        if samples == 0 or total_weight <= 0:
            return {}
        return {c: s / total_weight for c, s in sums.items()}


MIN_WORLDS = 6
"""Anytime mode: the best card may be declared clear only after this many worlds."""
EXACT_WORLDS = 2
"""Anytime mode: worlds are solved exactly (else valued by rollouts) when this many fit
in the budget, from the first trick on (six for the first two tricks before: at 100 ms,
exact from trick 1 with the model's bids scored +17.0 (−0.5..+34.6) against colver v2
over 300 deals, against +5.3 (−10.0..+20.6) over 500 before; self-play, 200 deals:
+17.9 (−4.1..+39.9) for exact from trick 1 alone)."""
BUDGET_BIDS_BY_MODEL = True
"""With a time budget the expert bids with the heuristic's model, not from solved deals:
at 100 ms the model's bids scored +27.0 (+7.1..+46.9) a deal against the sampled bidder's
in self-play (200 duplicate deals), +8.2 against colver v2 (300 deals, against +5.3), and
take no time (33 ms a bid on average before; colver, given our mean time, gets less).
Double-dummy values flatter the taker, and more deals only made the bias surer."""
MAX_WORLDS = 4000
"""Anytime mode: a cap on the worlds of one decision (distinct deals run out anyway)."""
CAP_FACTOR = 1.6
"""Anytime mode: a world solved exactly is given up (and the decision made from the
worlds so far) at this many budgets from the decision's start (the solver's deadline: the
worlds' costs vary, a full deal's solve took 5 to 300 ms); the same for a bid's solves."""
CAP_SLACK_MS = 8.0
"""... but at least this long before two budgets (the solver's threads returning, and
what the decision does after), and never before one budget. A 10 ms card took 20.5 ms
with the cap at 16 ms and 24.6 with it at 15 (the alarm thread then); with the search
reading the clock itself and the cap at 12, the longest of 9,289 cards (3 runs of 150
self-play deals) was 18.7 ms, but for one card the host held up (45.7 ms for 6.3 ms of
CPU)."""


def cap_ms(budget_ms: float) -> float:
    """When, from a decision's start, a world still being solved is given up (ms)."""
    return max(budget_ms, min(CAP_FACTOR * budget_ms, 2 * budget_ms - CAP_SLACK_MS))
CLEAR_Z = 3.0
"""Anytime mode: stop early once the best card is this many standard errors ahead."""
WORLD_MS_PRIOR: dict[tuple[bool, int], float] = {
    (True, 8): 35.0, (True, 7): 5.0, (True, 6): 1.2, (True, 5): 0.25,
    (True, 4): 0.06, (True, 3): 0.03, (True, 2): 0.02,
    (False, 8): 0.5, (False, 7): 0.4, (False, 6): 0.3, (False, 5): 0.2,
}
"""Anytime mode: first guesses of one world's ms, by (solved exactly, tricks left, the
current one included): the
mean over 40 contrée deals on this 2-core machine, one thread (solving every legal card
exactly, or 64 rollouts each; the means, not the medians: the first trick's solves have a
long tail, median 15 ms, p90 78, max 230); each bot then learns its own."""


def auction_fit(view: SeatView, hands: list[CardSet], misfit_weight: float) -> float:
    """How well the world ``hands`` (each seat's current cards) fits the auction:
    ``misfit_weight`` to the power of the other seats' suit bids that the bidding model
    would not make with the hand that seat then held (the lenient test the bidder's own
    sampled deals pass: the model's points at least the bid's value less 40)."""
    if view.rules.game != "auction" or view.rules.players != 4:
        return 1.0
    held = dealt_hands(view, hands)
    weight = 1.0
    for i, call in enumerate(view.calls):
        if not is_bid(call):
            continue
        seat = (view.first_hand + i) % 4
        level, contract = bid_of(call)
        if seat == view.seat or not has_trump_suit(contract):
            continue
        leads = (view.first_hand - seat) % 2 == 0
        if contract_points(held[seat], contract, leads) < 80 + 10 * level - 40:
            weight *= misfit_weight
    return weight


class Evidence:
    """The weighted worlds of one decision, kept as running sums, so that whether the
    best card is clear costs the same after 4,000 worlds as after 6 (the list of worlds
    recomputed made the early stop quadratic in the worlds)."""

    __slots__ = ("cards", "products", "same", "sums", "weight", "weights_squared")

    def __init__(self, cards: list[Card]) -> None:
        self.cards = cards
        self.weight = 0.0
        self.weights_squared = 0.0
        self.sums = [0.0] * len(cards)
        """Σ w·v(c) per card (in the order of ``cards``)."""
        self.products = [0.0] * (len(cards) * len(cards))
        """Σ w·v(a)·v(b) per pair of cards, a ≤ b (row a, column b)."""
        self.same = {(a, b) for a in range(len(cards)) for b in range(a + 1, len(cards))}
        """Pairs whose values were equal in every world so far: the same card to us."""

    def add(self, weight: float, values: dict[Card, float]) -> None:
        self.weight += weight
        self.weights_squared += weight * weight
        vals = [values[c] for c in self.cards]
        k = len(vals)
        sums, products = self.sums, self.products
        for a in range(k):
            wa = weight * vals[a]
            sums[a] += wa
            row = a * k
            for b in range(a, k):
                products[row + b] += wa * vals[b]
        if self.same:
            self.same = {(a, b) for a, b in self.same if vals[a] == vals[b]}

    def clear(self) -> bool:
        """Whether the best card on average is :data:`CLEAR_Z` standard errors ahead of
        every other, the differences taken world by world (paired), the worlds weighted
        (their effective number by Kish's formula)."""
        weight = self.weight
        if weight <= 0 or self.weights_squared <= 0:
            return False
        n_eff = weight * weight / self.weights_squared
        if n_eff < 2:
            return False
        k = len(self.cards)
        sums, p = self.sums, self.products
        best = max(range(k), key=lambda a: sums[a])
        for c in range(k):
            if c == best or (min(best, c), max(best, c)) in self.same:
                continue  # the same value in every world: either card will do
            lo, hi = min(best, c), max(best, c)
            mean = (sums[best] - sums[c]) / weight
            square = (p[best * k + best] - 2 * p[lo * k + hi] + p[c * k + c]) / weight
            var = max(0.0, square - mean * mean)
            if mean <= CLEAR_Z * math.sqrt(var / n_eff):
                return False
        return True
