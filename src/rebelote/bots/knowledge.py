"""What one seat can know about the hidden hands, from its view alone.

Built from a :class:`~rebelote.view.SeatView` (never from the referee's state): the
cards played, the voids and trump limits the play obligations reveal, the cards shown
in announcements, the queen or king that a belote said still holds, the retourne in
the taker's hand. :func:`sample_hands` deals the unseen cards in a way consistent with
all of it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from rebelote.cards import (
    ALL_TRUMP,
    HIGHER,
    KING,
    NO_CONTRACT,
    NO_TRUMP,
    QUEEN,
    SUIT_MASK,
    WIN_VALUE,
    Card,
    CardSet,
    cards_of,
    points_table,
)
from rebelote.hand import deck_for
from rebelote.tricks import (
    TRUMP_STRENGTH,
    legal_cards,
    partner_of,
    side_of,
    strength,
    trick_winner,
)
from rebelote.view import SeatView, Trick


@dataclass
class Knowledge:
    """Constraints on the other seats' hands, as seen from ``view.seat``."""

    view: SeatView
    excluded: list[CardSet] = field(default_factory=list)
    """Per seat: cards it cannot hold."""
    known: list[CardSet] = field(default_factory=list)
    """Per seat: cards it certainly holds (still unplayed)."""
    counts: list[int] = field(default_factory=list)
    """Per seat: how many cards it still holds."""

    @property
    def unseen(self) -> CardSet:
        """Cards in play that this seat has not seen: held by the others."""
        v = self.view
        everything = sum(1 << c for c in deck_for(v.rules.players))
        return everything & ~v.hand & ~v.played_cards()


def _infer_from_trick(trick: Trick, players: int, contract: int, partner_free: bool,
                      undertrump_required: bool, excluded: list[CardSet]) -> None:
    """Voids and trump limits that the obligations of RULES.md §5 reveal in one trick."""
    if not trick.cards:
        return
    lead = trick.cards[0]
    led = lead >> 3
    win = WIN_VALUE[contract]
    best_card = lead
    best_value = win[lead]
    best_seat = trick.leader
    trump_like_led = led == contract or contract == ALL_TRUMP
    for i, card in enumerate(trick.cards[1:], start=1):
        seat = (trick.leader + i) % players
        suit = card >> 3
        if suit != led:
            excluded[seat] |= SUIT_MASK[led]  # did not follow: void in the suit led
            if contract < NO_TRUMP and suit != contract:
                partner_master = best_seat == partner_of(seat, players)
                if not (partner_free and partner_master):
                    if best_value >= TRUMP_STRENGTH and not undertrump_required:
                        # free to discard when unable to overtrump: no higher trump
                        excluded[seat] |= HIGHER[contract][best_card]
                    else:
                        excluded[seat] |= SUIT_MASK[contract]  # did not trump: none left
            elif contract < NO_TRUMP and suit == contract and best_value >= TRUMP_STRENGTH:
                partner_master = best_seat == partner_of(seat, players)
                if win[card] < best_value and not (partner_free and partner_master):
                    excluded[seat] |= HIGHER[contract][best_card]  # under-trumped: none higher
        elif trump_like_led and win[card] < best_value:
            excluded[seat] |= HIGHER[contract][best_card]  # did not go over: none higher
        v = strength(card, contract, led)
        if v > best_value:
            best_value = v
            best_card = card
            best_seat = seat


def knowledge_of(view: SeatView) -> Knowledge:
    """Everything ``view.seat`` may infer about the other hands."""
    rules = view.rules
    n = rules.players
    excluded = [0] * n
    known = [0] * n
    contract = view.contract
    me = view.seat
    if contract != NO_CONTRACT:
        for trick in (*view.tricks, *((view.trick,) if view.trick is not None else ())):
            _infer_from_trick(trick, n, contract, rules.partner_master_free,
                              rules.undertrump == "required", excluded)
    played = view.played_cards()
    # Announcement cards shown at trick 2 are held by their seat until played.
    for ann in view.announcements:
        if ann.cards is not None and ann.seat != me:
            known[ann.seat] |= ann.cards & ~played
    # Belote said with one card: the other of the pair is still in that hand.
    for seat, word, card in view.belote_said:
        if word == "belote" and seat != me:
            s = card >> 3
            pair = (1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN))
            known[seat] |= pair & ~played
    # The retourne went to the taker.
    if (view.retourne >= 0 and view.taker >= 0 and view.taker != me
            and not (played >> view.retourne) & 1):
        known[view.taker] |= 1 << view.retourne
    counts = [0] * n
    for seat in range(n):
        played_by = sum(1 for t in view.tricks for i in range(len(t.cards))
                        if t.seat_of(i, n) == seat)
        if view.trick is not None:
            played_by += sum(1 for i in range(len(view.trick.cards))
                             if view.trick.seat_of(i, n) == seat)
        counts[seat] = 8 - played_by
    for seat in range(n):
        excluded[seat] &= ~known[seat]
    return Knowledge(view, excluded, known, counts)


class SamplingError(RuntimeError):
    """No deal fits the constraints (they contradict each other)."""


