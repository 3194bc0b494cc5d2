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
    _CALL_NAMES,
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
    action_name,
    bid_action,
    bid_of,
    bid_value,
    parse_action,
)
from rebelote.announcements import Announcement, announcement_of, best_team, find_announcements
from rebelote.cards import (
    ALL_TRUMP,
    BELOTE_PAIR,
    HIGHER,
    KING,
    NO_TRUMP,
    SUIT_MASK,
    SUIT_NAMES,
    WIN_VALUE,
    Card,
    CardSet,
    card_name,
    cards_of,
    mode_name,
    points_table,
)
from rebelote.errors import (
    CardNotInHand,
    IllegalAnnouncement,
    IllegalCall,
    IllegalPlay,
    NotYourTurn,
    WrongPhase,
)
from rebelote.rules import Rules
from rebelote.scoring import VOID, HandOutcome, HandScore, score_outcome, score_three

if TYPE_CHECKING:
    from rebelote.view import SeatView

__all__ = [
    "AUCTION", "BID_BASE", "BID_VALUES", "CALL_ALL_TRUMP", "CALL_NO_TRUMP", "CALL_SPADES",
    "CAPOT_LEVEL", "COINCHE", "OVER", "PASS", "PLAY", "SURCOINCHE", "TAKE", "HandState",
    "action_name", "bid_action", "bid_of", "bid_value", "deal_deck", "deck_for",
    "parse_action",
]

# Stages of an auction game's auction.
_BIDDING, _RAISE, _CONTRA, _AFTER_COINCHE = range(4)

# -- phases -------------------------------------------------------------------------------

AUCTION: Final = 0
PLAY: Final = 1
OVER: Final = 2

_ALL_CARDS: Final = frozenset(range(32))
_DECK_OF_THREE: Final = frozenset(c for c in range(32) if c & 7 > 1)  # no 7s and 8s
_NEXT: Final = {4: (1, 2, 3, 0), 3: (1, 2, 0), 2: (1, 0)}
_PARTNER: Final = {4: (2, 3, 0, 1), 3: (-1, -1, -1), 2: (-1, -1)}
_TEAMS: Final = {4: [0, 1, 0, 1], 3: [1, 1, 1], 2: [0, 1]}


_DECKS: Final = {4: tuple(range(32)), 3: tuple(sorted(_DECK_OF_THREE)), 2: tuple(range(32))}
_DECK_SETS: Final = {n: frozenset(deck) for n, deck in _DECKS.items()}


def deck_for(players: int) -> list[Card]:
    """The cards in play: 32, or 24 for three players (the 7s and 8s set aside)."""
    return list(_DECKS[players])


