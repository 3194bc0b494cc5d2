"""A seat's view of a hand: its own cards and everything public, nothing else.

Bots and clients only ever receive a :class:`SeatView`; the full
:class:`~rebelote.hand.HandState` stays with the referee. The separation is structural:
a view holds no reference to the state it was made from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rebelote.actions import Contract, bid_value
from rebelote.cards import Card, CardSet, cards_of
from rebelote.rules import Rules
from rebelote.tricks import teams

if TYPE_CHECKING:
    from rebelote.hand import HandState

PHASE_NAMES = ("auction", "play", "over")


@dataclass(frozen=True, slots=True)
class PublicAnnouncement:
    """An announcement as the table knows it: its kind at once, its cards once shown."""

    seat: int
    kind: str
    points: int
    cards: CardSet | None  # None until shown at trick 2 (always known to its owner)


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick on the table: who led, the cards in play order, the winner when complete."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None = None

    def seat_of(self, index: int, players: int = 4) -> int:
        """Seat that played the ``index``-th card of the trick."""
        return (self.leader + index) % players


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything seat ``seat`` may know about the hand in progress.

    ``contract`` is the contract's kind as an int (-1 before it is known); the whole
    contract (who holds it, its level and value, its double) is ``contract_info``.
    """

    seat: int
    rules: Rules
    dealer: int
    first_hand: int
    phase: str
    turn: int
    hand: CardSet
    retourne: Card
    calls: tuple[int, ...]
    taker: int
    contract: int
    tricks: tuple[Trick, ...]
    trick: Trick | None
    card_points: tuple[int, int]
    announcements: tuple[PublicAnnouncement, ...]
    announcement_winner: int | None
    belote_said: tuple[tuple[int, str, Card], ...]
    legal_actions: tuple[int, ...]
    table: tuple[CardSet, ...] = ()
    """Découverte: each seat's face-up table cards (public)."""
    totals: tuple[int, ...] = (0, 0)
    reserve: int = 0
    hand_number: int = 0
    master: int = -1
    """The seat winning the current trick so far ('maître'); -1 with no card on it."""
    contract_info: Contract | None = None
    """The contract as the table knows it: during an auction game's bidding the highest
    bid so far (``final`` False), then the contract played (``final`` True: bidder =
    taker, level/value, double 1 / 2 coinche-contra / 4 surcoinche-recontra); None
    before any bid or take, and in a voided hand."""
    teams: tuple[int, ...] = (0, 1, 0, 1)
    """The team of each seat: ``seat & 1`` with four players; with two or three players
    each seat is its own team. (With three, ``card_points`` counts the taker's side 0
    against the defense's 1.)"""
    announcement_points: tuple[int, int] = (0, 0)
    """Announcement points that scored, per team, once trick 1 is over (only the
    comparison's winner has any)."""
    announcement_seats: tuple[int, ...] = ()
    """The seats whose announcements scored, once trick 1 is over."""

    @property
    def my_turn(self) -> bool:
        """Whether this seat is the one to act."""
        return self.turn == self.seat

    def played_cards(self) -> CardSet:
        """Every card played so far (all public)."""
        m = 0
        for t in self.tricks:
            for c in t.cards:
                m |= 1 << c
        if self.trick is not None:
            for c in self.trick.cards:
                m |= 1 << c
        return m

    def hand_cards(self) -> list[Card]:
        """This seat's cards as a list."""
        return cards_of(self.hand)


def make_view(state: HandState, seat: int, totals: tuple[int, ...] = (0, 0),
              reserve: int = 0, hand_number: int = 0) -> SeatView:
    """Build ``seat``'s view of ``state`` (only what that seat may know); seat -1 is a
    spectator's view: only what is public."""
    if seat not in range(state.n) and seat != -1:
        raise ValueError(f"a seat is 0..{state.n - 1}, or -1 for a spectator, not {seat!r}")
    tricks = []
    played = state.played
    for i, winner in enumerate(state.trick_winners):
        n = state.n
        tricks.append(Trick(state.trick_leaders[i], tuple(played[n * i:n * i + n]), winner))
    current = None
    if state.trick:
        current = Trick(state.trick_leaders[-1], tuple(state.trick))
    shown = state.trick_number >= 1
    anns = []
    ann_winner = state.announcement_winner if shown else None
    for s in range(state.n):
        for a in state.announced[s]:
            visible = s == seat or (shown and ann_winner == (s & 1))
            anns.append(PublicAnnouncement(s, a.kind, a.points, a.cards if visible else None))
    scored_seats: tuple[int, ...] = ()
    ann_points = (0, 0)
    if ann_winner is not None and max(state.ann_points):
        ann_points = state.ann_points
        scored_seats = tuple(s for s in (ann_winner, ann_winner + 2) if state.announced[s])
    return SeatView(
        seat=seat,
        rules=state.rules,
        dealer=state.dealer,
        first_hand=state.first,
        phase=PHASE_NAMES[state.phase],
        turn=state.turn,
        hand=state.hands[seat] if seat >= 0 else 0,
        retourne=state.retourne,
        calls=tuple(state.calls),
        taker=state.taker,
        contract=state.mode,
        tricks=tuple(tricks),
        trick=current,
        card_points=(state.card_points[0], state.card_points[1]),
        announcements=tuple(anns),
        announcement_winner=ann_winner,
        belote_said=tuple(state.belote_said),
        legal_actions=tuple(state.legal_actions()) if state.turn == seat >= 0 else (),
        table=tuple(state.table_up) if state.n == 2 else (),
        totals=totals,
        reserve=reserve,
        hand_number=hand_number,
        master=state.best_seat if state.trick else -1,
        contract_info=contract_of(state),
        teams=teams(state.n),
        announcement_points=ann_points,
        announcement_seats=scored_seats,
    )


def contract_of(state: HandState) -> Contract | None:
    """The public contract of ``state`` (see :attr:`SeatView.contract_info`)."""
    final = state.taker >= 0
    if state.rules.game != "auction":
        return Contract(state.taker, state.mode, final=True) if final else None
    if state.bidder < 0:
        return None
    return Contract(state.bidder, state.mode, state.bid_level,
                    bid_value(state.bid_level, state.rules.capot_bid_value), state.double,
                    state.coinched_by, state.surcoinched_by, final)
