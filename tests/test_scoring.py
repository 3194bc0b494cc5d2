"""RULES.md §8 and §9: every worked example, the litige reserve, the options."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebelote.rules import Rules
from rebelote.scoring import (
    FAILED,
    LITIGE,
    MADE,
    ScoreError,
    Term,
    auction_terms,
    contract_need,
    game_winner,
    round_score,
    score_hand,
    score_three,
    three_need,
)

R = Rules.classic()


@pytest.mark.parametrize(
    ("cards", "ann", "belote", "capot", "outcome", "scored"),
    [
        ((95, 67), (0, 0), (0, 0), None, MADE, (95, 67)),  # made
        ((76, 86), (0, 0), (20, 0), None, MADE, (96, 86)),  # made with belote
        ((70, 92), (0, 0), (0, 0), None, FAILED, (0, 162)),  # failed
        ((60, 102), (0, 0), (20, 0), None, FAILED, (20, 162)),  # failed, takers' belote
        ((0, 0), (0, 0), (0, 0), 0, MADE, (252, 0)),  # takers capot
        ((0, 0), (20, 0), (0, 0), 0, MADE, (272, 0)),  # takers capot + tierce
        ((81, 81), (0, 0), (0, 0), None, LITIGE, (0, 81)),  # litige
        ((70, 92), (0, 20), (20, 0), None, FAILED, (20, 182)),  # failed with tierce, belote
        ((57, 105), (50, 0), (0, 0), None, MADE, (107, 105)),  # quarante makes 57 suffice
        ((40, 122), (50, 0), (0, 0), None, FAILED, (0, 212)),  # takers' 50 but failed
    ],
)
def test_rules_section_8_worked_examples(
    cards: tuple[int, int], ann: tuple[int, int], belote: tuple[int, int], capot: int | None,
    outcome: str, scored: tuple[int, int],
) -> None:
    s = score_hand(R, 0, cards, ann, belote, 0, capot)
    assert s.outcome == outcome
    assert s.scored == scored
    # The same hand with the teams swapped scores the mirror image.
    m = score_hand(R, 1, cards[::-1], ann[::-1], belote[::-1], 0,
                   None if capot is None else 1 - capot)
    assert m.scored == scored[::-1]


def test_litige_puts_takers_points_in_reserve() -> None:
    s = score_hand(R, 0, (81, 81))
    assert (s.outcome, s.scored, s.reserve) == (LITIGE, (0, 81), 81)


def test_reserve_accumulates_over_ties_and_goes_to_next_winner() -> None:
    first = score_hand(R, 0, (81, 81))
    second = score_hand(R, 1, (81, 81), reserve=first.reserve)
    assert second.reserve == 162 and second.scored == (81, 0)
    made = score_hand(R, 0, (100, 62), reserve=second.reserve)
    assert made.scored == (262, 62) and made.reserve == 0 and made.reserve_won_by == 0
    failed = score_hand(R, 0, (60, 102), reserve=81)
    assert failed.scored == (0, 243) and failed.reserve_won_by == 1


def test_belote_never_goes_to_the_reserve() -> None:
    s = score_hand(R, 0, (71, 91), belote=(20, 0))
    assert s.outcome == LITIGE
    assert s.scored == (20, 91) and s.reserve == 71


def test_litige_options_failed_and_made() -> None:
    assert score_hand(R.replace(litige="failed"), 0, (81, 81)).scored == (0, 162)
    assert score_hand(R.replace(litige="made"), 0, (81, 81)).scored == (81, 81)


def test_defense_capot_and_capot_points_option() -> None:
    assert score_hand(R, 0, (0, 0), capot=1).scored == (0, 252)
    assert score_hand(R.replace(capot_points=250), 0, (0, 0), capot=0).scored == (250, 0)
    assert score_hand(R.replace(capot_points=250), 0, (0, 0), (0, 20), capot=1).scored == (0, 270)


def test_defense_keeps_its_announcements_on_takers_capot() -> None:
    s = score_hand(R, 0, (0, 0), (0, 0), (0, 20), capot=0)
    assert s.scored == (252, 20)


def test_failed_taker_loses_belote_with_skill7() -> None:
    s = score_hand(Rules.skill7(), 0, (60, 102), belote=(20, 0))
    assert s.scored == (0, 182)


@pytest.mark.parametrize(("rounding", "value", "expected"), [
    ("none", 85, 85), ("nearest", 85, 90), ("nearest", 84, 80), ("down", 89, 80),
])
def test_rounding(rounding: str, value: int, expected: int) -> None:
    assert round_score(R.replace(rounding=rounding), value) == expected


def test_rounding_applies_to_hand_scores() -> None:
    s = score_hand(R.replace(rounding="nearest"), 0, (95, 67))
    assert s.scored == (100, 70)


@pytest.mark.parametrize("bad", [(100, 100), (-1, 163), (163, -1)])
def test_impossible_card_points_are_refused(bad: tuple[int, int]) -> None:
    with pytest.raises(ScoreError):
        score_hand(R, 0, bad)


def test_game_end_rules() -> None:
    assert game_winner(R, (990, 500), 0, 5) is None
    assert game_winner(R, (1001, 500), 0, 5) == 0
    assert game_winner(R, (1010, 1050), 0, 5) == 1  # both over: higher total
    tf = R.replace(both_over="takers_first")
    assert game_winner(tf, (1010, 1050), 0, 5) == 0  # takers counted first
    assert game_winner(tf, (990, 1050), 0, 5) == 1
    # failed takers over the target with their kept belote: the defense counts first
    assert game_winner(tf, (1050, 1010), 0, 5, takers_made=False) == 1
    assert game_winner(tf, (1050, 990), 0, 5, takers_made=False) == 0  # only they are over
    assert game_winner(R, (1050, 1010), 0, 5, takers_made=False) == 0  # higher total
    assert game_winner(R, (1020, 1020), 0, 5) is None  # exact tie: one more hand
    limited = R.replace(target=0, hands_limit=4)
    assert game_winner(limited, (300, 200), 0, 3) is None
    assert game_winner(limited, (300, 200), 0, 4) == 0


# -- auction games (RULES.md §4) ------------------------------------------------------------

from rebelote.scoring import HandOutcome, score_outcome  # noqa: E402

CO = Rules.coinche()
CT = Rules.contree()
AC = Rules.acorralada()


@pytest.mark.parametrize(("rules", "outcome", "expected", "result"), [
    # coinche: made = bid reached AND more than the defense; points + bid; rounded to tens
    (CO, HandOutcome(0, (100, 62), bid=90), (190, 60), MADE),
    (CO, HandOutcome(0, (85, 77), bid=80, belote=(20, 0)), (190, 80), MADE),
    (CO, HandOutcome(0, (80, 82), bid=80), (0, 240), FAILED),  # reached, not more
    (CO, HandOutcome(0, (70, 92), bid=80, announcements=(20, 0)), (0, 260), FAILED),
    (CO, HandOutcome(0, (100, 62), bid=90, double=2), (500, 0), MADE),  # (160+90)×2
    (CO, HandOutcome(0, (100, 62), bid=90, double=4), (1000, 0), MADE),  # ×4
    (CO, HandOutcome(0, (60, 102), bid=90, double=2, belote=(20, 0)), (20, 500), FAILED),
    (CO.replace(multiplier_on="bid"), HandOutcome(0, (100, 62), bid=90, double=2),
     (340, 0), MADE),  # 160 + 90 × 2
    (CO.replace(surcoinche_multiplier=3), HandOutcome(0, (100, 62), bid=90, double=4),
     (750, 0), MADE),
    (CO, HandOutcome(0, capot=0, bid=250, capot_bid=True), (500, 0), MADE),  # 250 + 250
    (CO, HandOutcome(0, (150, 12), bid=250, capot_bid=True), (0, 410), FAILED),
    (CO.replace(capot_bid_value=500), HandOutcome(0, capot=0, bid=500, capot_bid=True),
     (750, 0), MADE),
    # contrée: bid reached = made (defense may score more); failed loses the belote
    (CT, HandOutcome(0, (81, 81), bid=80), (81, 81), MADE),
    (CT.replace(contree_adds_bid=True), HandOutcome(0, (81, 81), bid=80), (161, 81), MADE),
    (CT, HandOutcome(0, (60, 102), bid=80, belote=(20, 0)), (80, 102), MADE),  # belote counts
    (CT, HandOutcome(0, (50, 112), bid=80, belote=(20, 0)), (0, 240), FAILED),
    # acorralada: made: both score their points, takers add the bid (×2/×4); failed: all
    (AC, HandOutcome(0, (100, 62), bid=90), (190, 62), MADE),
    (AC, HandOutcome(0, (100, 62), bid=90, double=2), (280, 62), MADE),
    # failed: 162 + both belotes + the contract's value (x2 / x4 doubled) to the defense
    (AC, HandOutcome(0, (80, 82), bid=90, belote=(0, 20)), (0, 272), FAILED),
    (AC, HandOutcome(0, (80, 82), bid=90, double=2), (0, 162 + 180), FAILED),
    (AC, HandOutcome(1, (90, 72), bid=100, double=4, belote=(20, 20)), (162 + 40 + 400, 0),
     FAILED),
    (AC, HandOutcome(0, capot=1, bid=80), (0, 252 + 80), FAILED),
    # the option keeping the old reading: the value goes to nobody
    (AC.replace(acorralada_failed="cards_only"),
     HandOutcome(0, (80, 82), bid=90, double=2, belote=(0, 20)), (0, 182), FAILED),
])
def test_auction_scoring(rules: Rules, outcome: HandOutcome, expected: tuple[int, int],
                         result: str) -> None:
    s = score_outcome(rules, outcome)
    assert (s.scored, s.outcome) == (expected, result)


def test_auction_outcomes_are_checked() -> None:
    for bad in (HandOutcome(0, (100, 62), bid=75), HandOutcome(0, (100, 62), bid=170),
                HandOutcome(0, (100, 62), bid=90, double=3),
                HandOutcome(0, (100, 62), bid=300, capot_bid=True)):
        with pytest.raises(ScoreError):
            score_outcome(CO, bad)
    with pytest.raises(ScoreError, match="no bid"):
        score_outcome(R, HandOutcome(0, (100, 62), bid=90))


def test_takers_first_failed_takers_over_with_their_belote_lose_the_game() -> None:
    """Both over in one hand, the takers failed but reached the target with their kept
    belote: the defense, which won the hand, wins the game (how-to-play source)."""
    from rebelote.calculator import HandEntry, ScoreSheet

    rules = R.replace(both_over="takers_first", target=100, announcements=False)
    sheet = ScoreSheet(rules)
    sheet.add(HandEntry(0, points=90))  # made: 90 - 72
    assert sheet.winner is None
    sheet.add(HandEntry(0, points=70, belote=(0,)))  # 70 + 20 < 92: failed, belote kept
    assert sheet.totals == (110, 234)
    assert sheet.winner == 1


def test_the_score_names_the_side_that_won_every_trick() -> None:
    from rebelote.scoring import score_three

    assert score_hand(R, 0, (0, 0), capot=1).capot == 1
    assert score_hand(R, 0, (100, 62)).capot is None
    coinche = Rules.preset_named("coinche")
    assert score_outcome(coinche, HandOutcome(1, capot=1, bid=80)).capot == 1
    three = Rules.preset_named("three")
    assert score_three(three, 2, [0, 0, 0], [0, 0, 0], "defense").capot == 1
    assert score_three(three, 2, [0, 0, 0], [0, 0, 0], "taker").capot == 0
    assert score_three(three, 2, [100, 30, 32], [0, 0, 0], None).capot is None


@pytest.mark.parametrize(
    ("rules", "outcome", "need"),
    [
        (Rules.classic(), HandOutcome(0, (70, 92)), (70, 82)),  # more than the defence
        # the least that beats the defence, announcements as they were (not 58: 57 + 1)
        (Rules.classic(), HandOutcome(1, (57, 105), announcements=(0, 50)), (155, 107)),
        # not the defence's 92 + 100 + 1 = 193: 132 card points of 162 beat it
        (Rules.classic(), HandOutcome(0, (70, 92), announcements=(0, 100)), (70, 132)),
        (replace(Rules.classic(), litige="made"), HandOutcome(0, (81, 81)), (81, 81)),  # a tie made
        (Rules.classic(), HandOutcome(0, capot=0), (252, 1)),
        (Rules.coinche(), HandOutcome(0, (95, 67), bid=100), (95, 100)),  # the bid
        (Rules.coinche(), HandOutcome(0, (70, 92), announcements=(50, 0), bid=80),
         (120, 107)),  # and more than the defence
        (Rules.coinche(), HandOutcome(0, (16, 146), announcements=(0, 20), belote=(0, 20),
                                      bid=80), (16, 102)),  # not 187
        (Rules.contree(), HandOutcome(0, (85, 77), belote=(20, 0), bid=110),
         (105, 110)),  # card points and belote
        (Rules.contree(), HandOutcome(0, capot=1, capot_bid=True), None),  # every trick
    ],
)
def test_contract_need_says_what_the_takers_counted_and_needed(
    rules: Rules, outcome: HandOutcome, need: tuple[int, int] | None,
) -> None:
    assert contract_need(rules, outcome) == need


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([Rules.classic(), replace(Rules.classic(), litige="failed"),
                        replace(Rules.classic(), litige="made"), Rules.coinche(), Rules.contree(),
                        Rules.acorralada()]),
       st.integers(0, 1), st.integers(0, 162), st.sampled_from([None, 0, 1]),
       st.sampled_from([0, 20, 50, 100]), st.sampled_from([(0, 0), (20, 0), (0, 20)]),
       st.integers(8, 16), st.sampled_from([1, 2, 4]))
def test_the_need_is_what_decides_the_contract(
    rules: Rules, taker: int, points: int, capot: int | None, ann: int,
    belote: tuple[int, int], bid: int, double: int,
) -> None:
    """Made exactly when the takers counted what they needed (a tie in the litige
    reserve is neither made nor failed); a capot is always made by its takers."""
    auction = rules.game == "auction"
    ann = ann if rules.announcements else 0
    o = HandOutcome(taker, (points, 162 - points), capot, (ann, 0), belote,
                    bid * 10 if auction else 0, False, double if auction else 1)
    counted, needed = contract_need(rules, o) or (0, 0)
    outcome = score_outcome(rules, o).outcome
    if outcome != LITIGE:
        assert (outcome == MADE) == (counted >= needed or capot == taker)
    else:
        assert counted == needed - 1


def test_three_players_need_more_than_both_defenders() -> None:
    rules = Rules.three()
    # 82 of the 162 card points beat the other 80: not the defenders' 92 + 1
    assert three_need(rules, 1, (40, 70, 52), (0, 0, 0)) == (70, 82)
    made = score_three(rules, 1, [40, 70, 52], [0, 0, 0], None)
    assert made.outcome == FAILED
    assert score_three(rules, 1, [30, 70, 42], [0, 20, 0], None).outcome == MADE
    # the taker's belote: 72 card points + 20 beat the 90 left (71 + 20 ties 91: failed)
    assert three_need(rules, 1, (30, 91, 61), (0, 20, 0)) == (91, 92)
    # a defender's belote: 92 card points beat the 70 left and its 20
    assert three_need(rules, 0, (92, 60, 30), (0, 20, 0)) == (92, 92)
    assert three_need(Rules.three().replace(litige="made"), 1, (40, 70, 52),
                      (0, 0, 0)) == (70, 81)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 162), st.integers(0, 162), st.integers(0, 2),
       st.lists(st.sampled_from([0, 20]), min_size=3, max_size=3),
       st.sampled_from(["failed", "made"]))
def test_three_players_need_is_the_least_that_makes_it(
        a: int, b: int, taker: int, belote: list[int], litige: str) -> None:
    """With three players, "N needed" is the least the taker could have made it with, the
    card points shared otherwise: made exactly when his total reaches it, and failed with
    one card point fewer."""
    rules = Rules.three().replace(litige=litige)
    low, high = sorted((a, b))
    cards = [low, high - low, 162 - high]
    totals = tuple(c + x for c, x in zip(cards, belote, strict=True))
    counted, needed = three_need(rules, taker, totals, tuple(belote))
    made = score_three(rules, taker, cards, belote, None).outcome == MADE
    assert made == (counted >= needed)
    least = needed - belote[taker]  # the fewest card points that make it
    if 0 < least <= 162:
        others = [s for s in range(3) if s != taker]
        at_least = [0, 0, 0]
        at_least[taker], at_least[others[0]] = least, 162 - least
        fewer = [0, 0, 0]
        fewer[taker], fewer[others[0]] = least - 1, 163 - least
        assert score_three(rules, taker, at_least, belote, None).outcome == MADE
        assert score_three(rules, taker, fewer, belote, None).outcome == FAILED


def _checked(term: Term) -> int:
    """A term's value from its parts, checking every level on the way."""
    if term.name == "sum":
        assert all(p.value for p in term.parts)  # no zero written down
        value = sum(_checked(p) for p in term.parts)
    elif term.name == "times":
        part, multiplier = term.parts
        assert multiplier.name == "multiplier" and multiplier.value in (2, 3, 4, 6, 8)
        value = _checked(part) * multiplier.value
    else:
        assert term.name in ("card_points", "capot", "announcements", "belote", "bid",
                             "chute", "reserve") and not term.parts
        value = term.value
    assert value == term.value
    return value


