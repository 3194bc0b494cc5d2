"""Random legal games under random rule options (Hypothesis state machine).

Invariants: 162 card points per hand (the capot value on a capot), every card played
once, someone always has a legal action, an illegal action raises and changes nothing,
and the game's record replays to the same result.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from rebelote.errors import IllegalAction
from rebelote.game import Game
from rebelote.hand import CALL_ALL_TRUMP, OVER, PASS, PLAY, HandState, deck_for
from rebelote.record import game_to_record, replay_record
from rebelote.rules import OPTIONS, PRESETS, Rules


@st.composite
def any_rules(draw: st.DrawFn) -> Rules:
    base = Rules.preset_named(draw(st.sampled_from(sorted(PRESETS))))
    changes: dict[str, Any] = {}
    fixed = {"players", "game"}  # a preset's table and kind of game stay
    if base.players != 4:
        fixed |= {"announcements", "litige"}
    for opt in OPTIONS:
        if opt.values is not None and opt.name not in fixed and draw(st.booleans()):
            changes[opt.name] = draw(st.sampled_from(opt.values))
    if draw(st.booleans()):
        changes["target"] = draw(st.sampled_from([301, 501, 1000]))
    else:
        changes["target"] = 0
        changes["hands_limit"] = draw(st.integers(1, 4))
    return base.replace(**changes)


def snapshot(hand: HandState) -> tuple[Any, ...]:
    return tuple(copy.deepcopy(getattr(hand, name)) for name in HandState.__slots__
                 if name not in ("rules", "_points", "_win", "_higher", "_legal"))


class RandomGames(RuleBasedStateMachine):
    game: Game
    rng: random.Random

    @initialize(rules=any_rules(), seed=st.integers(0, 2**32))
    def start(self, rules: Rules, seed: int) -> None:
        self.rng = random.Random(seed)
        self.game = Game(rules, self.rng)

    @precondition(lambda self: self.game.is_over)
    @rule(rules=any_rules())
    def next_game(self, rules: Rules) -> None:
        self._check_record()
        assert self.game.winner in range(self.game.sides)
        self.game = Game(rules, self.rng)

    @precondition(lambda self: not self.game.is_over)
    @rule(pick=st.integers(0, 1000))
    def act(self, pick: int) -> None:
        actions = self.game.legal_actions()
        assert actions, "the seat to act has no legal action"
        hand = self.game.current
        assert hand is not None
        n = len(self.game.hands)
        self.game.apply(actions[pick % len(actions)])
        if hand.phase == OVER and not hand.is_void:
            self._check_finished(hand)
        assert len(self.game.hands) in (n, n + 1)

    @precondition(lambda self: not self.game.is_over)
    @rule(pick=st.integers(0, 39))
    def illegal_action_changes_nothing(self, pick: int) -> None:
        hand = self.game.current
        assert hand is not None
        if pick in hand.legal_actions():
            return
        before = snapshot(hand)
        try:
            self.game.apply(pick)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"action {pick} was accepted though not legal")
        assert snapshot(hand) == before

    @precondition(lambda self: not self.game.is_over)
    @rule()
    def play_out_the_hand(self) -> None:
        hand = self.game.current
        assert hand is not None
        while not hand.is_over:
            actions = self.game.legal_actions()
            assert actions
            self.game.apply(self.rng.choice(actions))
        if not hand.is_void:
            self._check_finished(hand)

    def _check_finished(self, hand: HandState) -> None:
        assert sorted(hand.played) == deck_for(hand.n), "every card played once"
        capot = hand.capot_team()
        if capot is not None:
            assert hand.scaled_card_points()[capot] == 162  # before the capot value
        assert sum(hand.scaled_card_points()) == 162
        raw = sum(hand.card_points)
        scaled_ta = hand.contract == 5 and hand.rules.all_trump_points == "scaled"
        assert raw == (258 if scaled_ta else 162)
        for team in (0, 1):  # the scaled score is the nearest to raw * 162 / 258
            scaled = hand.scaled_card_points()[team]
            if scaled_ta:
                assert abs(scaled * 258 - hand.card_points[team] * 162) <= 129
            else:
                assert scaled == hand.card_points[team]
        event(f"{hand.rules.preset}: contract {hand.contract_name()}")

    @invariant()
    def someone_can_act(self) -> None:
        hand = self.game.current
        if hand is not None and not hand.is_over and not self.game.is_over:
            assert hand.legal_actions()
            assert hand.phase in (0, PLAY) and hand.turn in range(hand.n)
            assert all(a < 32 for a in hand.legal_actions()) == (hand.phase == PLAY)
            assert PASS in hand.legal_actions() or hand.phase == PLAY
            assert CALL_ALL_TRUMP not in hand.legal_actions() or hand.rules.round2_all_trump

    def teardown(self) -> None:
        self._check_record()

    def _check_record(self) -> None:
        record = json.loads(json.dumps(game_to_record(self.game)))
        replayed = replay_record(record).game
        assert replayed.totals == self.game.totals
        assert replayed.reserve == self.game.reserve
        assert replayed.winner == self.game.winner


RandomGames.TestCase.settings = settings(
    max_examples=150, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRandomGames = RandomGames.TestCase