def deal_deck(rng: random.Random, players: int = 4) -> list[Card]:
    """A shuffled deck (32 cards; 24 for three players).

    Fisher-Yates with the swap positions read as mixed-radix digits of one 192-bit
    random number: 32! < 2**118, so each permutation's probability is off by less than
    2**-74 (``random.shuffle`` draws 31 numbers and costs a quarter of a random hand).
    """
    deck = deck_for(players)
    x = rng.getrandbits(192)
    for i in range(len(deck) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class HandState:
    """The full state of one hand, for the referee. Copy it with :meth:`copy`."""

    __slots__ = (
        "_after_coinche",
        "_ann_winner",
        "_belote_first",
        "_belote_said",
        "_belote_suits",
        "_covered",
        "_higher",
        "_legal",
        "_next",
        "_partner",
        "_passes",
        "_points",
        "_rest",
        "_retourne_holder",
        "_stage",
        "_stock",
        "_team",
        "_win",
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
    _higher: tuple[CardSet, ...]
    _legal: CardSet
    _points: tuple[int, ...]
    _rest: list[CardSet] | None
    _retourne_holder: int
    _stock: list[Card] | None
    _win: tuple[int, ...]

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
        if len(deck) != len(_DECKS[n]) or _DECK_SETS[n] != set(deck):
            raise ValueError(f"a deck must hold each of the {len(_DECKS[n])} cards in play "
                             "exactly once")
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
        _check_cards(cards, 4, allow_five=False, retourne=-1)
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
        _check_cards(cards, n, allow_five=True, retourne=retourne)
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
        _check_cards(cards, n, allow_five=False, retourne=-1)
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
        self._team = list(_TEAMS[n])
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
        self._stage = _BIDDING
        self.bid_level = -1
        self.bidder = -1
        self.double = 1
        self.coinched_by = -1
        self.surcoinched_by = -1
        self.belote_points = [0, 0]
        self._belote_suits = 0
        self._belote_first = {}
        self._belote_said = []
        self._legal = -1
        self._points = ()
        self._win = ()
        self._higher = ()
        return self

    def copy(self) -> HandState:
        """An independent copy (lists copied, immutable parts shared)."""
        o = HandState.__new__(HandState)
        o._after_coinche = self._after_coinche
        o._ann_winner = self._ann_winner
        o._belote_first = dict(self._belote_first)
        o._belote_said = self._belote_said[:]
        o._belote_suits = self._belote_suits
        o._higher = self._higher
        o._covered = [dict(c) for c in self._covered]
        o._legal = self._legal
        o._next = self._next
        o._partner = self._partner
        o._team = self._team[:]
        o._passes = self._passes
        o._points = self._points
        o._rest = self._rest[:] if self._rest is not None else None
        o._retourne_holder = self._retourne_holder
        o._stage = self._stage
        o._stock = self._stock[:] if self._stock is not None else None
        o._win = self._win
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

    def _auction_calls(self) -> list[int]:
        stage = self._stage
        bidding_team = (self.turn & 1) == (self.bidder & 1)
        if stage == _AFTER_COINCHE:
            return [PASS, SURCOINCHE] if bidding_team else [PASS]
        if stage == _CONTRA:
            return [PASS, COINCHE]
        if stage == _RAISE:  # the winning bidder may raise once, in his suit
            return [PASS] + [bid_action(level, self.mode)
                             for level in range(self.bid_level + 1, CAPOT_LEVEL + 1)]
        modes = [0, 1, 2, 3]
        if self.rules.auction_no_trump:
            modes.append(NO_TRUMP)
        if self.rules.auction_all_trump:
            modes.append(ALL_TRUMP)
        calls = [PASS]
        for level in range(self.bid_level + 1, CAPOT_LEVEL + 1):
            calls.extend(BID_BASE + level * 6 + m for m in modes)
        if self.bidder >= 0 and not bidding_team and not self.rules.raise_after_passes:
            calls.append(COINCHE)
        return calls

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
        hand = self.hands[self.turn]
        if not self.trick:
            return hand
        led = self.led
        mode = self.mode
        follow = hand & SUIT_MASK[led]
        if led == mode or mode == ALL_TRUMP:
            if follow:
                return (follow & self._higher[self.best_card]) or follow
            return hand
        if follow:
            return follow
        if mode == NO_TRUMP:
            return hand
        trumps = hand & SUIT_MASK[mode]
        if not trumps:
            return hand
        if self._partner[self.turn] == self.best_seat and self.rules.partner_master_free:
            return hand
        if self.best_value >= 16:
            over = trumps & self._higher[self.best_card]
            if over:
                return over
            return trumps if self.rules.undertrump == "required" else hand
        return trumps

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
            raise WrongPhase(f"{action_name(action) if action in _CALL_NAMES else action!r} "
                             "is a call, but the auction is over", rule="calls only in the auction")
        if seat is not None and seat != self.turn:
            raise NotYourTurn(f"seat {seat} cannot call: it is seat {self.turn}'s turn to speak")
        if self.rules.game == "auction":
            self._auction_call(action)
            return
        if action not in self.legal_calls():
            name = _CALL_NAMES.get(action, repr(action))
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

    def _auction_call(self, action: int) -> None:
        if action not in self._auction_calls():
            raise self._auction_error(action)
        caller = self.turn
        self.calls.append(action)
        stage = self._stage
        nxt = (caller + 1) & 3
        if stage == _AFTER_COINCHE:
            self._after_coinche += 1
            if action == SURCOINCHE:
                self.double = 4
                self.surcoinched_by = caller
                self._finish_auction()
            elif self._after_coinche == 3:
                self._finish_auction()
            else:
                self.turn = nxt
        elif stage == _RAISE:
            if action != PASS:
                self.bid_level = bid_of(action)[0]
            self._stage = _CONTRA
            self.turn = (self.bidder + 1) & 3
        elif stage == _CONTRA:
            if action == COINCHE:
                self.double = 2
                self.coinched_by = caller
                self._stage = _AFTER_COINCHE
                self.turn = nxt
            elif caller == (self.bidder + 1) & 3:
                self.turn = (self.bidder + 3) & 3
            else:
                self._finish_auction()
        elif action == PASS:
            self._passes += 1
            if self.bidder < 0 and self._passes == 4:
                self.phase = OVER
                self.turn = -1
            elif self.bidder >= 0 and self._passes == 3:
                if self.rules.raise_after_passes:
                    self._stage = _RAISE
                    self.turn = self.bidder
                else:
                    self._finish_auction()
            else:
                self.turn = nxt
        elif action == COINCHE:
            self.double = 2
            self.coinched_by = caller
            self._stage = _AFTER_COINCHE
            self.turn = nxt
        else:
            self.bid_level, self.mode = bid_of(action)
            self.bidder = caller
            self._passes = 0
            self.turn = nxt

    def _finish_auction(self) -> None:
        self.taker = self.bidder
        self._start_play(self.hands, self.mode)

    def _auction_error(self, action: int) -> IllegalCall:
        try:
            name = action_name(action)
        except ValueError:
            return IllegalCall(f"{action!r} is not a call", rule="auction")
        stage = self._stage
        if action == SURCOINCHE:
            if self.double == 1:
                return IllegalCall("surcoinche answers a coinche: nobody has coinched",
                                   rule="surcoinche after a coinche")
            return IllegalCall(f"seat {self.turn} cannot surcoinche: only the bidding team can",
                               rule="surcoinche by the bidders")
        if action == COINCHE:
            if self.bidder < 0:
                return IllegalCall("there is no bid to coinche yet", rule="coinche a bid")
            if self.double > 1:
                return IllegalCall("the contract is already coinched", rule="one coinche")
            if self.rules.raise_after_passes and stage == _BIDDING:
                return IllegalCall("contra comes once the bidding is over",
                                   rule="contra after the bidding")
            return IllegalCall(f"seat {self.turn} cannot coinche its own team's bid",
                               rule="coinche by the opponents")
        if action >= BID_BASE and stage in (_AFTER_COINCHE, _CONTRA):
            return IllegalCall(f"{name}: a coinche freezes the auction"
                               if stage == _AFTER_COINCHE else
                               f"{name}: the bidding is over", rule="auction frozen")
        if action >= BID_BASE:
            level, mode = bid_of(action)
            if level <= self.bid_level:
                return IllegalCall(f"{name} is not higher than the last bid "
                                   f"{action_name(bid_action(self.bid_level, self.mode))}",
                                   rule="bid higher than the last")
            if stage == _RAISE and mode != self.mode:
                return IllegalCall(f"{name}: a raise keeps the suit "
                                   f"{mode_name(self.mode)}", rule="raise in the same suit")
            return IllegalCall(f"{name}: {mode_name(mode)} cannot be bid under these rules",
                               rule="SA/TA option")
        return IllegalCall(f"{name} is not a call of this auction (pass, a bid such as "
                           "80H or capotS, coinche, surcoinche)", rule="auction")

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
        if self.n == 3:  # each for himself: the taker against the other two
            self._team = [0 if s == self.taker else 1 for s in range(3)]
        self.mode = mode
        self.phase = PLAY
        self.turn = self.first
        self._points = points_table(mode, self.rules.all_trump_points)
        self._win = WIN_VALUE[mode]
        self._higher = HIGHER[mode]
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
            self.best_value = self._win[card]
            self.trick_leaders.append(player)
        else:
            v = self._win[card]
            if v < 16 and card >> 3 != self.led:
                v = 0
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
        pts = self._points
        team = self._team[winner]
        if self.n == 4:
            points = pts[trick[0]] + pts[trick[1]] + pts[trick[2]] + pts[trick[3]]
        else:
            points = 0
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
        if n == self.tricks_total:
            self.card_points[team] += 10
            self.seat_points[winner] += 10
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
            if self.best_value >= 16 and not trumps & self._higher[self.best_card]:
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
                false_team[seat & 1] = True
            valid.append(mine)
        for seat in range(4):
            if false_team[seat & 1]:
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
        if self.mode == ALL_TRUMP and self.rules.all_trump_points == "scaled":
            t = self._team[self.taker]
            mine = (a, b)[t] * 162
            taker_pts = (mine + 129) // 258  # nearest, halves up
            return (taker_pts, 162 - taker_pts) if t == 0 else (162 - taker_pts, taker_pts)
        return a, b

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


def _check_cards(cards: Sequence[Sequence[Card]], n: int, allow_five: bool,
                 retourne: int) -> None:
    if len(cards) != n:
        raise ValueError(f"a deal lists the cards of {n} seats")
    seen: set[int] = set()
    sizes = {len(c) for c in cards}
    for listed in cards:
        for c in listed:
            if not isinstance(c, int) or not 0 <= c < 32:
                raise ValueError(f"{c!r} is not a card")
            if c in seen:
                raise ValueError(f"{card_name(c)} is dealt twice")
            if n == 3 and c & 7 < 2:
                raise ValueError(f"{card_name(c)} is not in play with three players "
                                 "(the 7s and 8s are set aside)")
            seen.add(c)
    if allow_five and sizes == {5} and n != 2:
        if retourne in seen:
            raise ValueError(f"the retourne {card_name(retourne)} is also in a hand")
        return
    size = 16 if n == 2 else 8
    if sizes != {size}:
        raise ValueError(f"each seat must hold {size} cards once the deal is complete"
                         + (" (or 5 cards in a voided hand)" if allow_five and n != 2 else ""))
    if allow_five and n != 2 and retourne not in seen:
        raise ValueError(f"the retourne {card_name(retourne)} must be in the taker's hand")
