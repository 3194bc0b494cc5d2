"""RULES.md §5: each play obligation, each option, and the errors naming the rule."""

from __future__ import annotations

import pytest

from rebelote.cards import parse_card
from rebelote.errors import CardNotInHand, IllegalPlay, NotYourTurn, WrongPhase
from rebelote.rules import Rules
from tests.helpers import names, position

# Seat 0 leads (dealer 3). Trump is hearts unless said otherwise.


def test_leader_plays_anything() -> None:
    h = position({0: "AS KS QS JH 9H 7D 8D 7C"}, "H")
    assert names(h.legal_cards()) == {"AS", "KS", "QS", "JH", "9H", "7D", "8D", "7C"}


def test_must_follow_suit() -> None:
    h = position({0: "AS", 1: "7S 10S JH 7D 8D 9D 10D JD"}, "H", played="AS")
    assert names(h.legal_cards()) == {"7S", "10S"}
    with pytest.raises(IllegalPlay) as err:
        h.play(parse_card("JH"))
    assert err.value.rule == "must follow suit"


def test_trump_led_must_overtrump_even_over_partner() -> None:
    # Seat 0 leads 9H; seat 1 plays 7H; seat 2 (partner of 0) holds JH and 8H.
    h = position({0: "9H", 1: "7H", 2: "JH 8H AS KS QS JS 10S 9S"}, "H", played="9H 7H")
    assert names(h.legal_cards()) == {"JH"}
    with pytest.raises(IllegalPlay) as err:
        h.play(parse_card("8H"))
    assert err.value.rule == "must overtrump"


def test_trump_led_cannot_overtrump_plays_any_trump() -> None:
    h = position({0: "JH", 1: "7H 8H AS KS QS 7D 8D 9D"}, "H", played="JH")
    assert names(h.legal_cards()) == {"7H", "8H"}


def test_trump_led_no_trump_discards_anything() -> None:
    h = position({0: "JH", 1: "AS KS QS 7D 8D 9D 7C 8C"}, "H", played="JH")
    assert names(h.legal_cards()) == {"AS", "KS", "QS", "7D", "8D", "9D", "7C", "8C"}


def test_partner_master_gives_freedom() -> None:
    # Seat 0 leads AS (master); seat 1 follows; seat 2, void in spades, may play anything.
    h = position({0: "AS", 1: "7S", 2: "7H AD KD QD JD 10D 9D 8D"}, "H", played="AS 7S")
    assert names(h.legal_cards()) == {"7H", "AD", "KD", "QD", "JD", "10D", "9D", "8D"}


def test_partner_master_option_off_must_trump() -> None:
    rules = Rules.ffb().replace(partner_master_free=False)
    h = position({0: "AS", 1: "7S", 2: "7H AD KD QD JD 10D 9D 8D"}, "H", played="AS 7S",
                 rules=rules)
    assert names(h.legal_cards()) == {"7H"}


def test_opponent_master_must_trump() -> None:
    h = position({0: "AS", 1: "7H 8H AD KD QD JD 10D 9D"}, "H", played="AS")
    assert names(h.legal_cards()) == {"7H", "8H"}
    with pytest.raises(IllegalPlay) as err:
        h.play(parse_card("AD"))
    assert err.value.rule == "must trump"


def test_opponent_trumped_must_overtrump() -> None:
    # 0 leads AS, 1 trumps with 10H, 2 (partner of 0, not master) must overtrump.
    h = position({0: "AS", 1: "10H AC KC QC JC 10C 9C 8C", 2: "JH 7H AD KD QD JD 9D 8D"},
                 "H", played="AS 10H")
    assert names(h.legal_cards()) == {"JH"}
    with pytest.raises(IllegalPlay) as err:
        h.play(parse_card("7H"))
    assert err.value.rule == "must overtrump"


def test_pisser_required_under_trump() -> None:
    h = position({0: "AS", 1: "JH AC KC QC JC 10C 9C 8C", 2: "7H 8H AD KD QD JD 9D 8D"},
                 "H", played="AS JH")
    assert names(h.legal_cards()) == {"7H", "8H"}
    with pytest.raises(IllegalPlay) as err:
        h.play(parse_card("AD"))
    assert err.value.rule == "must undertrump"


def test_undertrump_free_option() -> None:
    rules = Rules.ffb().replace(undertrump="free")
    h = position({0: "AS", 1: "JH AC KC QC JC 10C 9C 8C", 2: "7H 8H AD KD QD JD 9D 8D"},
                 "H", played="AS JH", rules=rules)
    assert names(h.legal_cards()) == {"7H", "8H", "AD", "KD", "QD", "JD", "9D", "8D"}


