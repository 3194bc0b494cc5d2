"""rebelote's solver, rollouts and expert timings on the deals of a file; prints JSON.

``python -m bench.solver_speed DEALS.json`` (the deals colver solves too).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rebelote import HandState, Rules
from rebelote.solver import Solver, position_of, rollouts

# colver's play rules: free discard instead of under-trumping.
RULES = Rules.contree().replace(undertrump="free", capot_points=252)


def hands_of(deal: dict[str, object]) -> HandState:
    cards = deal["hands"]
    assert isinstance(cards, list)
    return HandState.with_contract(RULES, int(str(deal["dealer"])), cards,
                                   int(str(deal["taker"])), int(str(deal["trump"])), -1, 0, 1)


def solve_times(deals: list[dict[str, object]]) -> dict[str, float]:
    """Value only and every root card on one thread (colver's solver uses one), and
    every root card with the root cards shared out over this machine's cores."""
    threads = os.cpu_count() or 1
    solver, parallel = Solver(), Solver(threads=threads)
    solver.value(position_of(hands_of(deals[0])))  # load the compiled code
    parallel.move_values(position_of(hands_of(deals[0])))
    single, every, shared = [], [], []
    for deal in deals:
        h = hands_of(deal)
        t = time.perf_counter()
        solver.value(position_of(h))
        single.append(time.perf_counter() - t)
        t = time.perf_counter()
        solver.move_values(position_of(h))
        every.append(time.perf_counter() - t)
        t = time.perf_counter()
        parallel.move_values(position_of(h))
        shared.append(time.perf_counter() - t)
    return {"value_median_ms": statistics.median(single) * 1e3,
            "value_max_ms": max(single) * 1e3,
            "all_moves_median_ms": statistics.median(every) * 1e3,
            "all_moves_max_ms": max(every) * 1e3,
            "threads": threads,
            "all_moves_threads_median_ms": statistics.median(shared) * 1e3,
            "all_moves_threads_max_ms": max(shared) * 1e3}


def rollout_rate(deal: dict[str, object]) -> float:
    pos = position_of(hands_of(deal))
    rollouts(pos, 1000, 1)
    t = time.perf_counter()
    n = 300_000
    rollouts(pos, n, 2)
    return n / (time.perf_counter() - t)


def expert_times(hands: int = 6) -> dict[str, float]:
    """Decision times of the expert seated at seat 0 of classic games against heuristic."""
    from rebelote.bots import make_bot
    from rebelote.game import Game

    rules = Rules.classic()
    times: list[float] = []
    import random

    rng = random.Random(3)
    game = Game(rules, rng)
    bots = [make_bot("expert", 1), make_bot("heuristic", 2), make_bot("expert", 3),
            make_bot("heuristic", 4)]
    played = 0
    while played < hands and not game.is_over:
        hand = game.current
        assert hand is not None
        while not hand.is_over:
            seat = hand.turn
            view = game.view(seat)
            t = time.perf_counter()
            action = bots[seat].choose(view)
            if seat % 2 == 0 and hand.phase == 1 and len(view.legal_actions) > 1:
                times.append(time.perf_counter() - t)
            game.apply(action)
        played += 1
    return {"expert_median_ms": statistics.median(times) * 1e3,
            "expert_max_ms": max(times) * 1e3, "expert_decisions": len(times)}


def expert_bid_times(auctions: int = 40) -> dict[str, float]:
    """Decision times of the expert's bids (classic and contrée auctions, the expert on
    every seat; its close calls solve sampled deals)."""
    import random

    from rebelote.bots import make_bot

    times: list[float] = []
    rng = random.Random(4)
    bots = [make_bot("expert", s) for s in range(4)]
    for rules in (Rules.classic(), Rules.contree()):
        for i in range(auctions):
            hand = HandState.new(rules, i % 4, rng)
            while hand.phase == 0:
                view = hand.view(hand.turn)
                t = time.perf_counter()
                action = bots[hand.turn].choose(view)
                times.append(time.perf_counter() - t)
                hand.apply(action, hand.turn)
    return {"expert_bid_median_ms": statistics.median(times) * 1e3,
            "expert_bid_max_ms": max(times) * 1e3, "expert_bids": len(times)}


def start_times() -> dict[str, float]:
    """Seconds from a fresh interpreter to the expert's first decision: with an empty
    numba cache (first start after install) and with the cache filled (later starts)."""
    code = ("import random; from rebelote import Rules, HandState; "
            "from rebelote.bots import make_bot; h = HandState.new(Rules.ffb(), 0, "
            "random.Random(1)); h.apply(33)\n"
            "b = make_bot('expert', 1)\n"
            "while len(h.played) < 20: h.apply(b.choose(h.view(h.turn)))")  # solves too
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("first_start_s", "later_start_s"):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            out[label] = time.perf_counter() - t
    return out


def main() -> None:
    """``DEALS.json [--solve-only]``: the solve times; without the flag the rollouts,
    the expert's decision times and its start times too."""
    deals = json.loads(Path(sys.argv[1]).read_text())
    result: dict[str, float] = {}
    result |= solve_times(deals)
    if "--solve-only" in sys.argv:
        print(json.dumps(result))
        return
    result["rollouts_per_s"] = rollout_rate(deals[0])
    result |= expert_times()
    result |= expert_bid_times()
    result |= start_times()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
