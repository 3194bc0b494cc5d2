"""colver's exact solver and rollouts on the same deals, in ITS virtualenv; prints JSON.

Deals use rebelote's card numbers (ranks 7 8 9 10 J Q K A); colver's are 7 8 9 J Q K 10 A.
"""

import json
import statistics
import sys
import time

from colver import Env

OURS_TO_COLVER = [0, 1, 2, 6, 3, 4, 5, 7]


def env_of(deal):
    hands = [[(c >> 3) * 8 + OURS_TO_COLVER[c & 7] for c in h] for h in deal["hands"]]
    env = Env.deal_with_hands(deal["dealer"], hands)
    env.set_contract(deal["trump"], 80, deal["taker"] & 1, 0)
    env.set_phase_playing()
    return env


def main():
    deals = json.load(open(sys.argv[1]))
    env_of(deals[0]).solve_scores()
    times = []
    for deal in deals:
        env = env_of(deal)
        t = time.perf_counter()
        env.solve_scores()
        times.append(time.perf_counter() - t)
    env = env_of(deals[0])
    env.rollout(1000)
    t = time.perf_counter()
    n = 300_000
    env.rollout(n)
    rate = n / (time.perf_counter() - t)
    print(json.dumps({"all_moves_median_ms": statistics.median(times) * 1e3,
                      "all_moves_max_ms": max(times) * 1e3, "rollouts_per_s": rate}))


main()
