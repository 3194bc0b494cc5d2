"""The solver's tail on fresh deals: every root card's value, one thread, per deal.

``python -m bench.solver_tail [--deals N] [--seed S] [--trump T] [--slowest K]`` writes
a fresh seeded set (suit contracts at random, or ``--trump`` 4 sans atout / 5 tout
atout; a new seed each run unless given), times ``Solver().move_values`` on each deal
and prints the slowest deals with their search nodes (frames of the search; the loops of
the last tricks are not counted), then one JSON line: median, p90, p99, max (ms), the
seed and the deals file (for ``bench/peers/colver_solver.py`` on the same deals).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.__main__ import write_deals
from bench.solver_speed import hands_of
from rebelote.solver import Solver, position_of


def quantile(values: list[float], q: float) -> float:
    """The value at quantile ``q`` of ``values`` (nearest rank, the higher one)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_deals(deals: list[dict[str, object]]) -> tuple[list[float], list[int]]:
    """Milliseconds and search nodes of every root card's value, per deal."""
    solver = Solver()
    solver.move_values(position_of(hands_of(deals[0])))  # load the compiled code
    times, nodes = [], []
    for deal in deals:
        pos = position_of(hands_of(deal))
        before = int(solver.stats[0])
        t = time.perf_counter()
        solver.move_values(pos)
        times.append((time.perf_counter() - t) * 1e3)
        nodes.append(int(solver.stats[0]) - before)
    return times, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--trump", type=int, default=None, choices=range(6))
    parser.add_argument("--slowest", type=int, default=10)
    args = parser.parse_args()
    seed = random.randrange(10**6) if args.seed is None else args.seed
    path = Path(tempfile.mkdtemp(prefix="solver_tail_")) / "deals.json"
    write_deals(args.deals, seed, path, trump=args.trump)
    deals = json.loads(path.read_text())
    times, nodes = time_deals(deals)
    for i in sorted(range(len(deals)), key=lambda i: -times[i])[:args.slowest]:
        print(f"deal {i:4d} trump {deals[i]['trump']} taker {deals[i]['taker']}: "
              f"{times[i]:7.1f} ms, {nodes[i] / 1e3:6.0f}k nodes")
    print(json.dumps({"seed": seed, "deals": len(deals), "trump": args.trump,
                      "median_ms": statistics.median(times), "p90_ms": quantile(times, 0.9),
                      "p99_ms": quantile(times, 0.99), "max_ms": max(times),
                      "nodes_median": statistics.median(nodes), "nodes_max": max(nodes),
                      "file": str(path)}))


if __name__ == "__main__":
    main()
