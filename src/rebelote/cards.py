"""Cards as small ints and sets of cards as bitmasks in plain ints.

A card is ``suit * 8 + rank`` with suits ``S H D C`` (0..3) and ranks in the natural
order ``7 8 9 10 J Q K A`` (0..7), so a run of adjacent bits inside one suit's byte is a
sequence for announcements whatever the trump. A set of cards is the int with bit
``card`` set for each card in it.

A *contract* (its kind) is 0..3 for a trump suit, :data:`NO_TRUMP` (sans atout) or
:data:`ALL_TRUMP` (tout atout). Orders and points per contract are precomputed tables
so that legal moves and trick winners are a few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

Card = int
"""A card: ``suit * 8 + rank``, 0..31."""
CardSet = int
"""A set of cards: bit ``card`` set for each card in it."""
Suit = int
"""A suit: 0 spades, 1 hearts, 2 diamonds, 3 clubs."""

SPADES: Final = 0
HEARTS: Final = 1
DIAMONDS: Final = 2
CLUBS: Final = 3
SUITS: Final = (SPADES, HEARTS, DIAMONDS, CLUBS)

NO_TRUMP: Final = 4
"""The contract *sans atout*: every suit plain."""
ALL_TRUMP: Final = 5
"""The contract *tout atout*: every suit ranked like trump."""
CONTRACTS: Final = (SPADES, HEARTS, DIAMONDS, CLUBS, NO_TRUMP, ALL_TRUMP)
"""Every contract kind: the four trump suits, then sans atout and tout atout."""
NO_CONTRACT: Final = -1
"""No contract (yet): the auction is going on, or the hand was voided."""

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)
RANKS: Final = (SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE)

SUIT_LETTERS: Final = "SHDC"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES: Final = ("7", "8", "9", "10", "J", "Q", "K", "A")
RANK_WORDS: Final = ("seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")

SUIT_MASK: Final = tuple(0xFF << (8 * s) for s in SUITS)
RANK_MASK: Final = tuple(sum(1 << (8 * s + r) for s in SUITS) for r in RANKS)

# Strength inside a suit, 0 weakest .. 7 strongest.
TRUMP_ORDER: Final = (0, 1, 6, 4, 7, 2, 3, 5)  # 7 8 Q K 10 A 9 J  (J strongest)
PLAIN_ORDER: Final = (0, 1, 2, 6, 3, 4, 5, 7)  # 7 8 9 J Q K 10 A  (A strongest)

TRUMP_POINTS: Final = (0, 0, 14, 10, 20, 3, 4, 11)
PLAIN_POINTS: Final = (0, 0, 0, 10, 2, 3, 4, 11)
NO_TRUMP_POINTS: Final = (0, 0, 0, 10, 2, 3, 4, 19)
ALL_TRUMP_POINTS: Final = {
    # RULES.md §1 options for tout atout card values.
    "scaled": TRUMP_POINTS,  # 248 + 10 = 258, the hand scaled by 162/258
    "reduced13": (0, 0, 9, 5, 13, 2, 3, 6),  # J 13, 9 9, A 6, 10 5, K 3, Q 2
    "reduced14": (0, 0, 9, 5, 14, 1, 3, 6),  # J 14, 9 9, A 6, 10 5, K 3, Q 1
}

_RANK_INPUT: Final = {
    "A": ACE, "K": KING, "Q": QUEEN, "J": JACK, "10": TEN, "T": TEN,
    "9": NINE, "8": EIGHT, "7": SEVEN,
}
_SUIT_INPUT: Final = {"S": 0, "H": 1, "D": 2, "C": 3, "♠": 0, "♥": 1, "♦": 2, "♣": 3}


class CardError(ValueError):
    """A string that is not a card."""


BELOTE_PAIR: Final = tuple((1 << (s * 8 + KING)) | (1 << (s * 8 + QUEEN)) for s in range(4))
"""The king and queen of each suit: the belote when the suit is trump."""


_CARD_NAMES: Final = tuple(RANK_NAMES[c & 7] + SUIT_LETTERS[c >> 3] for c in range(32))


def card_name(card: Card) -> str:
    """Canonical notation: rank then suit letter, e.g. ``JS``, ``10H``."""
    if not 0 <= card < 32:
        raise CardError(f"{card!r} is not a card number (0..31)")
    return _CARD_NAMES[card]


def parse_card(text: str) -> Card:
    """Parse ``JS``, ``10h``, ``TS``, ``J♠``; raise :class:`CardError` otherwise."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a string such as 'JS', not {text!r}")
    t = text.strip().upper()
    if len(t) < 2 or t[:-1] not in _RANK_INPUT or t[-1] not in _SUIT_INPUT:
        raise CardError(f"{text!r} is not a card (expected a rank A K Q J 10 9 8 7 "
                        "then a suit S H D C)")
    return _SUIT_INPUT[t[-1]] * 8 + _RANK_INPUT[t[:-1]]


def parse_suit(text: str) -> Suit:
    """Parse a suit letter or symbol (``S``, ``h``, ``♦``)."""
    t = text.strip().upper()
    if t not in _SUIT_INPUT:
        raise CardError(f"{text!r} is not a suit (expected S, H, D or C)")
    return _SUIT_INPUT[t]


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The set holding these cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# Cards of every byte value, so that a mask is listed with four table look-ups.
_BYTE_CARDS: Final = tuple(tuple(r for r in range(8) if b >> r & 1) for b in range(256))
_SUIT_BYTE_CARDS: Final = tuple(
    tuple(tuple(s * 8 + r for r in _BYTE_CARDS[b]) for b in range(256)) for s in SUITS
)


