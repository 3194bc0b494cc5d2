"""The expert's score objective: a world's exact card values turned into the hand's
score (:class:`~rebelote.bots.expert.HandScorer`), checked against the referee's own
scoring after the hand is played out double-dummy."""

from __future__ import annotations

import itertools
import random

import pytest

from rebelote import HandState, Rules
from rebelote.bots.expert import ExpertBot, HandScorer
from rebelote.bots.heuristic import HeuristicBot
from rebelote.hand import deal_deck
from rebelote.phases import AUCTION
from rebelote.solver import Solver, position_from_view
from rebelote.tricks import team_of


def _position(rules: Rules, rng: random.Random, seed: int) -> HandState | None:
    """A hand bid and played by the heuristic up to a random trick (after the first,
    when every announcement is known), or None when nobody took."""
    hand = HandState.deal(rules, seed % 4, deal_deck(rng))
    bots = [HeuristicBot(seed + s) for s in range(4)]
    stop = rng.randrange(1, 7)
    while not hand.is_over and (hand.phase == AUCTION or len(hand.trick_winners) < stop):
        hand.apply(bots[hand.turn].choose(hand.view(hand.turn)))
    return None if hand.is_over or hand.taker < 0 else hand


@pytest.mark.parametrize("preset", ["contree", "acorralada", "coinche", "classic"])
def test_the_scorer_predicts_the_score_of_a_double_dummy_play_out(preset: str) -> None:
    rules = Rules.preset_named(preset)
    rng = random.Random(20)
    solver = Solver(1)
    checked = 0
    for seed in range(60):
        hand = _position(rules, rng, seed)
        if hand is None:
            continue
        team = team_of(hand.turn)
        view = hand.view(hand.turn)
        scorer = HandScorer(view, team)
        values = solver.move_values(position_from_view(view, list(hand.hands), team))
        predicted = scorer.value(max(values.values()), scorer.belote(list(hand.hands)))
        while not hand.is_over:  # every seat plays its exact best from here
            seat = hand.turn
            best = solver.move_values(position_from_view(
                hand.view(seat), list(hand.hands), team_of(seat)))
            hand.apply(max(best, key=lambda c: best[c]))
        scored = hand.score().scored
        tie_break = HandScorer.TIE_BREAK * max(values.values()) * scorer.scale
        assert predicted - tie_break == pytest.approx(scored[team] - scored[1 - team])
        checked += 1
        if checked == 12:
            break
    assert checked == 12


def test_a_contract_is_worth_its_score_not_its_points() -> None:
    """For the taking side the value jumps where the contract is made: there one point
    more is worth the whole contract (160 + the bid to the defence when it fails, the
    points and the bid to the takers when made), elsewhere a point is worth two (one
    more for us, one less for them: contrée scores the points made)."""
    rules = Rules.contree()
    rng = random.Random(3)
    for seed in range(200):
        hand = _position(rules, rng, seed)
        if hand is not None and team_of(hand.turn) == team_of(hand.taker):
            break
    else:
        raise AssertionError("no position with the taking side to play")
    view = hand.view(hand.turn)
    scorer = HandScorer(view, team_of(hand.turn))
    left = scorer._full - scorer.won
    values = [scorer.value(raw, (0, 0)) for raw in range(left + 1)]
    assert all(b >= a for a, b in itertools.pairwise(values))
    steps = sorted(b - a for a, b in itertools.pairwise(values))
    assert steps[len(steps) // 2] < 3
    jumps = [raw for raw in range(left) if values[raw + 1] - values[raw] > 100]
    assert len(jumps) == 1  # failed below, made above
    assert scorer.won + jumps[0] + 1 == scorer.bid  # made when the bid is reached


def test_the_objective_is_checked_and_both_play_legal_cards() -> None:
    with pytest.raises(ValueError, match="objective"):
        ExpertBot(objective="tricks")
    assert ExpertBot().objective == "score"  # the default; hints keep points
    rules = Rules.contree()
    rng = random.Random(9)
    for seed in range(40):
        hand = _position(rules, rng, seed)
        if hand is not None:
            break
    assert hand is not None
    view = hand.view(hand.turn)
    for objective in ("points", "score"):
        bot = ExpertBot(1, samples=8, objective=objective)
        assert bot.choose(view) in hand.legal_actions()
