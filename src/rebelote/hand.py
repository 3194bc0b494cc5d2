"""One hand: the deal, the auction, the tricks, the score. :class:`HandState` is the
referee's full state (every seat's cards); bots and clients never get it: they get a
:class:`~rebelote.view.SeatView` from :meth:`HandState.view`.

This module holds the hand together: how it is made (dealt, or from a record), copied,
asked and scored. The rules live in its parts, each a module of its own: the auction (one
of three kinds, :mod:`rebelote.auction`: the classic taking and découverte's in
:mod:`rebelote.taking`, the auction games' bidding in :mod:`rebelote.bidding`), the play
in :mod:`rebelote.play`; their pure pieces in :mod:`rebelote.deal`, :mod:`rebelote.tricks`,
:mod:`rebelote.actions` and :mod:`rebelote.scoring`.

Actions are small ints: a card ``0..31`` in the play, or one of the call constants
(:data:`PASS`, :data:`TAKE`, :data:`CALL_SPADES` .. :data:`CALL_ALL_TRUMP`, bids) in the
auction. ``legal_actions()`` lists them; ``apply()`` plays one after checking it and
raises an :class:`~rebelote.errors.IllegalAction` (leaving the state untouched) if the
rules forbid it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rebelote.actions import (
    BID_BASE,
    BID_VALUES,
    CALL_ALL_TRUMP,
    CALL_NO_TRUMP,
    CALL_SPADES,
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    SURCOINCHE,
    TAKE,
    Contract,
    action_name,
    bid_action,
    bid_of,
    bid_value,
    parse_action,
)
from rebelote.auction import AuctionPart
from rebelote.bidding import BIDDING, AuctionGameBidding
from rebelote.cards import CONTRACTS, Card, CardSet, card_name, cards_of, contract_name
from rebelote.deal import check_deal, check_deck, deal_deck, deck_for
from rebelote.errors import IllegalCall, WrongPhase
from rebelote.phases import AUCTION, OVER, PLAY
from rebelote.play import TrickPlay
from rebelote.rules import Rules
from rebelote.scoring import VOID, HandOutcome, HandScore, score_outcome, score_three
from rebelote.taking import DecouverteTaking, RetourneTaking
from rebelote.tricks import next_seat, partner_of, scaled_pair, sides

if TYPE_CHECKING:
    from rebelote.announcements import Announcement
    from rebelote.view import SeatView

__all__ = [
    "AUCTION", "BID_BASE", "BID_VALUES", "CALL_ALL_TRUMP", "CALL_NO_TRUMP", "CALL_SPADES",
    "CAPOT_LEVEL", "COINCHE", "OVER", "PASS", "PLAY", "SURCOINCHE", "TAKE", "HandState",
    "action_name", "bid_action", "bid_of", "bid_value", "deal_deck", "deck_for",
    "parse_action",
]


_NEXT: Final = {n: tuple(next_seat(s, n) for s in range(n)) for n in (2, 3, 4)}
_PARTNER: Final = {n: tuple(partner_of(s, n) for s in range(n)) for n in (2, 3, 4)}


def auction_for(rules: Rules) -> type[AuctionPart]:
    """The kind of auction a hand under ``rules`` has: the auction games' bidding,
    découverte's taking (two players), or the classic taking around the retourne."""
    if rules.game == "auction":
        return AuctionGameBidding
    return DecouverteTaking if rules.players == 2 else RetourneTaking


