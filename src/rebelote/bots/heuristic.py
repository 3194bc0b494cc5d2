"""The heuristic level: plays like a decent club player, from its view only.

It counts trumps and tracks voids (:mod:`rebelote.bots.knowledge`), draws trumps when its
side took, leads its masters, loads points on a partner's sure trick, wins cheaply or
loses cheaply, and bids from hand strength.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

from rebelote.actions import is_bid
from rebelote.bots import actions_of
from rebelote.bots.knowledge import Knowledge, knowledge_of
from rebelote.cards import (
    ACE,
    ALL_TRUMP,
    HIGHER,
    JACK,
    KING,
    NINE,
    NO_TRUMP,
    QUEEN,
    SUIT_MASK,
    TEN,
    WIN_VALUE,
    Card,
    CardSet,
    cards_of,
    points_table,
)
from rebelote.hand import (
    BID_VALUES,
    CALL_SPADES,
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    SURCOINCHE,
    TAKE,
    bid_action,
    bid_of,
)
from rebelote.scoring import HandOutcome, score_outcome
from rebelote.tricks import (
    TRUMP_STRENGTH,
    partner_of,
    side_of,
    strength,
    team_of,
    winning_index,
)
from rebelote.view import SeatView

# Strength of a card as trump (J 9 A 10 K Q 8 7) and as a plain card, in "tricks".
_TRUMP_WEIGHT = {JACK: 4.0, NINE: 3.0, ACE: 2.0, TEN: 1.5, 6: 1.0, 5: 1.0, 1: 0.5, 0: 0.5}
TAKE_THRESHOLD = 6.0
NAME_THRESHOLD = 6.5
CONTRACT_SD = 36.0
"""Spread of the points a contract makes around :func:`contract_points` (the residual
of the fit: mostly the partner's hand, which the bidder does not see)."""


@dataclass(frozen=True, slots=True)
class AuctionStyle:
    """How the heuristic bids in auction games. The defaults were tuned with
    ``python -m bench.bid_tuning`` (duplicate auctions against colver's bidder, scored
    by exact solves calibrated on real play); the measurements are in docs/bots.md."""

    make_probability: float = 0.64
    """Bid up to the highest level the contract makes with this probability."""
    lowest_level: bool = True
    """Bid the lowest level that outbids (True) or the highest level reachable."""
    coinche_strength: float = 7.0
    """Coinche an opposing suit contract of ``coinche_level`` or more with this trump
    strength in its suit (:func:`suit_strength`)."""
    coinche_level: int = 0
    """Index in ``BID_VALUES`` (0: 80, 3: 110)."""
    partner_support: float = 20.0
    """Points a partner's bid in the suit adds to the estimate."""
    outbid_probability: float | None = None
    """Over an opponent's bid: the make probability required instead (passing leaves
    them the contract); None: :attr:`make_probability`."""

# contract_points: a linear fit of the exact (double-dummy) card points of the taking
# side on features of the taker's hand alone, over 2,400 random deals and contracts
# (contrée rules; R² 0.32, residual sd 36 points). Belote is added by the caller's rules.
_FIT = {"const": -1.37, "trumps": 23.24, "trumps2": -1.70, "J": 30.52, "9": 15.76,
        "A": 7.32, "10": 3.34, "side_aces": 14.53, "side_ace_ten": 4.99,
        "bare_tens": -4.12, "voids": 10.50, "singletons": 3.76, "leads": 12.94}


def contract_points(hand: CardSet, trump: int, leads: bool) -> float:
    """Expected card points (dix de der included) of the side that takes with ``trump``,
    from the taker's hand alone; ``leads``: the side leads the first trick."""
    suits = [[c & 7 for c in cards_of(hand) if c >> 3 == s] for s in range(4)]
    t = suits[trump]
    side = [suits[s] for s in range(4) if s != trump]
    n = len(t)
    f = _FIT
    points = f["const"] + f["trumps"] * n + f["trumps2"] * n * n
    points += f["J"] * (JACK in t) + f["9"] * (NINE in t) + f["A"] * (ACE in t)
    points += f["10"] * (TEN in t)
    points += f["side_aces"] * sum(ACE in o for o in side)
    points += f["side_ace_ten"] * sum(TEN in o and ACE in o for o in side)
    points += f["bare_tens"] * sum(o == [TEN] for o in side)
    points += f["voids"] * sum(not o for o in side) + f["singletons"] * sum(len(o) == 1
                                                                            for o in side)
    if (KING in t) and (QUEEN in t):
        points += 20  # belote counts towards the contract
    return points + f["leads"] * leads


def suit_strength(hand: CardSet, trump: int, extra: int = -1) -> float:
    """How strong ``hand`` (plus card ``extra``, the retourne) is with ``trump`` as trump."""
    cards = cards_of(hand | ((1 << extra) if extra >= 0 else 0))
    score = 0.0
    trumps = [c for c in cards if c >> 3 == trump]
    for c in trumps:
        score += _TRUMP_WEIGHT[c & 7]
    if len(trumps) >= 4:
        score += 1.0 * (len(trumps) - 3)
    if {trump * 8 + 5, trump * 8 + 6} <= set(cards):
        score += 1.0  # belote
    for c in cards:
        if c >> 3 == trump:
            continue
        rank = c & 7
        if rank == ACE:
            score += 1.5
        elif rank == TEN and any(x == c + 4 for x in cards):  # 10 guarded by its ace
            score += 0.7
    return score


_QUANTILES = tuple(NormalDist().inv_cdf((k + 0.5) / 16) for k in range(16))


def bid_expectation(view: SeatView, action: int) -> float:
    """Auction games: the expected score difference (our side's minus the other's) of
    the deal if the bid ``action`` became the contract, by the rules' own scoring, with
    the points made drawn from the :func:`contract_points` model (16 quantiles)."""
    level, contract = bid_of(action)
    if contract >= NO_TRUMP:
        return 0.0  # no model for sans / tout atout contracts
    me = view.seat
    hand = view.hand
    leads = team_of(view.first_hand) == team_of(me)
    trumps = [c & 7 for c in cards_of(hand) if c >> 3 == contract]
    belote = 20 if KING in trumps and QUEEN in trumps else 0
    mean = contract_points(hand, contract, leads) - belote
    total = 0.0
    for z in _QUANTILES:
        made = max(0, min(162, round(mean + CONTRACT_SD * z)))
        capot = 0 if made == 162 else 1 if made == 0 else None
        outcome = HandOutcome(0, (made, 162 - made), capot, (0, 0),
                              (belote, 0), BID_VALUES[level] if level < CAPOT_LEVEL else
                              view.rules.capot_bid_value, level == CAPOT_LEVEL)
        scored = score_outcome(view.rules, outcome).scored
        total += scored[0] - scored[1]
    return total / len(_QUANTILES)


class HeuristicBot:
    """Club-player rules of thumb for every preset."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, style: AuctionStyle | None = None) -> None:
        self.rng = random.Random(seed)
        self.style = style or AuctionStyle()
        normal = NormalDist()
        self._make_z = normal.inv_cdf(self.style.make_probability)
        self._outbid_z = normal.inv_cdf(self.style.outbid_probability
                                        or self.style.make_probability)

    # -- auction ---------------------------------------------------------------------

    def choose(self, view: SeatView) -> int:
        actions = actions_of(view)
        if len(actions) == 1:
            return actions[0]
        if view.phase == "auction":
            return self.bid(view)
        return self.play(view, knowledge_of(view))

    def bid(self, view: SeatView) -> int:
        actions = view.legal_actions
        if view.rules.game == "auction":
            return self._auction_bid(view)
        if TAKE in actions:
            strength = suit_strength(view.hand, view.retourne >> 3, view.retourne)
            return TAKE if strength >= TAKE_THRESHOLD else PASS
        best, best_action = 0.0, PASS
        for action in actions:
            if CALL_SPADES <= action < CALL_SPADES + 4:
                strength = suit_strength(view.hand, action - CALL_SPADES)
                if strength > best:
                    best, best_action = strength, action
        return best_action if best >= NAME_THRESHOLD else PASS

    def _auction_bid(self, view: SeatView) -> int:
        actions = set(view.legal_actions)
        me = view.seat
        info = view.contract_info  # the highest bid so far and its bidder
        last_bid = bid_action(info.level, info.kind) if info is not None else -1
        bidder = info.bidder if info is not None else -1
        if SURCOINCHE in actions:
            return PASS
        if COINCHE in actions and last_bid >= 0 and self._coinches(view, last_bid, bidder):
            return COINCHE
        # Our best contract: the card points we expect with each trump (a normal law
        # fitted on exact solves of random deals), partner's bid in that suit as support.
        partner_level = -1
        if bidder >= 0 and bidder == partner_of(me):
            partner_level, partner_contract = bid_of(last_bid)
            if self._has_bid(view, me):
                return PASS  # one raise each: a raise already counts partner's strength
        z = self._outbid_z if bidder >= 0 and team_of(bidder) != team_of(me) else self._make_z
        best_level, best_contract = -1, 0
        for contract in range(4):
            support = partner_level >= 0 and contract == partner_contract
            level = self._reachable_level(view, contract, support, z)
            if level > best_level:
                best_level, best_contract = level, contract
        if best_level < 0:
            return PASS
        if partner_level >= 0 and best_contract != partner_contract:
            return PASS  # let partner play his suit
        # The lowest level that outbids: a higher contract adds its value when made but
        # costs more, and fails more, when not.
        levels = range(best_level + 1) if self.style.lowest_level else range(best_level, -1, -1)
        for lvl in levels:
            action = bid_action(lvl, best_contract)
            if action in actions:
                return action
        return PASS

    def _coinches(self, view: SeatView, bid: int, bidder: int) -> bool:
        """Whether to coinche the opponents' ``bid`` (made by ``bidder``): a suit
        contract of the style's level or more, with the style's trump strength in it."""
        level, contract = bid_of(bid)
        return (contract < NO_TRUMP and level >= self.style.coinche_level
                and suit_strength(view.hand, contract) >= self.style.coinche_strength)

    def _reachable_level(self, view: SeatView, contract: int, support: bool, z: float) -> int:
        """The highest level (index in ``BID_VALUES``; -1: not even 80) that a contract
        in ``contract`` taken by this seat makes with the probability whose normal quantile is
        ``z``, by the :func:`contract_points` model; ``support``: partner bid the suit."""
        leads = team_of(view.first_hand) == team_of(view.seat)  # our side leads trick 1
        mean = contract_points(view.hand, contract, leads)
        if support:
            mean += self.style.partner_support
        top = mean - CONTRACT_SD * z
        return min(int((top - 80) // 10), CAPOT_LEVEL - 1)

    @staticmethod
    def _has_bid(view: SeatView, seat: int) -> bool:
        return any(is_bid(a) and (view.first_hand + i) % view.rules.players == seat
                   for i, a in enumerate(view.calls))

    # -- play ------------------------------------------------------------------------

    def play(self, view: SeatView, k: Knowledge) -> Card:
        legal = list(view.legal_actions)
        contract = view.contract
        points = points_table(contract, view.rules.all_trump_points)
        win = WIN_VALUE[contract]
        unseen = k.unseen
        n = view.rules.players
        me = view.seat
        my_team = side_of(me, n, view.taker)
        trick = view.trick

        def master(c: Card) -> bool:
            return HIGHER[contract][c] & unseen == 0

        if trick is None or not trick.cards:
            return self._lead(view, k, legal, points, master, my_team)
        led = trick.cards[0] >> 3
        best_index = winning_index(trick.cards, contract)
        best_card = trick.cards[best_index]
        best_seat = trick.seat_of(best_index, n)
        best_value = strength(best_card, contract, led)
        table_points = sum(points[c] for c in trick.cards)
        last = len(trick.cards) == n - 1
        partner_winning = side_of(best_seat, n, view.taker) == my_team and best_seat != me
        after_me = [(me + j) % n for j in range(1, n - len(trick.cards))]
        opponents_after = [s for s in after_me if side_of(s, n, view.taker) != my_team]

        def can_be_beaten(value: int, card: Card) -> bool:
            """Could an opponent playing after me still take the trick?"""
            for s in opponents_after:
                room = unseen & ~k.excluded[s]
                if value >= TRUMP_STRENGTH or contract in (NO_TRUMP, ALL_TRUMP):
                    if HIGHER[contract][card] & room:  # a higher card of the same suit
                        return True
                    continue
                if room & SUIT_MASK[led] & HIGHER[contract][card]:
                    return True
                if contract < NO_TRUMP and not room & SUIT_MASK[led] and room & SUIT_MASK[contract]:
                    return True  # void in the suit led, may trump
            return False

        if partner_winning:
            if last or not can_be_beaten(best_value, best_card):
                # Load points, keeping our own masters and trumps when we can.
                return max(legal, key=lambda c: (points[c] - (15 if c >> 3 == contract else 0)
                                                 - (8 if master(c) and points[c] >= 10 and
                                                    c >> 3 != led else 0), -win[c]))
            return min(legal, key=lambda c: (points[c], win[c]))
        winners = [c for c in legal if strength(c, contract, led) > best_value]
        if winners:
            if last:
                return max(winners, key=lambda c: (points[c], -win[c]))
            safe = [c for c in winners if not can_be_beaten(strength(c, contract, led), c)]
            if safe:
                return min(safe, key=lambda c: (win[c] >= TRUMP_STRENGTH,
                                                points[c] if table_points < 10
                                                else -points[c], win[c]))
            if table_points >= 10:
                return max(winners, key=lambda c: win[c])
        return min(legal, key=lambda c: (points[c] + (6 if master(c) else 0)
                                         + (4 if c >> 3 == contract else 0), win[c]))

    def _lead(self, view: SeatView, k: Knowledge, legal: list[Card], points: tuple[int, ...],
              is_master: Callable[[Card], bool], my_team: int) -> Card:
        contract = view.contract
        n = view.rules.players
        unseen = k.unseen
        taking_side = side_of(view.taker, n, view.taker) == my_team
        if contract < NO_TRUMP:
            my_trumps = [c for c in legal if c >> 3 == contract]
            opponents = [s for s in range(n) if side_of(s, n, view.taker) != my_team]
            their_trumps = any(unseen & SUIT_MASK[contract] & ~k.excluded[s] for s in opponents)
            if taking_side and my_trumps and their_trumps:
                masters = [c for c in my_trumps if is_master(c)]
                if masters:
                    return max(masters, key=lambda c: WIN_VALUE[contract][c])
                if view.seat == view.taker and len(my_trumps) >= 3:
                    return min(my_trumps, key=lambda c: WIN_VALUE[contract][c])
        plain_masters = [c for c in legal if c >> 3 != contract and is_master(c)]
        if plain_masters:
            return max(plain_masters, key=lambda c: points[c])
        plain = [c for c in legal if c >> 3 != contract] or legal
        by_suit: dict[int, list[Card]] = {}
        for c in plain:
            by_suit.setdefault(c >> 3, []).append(c)
        longest = max(by_suit.values(), key=len)
        return min(longest, key=lambda c: (points[c], WIN_VALUE[contract][c]))
