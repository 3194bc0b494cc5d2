"""The classic auction (RULES.md §3): two rounds of taking around the retourne, then the
completion of the deal; and découverte's taking (two players, docs/variants.md), where
every card is dealt at once and a suit is named without a retourne.

Parts of :class:`~rebelote.hand.HandState` (see :mod:`rebelote.auction`): the hand's
slots hold the fields, these classes the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rebelote.actions import (
    CALL_ALL_TRUMP,
    CALL_NAMES,
    CALL_NO_TRUMP,
    CALL_SPADES,
    PASS,
    TAKE,
    Contract,
    contract_of_call,
)
from rebelote.auction import AuctionPart
from rebelote.cards import Card, CardSet, card_name
from rebelote.deal import deal_packets
from rebelote.errors import IllegalCall
from rebelote.phases import OVER

NAMED_SUITS = range(CALL_SPADES, CALL_SPADES + 4)
"""The calls naming a suit: spades, hearts, diamonds, clubs."""


class RetourneTaking(AuctionPart):
    """Classic belote with three or four players: 5 cards each and the retourne; round 1
    takes the retourne's suit or passes, round 2 names another suit (SA/TA by option);
    the taker gets the retourne and 2 more cards, the others 3."""

    if not TYPE_CHECKING:
        __slots__ = ()

    first: int
    contract: int
    retourne: Card
    initial: list[CardSet]
    _next: tuple[int, ...]
    _rest: list[CardSet] | None
    _retourne_holder: int
    _stock: list[Card] | None

    def _deal_deck(self, deck: Sequence[Card]) -> None:
        n = self.n
        first = self.first
        packets = (3, 2) if self.rules.deal_packets == "3-2" else (2, 3)
        initial, i = deal_packets(deck, first, n, packets)
        self.initial = initial
        self.hands = initial[:]
        self.retourne = deck[i]
        self._stock = list(deck[i + 1:])

    def _open_calls(self) -> list[int]:
        if len(self.calls) < self.n:
            return [PASS, TAKE]
        named = [PASS] + [c for c in NAMED_SUITS if c - CALL_SPADES != self.retourne >> 3]
        return self._with_options(named)

    def _with_options(self, named: list[int]) -> list[int]:
        """``named`` with SA and TA where the rules let round 2 name them."""
        if self.rules.round2_no_trump:
            named.append(CALL_NO_TRUMP)
        if self.rules.round2_all_trump:
            named.append(CALL_ALL_TRUMP)
        return named

    def _make_call(self, action: int) -> None:
        if action not in self._auction._open_calls(self):
            raise self._taking_error(action)
        caller = self.turn
        if action != PASS and self._rest is not None and caller != self._retourne_holder:
            if self._retourne_holder < 0:
                raise IllegalCall(f"seat {caller} cannot take: the deal lists 5 cards each, "
                                  "a voided hand", rule="voided deal")
            raise IllegalCall(f"seat {caller} cannot take: the retourne "
                              f"{card_name(self.retourne)} is in seat "
                              f"{self._retourne_holder}'s cards", rule="retourne to the taker")
        if self._called(action, 2 * self.n):
            self._complete_deal()
            self._start_play(self.hands, contract_of_call(action, self.retourne))

    def _called(self, action: int, last_pass: int) -> bool:
        """Record ``action`` (checked); whether it took (the auction is over, the
        caller is the taker). The ``last_pass``-th pass voids the hand."""
        caller = self.turn
        self.calls.append(action)
        if action == PASS:
            if len(self.calls) == last_pass:
                self.phase = OVER
                self.turn = -1
            else:
                self.turn = self._next[caller]
            return False
        self.taker = caller
        return True

    def _taking_error(self, action: int) -> IllegalCall:
        name = CALL_NAMES.get(action, repr(action))
        if action == TAKE:
            return IllegalCall("'take' is only for round 1; in round 2 name a suit",
                               rule="round 2 names a suit")
        if action in (CALL_NO_TRUMP, CALL_ALL_TRUMP):
            return IllegalCall(f"{name} cannot be named: these rules do not allow it in "
                               "round 2", rule="round 2 SA/TA option")
        if action in NAMED_SUITS and len(self.calls) < self.n:
            return IllegalCall(f"{name}: round 1 only takes the retourne's suit or passes",
                               rule="round 1 takes the retourne")
        if action in NAMED_SUITS:
            return IllegalCall(f"{name}: round 2 must name a suit other than the "
                               "retourne's", rule="round 2 names another suit")
        return IllegalCall(f"{name} is not a call of classic belote", rule="auction")

    def _complete_deal(self) -> None:
        """The taker receives the retourne; then every seat the rest of its cards (from
        the stock in dealing order, or as a record listed them)."""
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

    def _contract_so_far(self) -> Contract | None:
        return Contract(self.taker, self.contract, final=True) if self.taker >= 0 else None


class DecouverteTaking(RetourneTaking):
    """Découverte: each player gets 5 cards face down with 5 face up on them, then 6 in
    hand; one round names any suit (SA/TA by option) or passes, two passes void the
    hand. A face-down card is turned up when the card over it is played."""

    if not TYPE_CHECKING:
        __slots__ = ()

    layout: list[tuple[tuple[Card, Card], ...]]
    table_up: list[CardSet]
    _covered: list[dict[Card, Card]]

    def _deal_deck(self, deck: Sequence[Card]) -> None:
        first = self.first
        initial = [0, 0]
        down = [deck[5 * k:5 * k + 5] for k in range(2)]
        up = [deck[10 + 5 * k:15 + 5 * k] for k in range(2)]
        i = 20
        for packet in (3, 3):
            for k in range(2):
                for c in deck[i:i + packet]:
                    initial[(first + k) % 2] |= 1 << c
                i += packet
        layout = {(first + k) % 2: (up[k], down[k]) for k in range(2)}
        self._lay_table(initial, [layout[0], layout[1]])

    def _lay_table(self, hand_cards: list[CardSet],
                   layout: list[tuple[Sequence[Card], Sequence[Card]]]) -> None:
        """Each seat's hand, and its face-up cards over face-down ones."""
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

    def _open_calls(self) -> list[int]:
        return self._with_options([PASS, *NAMED_SUITS])

    def _make_call(self, action: int) -> None:
        if action not in self._auction._open_calls(self):
            raise self._taking_error(action)
        if self._called(action, 2):  # everything is dealt already
            self._start_play(self.hands, contract_of_call(action, -1))