def cards_of(mask: CardSet) -> list[Card]:
    """The cards of a set, in increasing card order."""
    return [
        *_SUIT_BYTE_CARDS[0][mask & 0xFF],
        *_SUIT_BYTE_CARDS[1][mask >> 8 & 0xFF],
        *_SUIT_BYTE_CARDS[2][mask >> 16 & 0xFF],
        *_SUIT_BYTE_CARDS[3][mask >> 24 & 0xFF],
    ]


def cards_tuple(mask: CardSet) -> tuple[Card, ...]:
    """The cards of a set as a tuple, in increasing card order (faster than
    ``tuple(cards_of(mask))``)."""
    t = _SUIT_BYTE_CARDS
    return t[0][mask & 0xFF] + t[1][mask >> 8 & 0xFF] + t[2][mask >> 16 & 0xFF] + \
        t[3][mask >> 24 & 0xFF]


def count(mask: CardSet) -> int:
    """How many cards a set holds."""
    return mask.bit_count()


def format_cards(mask: CardSet) -> str:
    """Cards of a set in canonical notation, separated by spaces."""
    return " ".join(card_name(c) for c in cards_of(mask))


def is_trump_ranked(contract: int, suit: Suit) -> bool:
    """Whether cards of ``suit`` follow the trump order under ``contract``."""
    return contract in (ALL_TRUMP, suit)


def order_in(contract: int, card: Card) -> int:
    """Strength of a card inside its suit under ``contract`` (0 weakest .. 7 strongest)."""
    s = card >> 3
    return TRUMP_ORDER[card & 7] if is_trump_ranked(contract, s) else PLAIN_ORDER[card & 7]


def _higher_table(contract: int) -> tuple[CardSet, ...]:
    table = []
    for c in range(32):
        s = c >> 3
        mine = order_in(contract, c)
        table.append(mask_of(s * 8 + r for r in RANKS if order_in(contract, s * 8 + r) > mine))
    return tuple(table)


HIGHER: Final = tuple(_higher_table(m) for m in CONTRACTS)
"""``HIGHER[contract][card]``: the cards of the same suit that beat ``card`` under
``contract``."""


def _win_table(contract: int) -> tuple[int, ...]:
    # 16 + order for a trump (beats anything), 1 + order for any other card; a card
    # neither trump nor of the suit led counts as 0 when a trick is resolved.
    return tuple((16 + order_in(contract, c)) if contract == (c >> 3)
                 else (1 + order_in(contract, c)) for c in range(32))


WIN_VALUE: Final = tuple(_win_table(m) for m in CONTRACTS)
"""``WIN_VALUE[contract][card]``: trick strength; a trump is >= 16."""


HELD_SUITS: Final = (SPADES, HEARTS, CLUBS, DIAMONDS)
"""The suits in the order a hand is held: the colours alternate."""


def held_order(mask: CardSet, contract: int = NO_CONTRACT) -> list[Card]:
    """The cards of ``mask`` as a player holds them: by suit (colours alternating, the
    trump suit first), the strongest first within each suit under ``contract``
    (:data:`NO_CONTRACT` before one is known: the plain order)."""
    win = WIN_VALUE[contract if contract >= 0 else NO_TRUMP]
    suits = sorted(HELD_SUITS, key=lambda s: (s != contract, HELD_SUITS.index(s)))
    return sorted(cards_of(mask), key=lambda c: (suits.index(c >> 3), -win[c]))


def points_table(contract: int, all_trump_points: str = "scaled") -> tuple[int, ...]:
    """Card points of each card under ``contract`` (tout atout per RULES.md §1 option)."""
    return _POINTS_TABLES[contract, all_trump_points]


def _points_table(contract: int, all_trump_points: str) -> tuple[int, ...]:
    if contract == NO_TRUMP:
        return tuple(NO_TRUMP_POINTS[c & 7] for c in range(32))
    if contract == ALL_TRUMP:
        values = ALL_TRUMP_POINTS[all_trump_points]
        return tuple(values[c & 7] for c in range(32))
    return tuple(
        TRUMP_POINTS[c & 7] if (c >> 3) == contract else PLAIN_POINTS[c & 7] for c in range(32)
    )


_POINTS_TABLES: Final = {
    (m, ta): _points_table(m, ta) for m in CONTRACTS for ta in ALL_TRUMP_POINTS
}


def has_trump_suit(contract: int) -> bool:
    """Whether ``contract`` makes one suit trump (not sans atout, tout atout, or none)."""
    return SPADES <= contract <= CLUBS


def contract_name(contract: int) -> str:
    """``S H D C`` for a trump suit, ``SA`` or ``TA``."""
    if has_trump_suit(contract):
        return SUIT_LETTERS[contract]
    return "SA" if contract == NO_TRUMP else "TA"


def parse_contract(text: str) -> int:
    """Parse a contract: ``S H D C`` (or symbols), ``SA``, ``TA``."""
    t = text.strip().upper()
    if t == "SA":
        return NO_TRUMP
    if t == "TA":
        return ALL_TRUMP
    return parse_suit(t)
