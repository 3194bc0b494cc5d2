"""One hand of classic belote: deal, two rounds of taking, eight tricks, scoring.

:class:`HandState` is the referee's full state (every seat's cards). Bots and clients
never get it: they get a :class:`~rebelote.view.SeatView` from :meth:`HandState.view`.

Actions are small ints: a card ``0..31`` in the play, or one of the call constants
(:data:`PASS`, :data:`TAKE`, :data:`CALL_SPADES` .. :data:`CALL_ALL_TRUMP`) in the
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
    CALL_NAMES,
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
from rebelote.announcements import Announcement, announcement_of, best_team, find_announcements
from rebelote.bidding import BIDDING, AuctionGameBidding
from rebelote.cards import (
    ALL_TRUMP,
    BELOTE_PAIR,
    HIGHER,
    KING,
    NO_TRUMP,
    SUIT_MASK,
    SUIT_NAMES,
    Card,
    CardSet,
    card_name,
    cards_of,
    mode_name,
    points_table,
)
from rebelote.deal import check_deal, check_deck, deal_deck, deck_for
from rebelote.errors import (
    CardNotInHand,
    IllegalAnnouncement,
    IllegalCall,
    IllegalPlay,
    NotYourTurn,
    WrongPhase,
)
from rebelote.phases import AUCTION, OVER, PLAY
from rebelote.rules import Rules
from rebelote.scoring import VOID, HandOutcome, HandScore, score_outcome, score_three
from rebelote.tricks import (
    LAST_TRICK_BONUS,
    STRENGTH,
    TRUMP_STRENGTH,
    legal_against,
    next_seat,
    partner_of,
    scaled_pair,
    side_of,
    team_of,
)

if TYPE_CHECKING:
    from rebelote.view import SeatView

__all__ = [
    "AUCTION", "BID_BASE", "BID_VALUES", "CALL_ALL_TRUMP", "CALL_NO_TRUMP", "CALL_SPADES",
    "CAPOT_LEVEL", "COINCHE", "OVER", "PASS", "PLAY", "SURCOINCHE", "TAKE", "HandState",
    "action_name", "bid_action", "bid_of", "bid_value", "deal_deck", "deck_for",
    "parse_action",
]


# -- phases -------------------------------------------------------------------------------


_NEXT: Final = {n: tuple(next_seat(s, n) for s in range(n)) for n in (2, 3, 4)}
_PARTNER: Final = {n: tuple(partner_of(s, n) for s in range(n)) for n in (2, 3, 4)}


class HandState(AuctionGameBidding):
    """The full state of one hand, for the referee. Copy it with :meth:`copy`.

    The auction games' bidding (stages, coinche, raise) is the
    :class:`~rebelote.bidding.AuctionGameBidding` part; the deal's pure pieces are in
    :mod:`rebelote.deal`, the trick rules in :mod:`rebelote.tricks`.
    """

    __slots__ = (
        "_after_coinche",
        "_ann_winner",
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
        "dealer",
        "dealt",
        "double",
        "first",
        "hands",
        "initial",
        "layout",
        "led",
        "mode",
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
    mode: int
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
    _team: list[int]
    n: int
    layout: list[tuple[tuple[Card, Card], ...]]
    """Découverte: each seat's table columns (face-up card, face-down card), as dealt."""
    seat_belote: list[int]
    seat_points: list[int]
    table_up: list[CardSet]
    tricks_total: int
    _after_coinche: int
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
        n = rules.players
        check_deck(deck, n)
        self = cls._blank(rules, dealer)
        first = self.first
        initial = [0] * n
        i = 0
        if n == 2:
            down = [deck[i + 5 * k:i + 5 * k + 5] for k in range(2)]
            up = [deck[10 + 5 * k:15 + 5 * k] for k in range(2)]
            i = 20
            for packet in (3, 3):
                for k in range(2):
                    for c in deck[i:i + packet]:
                        initial[(first + k) % 2] |= 1 << c
                    i += packet
            layout = {(first + k) % 2: (up[k], down[k]) for k in range(2)}
            self._lay_table(initial, [layout[0], layout[1]])
            return self
        if rules.game == "auction":
            packets = tuple(int(p) for p in rules.auction_deal.split("-"))
        else:
            packets = (3, 2) if rules.deal_packets == "3-2" else (2, 3)
        for packet in packets:
            for k in range(n):
                seat = (first + k) % n
                for c in deck[i:i + packet]:
                    initial[seat] |= 1 << c
                i += packet
        self.initial = initial
        self.hands = initial[:]
        if rules.game == "auction":
            self.dealt = initial[:]
            return self
        self.retourne = deck[i]
        self._stock = list(deck[i + 1:])
        return self

    def _lay_table(self, hand_cards: list[CardSet],
                   layout: list[tuple[Sequence[Card], Sequence[Card]]]) -> None:
        """Découverte: each seat's hand, and its face-up cards over face-down ones."""
        self.initial = [0, 0]
        self.table_up = [0, 0]
        self._covered = [{}, {}]
        self.layout = [tuple(zip(up, down, strict=True)) for up, down in layout]
        for seat, (up, down) in enumerate(layout):
            for u, d in zip(up, down, strict=True):
                self.table_up[seat] |= 1 << u
                self._covered[seat][u] = d
            self.initial[seat] = hand_cards[seat] | self.table_up[seat]
        self.hands = self.initial[:]

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
        if mode not in range(6):
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
        self._next = _NEXT[n]
        self._partner = _PARTNER[n]
        self._team = [side_of(s, n, -1) for s in range(n)]
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
        self.mode = -1
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
        o._team = self._team[:]
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
        o.mode = self.mode
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

    def legal_calls(self) -> list[int]:
        """Calls the seat to speak may make (empty outside the auction)."""
        if self.phase != AUCTION:
            return []
        if self.rules.game == "auction":
            return self._auction_calls()
        if self.n == 2:  # découverte: no retourne; name any suit or pass
            named = [PASS, 34, 35, 36, 37]
        elif len(self.calls) < self.n:
            return [PASS, TAKE]
        else:
            named = [PASS] + [34 + s for s in range(4) if s != self.retourne >> 3]
        if self.rules.round2_no_trump:
            named.append(CALL_NO_TRUMP)
        if self.rules.round2_all_trump:
            named.append(CALL_ALL_TRUMP)
        return named

    def contract_value(self) -> int:
        """Auction games: the points the contract stands for (capot per the rules)."""
        if self.bid_level == CAPOT_LEVEL:
            return self.rules.capot_bid_value
        return BID_VALUES[self.bid_level] if self.bid_level >= 0 else 0

    def legal_cards(self) -> CardSet:
        """The cards the seat to play may play, as a set (0 outside the play)."""
        if self._legal >= 0:
            return self._legal
        self._legal = legal = self._legal_cards()
        return legal

    def _legal_cards(self) -> CardSet:
        if self.phase != PLAY:
            return 0
        turn = self.turn
        if not self.trick:  # leading: any card
            return self.hands[turn]
        rules = self.rules
        return legal_against(self.hands[turn], self.led, self.best_card, self.mode,
                             self._partner[turn] == self.best_seat, rules.undertrump,
                             rules.partner_master_free)

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
        """Take one action (a call or a card) for the seat to act, after checking it."""
        if action < 32:
            self.play(action, seat)
        else:
            self.call(action, seat)

    def call(self, action: int, seat: int | None = None) -> None:
        """Make a call in the auction; raise if it is not allowed now."""
        if self.phase != AUCTION:
            raise WrongPhase(f"{action_name(action) if action in CALL_NAMES else action!r} "
                             "is a call, but the auction is over", rule="calls only in the auction")
        if seat is not None and seat != self.turn:
            raise NotYourTurn(f"seat {seat} cannot call: it is seat {self.turn}'s turn to speak")
        if self.rules.game == "auction":
            self._auction_call(action)
            return
        if action not in self.legal_calls():
            name = CALL_NAMES.get(action, repr(action))
            if action == TAKE:
                raise IllegalCall("'take' is only for round 1; in round 2 name a suit",
                                  rule="round 2 names a suit")
            if action in (CALL_NO_TRUMP, CALL_ALL_TRUMP):
                raise IllegalCall(f"{name} cannot be named: these rules do not allow it in "
                                  "round 2", rule="round 2 SA/TA option")
            if 34 <= action <= 37 and len(self.calls) < self.n:
                raise IllegalCall(f"{name}: round 1 only takes the retourne's suit or passes",
                                  rule="round 1 takes the retourne")
            if 34 <= action <= 37:
                raise IllegalCall(f"{name}: round 2 must name a suit other than the "
                                  "retourne's", rule="round 2 names another suit")
            raise IllegalCall(f"{name} is not a call of classic belote", rule="auction")
        caller = self.turn
        if action != PASS and self._rest is not None and caller != self._retourne_holder:
            if self._retourne_holder < 0:
                raise IllegalCall(f"seat {caller} cannot take: the deal lists 5 cards each, "
                                  "a voided hand", rule="voided deal")
            raise IllegalCall(f"seat {caller} cannot take: the retourne "
                              f"{card_name(self.retourne)} is in seat "
                              f"{self._retourne_holder}'s cards", rule="retourne to the taker")
        self.calls.append(action)
        if action == PASS:
            if len(self.calls) == (2 if self.n == 2 else 2 * self.n):
                self.phase = OVER
                self.turn = -1
            else:
                self.turn = self._next[caller]
            return
        mode = self.retourne >> 3 if action == TAKE else (
            NO_TRUMP if action == CALL_NO_TRUMP else ALL_TRUMP if action == CALL_ALL_TRUMP
            else action - 34)
        self.taker = caller
        self._complete_deal()
        self._start_play(self.hands, mode)

    def _complete_deal(self) -> None:
        if self.n == 2:  # découverte: everything is dealt already
            return
        hands = self.hands
        taker = self.taker
        hands[taker] |= 1 << self.retourne
        if self._rest is not None:
            for seat in range(self.n):
                hands[seat] |= self._rest[seat]
            return
        stock = self._stock
        assert stock is not None
        i = 0
        for k in range(self.n):
            seat = (self.first + k) % self.n
            n = 2 if seat == taker else 3
            for c in stock[i:i + n]:
                hands[seat] |= 1 << c
            i += n

    def _start_play(self, hands: list[CardSet], mode: int) -> None:
        self._legal = -1
        self.hands = hands
        self.dealt = hands[:]
        if self.n == 2:  # the cards still face down are the players' too
            for seat in range(2):
                for covered in self._covered[seat].values():
                    self.dealt[seat] |= 1 << covered
        self._team = [side_of(s, self.n, self.taker) for s in range(self.n)]
        self._strength = STRENGTH[mode]
        self._points = points_table(mode, self.rules.all_trump_points)
        self.mode = mode
        self.phase = PLAY
        self.turn = self.first
        suits: tuple[int, ...]
        if mode == NO_TRUMP:
            suits = ()
        elif mode == ALL_TRUMP:
            suits = (0, 1, 2, 3)
        else:
            suits = (mode,)
        belote_suits = 0
        for s in suits:  # held: in hand, or (découverte) face down under a table card
            if any(h & BELOTE_PAIR[s] == BELOTE_PAIR[s] for h in self.dealt):
                belote_suits |= BELOTE_PAIR[s]
        self._belote_suits = belote_suits

    def play(
        self,
        card: Card,
        seat: int | None = None,
        announce: Sequence[CardSet] | None = None,
        belote: bool | None = None,
    ) -> None:
        """Play ``card`` for the seat to play, after checking every obligation.

        ``announce`` (trick 1 only) lists the sets of cards the player declares, and
        ``belote`` says whether he says belote/rebelote with this card; both default to
        automatic declaration when ``rules.auto_announce`` is on.
        """
        if self.phase != PLAY:
            why = "the auction is not over" if self.phase == AUCTION else "the hand is over"
            raise WrongPhase(f"{card_name(card) if 0 <= card < 32 else card!r} cannot be "
                             f"played: {why}", rule="cards only in the play")
        player = self.turn
        if seat is not None and seat != player:
            raise NotYourTurn(f"seat {seat} cannot play: it is seat {player}'s turn")
        legal = self._legal
        if legal < 0:
            legal = self._legal_cards()
        if not (legal >> card) & 1:
            raise self._play_error(card, player)
        declared: list[Announcement] | None = None
        if announce is not None or (
            not self.trick_winners and self.rules.auto_announce and self.rules.announcements
        ):
            declared = self._declarations(player, announce)
        # -- from here on nothing can fail: the state changes --
        if declared is not None:
            self.announced[player] = declared
        self._legal = -1
        bit = 1 << card
        self.hands[player] ^= bit
        if self.n == 2 and self.table_up[player] & bit:  # découverte: turn the card under
            self.table_up[player] ^= bit
            under = self._covered[player].pop(card, -1)
            if under >= 0:
                self.hands[player] |= 1 << under
                self.table_up[player] |= 1 << under
        if self._belote_suits & bit:
            self._belote(player, card, belote)
        trick = self.trick
        if not trick:
            self.led = card >> 3
            self.best_card = card
            self.best_seat = player
            self.best_value = self._strength[card >> 3][card]
            self.trick_leaders.append(player)
        else:
            v = self._strength[self.led][card]
            if v > self.best_value:
                self.best_value = v
                self.best_card = card
                self.best_seat = player
        trick.append(card)
        self.played.append(card)
        if len(trick) < self.n:
            self.turn = self._next[player]
            return
        winner = self.best_seat
        team = self._team[winner]
        last = len(self.trick_winners) == self.tricks_total - 1
        pts = self._points  # the trick's value (tricks.trick_points), summed in place
        points = LAST_TRICK_BONUS if last else 0
        for c in trick:
            points += pts[c]
        self.card_points[team] += points
        self.seat_points[winner] += points
        self.tricks_won[team] += 1
        self.trick_winners.append(winner)
        self.trick = []
        self.turn = winner
        n = len(self.trick_winners)
        if n == 1 and self.rules.announcements:
            self._compare_announcements()
        if last:
            self.phase = OVER
            self.turn = -1

    def _play_error(self, card: Card, seat: int) -> Exception:
        if not isinstance(card, int) or not 0 <= card < 32:
            return CardNotInHand(f"{card!r} is not a card")
        name = card_name(card)
        hand = self.hands[seat]
        if not (hand >> card) & 1:
            if self.n == 2 and card in self._covered[seat].values():
                over = next(u for u, d in self._covered[seat].items() if d == card)
                return CardNotInHand(f"{name} is still face down under {card_name(over)}: it "
                                     f"can be played once {card_name(over)} is",
                                     rule="covered card")
            return CardNotInHand(f"seat {seat} does not hold {name}")
        led = self.led
        suit = card >> 3
        follow = hand & SUIT_MASK[led]
        trump_like = led == self.mode or self.mode == ALL_TRUMP
        if follow and suit != led:
            return IllegalPlay(f"{name} is illegal: seat {seat} must follow suit "
                               f"({SUIT_NAMES[led]} led)", rule="must follow suit")
        if follow and trump_like:
            return IllegalPlay(f"{name} is illegal: seat {seat} must play a higher "
                               f"{SUIT_NAMES[led][:-1]} than {card_name(self.best_card)} "
                               "(trump led: overtrump if you can)", rule="must overtrump")
        trumps = hand & SUIT_MASK[self.mode] if self.mode < 4 else 0
        if suit != self.mode:
            if self.best_value >= TRUMP_STRENGTH and not trumps & HIGHER[self.mode][self.best_card]:
                return IllegalPlay(f"{name} is illegal: seat {seat} cannot overtrump but must "
                                   "still play a trump (pisser)", rule="must undertrump")
            return IllegalPlay(f"{name} is illegal: seat {seat} cannot follow "
                               f"{SUIT_NAMES[led]} and an opponent is master: you must trump",
                               rule="must trump")
        return IllegalPlay(f"{name} is illegal: seat {seat} must overtrump "
                           f"{card_name(self.best_card)}", rule="must overtrump")

    # -- announcements and belote ---------------------------------------------------

    def _declarations(self, seat: int, announce: Sequence[CardSet] | None) -> list[Announcement]:
        first_card = not self.trick_winners
        if announce is None:
            return find_announcements(self.dealt[seat]) if first_card else self.announced[seat]
        if announce and not self.rules.announcements:
            raise IllegalAnnouncement("these rules play without announcements",
                                      rule="announcements off")
        if announce and not first_card:
            raise IllegalAnnouncement(f"seat {seat} can only announce with its first card, "
                                      "during trick 1", rule="announce in trick 1")
        return [announcement_of(m) for m in announce] if first_card else self.announced[seat]

    def _compare_announcements(self) -> None:
        valid = []
        false_team = [False, False]
        for seat in range(4):
            held = self.dealt[seat]
            mine = self.announced[seat]
            if any(a.cards & held != a.cards for a in mine):
                false_team[team_of(seat)] = True
            valid.append(mine)
        for seat in range(4):
            if false_team[team_of(seat)]:
                valid[seat] = []
        team = best_team(valid, self.mode, self.first, self.taker,
                         self.rules.announcement_tie, self.rules.trump_sequence_wins)
        self._ann_winner = team
        points = [0, 0]
        if team is not None:
            points[team] = sum(a.points for s in (team, team + 2) for a in valid[s])
        self.ann_points = (points[0], points[1])

    def _belote(self, seat: int, card: Card, said: bool | None) -> None:
        suit = card >> 3
        pair = BELOTE_PAIR[suit]
        if self.dealt[seat] & pair != pair:
            return
        say = self.rules.auto_announce if said is None else said
        first = self._belote_first.get(suit)
        if first is None:
            ok = say or self.rules.belote_automatic
            if self.rules.belote_order == "king_first" and card & 7 != KING:
                ok = False
            self._belote_first[suit] = ok
            if ok and say:
                self._belote_said.append((seat, "belote", card))
            return
        if first and (say or self.rules.belote_automatic):
            self.belote_points[self._team[seat]] += 20
            self.seat_belote[seat] += 20
            if say:
                self._belote_said.append((seat, "rebelote", card))

    @property
    def belote_said(self) -> list[tuple[int, str, Card]]:
        """Public belote events so far: (seat, ``belote`` | ``rebelote``, the card)."""
        return self._belote_said[:]

    @property
    def belote_log(self) -> list[tuple[int, str, Card]]:
        """The belote events themselves, a list that only grows (views keep it with its
        length when they are made); read it, never change it."""
        return self._belote_said

    def contract_info(self) -> Contract | None:
        """The contract as the table knows it (:attr:`SeatView.contract_info`): None
        before any bid or take and in a voided hand; in an auction game's bidding the
        highest bid so far; then the contract played (``final``)."""
        cached = self._contract_cache
        if cached is not None and cached[0] == len(self.calls) and cached[1] == self.taker:
            return cached[2]
        info: Contract | None = None
        if self.rules.game != "auction":
            if self.taker >= 0:
                info = Contract(self.taker, self.mode, final=True)
        elif self.bidder >= 0:
            info = Contract(self.bidder, self.mode, self.bid_level,
                            bid_value(self.bid_level, self.rules.capot_bid_value), self.double,
                            self.coinched_by, self.surcoinched_by, self.taker >= 0)
        self._contract_cache = (len(self.calls), self.taker, info)
        return info

    @property
    def announcement_winner(self) -> int | None:
        """Team whose announcements scored (known once trick 1 is over)."""
        return self._ann_winner

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
        return scaled_pair((a, b), self.mode, self.rules.all_trump_points,
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
        return mode_name(self.mode) if self.mode >= 0 else ""

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own cards and everything public."""
        from rebelote.view import make_view

        return make_view(self, seat)