def sample_hands(k: Knowledge, rng: random.Random, tries: int = 200) -> list[CardSet]:
    """One deal of the unseen cards to the other seats that fits everything known:
    each seat gets its count, its known cards, and none of its excluded cards."""
    view = k.view
    n = view.rules.players
    if view.phase != "play" or n == 2:
        raise SamplingError("hands are sampled in the play of 3- and 4-player games")
    me = view.seat
    unseen = k.unseen
    free_cards = unseen
    base = [0] * n
    base[me] = view.hand
    need = list(k.counts)
    need[me] = 0
    for seat in range(n):
        if seat == me:
            continue
        base[seat] = k.known[seat]
        need[seat] -= k.known[seat].bit_count()
        free_cards &= ~k.known[seat]
    cards = cards_of(free_cards)
    others = [s for s in range(n) if s != me]
    # how many seats may hold each card: the most constrained are dealt first
    holders = {c: sum(1 for s in others if not (k.excluded[s] >> c) & 1) for c in cards}
    for _ in range(tries):
        rng.shuffle(cards)
        cards.sort(key=holders.__getitem__)
        hands = base[:]
        left = need[:]
        ok = True
        for c in cards:
            allowed = [s for s in others if left[s] > 0 and not (k.excluded[s] >> c) & 1]
            if not allowed:
                ok = False
                break
            weights = [left[s] for s in allowed]
            seat = rng.choices(allowed, weights)[0]
            hands[seat] |= 1 << c
            left[seat] -= 1
        if ok and all(x == 0 for x in left):
            return hands
    raise SamplingError("no deal of the unseen cards fits what this seat knows")


def dealt_hands(view: SeatView, hands: list[CardSet]) -> list[CardSet]:
    """Each seat's cards before the hand's first trick, in the world ``hands`` (each
    seat's current cards): its current cards and those it played."""
    n = view.rules.players
    held = list(hands)
    for trick in (*view.tricks, *((view.trick,) if view.trick is not None else ())):
        for i, card in enumerate(trick.cards):
            held[trick.seat_of(i, n)] |= 1 << card
    return held


def play_likelihood(view: SeatView, hands: list[CardSet]) -> float:
    """How likely the other seats' observed cards are in the world ``hands`` (each
    seat's current cards), if each player picked among its legal cards at random:
    replaying the hand there, the product of 1 / (number of legal cards) over the other
    seats' plays. Worlds where the observed play was forced weigh more. The legal cards
    come from the pure trick rules (:func:`rebelote.tricks.legal_cards`), no referee."""
    return PlayModel(view, 0.0, 0.0)(hands)


class PlayModel:
    """How likely the other seats' observed plays are in a world, if each picked among
    its legal cards with odds that favour the points a sensible player goes for:
    ``exp(beta * score)``, where a card's score is the points on the trick after it
    (its own included), counted for the player's side if the trick would then be its
    side's and against it if not. ``last``: the trick's last card (its outcome is
    settled); ``middle``: the second and third (the outcome can still change); a lead
    is taken as chosen at random. ``middle = last = 0`` is :func:`play_likelihood`.

    A 10 thrown under the opponents' ace while the player could have followed with a
    7 is unlikely from anyone: worlds where it held the 7 weigh less. What depends only
    on the view (each play's trick so far, its odds) is computed once per decision;
    a world costs its legal sets and a few look-ups."""

    __slots__ = ("_odds", "_plays", "_points", "_sides", "rules", "view")

    def __init__(self, view: SeatView, middle: float, last: float) -> None:
        self.view = view
        self.rules = view.rules
        n = view.rules.players
        contract = view.contract
        self._points = points_table(contract, view.rules.all_trump_points)
        self._sides = [side_of(s, n, view.taker) for s in range(n)]
        self._plays: list[tuple[int, Card, list[Card], bool, float, int]] = []
        """Each play of the hand in order: seat, card, the trick before it, whether the
        seat's partner won that trick so far, beta, the points on it."""
        self._odds: list[dict[Card, float]] = []
        tricks = [*view.tricks, *((view.trick,) if view.trick is not None else ())]
        for trick in tricks:
            for i, card in enumerate(trick.cards):
                seat = trick.seat_of(i, n)
                so_far = list(trick.cards[:i])
                partner_master = (n == 4 and bool(so_far) and trick_winner(
                    trick.leader, so_far, contract, n) == partner_of(seat, n))
                beta = 0.0 if i == 0 else last if i == n - 1 else middle
                on_trick = sum(self._points[c] for c in so_far)
                self._plays.append((seat, card, so_far, partner_master, beta, on_trick))
                self._odds.append({})

    def _odd(self, k: int, card: Card) -> float:
        """The unnormalized odds of play ``k``'s seat choosing ``card`` there."""
        odds = self._odds[k]
        value = odds.get(card)
        if value is None:
            seat, _, so_far, _, beta, on_trick = self._plays[k]
            n = self.rules.players
            leader = (seat - len(so_far)) % n
            winner = trick_winner(leader, [*so_far, card], self.view.contract, n)
            score = on_trick + self._points[card]
            if self._sides[winner] != self._sides[seat]:
                score = -score
            value = odds[card] = math.exp(beta * score)
        return value

    def __call__(self, hands: list[CardSet]) -> float:
        """The likelihood (up to a constant) of the observed play in world ``hands``."""
        view, rules = self.view, self.rules
        held = dealt_hands(view, hands)
        weight = 1.0
        for k, (seat, card, so_far, partner_master, beta, _) in enumerate(self._plays):
            if seat != view.seat:
                legal = legal_cards(held[seat], so_far, view.contract, partner_master,
                                    rules.undertrump, rules.partner_master_free)
                if beta == 0.0:
                    weight /= legal.bit_count()
                else:
                    total = 0.0
                    rest = legal
                    while rest:
                        low = rest & -rest
                        total += self._odd(k, low.bit_length() - 1)
                        rest ^= low
                    weight *= self._odd(k, card) / total
            held[seat] &= ~(1 << card)
        return weight
