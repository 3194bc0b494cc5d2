"""RULES.md §3: dealing, the two rounds of taking, voided hands, completion."""

from __future__ import annotations

import random

import pytest

from rebelote.cards import cards_of, parse_card
from rebelote.errors import IllegalCall, NotYourTurn, WrongPhase
from rebelote.hand import (
    AUCTION,
    CALL_ALL_TRUMP,
    CALL_NO_TRUMP,
    CALL_SPADES,
    PASS,
    PLAY,
    TAKE,
    HandState,
)
from rebelote.rules import Rules

DECK = list(range(32))  # card 0 on top


def test_deal_packets_3_2() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)  # first hand is seat 0
    assert cards_of(h.hands[0]) == [0, 1, 2, 12, 13]
    assert cards_of(h.hands[1]) == [3, 4, 5, 14, 15]
    assert cards_of(h.hands[3]) == [9, 10, 11, 18, 19]
    assert h.retourne == 20


def test_deal_packets_2_3() -> None:
    h = HandState.deal(Rules.classic().replace(deal_packets="2-3"), 3, DECK)
    assert cards_of(h.hands[0]) == [0, 1, 8, 9, 10]
    assert cards_of(h.hands[3]) == [6, 7, 17, 18, 19]


def test_first_hand_speaks_first_and_take_ends_round_one() -> None:
    h = HandState.deal(Rules.classic(), 1, DECK)
    assert h.turn == 2
    h.call(PASS)
    h.call(TAKE)
    assert h.phase == PLAY and h.taker == 3 and h.contract == 20 >> 3
    assert h.turn == 2  # first hand leads


def test_completion_gives_taker_retourne_plus_two() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)
    h.call(PASS)
    h.call(TAKE)  # seat 1 takes
    assert all(m.bit_count() == 8 for m in h.hands)
    assert h.hands[1] >> 20 & 1
    # Stock 21..31 dealt from first hand: seat 0 gets 3, seat 1 gets 2, seats 2, 3 get 3.
    assert h.hands[0] & ~h.initial[0] == sum(1 << c for c in (21, 22, 23))
    assert h.hands[1] & ~h.initial[1] == sum(1 << c for c in (20, 24, 25))
    assert h.hands[3] & ~h.initial[3] == sum(1 << c for c in (29, 30, 31))


def test_round_two_names_another_suit_and_taker_gets_retourne() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)  # retourne 20 = 7D (diamonds)
    for _ in range(4):
        h.call(PASS)
    assert h.legal_calls() == [PASS, CALL_SPADES, CALL_SPADES + 1, CALL_SPADES + 3]
    with pytest.raises(IllegalCall) as err:
        h.call(CALL_SPADES + 2)
    assert err.value.rule == "round 2 names another suit"
    with pytest.raises(IllegalCall):
        h.call(TAKE)
    h.call(PASS)
    h.call(CALL_SPADES)  # seat 1 names spades
    assert h.taker == 1 and h.contract == 0 and h.hands[1] >> 20 & 1


def test_round_two_sa_ta_only_with_the_option() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)
    for _ in range(4):
        h.call(PASS)
    with pytest.raises(IllegalCall) as err:
        h.call(CALL_NO_TRUMP)
    assert err.value.rule == "round 2 SA/TA option"
    rules = Rules.classic().replace(round2_no_trump=True, round2_all_trump=True)
    h = HandState.deal(rules, 3, DECK)
    for _ in range(4):
        h.call(PASS)
    assert CALL_NO_TRUMP in h.legal_calls() and CALL_ALL_TRUMP in h.legal_calls()
    h.call(CALL_ALL_TRUMP)
    assert h.contract_name() == "TA"


def test_round_one_cannot_name_a_suit() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)
    with pytest.raises(IllegalCall) as err:
        h.call(CALL_SPADES)
    assert err.value.rule == "round 1 takes the retourne"


def test_eight_passes_void_the_hand() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)
    for _ in range(8):
        assert h.phase == AUCTION
        h.call(PASS)
    assert h.is_over and h.is_void
    assert h.score().outcome == "void" and h.score().scored == (0, 0)


def test_out_of_turn_call_changes_nothing() -> None:
    h = HandState.deal(Rules.classic(), 3, DECK)
    with pytest.raises(NotYourTurn):
        h.call(PASS, seat=2)
    assert h.calls == [] and h.turn == 0
    with pytest.raises(WrongPhase):
        h.play(parse_card("7S"))


def test_random_deals_give_8_cards_each_after_taking() -> None:
    rng = random.Random(3)
    for _ in range(200):
        h = HandState.new(Rules.classic(), rng.randrange(4), rng)
        while h.phase == AUCTION:
            h.call(rng.choice(h.legal_calls()))
        if h.is_void:
            continue
        assert sorted(m.bit_count() for m in h.hands) == [8, 8, 8, 8]
        assert sum(h.hands) == (1 << 32) - 1
        assert h.hands[h.taker] >> h.retourne & 1
        if h.contract < 4:
            assert h.retourne >> 3 == h.contract or len(h.calls) > 4


def test_shuffle_is_uniform_enough() -> None:
    from rebelote.hand import deal_deck

    rng = random.Random(12)
    n = 64_000
    counts = [[0] * 32 for _ in range(32)]  # counts[card][position]
    for _ in range(n):
        for pos, card in enumerate(deal_deck(rng)):
            counts[card][pos] += 1
    expected = n / 32
    chi2 = sum((c - expected) ** 2 / expected for row in counts for c in row)
    # 31 * 31 = 961 degrees of freedom: mean 961, sd about 44; 1200 is > 5 sd out.
    assert chi2 < 1200
    assert sorted(deal_deck(random.Random(1))) == list(range(32))


def test_copy_is_complete_and_independent() -> None:
    rng = random.Random(4)
    for rules in (Rules.classic(), Rules.coinche(), Rules.acorralada()):
        h = HandState.new(rules, 1, rng)
        for _ in range(rng.randrange(1, 12)):
            if h.is_over:
                break
            h.apply(rng.choice(h.legal_actions()))
        c = h.copy()
        for name in HandState.__slots__:
            assert getattr(c, name) == getattr(h, name), name
        # Playing on in the copy leaves the original untouched.
        before = [getattr(h, name) for name in HandState.__slots__ if name != "_legal"]
        while not c.is_over:
            c.apply(rng.choice(c.legal_actions()))
        after = [getattr(h, name) for name in HandState.__slots__ if name != "_legal"]
        assert before == after


def test_the_contract_keeps_its_former_name_mode() -> None:
    h = HandState.new(Rules.classic(), 0, random.Random(4))
    assert h.contract == h.mode == -1
    h.apply(TAKE)
    assert h.contract == h.mode == h.retourne >> 3


@pytest.mark.parametrize("preset", ["classic", "three", "decouverte", "coinche", "acorralada"])
def test_each_hand_asks_the_auction_of_its_rules(preset: str) -> None:
    from rebelote.bidding import AuctionGameBidding
    from rebelote.hand import auction_for
    from rebelote.taking import DecouverteTaking, RetourneTaking

    rules = Rules.preset_named(preset)
    kind = auction_for(rules)
    assert kind is {"classic": RetourneTaking, "three": RetourneTaking,
                    "decouverte": DecouverteTaking}.get(preset, AuctionGameBidding)
    hand = HandState.new(rules, 0, random.Random(2))
    assert hand.legal_calls() == kind._open_calls(hand)  # the part's calls, not another's
    assert hand.copy().legal_calls() == hand.legal_calls()
