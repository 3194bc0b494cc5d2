"""The action vocabulary and its record notation (RECORD.md): pure values, no state.

An action is a small int: a card ``0..31`` in the play, or a call in the auction:
:data:`PASS`, :data:`TAKE`, a suit named in round 2 (:data:`CALL_SPADES` + suit),
:data:`CALL_NO_TRUMP`, :data:`CALL_ALL_TRUMP`, :data:`COINCHE`, :data:`SURCOINCHE`, or
an auction game's bid (:func:`bid_action`: ``BID_BASE + level * 6 + contract``).
:class:`Contract` is what an auction (either kind) has made so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rebelote.cards import (
    ALL_TRUMP,
    NO_CONTRACT,
    NO_TRUMP,
    CardError,
    card_name,
    contract_name,
    parse_card,
    parse_contract,
)

PASS: Final = 32
TAKE: Final = 33
CALL_SPADES: Final = 34
"""Round 2 names a suit: ``CALL_SPADES + suit`` (34 S, 35 H, 36 D, 37 C)."""
CALL_NO_TRUMP: Final = 38
CALL_ALL_TRUMP: Final = 39
COINCHE: Final = 40
"""Coinche / contre / contra: the contract counts double."""
SURCOINCHE: Final = 41
"""Surcoinche / surcontre / recontra: x4 (or x3, ``Rules.surcoinche_multiplier``)."""
BID_BASE: Final = 64
"""Auction games: a bid is ``BID_BASE + level * 6 + contract``."""
BID_VALUES: Final = (80, 90, 100, 110, 120, 130, 140, 150, 160)
CAPOT_LEVEL: Final = 9
"""The level after 160: capot (all the tricks)."""
CAPOT_VALUE: Final = 250
"""A capot bid's default value (``Rules.capot_bid_value`` may say 500)."""
_LAST_BID: Final = BID_BASE + CAPOT_LEVEL * 6 + ALL_TRUMP

CALL_NAMES: Final = {PASS: "pass", TAKE: "take", CALL_SPADES: "S", CALL_SPADES + 1: "H",
                     CALL_SPADES + 2: "D", CALL_SPADES + 3: "C", CALL_NO_TRUMP: "SA",
                     CALL_ALL_TRUMP: "TA", COINCHE: "coinche", SURCOINCHE: "surcoinche"}
"""The record notation of each call that is not a bid."""
_CONTRACT_TEXTS: Final = ("s", "h", "d", "c", "sa", "ta", "♠", "♥", "♦", "♣")


def is_card(action: int) -> bool:
    """Whether an action is a card (0..31) rather than a call."""
    return 0 <= action < 32


def is_bid(action: int) -> bool:
    """Whether an action is an auction game's bid (80H .. capotTA)."""
    return BID_BASE <= action <= _LAST_BID


def bid_action(level: int, contract: int) -> int:
    """The action bidding ``BID_VALUES[level]`` (or capot at level 9) in ``contract``."""
    return BID_BASE + level * 6 + contract


def bid_of(action: int) -> tuple[int, int]:
    """(level, contract) of a bid action."""
    return divmod(action - BID_BASE, 6)


def bid_value(level: int, capot_value: int = CAPOT_VALUE) -> int:
    """The points a bid level stands for (capot: ``capot_value``, the rules' capot bid)."""
    return BID_VALUES[level] if level < CAPOT_LEVEL else capot_value


def named_call(contract: int) -> int:
    """Round 2's call naming ``contract`` (a suit, SA or TA)."""
    if contract == NO_TRUMP:
        return CALL_NO_TRUMP
    if contract == ALL_TRUMP:
        return CALL_ALL_TRUMP
    return CALL_SPADES + contract


def contract_of_call(action: int, retourne: int) -> int:
    """The contract a classic taking call makes: ``TAKE`` the retourne's suit, a named
    suit, SA or TA; :data:`~rebelote.cards.NO_CONTRACT` for a pass or anything else."""
    if action == TAKE:
        return retourne >> 3 if retourne >= 0 else NO_CONTRACT
    if CALL_SPADES <= action <= CALL_SPADES + 3:
        return action - CALL_SPADES
    if action == CALL_NO_TRUMP:
        return NO_TRUMP
    if action == CALL_ALL_TRUMP:
        return ALL_TRUMP
    return NO_CONTRACT


