"""RULES.md §6 and §7: announcements found, compared and scored; belote-rebelote."""

from __future__ import annotations

import pytest

from rebelote.announcements import announcement_of, best_team, find_announcements
from rebelote.cards import mask_of, parse_card
from rebelote.errors import IllegalAnnouncement
from rebelote.hand import HandState
from rebelote.rules import Rules
from tests.helpers import deal_of, position


def m(text: str) -> int:
    return mask_of(parse_card(c) for c in text.split())


def kinds(text: str) -> list[tuple[str, int]]:
    return [(a.kind, a.points) for a in find_announcements(m(text))]


def test_sequences_use_natural_order_whatever_the_trump() -> None:
    assert kinds("AS KS QS 7H 9D 8C 10C 7C") == [("tierce", 20)]
    assert kinds("KH QH JH 10H 7S 9D 8C 7D") == [("cinquante", 50)]
    assert kinds("AD KD QD JD 10D 9D 7S 8S") == [("cent", 100)]
    assert kinds("JC 10C 9C 8C 7C AS 7D 7H") == [("cent", 100)]
    assert kinds("QS JS 9S 8S 7S AH 7D 7H") == [("tierce", 20)]  # 10S missing


def test_carres_values_and_no_carre_of_eights_or_sevens() -> None:
    assert kinds("JS JH JD JC 7S 9D 8C 7D") == [("carre", 200)]
    assert kinds("9S 9H 9D 9C AS KD 7C 7D") == [("carre", 150)]
    assert kinds("AS AH AD AC 7S 9D 8C 7D") == [("carre", 100)]
    assert kinds("8S 8H 8D 8C AS KD QC JD") == []
    with pytest.raises(IllegalAnnouncement):
        announcement_of(m("7S 7H 7D 7C"))


def test_a_card_may_serve_in_a_carre_and_a_sequence() -> None:
    assert sorted(kinds("JS JH JD JC QS KS 7D 8D")) == [("carre", 200), ("tierce", 20)]


def test_announcement_of_checks_shapes() -> None:
    assert announcement_of(m("KS QS JS")).kind == "tierce"
    for bad in ("KS QS 10S", "KS QH JS", "AS AH AD", "KS"):
        with pytest.raises(IllegalAnnouncement):
            announcement_of(m(bad))


def _best(hands: dict[int, str], trump: int = 1, taker: int = 0, tie: str = "nobody",
          trump_wins: bool = True) -> int | None:
    declared = [find_announcements(m(hands.get(s, ""))) if hands.get(s) else [] for s in range(4)]
    return best_team(declared, trump, 0, taker, tie, trump_wins)


def test_comparison_order() -> None:
    assert _best({0: "AS KS QS JS", 1: "QC QH QD QS"}) == 1  # carré beats any sequence
    assert _best({0: "JC JH JD JS", 1: "9C 9H 9D 9S"}) == 0  # J > 9
    assert _best({0: "AC AH AD AS", 1: "9C 9H 9D 9S"}) == 1  # 9 > A
    assert _best({0: "10C 10H 10D 10S", 1: "KC KH KD KS"}) == 0  # 10 > K
    assert _best({0: "9S 8S 7S 10S", 1: "AC KC QC"}) == 0  # longer wins
    assert _best({0: "9S 8S 7S", 1: "AC KC QC"}) == 1  # then higher top
    assert _best({0: "AS KS QS", 1: "AH KH QH"}, trump=1) == 1  # then trump
    assert _best({0: "AS KS QS", 1: "AC KC QC"}, trump=1) is None  # then nobody (FFB)


def test_tie_options() -> None:
    tie = {1: "AS KS QS", 2: "AC KC QC"}
    assert _best(tie, trump=3, trump_wins=False, tie="nobody") is None
    assert _best(tie, trump=3, trump_wins=False, tie="takers", taker=1) == 1
    assert _best(tie, trump=3, trump_wins=False, tie="first_hand") == 1  # seat 1 nearest
    assert _best(tie, trump=3, trump_wins=True, tie="nobody") == 0  # clubs are trump


def _play_out(h: HandState) -> None:
    while not h.is_over:
        h.play(min(c for c in range(32) if h.legal_cards() >> c & 1))


def test_only_the_best_team_scores_all_its_announcements() -> None:
    # Team 0: two tierces; team 1: a cinquante (seat 1) and a tierce (seat 3).
    spec = {0: "AS KS QS 7H 7C 9C 8D 9D", 1: "AH KH QH JH 7S 8C JC 7D",
            2: "AD KD QD 8H 9H 8S 10C KC", 3: "9S 10S JS 10H 10D JD QC AC"}
    h = position(spec, "C", taker=0, rules=Rules.classic())
    _play_out(h)
    assert h.ann_points == (0, 70)


