"""Scoring a hand from its outcome (RULES.md §8): one implementation, used by the engine
and by the score calculator alike. Pure functions over small values, no cards needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from rebelote.rules import Rules

MADE = "made"
FAILED = "failed"
LITIGE = "litige"
VOID = "void"


class ScoreError(ValueError):
    """A hand outcome that cannot happen (e.g. more than 162 card points)."""


@dataclass(frozen=True, slots=True)
class HandScore:
    """What one hand adds to each team, and the litige reserve after it."""

    outcome: str
    """``made``, ``failed`` or ``litige`` (a tie scored with the reserve)."""
    scored: tuple[int, int]
    """Points each team adds to its total for this hand (reserve won included)."""
    reserve: int
    """What the litige reserve holds after this hand."""
    reserve_won_by: int | None = None
    """The team that won the reserve carried into this hand, if any."""
    totals: tuple[int, int] = (0, 0)
    """Each team's hand total before the outcome: card points + announcements + belote."""


def round_score(rules: Rules, value: int) -> int:
    """A hand score rounded to tens as ``rules.rounding`` says (85 → 90, 84 → 80)."""
    if rules.rounding == "nearest":
        return (value + 5) // 10 * 10
    if rules.rounding == "down":
        return value // 10 * 10
    return value


def score_hand(
    rules: Rules,
    taker_team: int,
    card_points: tuple[int, int],
    announcements: tuple[int, int] = (0, 0),
    belote: tuple[int, int] = (0, 0),
    reserve: int = 0,
    capot: int | None = None,
) -> HandScore:
    """Score one classic hand.

    ``card_points`` include the dix de der (162 together; ignored on a capot, which gives
    ``rules.capot_points`` to team ``capot``); ``announcements`` are the points that
    scored after the comparison (only the winning team's); ``belote`` is 20 per belote;
    ``reserve`` is the litige reserve carried in.
    """
    if taker_team not in (0, 1):
        raise ScoreError(f"the taking team must be 0 or 1, not {taker_team!r}")
    if capot is not None:
        if capot not in (0, 1):
            raise ScoreError(f"the capot team must be 0 or 1, not {capot!r}")
        card_points = (rules.capot_points, 0) if capot == 0 else (0, rules.capot_points)
    else:
        a, b = card_points
        if a < 0 or b < 0 or a + b != 162:
            raise ScoreError(f"card points must be two numbers from 0 to 162 adding up to "
                             f"162 (dix de der included), not {a} and {b}")
    for name, pair in (("announcement", announcements), ("belote", belote)):
        if min(pair) < 0:
            raise ScoreError(f"{name} points cannot be negative")
    if reserve < 0:
        raise ScoreError("the litige reserve cannot be negative")
    t, d = taker_team, 1 - taker_team
    totals = (
        card_points[0] + announcements[0] + belote[0],
        card_points[1] + announcements[1] + belote[1],
    )
    if capot == t or totals[t] > totals[d]:
        outcome = MADE
    elif totals[t] < totals[d]:
        outcome = FAILED
    else:
        outcome = {"reserve": LITIGE, "failed": FAILED, "made": MADE}[rules.litige]

    scored = [0, 0]
    new_reserve = reserve
    won_by: int | None = None
    if outcome == MADE:
        scored[t], scored[d] = totals[t], totals[d]
    elif outcome == FAILED:
        pot = rules.capot_points if capot == d else 162
        scored[d] = pot + announcements[0] + announcements[1] + belote[d]
        if rules.belote_kept_when_failed:
            scored[t] = belote[t]
        else:
            scored[d] += belote[t]
    else:  # litige kept in reserve: the takers keep only their belote
        scored[d] = totals[d]
        scored[t] = belote[t]
        new_reserve = reserve + round_score(rules, totals[t] - belote[t])
    if outcome != LITIGE and reserve:
        won_by = t if outcome == MADE else d
        scored[won_by] += reserve
        new_reserve = 0
    return HandScore(
        outcome=outcome,
        scored=(round_score(rules, scored[0]), round_score(rules, scored[1])),
        reserve=new_reserve,
        reserve_won_by=won_by,
        totals=totals,
    )


def game_winner(
    rules: Rules, totals: tuple[int, int], last_taker_team: int | None, hands_played: int
) -> int | None:
    """The winning team once the game is over (RULES.md §9), else ``None``.

    Over when a team reached the target (or the hands limit is played); if both teams
    are over, the higher total wins (or the last hand's takers with ``takers_first``);
    an exact tie plays on.
    """
    over = hands_played >= rules.hands_limit if rules.hands_limit else max(totals) >= rules.target
    if not over:
        return None
    if (
        not rules.hands_limit
        and rules.both_over == "takers_first"
        and last_taker_team is not None
        and totals[last_taker_team] >= rules.target
    ):
        return last_taker_team
    if totals[0] == totals[1]:
        return None
    return 0 if totals[0] > totals[1] else 1
