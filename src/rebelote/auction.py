"""What a kind of auction plugs into a hand: how the cards are dealt for it, which calls
are open, what a call does, and the contract it has made so far.

Three auctions fill it in: the classic taking around the retourne
(:class:`~rebelote.taking.RetourneTaking`), découverte's taking without a retourne
(:class:`~rebelote.taking.DecouverteTaking`) and the auction games' bidding
(:class:`~rebelote.bidding.AuctionGameBidding`). Each is a part of
:class:`~rebelote.hand.HandState`'s class (its fields are the hand's slots); the hand
picks one when it is made, from its rules (``_auction``), and asks that one only: the
four methods below are called through ``_auction``, never by plain ``self.`` lookup
(which would find the first part in the class's order, whatever the hand's rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rebelote.actions import CALL_NAMES, Contract, action_name
from rebelote.cards import Card, CardSet
from rebelote.errors import NotYourTurn, WrongPhase
from rebelote.phases import AUCTION
from rebelote.rules import Rules


class AuctionPart:
    """The interface of an auction, and the hand's auction methods that ask it."""

    if not TYPE_CHECKING:  # the fields are the referee's slots
        __slots__ = ()

    rules: Rules
    n: int
    calls: list[int]
    turn: int
    phase: int
    taker: int
    hands: list[CardSet]
    _auction: type[AuctionPart]
    _contract_cache: tuple[int, int, Contract | None] | None

    # -- what the hand's users call ---------------------------------------------------

    def legal_calls(self) -> list[int]:
        """Calls the seat to speak may make (empty outside the auction)."""
        if self.phase != AUCTION:
            return []
        return self._auction._open_calls(self)

    def call(self, action: int, seat: int | None = None) -> None:
        """Make a call in the auction; raise if it is not allowed now."""
        if self.phase != AUCTION:
            raise WrongPhase(f"{action_name(action) if action in CALL_NAMES else action!r} "
                             "is a call, but the auction is over", rule="calls only in the auction")
        if seat is not None and seat != self.turn:
            raise NotYourTurn(f"seat {seat} cannot call: it is seat {self.turn}'s turn to speak")
        self._auction._make_call(self, action)

    def _deal_cards(self, deck: Sequence[Card]) -> None:
        """Deal ``deck`` (checked) as the hand's auction needs it dealt."""
        self._auction._deal_deck(self, deck)

    def contract_info(self) -> Contract | None:
        """The contract as the table knows it (:attr:`SeatView.contract_info`): None
        before any bid or take and in a voided hand; in an auction game's bidding the
        highest bid so far; then the contract played (``final``)."""
        cached = self._contract_cache
        if cached is not None and cached[0] == len(self.calls) and cached[1] == self.taker:
            return cached[2]
        info = self._auction._contract_so_far(self)
        self._contract_cache = (len(self.calls), self.taker, info)
        return info

    # -- what each auction fills in -----------------------------------------------------

    def _deal_deck(self, deck: Sequence[Card]) -> None:
        """Deal ``deck`` (top card first, checked) from first hand, as this auction
        needs it dealt."""
        raise NotImplementedError

    def _open_calls(self) -> list[int]:
        """The calls open to the seat to speak (the auction is going on)."""
        raise NotImplementedError

    def _make_call(self, action: int) -> None:
        """Check ``action`` for the seat to speak and make it (or raise, changing
        nothing); once the contract is made, the play begins (:meth:`_start_play`)."""
        raise NotImplementedError

    def _contract_so_far(self) -> Contract | None:
        """The contract as it stands (see :meth:`contract_info`)."""
        raise NotImplementedError

    # -- what the play part gives ---------------------------------------------------------

    def _start_play(self, hands: list[CardSet], contract: int) -> None:
        raise NotImplementedError  # the play's (rebelote.play.TrickPlay): the play begins
