"""Three players and two-player découverte (docs/variants.md), and the auction games'
rules and bad input (RULES.md §4)."""

from __future__ import annotations

import json
import random

import pytest

from rebelote.cards import cards_of, parse_card
from rebelote.errors import CardNotInHand, IllegalCall, IllegalPlay
from rebelote.game import Game
from rebelote.hand import (
    COINCHE,
    PASS,
    SURCOINCHE,
    TAKE,
    HandState,
    bid_action,
    deck_for,
    parse_action,
)
from rebelote.record import game_to_record, replay_record
from rebelote.rules import Rules, RulesError
from rebelote.scoring import score_three

# -- three players -------------------------------------------------------------------------


def test_three_players_deal_24_cards_and_complete_to_8() -> None:
    rules = Rules.three()
    deck = deck_for(3)
    assert len(deck) == 24 and all(c & 7 > 1 for c in deck)  # no 7s, no 8s
    h = HandState.deal(rules, 2, deck)  # first hand is seat 0
    assert [m.bit_count() for m in h.hands] == [5, 5, 5]
    assert h.retourne == deck[15]
    h.call(PASS)
    h.call(TAKE)  # seat 1 takes
    assert [m.bit_count() for m in h.hands] == [8, 8, 8]
    assert sum(h.hands) == sum(1 << c for c in deck)
    assert h.hands[1] >> h.retourne & 1


def test_three_players_void_after_six_passes() -> None:
    h = HandState.deal(Rules.three(), 0, deck_for(3))
    for _ in range(5):
        h.call(PASS)
        assert not h.is_over
    h.call(PASS)
    assert h.is_void


def test_three_players_have_no_partner() -> None:
    # Seat 0 leads AS; seat 1 (a defender, like seat 2) cannot follow: it must trump even
    # though seat 0 is the taker... and seat 2 must trump over seat 1: each for himself.
    deal = [["AS", "KS", "QS", "JS", "10S", "9S", "AD", "KD"],
            ["JH", "9H", "AH", "10H", "KH", "QH", "QD", "JD"],
            ["QC", "JC", "10C", "9C", "KC", "AC", "10D", "9D"]]
    h = HandState.with_contract(Rules.three(), 2, [[parse_card(c) for c in s] for s in deal],
                                1, 1)
    h.play(parse_card("AS"))
    assert {c for c in cards_of(h.legal_cards())} == {parse_card(c) for c in deal[1][:6]}


def test_three_player_scoring() -> None:
    r = Rules.three()
    made = score_three(r, 0, [90, 40, 32], [0, 0, 0], None)
    assert made.outcome == "made" and made.scored == (90, 40, 32)
    failed = score_three(r, 0, [70, 60, 32], [20, 0, 0], None)  # 90 vs 92
    assert failed.outcome == "failed" and failed.scored == (20, 81, 81)
    capot = score_three(r, 2, [0, 0, 162], [0, 0, 20], "taker")
    assert capot.scored == (0, 0, 272)
    tie = score_three(r, 1, [40, 81, 41], [0, 0, 0], None)
    assert tie.outcome == "failed"  # a tie counts as failed with three players


def test_three_player_game_and_record() -> None:
    rng = random.Random(3)
    game = Game(Rules.three(), rng)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert len(game.totals) == 3 and game.winner in (0, 1, 2)
    assert max(game.totals) == game.totals[game.winner] >= 1000
    rec = json.loads(json.dumps(game_to_record(game)))
    assert all(len(h["cards"]) == 3 for h in rec["hands"])
    assert replay_record(rec).game.totals == game.totals


# -- two players: découverte ---------------------------------------------------------------


def _decouverte(seed: int = 1) -> HandState:
    return HandState.new(Rules.decouverte(), 1, random.Random(seed))


def test_decouverte_deal_layout() -> None:
    h = _decouverte()
    for seat in (0, 1):
        assert h.hands[seat].bit_count() == 11  # 6 in hand + 5 face up
        assert h.table_up[seat].bit_count() == 5
        assert len(h.layout[seat]) == 5
        assert len(h._covered[seat]) == 5
    everything = sum(h.hands) | sum(1 << d for s in (0, 1) for d in h._covered[s].values())
    assert everything == (1 << 32) - 1


def test_decouverte_taking_and_void() -> None:
    h = _decouverte()
    assert h.legal_calls() == [PASS, 34, 35, 36, 37]
    h.call(PASS)
    h.call(PASS)
    assert h.is_void
    h = _decouverte()
    h.call(36)  # first hand (seat 0) names diamonds
    assert h.taker == 0 and h.contract_name() == "D" and h.turn == 0


