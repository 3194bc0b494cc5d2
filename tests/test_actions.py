"""The action vocabulary (rebelote.actions): notation both ways, bids, contracts."""

from __future__ import annotations

import pytest

from rebelote import hand as hand_module
from rebelote.actions import (
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
    contract_of_call,
    is_bid,
    is_card,
    last_bid,
    named_call,
    parse_action,
)
from rebelote.cards import ALL_TRUMP, NO_CONTRACT, NO_TRUMP, CardError, parse_card


def test_every_action_round_trips_through_its_notation() -> None:
    actions = [*range(32), PASS, TAKE, *range(CALL_SPADES, CALL_SPADES + 4), CALL_NO_TRUMP,
               CALL_ALL_TRUMP, COINCHE, SURCOINCHE,
               *(bid_action(level, c) for level in range(CAPOT_LEVEL + 1) for c in range(6))]
    assert len(set(actions)) == len(actions)
    for a in actions:
        assert parse_action(action_name(a)) == a
    assert action_name(bid_action(2, 1)) == "100H"
    assert action_name(bid_action(CAPOT_LEVEL, NO_TRUMP)) == "capotSA"
    assert parse_action("contra") == parse_action("contre") == COINCHE
    assert parse_action("recontra") == SURCOINCHE
    assert parse_action(" 10h ") == parse_card("10H")


def test_bad_notation_is_refused() -> None:
    with pytest.raises(CardError):
        parse_action("85H")
    with pytest.raises(CardError):
        parse_action("tak")
    with pytest.raises(ValueError):
        action_name(63)
    with pytest.raises(ValueError):
        action_name(bid_action(CAPOT_LEVEL, ALL_TRUMP) + 1)


def test_bids_and_calls() -> None:
    a = bid_action(8, 3)
    assert is_bid(a) and not is_card(a) and bid_of(a) == (8, 3)
    assert not is_bid(COINCHE) and is_card(31) and not is_card(PASS)
    assert bid_value(0) == BID_VALUES[0] == 80
    assert bid_value(CAPOT_LEVEL) == 250 and bid_value(CAPOT_LEVEL, 500) == 500
    assert named_call(2) == CALL_SPADES + 2 and named_call(NO_TRUMP) == CALL_NO_TRUMP
    assert contract_of_call(TAKE, parse_card("JD")) == 2
    assert contract_of_call(CALL_SPADES + 3, parse_card("JD")) == 3
    assert contract_of_call(CALL_ALL_TRUMP, -1) == ALL_TRUMP
    assert contract_of_call(PASS, 5) == NO_CONTRACT
    calls = [PASS, bid_action(0, 1), bid_action(2, 0), COINCHE, PASS]
    assert last_bid(calls) == (2, bid_action(2, 0))
    assert last_bid([PASS, PASS]) is None


def test_contract_names() -> None:
    assert Contract(0, 1, final=True).name == "H"
    assert Contract(1, NO_TRUMP, 2, 100, 2).name == "100SA"
    c = Contract(3, 0, CAPOT_LEVEL, 250, 4, 0, 3, True)
    assert c.is_capot and c.name == "capotS"


def test_the_referee_module_still_exports_the_vocabulary() -> None:
    for name in ("PASS", "TAKE", "BID_BASE", "bid_action", "action_name", "parse_action",
                 "CAPOT_LEVEL", "COINCHE", "SURCOINCHE", "CALL_SPADES"):
        assert hasattr(hand_module, name)
