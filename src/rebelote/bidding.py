"""The auction of the auction games (coinche, contrée, acorralada; RULES.md §4): bids
80..160 and capot, coinche and surcoinche (contra, recontra), the acorralada raise.

A part of :class:`~rebelote.hand.HandState` (see :mod:`rebelote.auction`): the hand's
slots hold the fields, this class the rules of the auction games' deal and bidding, in
its four stages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from rebelote.actions import (
    CAPOT_LEVEL,
    COINCHE,
    PASS,
    SURCOINCHE,
    Contract,
    action_name,
    bid_action,
    bid_of,
    bid_value,
    is_bid,
)
from rebelote.auction import AuctionPart
from rebelote.cards import ALL_TRUMP, NO_TRUMP, SPADES, SUITS, Card, CardSet, contract_name
from rebelote.deal import deal_packets
from rebelote.errors import IllegalCall
from rebelote.phases import OVER
from rebelote.tricks import team_of

BIDDING: Final = 0
"""Bids go round; three passes after a bid end it (four at the start void the hand)."""
RAISE: Final = 1
"""Acorralada (``raise_after_passes``): the winning bidder may raise once, in his suit."""
CONTRA: Final = 2
"""Acorralada: the bidding is over; the opponents may say contra."""
AFTER_COINCHE: Final = 3
"""A coinche froze the bidding: the bidders may surcoinche while the others speak."""


class AuctionGameBidding(AuctionPart):
    """The auction games' deal (8 cards each, in the rules' packets) and calls: which
    are open, and what each one does."""

    if not TYPE_CHECKING:  # the fields are the referee's slots
        __slots__ = ()

    contract: int
    bidder: int
    bid_level: int
    double: int
    coinched_by: int
    surcoinched_by: int
    first: int
    initial: list[CardSet]
    dealt: list[CardSet]
    _stage: int
    _passes: int
    _after_coinche: int

    def _deal_deck(self, deck: Sequence[Card]) -> None:
        n = self.n
        first = self.first
        initial, _dealt = deal_packets(deck, first, n,
                                       [int(p) for p in self.rules.auction_deal.split("-")])
        self.initial = initial
        self.hands = initial[:]
        self.dealt = initial[:]

    def _contract_so_far(self) -> Contract | None:
        if self.bidder < 0:
            return None
        return Contract(self.bidder, self.contract, self.bid_level,
                        bid_value(self.bid_level, self.rules.capot_bid_value), self.double,
                        self.coinched_by, self.surcoinched_by, self.taker >= 0)

    def _open_calls(self) -> list[int]:
        stage = self._stage
        bidding_team = team_of(self.turn) == team_of(self.bidder)
        if stage == AFTER_COINCHE:
            return [PASS, SURCOINCHE] if bidding_team else [PASS]
        if stage == CONTRA:
            return [PASS, COINCHE]
        if stage == RAISE:  # the winning bidder may raise once, in his suit
            return [PASS] + [bid_action(level, self.contract)
                             for level in range(self.bid_level + 1, CAPOT_LEVEL + 1)]
        contracts = list(SUITS)
        if self.rules.auction_no_trump:
            contracts.append(NO_TRUMP)
        if self.rules.auction_all_trump:
            contracts.append(ALL_TRUMP)
        calls = [PASS]
        for level in range(self.bid_level + 1, CAPOT_LEVEL + 1):
            lowest = bid_action(level, SPADES)  # the level's bids: lowest + contract
            calls.extend([lowest + c for c in contracts])
        if self.bidder >= 0 and not bidding_team and not self.rules.raise_after_passes:
            calls.append(COINCHE)
        return calls

    def _make_call(self, action: int) -> None:
        if action not in self._auction._open_calls(self):
            raise self._auction_error(action)
        caller = self.turn
        self.calls.append(action)
        stage = self._stage
        nxt = (caller + 1) & 3
        if stage == AFTER_COINCHE:
            self._after_coinche += 1
            if action == SURCOINCHE:
                self.double = 4
                self.surcoinched_by = caller
                self._finish_auction()
            elif self._after_coinche == 3:
                self._finish_auction()
            else:
                self.turn = nxt
        elif stage == RAISE:
            if action != PASS:
                self.bid_level = bid_of(action)[0]
            self._stage = CONTRA
            self.turn = (self.bidder + 1) & 3
        elif stage == CONTRA:
            if action == COINCHE:
                self.double = 2
                self.coinched_by = caller
                self._stage = AFTER_COINCHE
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
                    self._stage = RAISE
                    self.turn = self.bidder
                else:
                    self._finish_auction()
            else:
                self.turn = nxt
        elif action == COINCHE:
            self.double = 2
            self.coinched_by = caller
            self._stage = AFTER_COINCHE
            self.turn = nxt
        else:
            self.bid_level, self.contract = bid_of(action)
            self.bidder = caller
            self._passes = 0
            self.turn = nxt

    def _finish_auction(self) -> None:
        self.taker = self.bidder
        self._start_play(self.hands, self.contract)

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
            if self.rules.raise_after_passes and stage == BIDDING:
                return IllegalCall("contra comes once the bidding is over",
                                   rule="contra after the bidding")
            return IllegalCall(f"seat {self.turn} cannot coinche its own team's bid",
                               rule="coinche by the opponents")
        if is_bid(action) and stage in (AFTER_COINCHE, CONTRA):
            return IllegalCall(f"{name}: a coinche freezes the auction"
                               if stage == AFTER_COINCHE else
                               f"{name}: the bidding is over", rule="auction frozen")
        if is_bid(action):
            level, contract = bid_of(action)
            if level <= self.bid_level:
                return IllegalCall(f"{name} is not higher than the last bid "
                                   f"{action_name(bid_action(self.bid_level, self.contract))}",
                                   rule="bid higher than the last")
            if stage == RAISE and contract != self.contract:
                return IllegalCall(f"{name}: a raise keeps the suit "
                                   f"{contract_name(self.contract)}", rule="raise in the same suit")
            return IllegalCall(f"{name}: {contract_name(contract)} cannot be bid under these rules",
                               rule="SA/TA option")
        return IllegalCall(f"{name} is not a call of this auction (pass, a bid such as "
                           "80H or capotS, coinche, surcoinche)", rule="auction")
