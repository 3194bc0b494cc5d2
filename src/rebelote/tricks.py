"""The trick rules (RULES.md §5) and the seats' teams, over plain values.

No state and no referee: a hand is a :data:`~rebelote.cards.CardSet`, a trick the
cards played to it in order, a contract ``0..3`` (that suit trump),
:data:`~rebelote.cards.NO_TRUMP` or :data:`~rebelote.cards.ALL_TRUMP`. The referee
(:class:`~rebelote.hand.HandState`), the bots, the solver and the clients all ask here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rebelote.cards import (
    ALL_TRUMP,
    HIGHER,
    NO_TRUMP,
    SUIT_MASK,
    WIN_VALUE,
    Card,
    CardSet,
    points_table,
)

LAST_TRICK_BONUS: Final = 10
"""The dix de der: the last trick's winner scores 10 more."""
CARD_POINTS_TOTAL: Final = 162
"""Card points of a hand with the dix de der (the scale every contract is scored on)."""
ALL_TRUMP_RAW_TOTAL: Final = 258
"""Tout atout with trump values ('scaled'): 248 + 10 raw points, scaled to 162."""
TRUMP_STRENGTH: Final = 16
"""A trump's :func:`strength` is at least this; any other card's is below it."""


# -- teams ----------------------------------------------------------------------------

def team_of(seat: int, players: int = 4) -> int:
    """The team of ``seat``: ``seat & 1`` in the four-player partnerships; with two or
    three players each seat is its own team (its own number)."""
    return seat & 1 if players == 4 else seat


def teams(players: int = 4) -> tuple[int, ...]:
    """The team of each seat (:func:`team_of` of 0..players-1)."""
    return tuple(team_of(s, players) for s in range(players))


def partner_of(seat: int, players: int = 4) -> int:
    """``seat``'s partner, -1 where nobody has one (two or three players)."""
    return (seat + 2) % 4 if players == 4 else -1


def side_of(seat: int, players: int, taker: int) -> int:
    """The side a trick won by ``seat`` counts for: its team with two or four players,
    with three the taker's side 0 against the defense's 1."""
    if players == 3:
        return 0 if seat == taker else 1
    return team_of(seat, players)


_SIDES: Final = {n: tuple(tuple(side_of(s, n, taker) for s in range(n))
                         for taker in range(-1, n)) for n in (2, 3, 4)}


def sides(players: int, taker: int) -> tuple[int, ...]:
    """:func:`side_of` of each seat, ``taker`` -1 before there is one (a table: the
    referee asks at every hand)."""
    return _SIDES[players][taker + 1]


def next_seat(seat: int, players: int = 4) -> int:
    """The seat that plays after ``seat``."""
    return (seat + 1) % players


# -- who wins -------------------------------------------------------------------------

def strength(card: Card, contract: int, led: int) -> int:
    """How strongly ``card`` plays to a trick whose suit led is ``led``: a trump is
    >= :data:`TRUMP_STRENGTH`, a card of the suit led 1..8, any other card 0."""
    v: int = WIN_VALUE[contract][card]
    if v < TRUMP_STRENGTH and card >> 3 != led:
        return 0
    return v


STRENGTH: Final = tuple(
    tuple(tuple(strength(c, contract, led) for c in range(32)) for led in range(4))
    for contract in range(6))
"""``STRENGTH[contract][led][card]``: :func:`strength` as a table, for the hot loops."""


def beats(card: Card, best: Card, contract: int) -> bool:
    """Whether ``card`` beats ``best``, the card winning the trick so far (its suit or a
    trump: the trick's suit led is ``best``'s unless ``best`` is a trump, and then a
    card can only win by being a higher trump)."""
    return strength(card, contract, best >> 3) > WIN_VALUE[contract][best]


def winning_index(cards: Sequence[Card], contract: int) -> int:
    """Index in ``cards`` (a trick in play order) of the card winning it so far; -1 for
    no cards."""
    if not cards:
        return -1
    win = WIN_VALUE[contract]
    led = cards[0] >> 3
    best_i = 0
    best_v = win[cards[0]]
    for i in range(1, len(cards)):
        c = cards[i]
        v = win[c]
        if v < TRUMP_STRENGTH and c >> 3 != led:
            continue
        if v > best_v:
            best_i, best_v = i, v
    return best_i