def test_winning_team_scores_both_partners() -> None:
    spec = {0: "AS KS QS JS 8D 7C 8C 9C", 1: "AH QH 7H 7D 9D 10D 7S QC",
            2: "AD KD QD 8H 9H 8S 9S 10C", 3: "10S KH JH 10H JD JC KC AC"}
    h = position(spec, "C", taker=0, rules=Rules.classic())
    _play_out(h)
    assert h.ann_points == (90, 0)  # seat 0: cinquante + tierce 7C-9C; seat 2: tierce


def test_announcements_off_in_ffb() -> None:
    h = position({0: "AS KS QS JS 8D 7C 8C 9C"}, "C", rules=Rules.ffb())
    _play_out(h)
    assert h.ann_points == (0, 0)


def test_false_announcement_voids_team_announcements() -> None:
    rules = Rules.classic().replace(auto_announce=False)
    h = position({0: "AS KS QS 7H 8D 7C 8C 9C", 2: "AD KD QD 8H 9H 10H 8S 9S"}, "C",
                 rules=rules)
    h.play(parse_card("AS"), announce=[m("AH KH QH")])  # seat 0 does not hold these
    h.play(min(c for c in range(32) if h.legal_cards() >> c & 1), announce=[])
    h.play(min(c for c in range(32) if h.legal_cards() >> c & 1), announce=[m("AD KD QD")])
    _play_out(h)
    assert h.ann_points == (0, 0)


def test_announcing_after_trick_one_is_refused() -> None:
    rules = Rules.classic().replace(auto_announce=False)
    h = position({0: "AS KS QS 7H 8D 7C 8C 9C"}, "C", rules=rules)
    for _ in range(4):
        h.play(min(c for c in range(32) if h.legal_cards() >> c & 1))
    hand_before = h.hands[:]
    with pytest.raises(IllegalAnnouncement):
        h.play(min(c for c in range(32) if h.legal_cards() >> c & 1), announce=[m("KS QS JS")])
    assert h.hands == hand_before


def _belote_hand(rules: Rules, order: str) -> tuple[HandState, str]:
    # Seat 0 holds KH QH (trump H) and plays them first, in ``order``.
    spec = {0: "KH QH AS AD AC 7S 7D 7C", 1: "JH 9H", 2: "AH 10H", 3: "8H 7H"}
    h = HandState.with_contract(rules, 3, deal_of(spec), 0, 1)
    first, second = order.split()
    h.play(parse_card(first))
    for _ in range(3):
        h.play(min(c for c in range(32) if h.legal_cards() >> c & 1))
    return h, second


def test_belote_any_order_and_king_first_option() -> None:
    for rules, order, expected in [
        (Rules.ffb(), "QH KH", 20),
        (Rules.ffb(), "KH QH", 20),
        (Rules.ffb().replace(belote_order="king_first"), "QH KH", 0),
        (Rules.ffb().replace(belote_order="king_first"), "KH QH", 20),
    ]:
        h, second = _belote_hand(rules, order)
        # Trick 1 was won by trump J (seat 1); play on until seat 0 plays its second card.
        while not h.is_over:
            legal = [c for c in range(32) if h.legal_cards() >> c & 1]
            pick = parse_card(second) if parse_card(second) in legal else min(legal)
            h.play(pick)
        assert h.belote_points[0] == expected, (rules.belote_order, order)


def test_belote_must_be_said_unless_automatic() -> None:
    quiet = Rules.ffb().replace(auto_announce=False)
    for rules, say, expected in [(quiet, False, 0), (quiet, True, 20),
                                 (quiet.replace(belote_automatic=True), False, 20)]:
        h = HandState.with_contract(rules, 3, deal_of({0: "KH QH JH 9H AH 10H 8H 7H"}), 0, 1)
        while not h.is_over:
            h.play(min(c for c in range(32) if h.legal_cards() >> c & 1), belote=say)
        assert h.belote_points[0] == expected


def test_belote_counts_inside_a_sequence_too() -> None:
    # All eight hearts: cent (100) and belote (20); capot: 252 + 100 + 20.
    h = HandState.with_contract(Rules.classic(), 3, deal_of({0: "KH QH JH 9H AH 10H 8H 7H"}),
                                0, 1)
    _play_out(h)
    assert h.capot_team() == 0
    s = h.score()
    assert h.ann_points == (100, 0) and h.belote_points == [20, 0]
    assert s.scored == (372, 0)


def test_belote_said_is_public_in_order() -> None:
    h = HandState.with_contract(Rules.ffb(), 3, deal_of({0: "KH QH JH 9H AH 10H 8H 7H"}), 0, 1)
    _play_out(h)
    assert h.belote_said == [(0, "belote", parse_card("QH")), (0, "rebelote", parse_card("KH"))]


def test_all_trump_has_a_belote_per_suit_and_no_trump_none() -> None:
    spec = {0: "KH QH KS QS 7C 8C 9C 10C"}
    h = HandState.with_contract(Rules.ffb(), 3, deal_of(spec), 0, 5)
    _play_out(h)
    assert h.belote_points[0] == 40
    h = HandState.with_contract(Rules.ffb(), 3, deal_of(spec), 0, 4)
    _play_out(h)
    assert h.belote_points == [0, 0]