def last_bid(calls: Sequence[int]) -> tuple[int, int] | None:
    """(index in ``calls``, bid action) of the last bid of an auction game, or None."""
    for i in range(len(calls) - 1, -1, -1):
        if is_bid(calls[i]):
            return i, calls[i]
    return None


def action_name(action: int) -> str:
    """Record notation of an action: ``JS``, ``pass``, ``take``, ``H``, ``SA``, ``100H``."""
    if 0 <= action < 32:
        return card_name(action)
    if is_bid(action):
        level, contract = bid_of(action)
        value = "capot" if level == CAPOT_LEVEL else str(BID_VALUES[level])
        return value + contract_name(contract)
    try:
        return CALL_NAMES[action]
    except (KeyError, TypeError):
        raise ValueError(f"{action!r} is not an action") from None


def parse_action(text: str) -> int:
    """Parse a card or a call in record notation (``pass``, ``take``, ``S``, ``SA``, ``10H``,
    ``coinche``, ``capotS``); raise :class:`~rebelote.cards.CardError` otherwise."""
    t = text.strip().lower() if isinstance(text, str) else ""
    if 2 <= len(t) <= 3 and t not in ("sa", "ta"):  # most often a card: try it first
        try:
            return parse_card(text)
        except CardError:
            pass
    if t == "pass":
        return PASS
    if t == "take":
        return TAKE
    if t in ("coinche", "contre", "contra"):
        return COINCHE
    if t in ("surcoinche", "surcontre", "recontra"):
        return SURCOINCHE
    value, contract_text = _split_bid(t)
    if value is not None:
        level = CAPOT_LEVEL if value == "capot" else BID_VALUES.index(int(value))
        return bid_action(level, parse_contract(contract_text))
    if t in _CONTRACT_TEXTS:
        return named_call(parse_contract(t))
    return parse_card(text)


def _split_bid(text: str) -> tuple[str | None, str]:
    """``("100", "h")`` for ``100h``, ``("capot", "sa")`` for ``capotsa``; (None, "")
    when ``text`` is not a bid."""
    for head in ("capot", *(str(v) for v in BID_VALUES)):
        if text.startswith(head) and text[len(head):] in _CONTRACT_TEXTS:
            return head, text[len(head):]
    return None, ""


@dataclass(frozen=True, slots=True)
class Contract:
    """A contract as the table knows it: who holds it, what it is, how it is doubled.

    During an auction game's bidding it is the highest bid so far (``final`` False);
    once the auction is over, the contract played (``final`` True, ``bidder`` is the
    taker). Classic hands have no level: ``level`` is -1 and ``value`` 0.
    """

    bidder: int
    """The seat that made the contract (the taker once ``final``)."""
    kind: int
    """The contract: a trump suit 0..3, ``NO_TRUMP`` (SA) or ``ALL_TRUMP`` (TA)."""
    level: int = -1
    """Auction games: the ``BID_VALUES`` index, ``CAPOT_LEVEL`` for capot; -1 classic."""
    value: int = 0
    """Auction games: the points bid (80..160, the rules' capot value); 0 classic."""
    double: int = 1
    """1; 2 after a coinche / contre / contra; 4 after a surcoinche / surcontre /
    recontra (scored x ``Rules.surcoinche_multiplier``)."""
    doubled_by: int = -1
    """The seat that coinched (-1 if none)."""
    redoubled_by: int = -1
    """The seat that surcoinched (-1 if none)."""
    final: bool = False
    """The auction is over: this is the contract played."""

    @property
    def is_capot(self) -> bool:
        """A capot bid (all the tricks)."""
        return self.level == CAPOT_LEVEL

    @property
    def name(self) -> str:
        """Record notation of the contract: ``H``, ``SA``, ``100H``, ``capotS``."""
        if self.level < 0:
            return contract_name(self.kind)
        return action_name(bid_action(self.level, self.kind))