def trick_winner(leader: int, cards: Sequence[Card], contract: int, players: int = 4) -> int:
    """The seat winning the trick so far (the trick's winner once complete); -1 for an
    empty trick. ``leader`` led ``cards[0]``; the others follow in seat order."""
    i = winning_index(cards, contract)
    return -1 if i < 0 else (leader + i) % players


# -- what may be played ---------------------------------------------------------------

def legal_against(
    hand: CardSet, led: int, best: Card, contract: int, partner_master: bool,
    undertrump: str = "required", partner_master_free: bool = True,
) -> CardSet:
    """The cards of ``hand`` that may be played to a trick whose suit led is ``led`` and
    whose winning card so far is ``best`` (RULES §5); ``led`` -1: the player leads.

    ``partner_master``: the player's partner wins the trick so far. ``undertrump`` and
    ``partner_master_free`` are the :class:`~rebelote.rules.Rules` options of those names.
    """
    if led < 0:
        return hand
    follow = hand & SUIT_MASK[led]
    if led == contract or contract == ALL_TRUMP:  # trump led: follow, overtrump if you can
        if follow:
            return (follow & HIGHER[contract][best]) or follow
        return hand
    if follow:
        return follow
    if contract == NO_TRUMP:
        return hand
    trumps = hand & SUIT_MASK[contract]
    if not trumps or (partner_master and partner_master_free):
        return hand
    if best >> 3 == contract:  # trumped already: overtrump, else pisser (or discard)
        over = trumps & HIGHER[contract][best]
        if over:
            return over
        return trumps if undertrump == "required" else hand
    return trumps


def legal_cards(
    hand: CardSet, trick: Sequence[Card], contract: int, partner_master: bool = False,
    undertrump: str = "required", partner_master_free: bool = True,
) -> CardSet:
    """The cards of ``hand`` that may be played to ``trick`` (the cards played to it so
    far, in order) under ``contract``; see :func:`legal_against` for the options."""
    if not trick:
        return hand
    best = trick[winning_index(trick, contract)]
    return legal_against(hand, trick[0] >> 3, best, contract, partner_master, undertrump,
                         partner_master_free)


# -- what a trick is worth ------------------------------------------------------------

def trick_points(cards: Sequence[Card], contract: int, all_trump_points: str = "scaled",
                 last: bool = False) -> int:
    """Card points of a trick under ``contract`` (raw: tout atout 'scaled' counts trump
    values; see :func:`scale_all_trump`), with the dix de der when ``last``."""
    pts = points_table(contract, all_trump_points)
    total = LAST_TRICK_BONUS if last else 0
    for c in cards:
        total += pts[c]
    return total


def scales_points(contract: int, all_trump_points: str) -> bool:
    """Whether card points need :func:`scale_all_trump` (tout atout 'scaled')."""
    return contract == ALL_TRUMP and all_trump_points == "scaled"


def raw_total(contract: int, all_trump_points: str = "scaled") -> int:
    """Raw card points of a whole hand with the dix de der: 162, 258 in tout atout
    'scaled'."""
    return ALL_TRUMP_RAW_TOTAL if scales_points(contract, all_trump_points) else \
        CARD_POINTS_TOTAL


def scale_all_trump(raw: int) -> int:
    """Tout atout 'scaled': raw points (of 258) on the 162 scale, nearest, halves up."""
    return (raw * CARD_POINTS_TOTAL + ALL_TRUMP_RAW_TOTAL // 2) // ALL_TRUMP_RAW_TOTAL


def scaled_pair(points: tuple[int, int], contract: int, all_trump_points: str,
                taker_side: int) -> tuple[int, int]:
    """Both sides' card points on the 162 scale: unchanged but in tout atout 'scaled',
    where the takers' are rounded (:func:`scale_all_trump`) and the defense gets the rest."""
    if not scales_points(contract, all_trump_points):
        return points
    mine = scale_all_trump(points[taker_side])
    other = CARD_POINTS_TOTAL - mine
    return (mine, other) if taker_side == 0 else (other, mine)