class HandState(TrickPlay, DecouverteTaking, AuctionGameBidding):
    """The full state of one hand, for the referee. Copy it with :meth:`copy`.

    Its parts are its base classes: the play (:class:`~rebelote.play.TrickPlay`) and the
    three kinds of auction, of which the hand uses the one its rules say (``_auction``).
    """

    __slots__ = (
        "_after_coinche",
        "_ann_winner",
        "_auction",
        "_belote_first",
        "_belote_said",
        "_belote_suits",
        "_contract_cache",
        "_covered",
        "_legal",
        "_next",
        "_partner",
        "_passes",
        "_points",
        "_rest",
        "_retourne_holder",
        "_stage",
        "_stock",
        "_strength",
        "_team",
        "ann_points",
        "announced",
        "belote_points",
        "best_card",
        "best_seat",
        "best_value",
        "bid_level",
        "bidder",
        "calls",
        "card_points",
        "coinched_by",
        "contract",
        "dealer",
        "dealt",
        "double",
        "first",
        "hands",
        "initial",
        "layout",
        "led",
        "n",
        "phase",
        "played",
        "retourne",
        "rules",
        "seat_belote",
        "seat_points",
        "surcoinched_by",
        "table_up",
        "taker",
        "trick",
        "trick_leaders",
        "trick_winners",
        "tricks_total",
        "tricks_won",
        "turn",
        "view_cache",
    )

    rules: Rules
    dealer: int
    first: int
    hands: list[CardSet]
    initial: list[CardSet]
    dealt: list[CardSet]
    retourne: Card
    calls: list[int]
    taker: int
    contract: int
    """The contract's kind: a trump suit 0..3, ``NO_TRUMP`` (SA) or ``ALL_TRUMP`` (TA); -1
    before it is known (auction games: the highest bid's while they bid)."""
    phase: int
    turn: int
    trick: list[Card]
    led: int
    best_card: int
    best_seat: int
    best_value: int
    played: list[Card]
    trick_leaders: list[int]
    trick_winners: list[int]
    card_points: list[int]
    tricks_won: list[int]
    announced: list[list[Announcement]]
    ann_points: tuple[int, int]
    belote_points: list[int]
    _ann_winner: int | None
    _covered: list[dict[Card, Card]]
    _next: tuple[int, ...]
    _partner: tuple[int, ...]
    _team: tuple[int, ...]
    n: int
    layout: list[tuple[tuple[Card, Card], ...]]
    """Découverte: each seat's table columns (face-up card, face-down card), as dealt."""
    seat_belote: list[int]
    seat_points: list[int]
    table_up: list[CardSet]
    tricks_total: int
    _after_coinche: int
    _auction: type[AuctionPart]
    """The hand's kind of auction (:mod:`rebelote.auction`), chosen from its rules."""
    _passes: int
    _stage: int
    bid_level: int
    bidder: int
    double: int
    coinched_by: int
    """The seat that coinched (contre, contra), -1 if none or not known."""
    surcoinched_by: int
    """The seat that surcoinched (surcontre, recontra), -1 if none or not known."""
    _belote_first: dict[int, bool]
    _belote_said: list[tuple[int, str, Card]]
    _belote_suits: CardSet
    _contract_cache: tuple[int, int, Contract | None] | None
    _legal: CardSet
    _rest: list[CardSet] | None
    _retourne_holder: int
    _stock: list[Card] | None
    _strength: tuple[tuple[int, ...], ...]
    _points: tuple[int, ...]
    view_cache: object
    """Kept for :mod:`rebelote.view`: the public parts its views of this hand share
    (None until the first view; a copy starts without)."""

    # -- construction -----------------------------------------------------------------

    @classmethod
    def new(cls, rules: Rules, dealer: int, rng: random.Random) -> HandState:
        """Shuffle a deck with ``rng`` and deal it."""
        return cls.deal(rules, dealer, deal_deck(rng, rules.players))

    @classmethod
    def deal(cls, rules: Rules, dealer: int, deck: Sequence[Card]) -> HandState:
        """Deal ``deck`` (top card first) from first hand, in packets: classic, 5 each,
        the retourne, the rest kept back for the completion; auction games, 8 each;
        découverte (2 players), 5 face down, 5 face up on them, then 3 + 3 in hand."""
        check_deck(deck, rules.players)
        self = cls._blank(rules, dealer)
        self._deal_cards(deck)
        return self

    @classmethod
    def from_deal(cls, rules: Rules, dealer: int, cards: Sequence[Sequence[Card]]) -> HandState:
        """An auction game's hand whose 8 cards each are known (a record), ready to bid."""
        if rules.game != "auction":
            raise ValueError("from_deal is for auction games; classic hands need a retourne")
        check_deal(cards, 4, allow_five=False, retourne=-1)
        self = cls._blank(rules, dealer)
        masks = [sum(1 << c for c in listed) for listed in cards]
        self.initial = masks[:]
        self.hands = masks[:]
        self.dealt = masks[:]
        return self

    @classmethod
    def from_cards(
        cls, rules: Rules, dealer: int, cards: Sequence[Sequence[Card]], retourne: Card,
        stock: Sequence[Card] | None = None,
    ) -> HandState:
        """A hand whose deal is known seat by seat (a record), ready for its auction.

        ``cards[seat]`` lists the seat's cards in the order received: its first five
        (the taker's retourne, once received, may stand anywhere after them). Five
        cards each is a voided hand's deal, or, with ``stock`` (the undealt cards in
        dealing order), a hand whose auction is still going on. In découverte (2 players,
        no retourne: pass -1) each seat lists 16 cards: 6 in hand, 5 face up, then the 5
        face down under them in the same order.
        """
        n = rules.players
        check_deal(cards, n, allow_five=True, retourne=retourne)
        self = cls._blank(rules, dealer)
        if n == 2:
            self._lay_table([sum(1 << c for c in listed[:6]) for listed in cards],
                            [(listed[6:11], listed[11:16]) for listed in cards])
            return self
        initial = [0] * n
        rest = [0] * n
        for seat, listed in enumerate(cards):
            received = [c for c in listed if c != retourne]
            for c in received[:5]:
                initial[seat] |= 1 << c
            for c in received[5:]:
                rest[seat] |= 1 << c
        self.initial = initial
        self.hands = initial[:]
        self.retourne = retourne
        self._rest = rest
        self._retourne_holder = next(
            (seat for seat, listed in enumerate(cards) if retourne in listed), -1)
        if stock is not None:
            every = [c for listed in cards for c in listed] + [retourne, *stock]
            if sorted(every) != deck_for(n):
                raise ValueError("the hands, the retourne and the stock must hold every card "
                                 "in play exactly once")
            if any(len(listed) != 5 for listed in cards):
                raise ValueError("a stock goes with a deal of 5 cards each")
            self._stock = list(stock)
            self._rest = None
        return self

    @classmethod
    def with_contract(
        cls, rules: Rules, dealer: int, cards: Sequence[Sequence[Card]], taker: int, mode: int,
        retourne: Card = -1, bid_level: int = -1, double: int = 1,
    ) -> HandState:
        """A hand dealt and taken: 8 cards each, ``taker`` playing ``mode`` (0..3, SA, TA);
        auction games also give the bid's level (``BID_VALUES`` index, 9 = capot) and
        the double (1, 2 after a coinche, 4 after a surcoinche)."""
        n = rules.players
        check_deal(cards, n, allow_five=False, retourne=-1)
        if taker not in range(n):
            raise IllegalCall(f"the taker must be a seat 0..{n - 1}, not {taker!r}")
        if mode not in CONTRACTS:
            raise IllegalCall(f"the contract suit must be S, H, D, C, SA or TA, not {mode!r}")
        if retourne >= 0 and not any(c == retourne for c in cards[taker]):
            raise IllegalCall(f"the retourne {card_name(retourne)} must be in the taker's hand")
        self = cls._blank(rules, dealer)
        if n == 2:
            self._lay_table([sum(1 << c for c in listed[:6]) for listed in cards],
                            [(listed[6:11], listed[11:16]) for listed in cards])
            masks = self.hands
        else:
            masks = [sum(1 << c for c in listed) for listed in cards]
            self.initial = masks[:]
        self.retourne = retourne
        self.taker = taker
        if rules.game == "auction":
            if bid_level not in range(CAPOT_LEVEL + 1):
                raise IllegalCall("an auction game's contract needs its bid: 80..160 or capot")
            if double not in (1, 2, 4):
                raise IllegalCall(f"double must be 1, 2 or 4, not {double!r}")
            self.bid_level = bid_level
            self.bidder = taker
            self.double = double
        self._start_play(masks, mode)
        return self

    @classmethod
    def _blank(cls, rules: Rules, dealer: int) -> HandState:
        n = rules.players
        if dealer not in range(n):
            raise ValueError(f"the dealer must be a seat 0..{n - 1}, not {dealer!r}")
        self = cls.__new__(cls)
        self.rules = rules
        self.n = n
        self._auction = auction_for(rules)
        self._next = _NEXT[n]
        self._partner = _PARTNER[n]
        self._team = sides(n, -1)
        self.tricks_total = 16 if n == 2 else 8
        self.seat_points = [0] * n
        self.seat_belote = [0] * n
        self.table_up = [0] * n
        self._covered = [{} for _ in range(n)]
        self.layout = []
        self.dealer = dealer
        self.first = (dealer + 1) % n
        self.hands = [0] * n
        self.initial = [0] * n
        self.dealt = [0] * n
        self.retourne = -1
        self._stock = None
        self._rest = None
        self._retourne_holder = -1
        self.calls = []
        self.taker = -1
        self.contract = -1
        self.phase = AUCTION
        self.turn = self.first
        self.trick = []
        self.led = -1
        self.best_card = -1
        self.best_seat = -1
        self.best_value = -1
        self.played = []
        self.trick_leaders = []
        self.trick_winners = []
        self.card_points = [0, 0]
        self.tricks_won = [0, 0]
        self.announced = [[] for _ in range(n)]
        self.ann_points = (0, 0)
        self._ann_winner = None
        self._after_coinche = 0
        self._passes = 0
        self._stage = BIDDING
        self.bid_level = -1
        self.bidder = -1
        self.double = 1
        self.coinched_by = -1
        self.surcoinched_by = -1
        self.belote_points = [0, 0]
        self._belote_suits = 0
        self._contract_cache = None
        self._strength = ()
        self._points = ()
        self.view_cache = None
        self._belote_first = {}
        self._belote_said = []
        self._legal = -1
        return self

    def copy(self) -> HandState:
        """An independent copy (lists copied, immutable parts shared)."""
        o = HandState.__new__(HandState)
        o._after_coinche = self._after_coinche
        o._auction = self._auction
        o._ann_winner = self._ann_winner
        o._belote_first = dict(self._belote_first)
        o._belote_said = self._belote_said[:]
        o._belote_suits = self._belote_suits
        o._contract_cache = self._contract_cache
        o._strength = self._strength
        o._points = self._points
        o._covered = [dict(c) for c in self._covered]
        o._legal = self._legal
        o._next = self._next
        o._partner = self._partner
        o._team = self._team
        o._passes = self._passes
        o._rest = self._rest[:] if self._rest is not None else None
        o._retourne_holder = self._retourne_holder
        o._stage = self._stage
        o._stock = self._stock[:] if self._stock is not None else None
        o.ann_points = self.ann_points
        o.announced = [a[:] for a in self.announced]
        o.belote_points = self.belote_points[:]
        o.best_card = self.best_card
        o.best_seat = self.best_seat
        o.best_value = self.best_value
        o.bid_level = self.bid_level
        o.bidder = self.bidder
        o.calls = self.calls[:]
        o.card_points = self.card_points[:]
        o.dealer = self.dealer
        o.dealt = self.dealt[:]
        o.double = self.double
        o.coinched_by = self.coinched_by
        o.surcoinched_by = self.surcoinched_by
        o.first = self.first
        o.hands = self.hands[:]
        o.initial = self.initial[:]
        o.layout = self.layout
        o.led = self.led
        o.contract = self.contract
        o.n = self.n
        o.phase = self.phase
        o.played = self.played[:]
        o.retourne = self.retourne
        o.seat_belote = self.seat_belote[:]
        o.seat_points = self.seat_points[:]
        o.table_up = self.table_up[:]
        o.rules = self.rules
        o.taker = self.taker
        o.trick = self.trick[:]
        o.trick_leaders = self.trick_leaders[:]
        o.trick_winners = self.trick_winners[:]
        o.tricks_total = self.tricks_total
        o.tricks_won = self.tricks_won[:]
        o.turn = self.turn
        o.view_cache = None
        return o

    # -- queries ----------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """The hand is finished: played out, or voided by eight passes."""
        return self.phase == OVER

    @property
    def is_void(self) -> bool:
        """All four passed twice: nothing is scored."""
        return self.phase == OVER and self.taker < 0

    @property
    def stock(self) -> tuple[Card, ...] | None:
        """Classic: the cards kept back for the completion, in dealing order, while the
        auction goes on; None once dealt (or when the record gave each seat's cards)."""
        return tuple(self._stock) if self._stock is not None and self.phase == AUCTION \
            else None

    def gathered_cards(self) -> list[Card]:
        """A voided hand's cards as they are picked up for the next deal (the cut keeps
        this order): each seat's cards, those face down in découverte, the retourne, the
        cards not dealt."""
        cards: list[Card] = []
        for seat in range(self.n):
            cards.extend(cards_of(self.dealt[seat] | self.initial[seat]))
            cards.extend(self._covered[seat].values())
        if self.retourne >= 0:
            cards.append(self.retourne)
        if self._stock is not None:
            cards.extend(self._stock)
        return cards

    @property
    def trick_number(self) -> int:
        """Tricks completed so far (0..8)."""
        return len(self.trick_winners)

    def contract_value(self) -> int:
        """Auction games: the points the contract stands for (capot per the rules)."""
        if self.bid_level == CAPOT_LEVEL:
            return self.rules.capot_bid_value
        return BID_VALUES[self.bid_level] if self.bid_level >= 0 else 0

    def legal_actions(self) -> list[int]:
        """Every action the seat to act may take now: calls, or cards."""
        if self.phase == PLAY:
            legal = self._legal
            if legal < 0:
                self._legal = legal = self._legal_cards()
            return cards_of(legal)
        return self.legal_calls()

    # -- actions ----------------------------------------------------------------------

    def apply(self, action: int, seat: int | None = None) -> None:
        """Take one action (a call or a card) for the seat to act, after checking it:
        :meth:`play` (:mod:`rebelote.play`) or :meth:`call` (:mod:`rebelote.auction`)."""
        if action < 32:
            self.play(action, seat)
        else:
            self.call(action, seat)

    @property
    def mode(self) -> int:
        """:attr:`contract` by its former name (kept for existing callers)."""
        return self.contract

    # -- scoring ----------------------------------------------------------------------

    def capot_team(self) -> int | None:
        """The team (the taker's side 0 or the defense 1 with three players) that won
        every trick, if any."""
        if self.phase != OVER or self.taker < 0:
            return None
        if self.tricks_won[0] == self.tricks_total:
            return 0
        if self.tricks_won[1] == self.tricks_total:
            return 1
        return None

    @property
    def taker_team(self) -> int:
        """The taker's team: seat & 1 with 4 players, the seat with 2, side 0 with 3."""
        return self._team[self.taker] if self.taker >= 0 else -1

    def scaled_card_points(self) -> tuple[int, int]:
        """Card points with the dix de der, on the 162 scale (tout atout 'scaled')."""
        a, b = self.card_points
        if self.taker < 0:
            return a, b
        return scaled_pair((a, b), self.contract, self.rules.all_trump_points,
                           self._team[self.taker])

    def score(self, reserve: int = 0) -> HandScore:
        """The hand's score (RULES.md §8) with ``reserve`` carried in from earlier ties."""
        if self.phase != OVER:
            raise WrongPhase("the hand is not over yet", rule="score at the end")
        if self.taker < 0:
            return HandScore(VOID, (0,) * (3 if self.n == 3 else 2), reserve)
        if self.n == 3:
            capot = self.capot_team()
            return score_three(self.rules, self.taker, self.seat_points, self.seat_belote,
                               None if capot is None else ("taker", "defense")[capot])
        return score_outcome(self.rules, self.outcome(), reserve)

    def outcome(self) -> HandOutcome:
        """What the score depends on, from the cards played (the calculator's input)."""
        return HandOutcome(
            self._team[self.taker],
            self.scaled_card_points(),
            self.capot_team(),
            self.ann_points,
            (self.belote_points[0], self.belote_points[1]),
            self.contract_value(),
            self.bid_level == CAPOT_LEVEL,
            self.double,
        )

    def contract_name(self) -> str:
        """``S H D C SA TA`` once taken, else ``""``."""
        return contract_name(self.contract) if self.contract >= 0 else ""

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own cards and everything public."""
        from rebelote.view import make_view

        return make_view(self, seat)


def call_seats(view: SeatView) -> list[int]:
    """The seat that made each call of ``view``'s auction so far. In turn from first
    hand but in the acorralada (``raise_after_passes``), whose bidder raises out of turn
    and whose contra goes to the bidder's opponents only: there the auction is replayed
    (a bidding auction's calls do not depend on the cards) to read whose turn each was."""
    n = view.rules.players
    if not view.rules.raise_after_passes or view.rules.game != "auction":
        return [(view.first_hand + i) % n for i in range(len(view.calls))]
    hand = HandState.deal(view.rules, view.dealer, deal_deck(random.Random(0), n))
    seats = []
    for call in view.calls:
        seats.append(hand.turn)
        hand.apply(call)
    return seats
