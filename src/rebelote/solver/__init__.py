"""Exact (double-dummy) solver and random rollouts over a full position, compiled.

This is an **analysis tool**: it sees every hand. Bots never call it on the real deal;
the expert bot calls it on hands it sampled from what its seat knows.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from rebelote.cards import Card, CardSet
from rebelote.hand import PLAY, HandState
from rebelote.rules import Rules
from rebelote.solver import kernel as k
from rebelote.tricks import (
    CARD_POINTS_TOTAL,
    LAST_TRICK_BONUS,
    raw_total,
    side_of,
    strength,
    trick_points,
    winning_index,
)
from rebelote.view import SeatView


@dataclass(frozen=True, slots=True)
class Position:
    """What the kernel needs of a hand in play, as arrays."""

    hands: np.ndarray
    n_in_trick: int
    leader: int
    led: int
    best_card: int
    best_value: int
    best_seat: int
    trick_points: int
    won0: int
    won1: int
    params: np.ndarray
    scale: float  # tout atout "scaled": raw points × 162 / 258

    @property
    def points(self) -> np.ndarray:
        """The card points of the contract (the kernel's row for it)."""
        row: np.ndarray = k.POINTS_TABLE[self.params[k.P_POINTS]]
        return row


def _params(rules: Rules, contract: int, max_team: int, players: int, taker: int
            ) -> tuple[np.ndarray, float]:
    """The kernel's rule parameters, and the factor from raw points to the 162 scale
    (tout atout 'scaled' counts 258 raw points)."""
    raw_per_point = raw_total(contract, rules.all_trump_points) / CARD_POINTS_TOTAL
    params = np.zeros(k.N_PARAMS, dtype=np.int64)
    params[k.P_MODE] = contract
    params[k.P_UNDERTRUMP] = 1 if rules.undertrump == "required" else 0
    params[k.P_PARTNER_FREE] = 1 if rules.partner_master_free else 0
    params[k.P_MAX_TEAM] = max_team
    params[k.P_CAPOT_BONUS] = round((rules.capot_points - CARD_POINTS_TOTAL) * raw_per_point)
    params[k.P_LAST_BONUS] = LAST_TRICK_BONUS
    params[k.P_PLAYERS] = players
    params[k.P_TAKER] = taker
    params[k.P_LOOP_TRICKS] = k.LOOP_TRICKS
    params[k.P_POINTS] = k.points_row(contract, rules.all_trump_points)
    return params, 1 / raw_per_point


def position_of(hand: HandState, max_team: int | None = None) -> Position:
    """The position of a hand in play, valued for ``max_team`` (default: the team of
    the player to move)."""
    if hand.phase != PLAY:
        raise ValueError("the solver works on a hand in play")
    if hand.n == 2:
        raise ValueError("découverte hides the face-down cards: no exact solve")
    hands = np.zeros(4, dtype=np.int64)
    for s in range(hand.n):
        hands[s] = hand.hands[s]
    n_in = len(hand.trick)
    leader = hand.trick_leaders[-1] if n_in else hand.turn
    n, taker = hand.n, hand.taker
    if max_team is None:
        max_team = side_of(hand.turn, n, taker)
    rules = hand.rules
    params, scale = _params(rules, hand.contract, max_team, n, taker)
    on_table = trick_points(hand.trick, hand.contract, rules.all_trump_points)
    won = [0, 0]
    for w in hand.trick_winners:
        won[side_of(w, n, taker)] = 1
    return Position(hands, n_in, leader, hand.led if n_in else 0,
                    hand.best_card if n_in else 0, hand.best_value if n_in else 0,
                    hand.best_seat if n_in else 0, on_table, won[0], won[1], params,
                    scale)


def _state(pos: Position) -> tuple[np.ndarray, int, int, int, int, int, int, int, int, int]:
    """The position's arguments to the kernel's searches, in their order (the hands
    copied: a search plays on them)."""
    return (pos.hands.copy(), pos.n_in_trick, pos.leader, pos.led, pos.best_card,
            pos.best_value, pos.best_seat, pos.trick_points, pos.won0, pos.won1)


THREADED_MIN_CARDS = 21
"""Positions with fewer cards are solved on one thread whatever ``threads`` says: their
solve (well under a millisecond from the third trick from the end) costs less than
handing the cards to the threads."""
_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    """One pool of ``threads`` threads for every solver of this process (a bot is made
    for each deal of a match: a pool each would leave its threads behind)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(threads)
        if pool is None:
            pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="solver")
        return pool


class Solver:
    """Exact solver with its transposition table (reused across calls). With
    ``threads`` > 1, :meth:`move_values` solves the root cards side by side (the kernel
    runs without the GIL), sharing the table: an entry is stored as key ^ data beside
    its data, so that one torn by two threads writing at once does not match its key."""

    def __init__(self, threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"threads must be 1 or more, not {threads!r}")
        self.threads = threads
        self.table = k.new_table()
        self.generation = 0
        self.stats = np.zeros(64, dtype=np.int64)
        """Counters: nodes, searches (aspiration passes), TT probes, TT hits."""

    def _next_generation(self) -> int:
        """A new stamp for the table's entries (older ones no longer count); the table is
        cleared when the stamps wrap around."""
        self.generation += 1
        if self.generation >= k.GENERATIONS:
            self.table.fill(0)
            self.generation = 1
        return self.generation

    def value(self, pos: Position) -> int:
        """The raw value (card points of ``max_team`` from now on, dix de der and capot
        bonus included) with best play by everyone."""
        value = self.value_within(pos, None)
        assert value is not None
        return value

    def value_within(self, pos: Position, nodes: int | None,
                     deadline: float | None = None) -> int | None:
        """:meth:`value`, or None past ``nodes`` nodes or ``deadline``
        (``time.perf_counter``; None: no limit)."""
        _limit(self.stats, nodes, deadline)
        g = int(k.solve_window(*_state(pos), pos.params, self.table,
                               self._next_generation(), self.stats, -1,
                               *k.new_heuristics()))
        return None if _unlimit(self.stats) else g

    def at_least(self, pos: Position, target: int) -> bool:
        """Whether the raw value is ``target`` or more: one null-window search, much
        cheaper than the exact value when only a threshold matters (a contract made)."""
        reached = self.at_least_within(pos, target, None)
        assert reached is not None
        return reached

    def at_least_within(self, pos: Position, target: int, nodes: int | None,
                        deadline: float | None = None) -> bool | None:
        """:meth:`at_least`, or None past ``nodes`` nodes or ``deadline`` (None: no
        limit)."""
        _limit(self.stats, nodes, deadline)
        g = k.search(*_state(pos), target - 1, target, pos.params, self.table,
                     self._next_generation(), self.stats, *k.new_heuristics())
        return None if _unlimit(self.stats) else int(g) >= target

    def move_values(self, pos: Position) -> dict[Card, int]:
        """The raw value of each legal card of the player to move. Equivalent cards (a
        run of point-less cards of one suit in one hand) are searched once."""
        values = self.move_values_within(pos, None)
        assert values is not None
        return values

    def move_values_within(self, pos: Position, nodes: int | None,
                           deadline: float | None = None) -> dict[Card, int] | None:
        """:meth:`move_values`, or None if the search needs more than ``nodes`` nodes
        (on each thread) or goes past ``deadline`` (``time.perf_counter``; None: no
        limit): a decision that must keep to its time gives the world up rather than
        overrun."""
        gen = self._next_generation()
        reps = np.zeros(32, dtype=np.int64)
        legal = int(k.root_representatives(pos.hands, pos.n_in_trick, pos.leader, pos.led,
                                           pos.best_card, pos.best_value, pos.best_seat,
                                           pos.params, reps))
        cards = [c for c in range(32) if legal >> c & 1]
        searched = [c for c in cards if reps[c] == c]
        cards_left = sum(int(h).bit_count() for h in pos.hands)
        one = self.threads == 1 or cards_left < THREADED_MIN_CARDS or len(searched) == 1
        if one:
            only = sum(1 << c for c in searched)
            _limit(self.stats, nodes, deadline)
            values = self._solve_cards(pos, only, -1, gen, self.stats, *k.new_heuristics())
            aborted = _unlimit(self.stats)
        else:
            values, aborted = self._solve_threaded(pos, searched, gen, nodes, deadline)
        if aborted:
            return None
        return {c: values[int(reps[c])] for c in cards}

    def _solve_threaded(self, pos: Position, searched: list[Card], gen: int,
                        nodes: int | None = None, deadline: float | None = None
                        ) -> tuple[dict[Card, int], bool]:
        """The values of ``searched``, the cards shared out over the threads; and whether
        a thread gave up (``nodes`` each, or at ``deadline``)."""
        cards = iter(searched)  # taken in turn by threads

        def work(_: int) -> tuple[dict[Card, int], np.ndarray]:
            stats = np.zeros_like(self.stats)
            _limit(stats, nodes, deadline)
            heuristics = k.new_heuristics()
            out: dict[Card, int] = {}
            guess = -1
            for card in cards:
                values = self._solve_cards(pos, 1 << card, guess, gen, stats, *heuristics)
                if stats[k.S_ABORTED]:
                    break
                out |= values
                guess = values[card]
            return out, stats

        result: dict[Card, int] = {}
        aborted = False
        for out, stats in _pool(self.threads).map(work, range(self.threads)):
            result |= out
            aborted = _unlimit(stats) or aborted
            self.stats += stats
        return result, aborted

    def _solve_cards(self, pos: Position, only: int, guess: int, gen: int,
                     stats: np.ndarray, history: np.ndarray, killers: np.ndarray
                     ) -> dict[Card, int]:
        cards = np.empty(8, dtype=np.int64)
        values = np.empty(8, dtype=np.int64)
        n = k.move_values(*_state(pos), pos.params, self.table, gen,
                          stats, cards, values, only, guess, history, killers)
        return {int(cards[i]): int(values[i]) for i in range(n)}


_clock_offset_ns: int | None = None
"""The kernel's clock less ``time.perf_counter_ns`` (0 on Linux, where both read
CLOCK_MONOTONIC), read at the first deadline."""


def _limit(stats: np.ndarray, nodes: int | None, deadline: float | None = None) -> None:
    """Searches with ``stats`` give up after ``nodes`` more nodes (None: never) or at
    ``deadline`` (``time.perf_counter``; None: never): the kernel reads the clock itself
    (:data:`~rebelote.solver.kernel.S_DEADLINE`)."""
    global _clock_offset_ns
    stats[k.S_ABORTED] = 0
    stats[k.S_NODE_LIMIT] = 0 if nodes is None else int(stats[0]) + max(1, nodes)
    stats[k.S_DEADLINE] = 0
    if deadline is None:
        return
    if deadline <= time.perf_counter():
        stats[k.S_NODE_LIMIT] = 1
        return
    if _clock_offset_ns is None:
        _clock_offset_ns = int(k.monotonic_ns()) - time.perf_counter_ns()
    stats[k.S_DEADLINE] = max(1, round(deadline * 1e9) + _clock_offset_ns)


def _unlimit(stats: np.ndarray) -> bool:
    """No limit any more; whether a search gave up under it."""
    aborted = bool(stats[k.S_ABORTED])
    stats[k.S_ABORTED] = stats[k.S_NODE_LIMIT] = stats[k.S_DEADLINE] = 0
    return aborted


def rollouts(pos: Position, count: int, seed: int = 0) -> tuple[float, float]:
    """Mean card points of each team over ``count`` random legal playouts."""
    totals = np.zeros(2, dtype=np.int64)
    k.rollouts(pos.hands, pos.n_in_trick, pos.leader, pos.led, pos.best_card, pos.best_value,
               pos.best_seat, pos.trick_points, pos.params, count, seed, totals)
    return totals[0] / count, totals[1] / count


def position_from_view(view: SeatView, hands: list[CardSet], max_team: int) -> Position:
    """The position of ``view``'s hand with the hidden hands replaced by ``hands`` (a
    sample): how the expert bot evaluates a world it imagined."""
    rules = view.rules
    n = rules.players
    contract = view.contract
    arr = np.zeros(4, dtype=np.int64)
    for s in range(n):
        arr[s] = hands[s]
    trick = view.trick
    cards = trick.cards if trick is not None else ()
    led = best_card = best_value = best_seat = 0
    leader = view.turn
    if trick is not None and cards:
        leader = trick.leader
        led = cards[0] >> 3
        best = winning_index(cards, contract)
        best_card, best_seat = cards[best], trick.seat_of(best, n)
        best_value = strength(best_card, contract, led)
    won = [0, 0]
    for t in view.tricks:
        if t.winner is not None:
            won[side_of(t.winner, n, view.taker)] = 1
    params, scale = _params(rules, contract, max_team, n, view.taker)
    return Position(arr, len(cards), leader, led, best_card, best_value, best_seat,
                    trick_points(cards, contract, rules.all_trump_points), won[0], won[1],
                    params, scale)


def child_position(pos: Position, card: Card) -> tuple[Position, int]:
    """The position after the player to move plays ``card``, and the points the move's
    trick (if it completes) gave ``max_team``."""
    players = int(pos.params[k.P_PLAYERS])
    contract = int(pos.params[k.P_MODE])
    player = (pos.leader + pos.n_in_trick) % players
    hands = pos.hands.copy()
    hands[player] &= ~(1 << card)
    if pos.n_in_trick == 0:
        led, best_card, best_seat = card >> 3, card, player
        best_value = strength(card, contract, led)
    else:
        led = pos.led
        v = strength(card, contract, led)
        if v > pos.best_value:
            best_card, best_value, best_seat = card, v, player
        else:
            best_card, best_value, best_seat = pos.best_card, pos.best_value, pos.best_seat
    pts = pos.trick_points + int(pos.points[card])
    if pos.n_in_trick == players - 1:
        if not hands.any():
            pts += LAST_TRICK_BONUS
        team = side_of(best_seat, players, int(pos.params[k.P_TAKER]))
        gain = pts if team == pos.params[k.P_MAX_TEAM] else 0
        won0 = pos.won0 | (1 if team == 0 else 0)
        won1 = pos.won1 | (1 if team == 1 else 0)
        return Position(hands, 0, best_seat, 0, 0, 0, 0, 0, won0, won1, pos.params,
                        pos.scale), gain
    return Position(hands, pos.n_in_trick + 1, pos.leader, led, best_card, best_value,
                    best_seat, pts, pos.won0, pos.won1, pos.params, pos.scale), 0
