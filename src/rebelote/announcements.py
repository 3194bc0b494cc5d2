"""Announcements (*annonces*, RULES.md §7): finding them in a hand and comparing them.

Sequences use the natural order A K Q J 10 9 8 7, which is the bit order of a suit's
byte, so a sequence is a run of adjacent bits. A card may serve in a carré and in a
sequence at once (a carré is a set of ranks, a sequence a run in one suit).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

from rebelote.cards import (
    ACE,
    EIGHT,
    JACK,
    KING,
    NINE,
    QUEEN,
    RANK_MASK,
    RANK_WORDS,
    SEVEN,
    SUIT_NAMES,
    TEN,
    CardSet,
    cards_of,
    format_cards,
)
from rebelote.errors import IllegalAnnouncement
from rebelote.tricks import team_of

CARRE_POINTS: Final = {JACK: 200, NINE: 150, ACE: 100, TEN: 100, KING: 100, QUEEN: 100}
# Carrés compare J > 9 > A > 10 > K > Q.
CARRE_ORDER: Final = {JACK: 6, NINE: 5, ACE: 4, TEN: 3, KING: 2, QUEEN: 1}


def sequence_points(length: int) -> int:
    """20 for a tierce, 50 for a cinquante, 100 for five or more."""
    return 20 if length == 3 else 50 if length == 4 else 100


@dataclass(frozen=True, slots=True)
class Announcement:
    """One declared combination: a sequence in one suit or a carré."""

    cards: CardSet
    kind: str  # "tierce", "cinquante", "cent" or "carre"
    points: int
    suit: int  # suit of a sequence; -1 for a carré
    top: int  # highest rank of a sequence, rank of a carré
    length: int

    @property
    def name(self) -> str:
        """Human name, e.g. ``tierce to the king of hearts`` or ``four jacks``."""
        if self.kind == "carre":
            return f"four {RANK_WORDS[self.top]}s".replace("sixs", "sixes")
        return f"{self.kind} to the {RANK_WORDS[self.top]} of {SUIT_NAMES[self.suit]}"

    def strength(self, contract: int, trump_sequence_wins: bool) -> tuple[int, int, int, int]:
        """Comparison key: carré over sequence, carré rank, length, top, in the trump suit
        of ``contract``."""
        if self.kind == "carre":
            return (2, CARRE_ORDER[self.top], 0, 0)
        in_trump = 1 if (trump_sequence_wins and self.suit == contract) else 0
        return (1, self.length, self.top, in_trump)

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "points": self.points, "cards": format_cards(self.cards).split()}


def _runs(byte: int) -> list[tuple[int, int]]:
    """Maximal runs of 3+ adjacent bits in a suit byte: (lowest rank, length)."""
    runs = []
    r = 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            if r - start >= 3:
                runs.append((start, r - start))
        else:
            r += 1
    return runs


_RUNS: Final = tuple(tuple(_runs(b)) for b in range(256))


def find_announcements(hand: CardSet) -> list[Announcement]:
    """Every announcement the hand holds: each maximal sequence and each scoring carré."""
    out: list[Announcement] = []
    for suit in range(4):
        for low, length in _RUNS[hand >> (8 * suit) & 0xFF]:
            cards = ((1 << length) - 1) << (8 * suit + low)
            kind = "tierce" if length == 3 else "cinquante" if length == 4 else "cent"
            out.append(Announcement(cards, kind, sequence_points(length), suit,
                                    low + length - 1, length))
    for rank in (JACK, NINE, ACE, TEN, KING, QUEEN):
        if hand & RANK_MASK[rank] == RANK_MASK[rank]:
            out.append(Announcement(RANK_MASK[rank], "carre", CARRE_POINTS[rank], -1, rank, 4))
    return out


def _candidates() -> list[tuple[CardSet, CardSet, int]]:
    """Every announcement's cards, the cards that must stay out of the same hand for it
    to stand as found (a sequence's neighbours: they would lengthen it), its points."""
    out = []
    for suit in range(4):
        for length in range(3, 9):
            for low in range(9 - length):
                cards = ((1 << length) - 1) << (8 * suit + low)
                around = (1 << (8 * suit + low - 1) if low else 0) | (
                    1 << (8 * suit + low + length) if low + length < 8 else 0)
                out.append((cards, around, sequence_points(length)))
    out.extend((RANK_MASK[rank], 0, points) for rank, points in CARRE_POINTS.items())
    return out


@cache
def team_totals() -> frozenset[int]:
    """Every announcement total one team can score: the sums of announcements that two
    partners' hands of 8 cards (no card in both) can hold together. 10, 30, 130, 460...
    are not among them. Found by search: each hand's possible announcements (at most 8
    cards, each sequence kept whole), then the pairs of hands without a common card."""
    candidates = _candidates()
    hands: dict[int, list[CardSet]] = {}

    def grow(start: int, held: CardSet, kept_out: CardSet, total: int) -> None:
        hands.setdefault(total, []).append(held)
        for i in range(start, len(candidates)):
            cards, around, points = candidates[i]
            more = held | cards
            if more.bit_count() <= 8 and not more & (kept_out | around):
                grow(i + 1, more, kept_out | around, total + points)

    grow(0, 0, 0, 0)
    totals: set[int] = set()
    values = sorted(hands)
    for i, a in enumerate(values):
        for b in values[i:]:
            if a + b not in totals and any(not p & q for p in hands[a] for q in hands[b]):
                totals.add(a + b)
    return frozenset(totals)


def announcement_of(cards: CardSet) -> Announcement:
    """The announcement these exact cards make; :class:`IllegalAnnouncement` if none."""
    for rank in (JACK, NINE, ACE, TEN, KING, QUEEN, EIGHT, SEVEN):
        if cards == RANK_MASK[rank]:
            if rank in (EIGHT, SEVEN):
                raise IllegalAnnouncement("four 8s or four 7s score nothing and are not "
                                          "announced", rule="announcement")
            return Announcement(cards, "carre", CARRE_POINTS[rank], -1, rank, 4)
    listed = cards_of(cards)
    suit = listed[0] >> 3 if listed else -1
    byte = cards >> (8 * suit) & 0xFF if listed else 0
    runs = _RUNS[byte]
    if (
        len(listed) >= 3
        and all(c >> 3 == suit for c in listed)
        and len(runs) == 1
        and runs[0][1] == len(listed)
    ):
        low, length = runs[0]
        kind = "tierce" if length == 3 else "cinquante" if length == 4 else "cent"
        return Announcement(cards, kind, sequence_points(length), suit, low + length - 1, length)
    raise IllegalAnnouncement(
        f"{format_cards(cards) or 'nothing'} is not an announcement (a sequence of 3+ in one "
        "suit or four of a kind)", rule="announcement")


def best_team(
    declared: list[list[Announcement]],
    contract: int,
    first_hand: int,
    taker: int,
    tie_rule: str,
    trump_sequence_wins: bool,
) -> int | None:
    """The team whose single best announcement wins (RULES.md §7), or ``None``.

    ``declared[seat]`` lists each seat's valid announcements; ``tie_rule`` settles equal
    best announcements in both teams: ``nobody``, ``first_hand`` (the seat nearest
    first hand wins) or ``takers``.
    """
    best: list[tuple[tuple[int, int, int, int], int] | None] = [None, None]
    for offset in range(4):  # from first hand, so ties keep the nearest seat
        seat = (first_hand + offset) % 4
        for ann in declared[seat]:
            key = ann.strength(contract, trump_sequence_wins)
            team = team_of(seat)
            current = best[team]
            if current is None or key > current[0]:
                best[team] = (key, offset)
    a, b = best
    if a is None and b is None:
        return None
    if a is None:
        return 1
    if b is None:
        return 0
    if a[0] != b[0]:
        return 0 if a[0] > b[0] else 1
    if tie_rule == "takers":
        return team_of(taker)
    if tie_rule == "first_hand":
        return 0 if a[1] < b[1] else 1
    return None
