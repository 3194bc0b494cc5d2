"""The pure trick rules (rebelote.tricks) agree with the referee on random hands."""

from __future__ import annotations

import random

import pytest

from rebelote.cards import ALL_TRUMP, NO_TRUMP, parse_card
from rebelote.hand import PLAY, HandState
from rebelote.rules import Rules
from rebelote.tricks import (
    beats,
    legal_cards,
    partner_of,
    scale_all_trump,
    scaled_pair,
    side_of,
    team_of,
    teams,
    trick_points,
    trick_winner,
    winning_index,
)

RULES = [
    Rules.classic(), Rules.ffb().replace(undertrump="free", partner_master_free=False),
    Rules.classic().replace(round2_no_trump=True, round2_all_trump=True),
    Rules.coinche().replace(auction_no_trump=True, auction_all_trump=True),
    Rules.three(), Rules.decouverte(),
]


def _cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.preset)
def test_legal_cards_and_winners_match_the_referee(rules: Rules) -> None:
    rng = random.Random(15)
    for _ in range(120):
        hand = HandState.new(rules, rng.randrange(rules.players), rng)
        while not hand.is_over:
            if hand.phase == PLAY:
                n = hand.n
                seat = hand.turn
                trick = hand.trick
                master = trick_winner(hand.trick_leaders[-1], trick, hand.contract, n) if trick \
                    else -1
                assert master == (hand.best_seat if trick else -1)
                legal = legal_cards(hand.hands[seat], trick, hand.contract,
                                    master >= 0 and master == partner_of(seat, n),
                                    rules.undertrump, rules.partner_master_free)
                assert legal == hand.legal_cards()
            before = len(hand.trick_winners)
            leader = hand.trick_leaders[-1] if hand.trick_leaders else -1
            hand.apply(rng.choice(hand.legal_actions()))
            if len(hand.trick_winners) > before:
                cards = hand.played[-hand.n:]
                assert trick_winner(leader, cards, hand.contract, hand.n) == hand.trick_winners[-1]
        if hand.taker >= 0:
            n = hand.n
            sides = [0, 0]
            for i, winner in enumerate(hand.trick_winners):
                last = i == len(hand.trick_winners) - 1
                sides[side_of(winner, n, hand.taker)] += trick_points(
                    hand.played[n * i:n * i + n], hand.contract, rules.all_trump_points, last)
            assert sides == hand.card_points


def test_winner_so_far_and_beats() -> None:
    # hearts trump: the 9 of hearts wins over the ace led; a higher club does not count
    cards = _cards("AS 9H KS")
    assert winning_index(cards, 1) == 1
    assert trick_winner(3, cards, 1) == 0
    assert beats(parse_card("JH"), parse_card("9H"), 1)
    assert not beats(parse_card("AH"), parse_card("9H"), 1)
    assert not beats(parse_card("AC"), parse_card("7S"), 1)  # neither led nor trump
    assert beats(parse_card("7H"), parse_card("AS"), 1)      # any trump over a plain card
    # sans atout: 10 below the ace; tout atout: the jack of the suit led wins
    assert winning_index(_cards("10D AD JD"), NO_TRUMP) == 1
    assert winning_index(_cards("AD 9D JD"), ALL_TRUMP) == 2
    assert winning_index([], 0) == -1
    assert trick_winner(0, [], 0) == -1


def test_legal_cards_obligations() -> None:
    hand = sum(1 << c for c in _cards("7H 8H AS KC"))
    # spades led, hearts trump: follow with the ace
    assert legal_cards(hand, _cards("10S"), 1) == 1 << parse_card("AS")
    # diamonds led: no diamond, must trump; partner master: free (unless the option says)
    trumps = sum(1 << c for c in _cards("7H 8H"))
    assert legal_cards(hand, _cards("AD"), 1) == trumps
    assert legal_cards(hand, _cards("AD"), 1, partner_master=True) == hand
    assert legal_cards(hand, _cards("AD"), 1, True, partner_master_free=False) == trumps
    # trumped with the 9: cannot overtrump, pisser required or free
    assert legal_cards(hand, _cards("AD 9H"), 1) == trumps
    assert legal_cards(hand, _cards("AD 9H"), 1, undertrump="free") == hand
    # sans atout: a void player discards anything
    assert legal_cards(hand, _cards("AD"), NO_TRUMP) == hand
    # leading: anything
    assert legal_cards(hand, [], 1) == hand


def test_teams_and_sides() -> None:
    assert teams(4) == (0, 1, 0, 1)
    assert teams(3) == (0, 1, 2)
    assert teams(2) == (0, 1)
    assert [partner_of(s) for s in range(4)] == [2, 3, 0, 1]
    assert partner_of(1, 3) == -1
    assert team_of(3) == 1
    assert [side_of(s, 3, taker=1) for s in range(3)] == [1, 0, 1]
    assert side_of(3, 4, taker=0) == 1


def test_tout_atout_scaling() -> None:
    assert trick_points(_cards("JS 9H AD 10C"), ALL_TRUMP) == 20 + 14 + 11 + 10
    assert trick_points(_cards("JS 9H AD 10C"), ALL_TRUMP, "reduced13") == 13 + 9 + 6 + 5
    assert trick_points(_cards("7S"), 0, last=True) == 10
    assert scale_all_trump(258) == 162
    assert scale_all_trump(129) == 81
    assert scale_all_trump(0) == 0
    assert scaled_pair((200, 58), ALL_TRUMP, "scaled", 0) == (126, 36)
    assert scaled_pair((58, 200), ALL_TRUMP, "scaled", 1) == (36, 126)
    assert scaled_pair((100, 62), 2, "scaled", 0) == (100, 62)
    assert scaled_pair((100, 62), ALL_TRUMP, "reduced13", 1) == (100, 62)