def test_an_auction_score_is_its_terms_as_a_pad_writes_them() -> None:
    """The auction games' scores are computed as terms (what the summary shows): each
    term adds up or multiplies out to its value and the sides' terms give the score,
    for every auction preset and many outcomes; a coinched 110 made with 102 card points
    and the belote reads (chute 160 + bid 110) × 2 + belote 20 = 560."""
    import random

    from rebelote.rules import PRESETS

    rng = random.Random(12)
    auction = [make() for make in PRESETS.values()]
    auction = [r for r in auction if r.game == "auction" and r.players == 4]
    assert auction
    for rules in auction:
        for _ in range(400):
            capot = rng.choice([None, None, None, 0, 1])
            a = rng.randrange(163)
            points = (a, 162 - a) if capot is None else ((162, 0) if capot == 0 else (0, 162))
            belote = [0, 0]
            belote[rng.randrange(2)] = rng.choice([0, 20])
            o = HandOutcome(taker_team=rng.randrange(2), card_points=points, capot=capot,
                            belote=(belote[0], belote[1]), bid=rng.choice(range(80, 170, 10)),
                            double=rng.choice([1, 2, 4]))
            reserve = rng.choice([0, 80])
            (us, them), made, won_by = auction_terms(rules, o, reserve)
            score = score_outcome(rules, o, reserve)
            assert (round_score(rules, _checked(us)), round_score(rules, _checked(them))) \
                == score.scored
            assert (score.outcome == MADE) == made and won_by == score.reserve_won_by
    (us, them), made, _ = auction_terms(Rules.coinche(), HandOutcome(
        taker_team=0, card_points=(102, 60), belote=(20, 0), bid=110, double=2))
    assert made and us.value == 560 and them.value == 0
    assert us.as_dict() == {"name": "sum", "value": 560, "parts": [
        {"name": "times", "value": 540, "parts": [
            {"name": "sum", "value": 270, "parts": [
                {"name": "chute", "value": 160, "parts": []},
                {"name": "bid", "value": 110, "parts": []}]},
            {"name": "multiplier", "value": 2, "parts": []}]},
        {"name": "belote", "value": 20, "parts": []}]}
