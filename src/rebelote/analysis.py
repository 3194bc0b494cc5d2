"""Analysis of records: the expert's view of the next decision (``rebelote hint``) and the
cost of every card of finished hands against best play with all cards visible
(``rebelote analyze``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from rebelote.actions import is_bid
from rebelote.bots.expert import ExpertBot, SampledBidder
from rebelote.bots.heuristic import (
    NAME_THRESHOLD,
    TAKE_THRESHOLD,
    bid_expectation,
    suit_strength,
)
from rebelote.cards import cards_of
from rebelote.game import Game
from rebelote.hand import (
    CALL_SPADES,
    PASS,
    TAKE,
    HandState,
    action_name,
)
from rebelote.rules import Rules
from rebelote.solver import Solver, position_of
from rebelote.tricks import CARD_POINTS_TOTAL, raw_total, side_of
from rebelote.view import SeatView


class AnalysisError(ValueError):
    """A record that has nothing to analyse (no decision left, no finished hand)."""


@dataclass(frozen=True, slots=True)
class Hint:
    """One legal action of the next decision and how good it looks."""

    action: str
    value: float
    measure: str
    """"expected points" (play), "expected score" (auction games' bids: the deal's
    score difference if the bid became the contract, pass = 0, a coinche its gain over
    passing), "% made" (classic calls, four players: how often the contract would
    be made; pass shows the line the expert takes at), all from solved sampled deals as
    the expert bids; or "strength" (three players: the hand strength the bidding uses)."""


def hint(game: Game, samples: int = 48) -> tuple[int, list[Hint]]:
    """The seat to act in ``game``'s current hand and each of its legal actions, best
    first: in the play, the expert's expected points for the seat's side from now on;
    in the auction, the expert's evaluation of each call (see :class:`Hint`)."""
    hand = game.current
    if hand is None or hand.is_over or game.is_over:
        raise AnalysisError("the record has no decision left: its last hand is finished")
    return hand.turn, hint_view(game.view(hand.turn), samples)


def hint_view(view: SeatView, samples: int = 48) -> list[Hint]:
    """:func:`hint` from the seat's view alone (what the seat may see: the server sends
    this, a few kilobytes, to its worker process rather than the whole game)."""
    rules = view.rules
    if view.turn != view.seat or not view.legal_actions:
        raise AnalysisError("the seat has no decision to make")
    if view.phase == "play":
        bot = ExpertBot(seed=0, samples=samples, solve_cards=24, objective="points")
        values = bot.evaluate(view)
        if not values:
            raise AnalysisError("no deal of the hidden cards fits this record")
        scale = _scale(view.contract, rules)
        hints = [Hint(action_name(c), v * scale, "expected points") for c, v in values.items()]
    elif rules.players == 4:  # the expert's bidding evaluation: solved deals
        bidder = SampledBidder(0, Solver(), worlds=samples // 4)
        measure, bid_values = bidder.bid_values(view)
        hints = [Hint(action_name(a), v, measure) for a, v in bid_values.items()]
    else:
        hints = []
        for action in view.legal_actions:
            if action == TAKE:
                value = suit_strength(view.hand, view.retourne >> 3, view.retourne)
            elif CALL_SPADES <= action < CALL_SPADES + 4:
                value = suit_strength(view.hand, action - CALL_SPADES)
            elif action == PASS:
                value = TAKE_THRESHOLD if len(view.calls) < rules.players else NAME_THRESHOLD
                if rules.game == "auction":
                    value = 0.0
            elif is_bid(action):
                value = bid_expectation(view, action)
            else:
                value = 0.0
            measure = "expected score" if rules.game == "auction" else "strength"
            hints.append(Hint(action_name(action), value, measure))
    hints.sort(key=lambda h: -h.value)
    return hints


def _scale(contract: int, rules: Rules) -> float:
    """Raw tout-atout points to the 162 scale, when the rules scale them."""
    return CARD_POINTS_TOTAL / raw_total(contract, rules.all_trump_points)


@dataclass(frozen=True, slots=True)
class CardCost:
    """One card played and what it cost its side against the best card."""

    hand: int
    trick: int
    seat: int
    card: str
    cost: float
    best: str


def analyze(game: Game, progress: Callable[[int, int], None] | None = None,
            ) -> list[CardCost]:
    """Every card of every finished hand with its cost: the points its side lost against
    the best card, all hands visible, everyone playing best afterwards."""
    finished = [(i, h) for i, h in enumerate(game.hands, 1) if h.is_over and not h.is_void]
    if not finished:
        raise AnalysisError("the record has no finished hand to analyse")
    if game.rules.players == 2:
        raise AnalysisError("découverte hides cards face down: no exact analysis")
    solver = Solver(threads=os.cpu_count() or 1)  # root cards solved side by side
    out: list[CardCost] = []
    total = sum(len(h.played) for _, h in finished)
    done = 0
    for number, played_hand in finished:
        rules = played_hand.rules
        replay = HandState.with_contract(
            rules, played_hand.dealer, [cards_of(m) for m in played_hand.dealt],
            played_hand.taker, played_hand.contract, bid_level=played_hand.bid_level,
            double=played_hand.double)
        scale = _scale(replay.contract, replay.rules)
        for card in played_hand.played:
            seat = replay.turn
            team = side_of(seat, replay.n, replay.taker)
            values = solver.move_values(position_of(replay, team))
            best_card = max(values, key=lambda c: values[c])
            cost = (values[best_card] - values[card]) * scale
            out.append(CardCost(number, replay.trick_number + 1, seat, action_name(card),
                                round(cost, 1), action_name(best_card)))
            replay.play(card, announce=[], belote=True)
            done += 1
            if progress:
                progress(done, total)
    return out