def test_decouverte_covered_cards_turn_when_freed() -> None:
    h = _decouverte(2)
    h.call(34)
    seat = h.turn
    up, down = h.layout[seat][0]
    with pytest.raises(CardNotInHand) as err:
        h.play(down)
    assert err.value.rule == "covered card" and "face down" in str(err.value)
    h.play(up)
    assert h.hands[seat] >> down & 1 and h.table_up[seat] >> down & 1
    view = h.view(1 - seat)
    assert view.table[seat] >> down & 1  # the turned card is public


def test_decouverte_views_hide_the_hand_but_show_the_table() -> None:
    h = _decouverte(3)
    v = h.view(0)
    assert v.hand == h.hands[0]
    assert v.table == (h.table_up[0], h.table_up[1])
    hidden_hand_of_1 = h.hands[1] & ~h.table_up[1]
    assert not (v.hand | v.table[0] | v.table[1]) & hidden_hand_of_1


def test_decouverte_sixteen_tricks_and_81_loses() -> None:
    rng = random.Random(5)
    outcomes = set()
    for _ in range(300):
        h = HandState.new(Rules.decouverte(), rng.randrange(2), rng)
        while not h.is_over:
            h.apply(rng.choice(h.legal_actions()))
        if h.is_void:
            continue
        assert len(h.trick_winners) == 16 and sorted(h.played) == list(range(32))
        assert sum(h.card_points) == 162
        s = h.score()
        taker = h.card_points[h.taker] + h.belote_points[h.taker]
        other = h.card_points[1 - h.taker] + h.belote_points[1 - h.taker]
        assert s.outcome == ("made" if taker > other else "failed")  # 81 all: failed
        if not h.belote_points[0] and not h.belote_points[1]:
            assert (s.outcome == "made") == (h.card_points[h.taker] >= 82)
        outcomes.add(s.outcome)
    assert outcomes == {"made", "failed"}


def test_decouverte_tie_at_81_fails() -> None:
    assert Rules.decouverte().litige == "failed"
    from rebelote.scoring import score_hand

    assert score_hand(Rules.decouverte(), 1, (81, 81)).scored == (162, 0)


def test_variant_rules_are_validated() -> None:
    with pytest.raises(RulesError):
        Rules.three().replace(announcements=True)
    with pytest.raises(RulesError):
        Rules.decouverte().replace(game="auction")
    with pytest.raises(RulesError):
        Rules.three().replace(litige="reserve")


# -- auction games -------------------------------------------------------------------------


def _auction(rules: Rules | None = None) -> HandState:
    return HandState.new(rules or Rules.coinche(), 3, random.Random(9))  # seat 0 speaks first


def test_auction_deal_packets() -> None:
    deck = list(range(32))
    for packets, first in (("3-2-3", [0, 1, 2, 12, 13, 20, 21, 22]),
                           ("3-3-2", [0, 1, 2, 12, 13, 14, 24, 25]),
                           ("2-3-3", [0, 1, 8, 9, 10, 20, 21, 22])):
        h = HandState.deal(Rules.coinche().replace(auction_deal=packets), 3, deck)
        assert cards_of(h.hands[0]) == first
        assert h.retourne == -1


def test_bids_must_rise_and_calls_are_refused_with_their_rule() -> None:
    h = _auction()
    with pytest.raises(IllegalCall) as err:
        h.call(COINCHE)
    assert err.value.rule == "coinche a bid"
    with pytest.raises(IllegalCall) as err:
        h.call(SURCOINCHE)
    assert err.value.rule == "surcoinche after a coinche"
    h.call(parse_action("100H"))  # seat 0
    before = (h.calls[:], h.turn, h.bid_level, h.contract)
    with pytest.raises(IllegalCall) as err:
        h.call(parse_action("90S"))  # seat 1: lower
    assert err.value.rule == "bid higher than the last"
    with pytest.raises(IllegalCall):
        h.call(parse_action("100S"))  # same value: not higher
    h.call(PASS)  # seat 1
    with pytest.raises(IllegalCall) as err:
        h.call(COINCHE)  # seat 2: partner of the bidder
    assert err.value.rule == "coinche by the opponents"
    assert (h.calls[:-1], h.bid_level, h.contract) == (before[0], before[2], before[3])


def test_passed_player_may_bid_again_and_three_passes_end() -> None:
    h = _auction()
    h.call(PASS)  # 0
    h.call(parse_action("80S"))  # 1
    h.call(parse_action("90C"))  # 2
    h.call(PASS)  # 3
    h.call(parse_action("110D"))  # 0 bids after passing
    for _ in range(3):
        h.call(PASS)
    assert h.taker == 0 and h.contract_name() == "D" and h.contract_value() == 110