def test_no_suit_no_trump_discards() -> None:
    h = position({0: "AS", 1: "AD KD QD JD 10D 9D 8D 7C"}, "H", played="AS")
    assert len(names(h.legal_cards())) == 8


def test_partner_trumped_and_master_frees_last_player() -> None:
    # 0 leads AS, 1 follows 7S, 2 trumps 7H (master), 3 plays 8S... seat 3 is opponent.
    # Instead: 0 leads 7S, 1 trumps 7H (master), 2 follows, 3 (partner of 1) is free.
    h = position({0: "7S", 1: "7H AC KC QC JC 10C 9C 8C", 2: "8S",
                  3: "AD KD QD JD 10D 9D 8H 9H"}, "H",
                 played="7S 7H 8S")
    assert names(h.legal_cards()) == {"AD", "KD", "QD", "JD", "10D", "9D", "8H", "9H"}


def test_all_trump_follows_and_rises_in_suit_led() -> None:
    h = position({0: "9S", 1: "JS 7S AD KD QD JD 10D 9D"}, "TA", played="9S")
    assert names(h.legal_cards()) == {"JS"}
    h2 = position({0: "JS", 1: "9S 7S AD KD QD JD 10D 9D"}, "TA", played="JS")
    assert names(h2.legal_cards()) == {"9S", "7S"}
    h3 = position({0: "JS", 1: "AH KH AD KD QD JD 10D 9D"}, "TA", played="JS")
    assert len(names(h3.legal_cards())) == 8


def test_no_trump_follow_or_discard() -> None:
    h = position({0: "10S", 1: "7S AS AD KD QD JD 10D 9D"}, "SA", played="10S")
    assert names(h.legal_cards()) == {"7S", "AS"}
    h2 = position({0: "10S", 1: "AH KH AD KD QD JD 10D 9D"}, "SA", played="10S")
    assert len(names(h2.legal_cards())) == 8


def test_trick_winners_by_mode() -> None:
    h = position({0: "AS", 1: "7H AC KC QC JC 10C 9C 8C", 2: "10S", 3: "JS"}, "H",
                 played="AS 7H 10S JS")
    assert h.trick_winners == [1]  # the only trump wins
    h = position({0: "AS", 1: "7D AD KD QD JD 10D 9D 8D", 2: "10S", 3: "JS 7C 8C 9C"}, "H",
                 played="AS 7D 10S JS")
    assert h.trick_winners == [0]  # highest of the suit led
    h = position({0: "9S", 1: "JS", 2: "AS", 3: "JD AH KH QH JH 10H 9H 8H"}, "TA",
                 played="9S JS AS JD")
    assert h.trick_winners == [1]  # J of the suit led; JD is of another suit
    h = position({0: "10S", 1: "AS", 2: "JS", 3: "AH KH QH JH 10H 9H 8H 7H"}, "SA",
                 played="10S AS JS AH")
    assert h.trick_winners == [1]


def test_illegal_play_changes_nothing() -> None:
    h = position({0: "AS", 1: "7S 10S JH 7D 8D 9D 10D JD"}, "H", played="AS")
    before = (h.hands[:], h.trick[:], h.turn, h.played[:], h.card_points[:])
    for bad in ("JH", "KS"):
        with pytest.raises((IllegalPlay, CardNotInHand)):
            h.play(parse_card(bad))
    with pytest.raises(NotYourTurn):
        h.play(parse_card("7S"), seat=2)
    assert (h.hands, h.trick, h.turn, h.played, h.card_points) == before


def test_card_not_in_hand_is_named() -> None:
    h = position({0: "AS KS QS JS 10S 9S 8S 7S"}, "H")
    with pytest.raises(CardNotInHand, match="does not hold AH"):
        h.play(parse_card("AH"))


def test_calls_and_cards_in_wrong_phase() -> None:
    from rebelote.hand import PASS

    h = position({}, "H")
    with pytest.raises(WrongPhase):
        h.call(PASS)


def test_eight_tricks_give_162_with_dix_de_der() -> None:
    import random

    rng = random.Random(5)
    for mode in ("S", "H", "SA"):
        h = position({}, mode)
        while not h.is_over:
            legal = [c for c in range(32) if h.legal_cards() >> c & 1]
            h.play(rng.choice(legal))
        assert sum(h.card_points) == 162
        assert h.card_points[h.trick_winners[-1] & 1] >= 10