def test_four_passes_void_and_capot_bid() -> None:
    h = _auction()
    for _ in range(4):
        h.call(PASS)
    assert h.is_void
    h = _auction()
    h.call(parse_action("capotH"))
    assert parse_action("capotH") == bid_action(9, 1)
    assert h.legal_calls() == [PASS, COINCHE]  # nothing above capot
    for _ in range(3):
        h.call(PASS)
    assert h.contract_value() == 250 and h.outcome().capot_bid


def test_coinche_freezes_the_auction() -> None:
    h = _auction()
    h.call(parse_action("90S"))  # 0
    h.call(COINCHE)  # 1
    assert h.legal_calls() == [PASS, SURCOINCHE]  # 2, bidding team
    with pytest.raises(IllegalCall) as err:
        h.call(parse_action("100S"))
    assert err.value.rule == "auction frozen"
    h.call(PASS)  # 2
    assert h.legal_calls() == [PASS]  # 3, defense: nothing left to say
    h.call(PASS)
    h.call(SURCOINCHE)  # 0
    assert h.double == 4 and h.taker == 0 and h.turn == 0


def test_sa_ta_bids_only_where_the_preset_allows() -> None:
    assert parse_action("90SA") in _auction(Rules.coinche()).legal_calls()
    h = _auction(Rules.acorralada())
    assert parse_action("90SA") not in h.legal_calls()
    with pytest.raises(IllegalCall) as err:
        h.call(parse_action("90SA"))
    assert err.value.rule == "SA/TA option"


def test_acorralada_raise_then_contra_and_recontra() -> None:
    h = _auction(Rules.acorralada())
    assert COINCHE not in h.legal_calls()
    h.call(parse_action("90H"))  # 0
    assert COINCHE not in h.legal_calls()  # contra comes after the bidding
    for _ in range(3):
        h.call(PASS)
    assert h.turn == 0  # the winning bidder may raise once, in his suit
    with pytest.raises(IllegalCall) as err:
        h.call(parse_action("100S"))
    assert err.value.rule == "raise in the same suit"
    h.call(parse_action("110H"))
    assert h.turn == 1 and h.legal_calls() == [PASS, COINCHE]
    h.call(PASS)  # 1
    assert h.turn == 3
    h.call(COINCHE)  # 3: contra
    h.call(SURCOINCHE)  # 0: recontra
    assert (h.contract_value(), h.double, h.taker) == (110, 4, 0)


def test_auction_game_records_replay() -> None:
    for rules in (Rules.coinche(), Rules.contree(), Rules.acorralada()):
        rng = random.Random(11)
        game = Game(rules, rng)
        while len(game.hands) < 6 and not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        rec = json.loads(json.dumps(game_to_record(game)))
        assert replay_record(rec).game.totals == game.totals


def test_illegal_card_in_auction_game() -> None:
    h = _auction()
    h.call(parse_action("80S"))
    for _ in range(3):
        h.call(PASS)
    h.play(min(cards_of(h.legal_cards())))
    wrong = [c for c in cards_of(h.hands[h.turn]) if not h.legal_cards() >> c & 1]
    assert wrong, "this deal must leave the second player an illegal card"
    with pytest.raises(IllegalPlay):
        h.play(wrong[0])


@pytest.mark.parametrize("rules", [
    Rules.decouverte(),
    Rules.decouverte().replace(belote_automatic=True),
    Rules.decouverte().replace(auto_announce=False),
], ids=["auto", "belote_automatic", "declared"])
def test_decouverte_belote_from_face_down_king_or_queen(rules: Rules) -> None:
    """RULES §6: K and Q of trump held by one player, said when played, score 20; in
    découverte a card that starts face down under a table card is the player's too."""
    from rebelote.cards import KING, QUEEN

    rng = random.Random(6)
    covered_pairs = 0
    for _ in range(300):
        h = HandState.new(rules, rng.randrange(2), rng)
        trump = rng.randrange(4)
        h.call(34 + trump)
        king, queen = trump * 8 + KING, trump * 8 + QUEEN
        face_down = {d for seat in (0, 1) for _, d in h.layout[seat]}
        seats: dict[int, int] = {}
        while not h.is_over:
            seat = h.turn
            card = rng.choice(cards_of(h.legal_cards()))
            if card in (king, queen):
                seats[card] = seat
            said = None if rules.auto_announce else card in (king, queen)
            h.play(card, belote=said)
        both = seats[king] == seats[queen]
        expected = [0, 0]
        if both:
            expected[seats[king]] = 20
            covered_pairs += bool({king, queen} & face_down)
        assert h.belote_points == expected
    assert covered_pairs >= 10  # the case this test is for did happen
