"""Random hands per second of colver driven from Python, run in ITS virtualenv.

Same measure: deal, auction (random legal bids), eight tricks of random legal cards,
scoring (colver scores inside step()). colver plays contrée, so its auction differs.
"""

import json
import random
import resource
import sys
import time

from colver import Env


def one_hand(seed, rng):
    env = Env.deal(dealer=seed & 3, seed=seed)
    while not env.is_terminal():
        actions = env.legal_actions()
        env.step(actions[int(rng.random() * len(actions))])
    env.rewards()


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    rng = random.Random(1)
    for i in range(100):
        one_hand(i, rng)
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            one_hand(n + 1000, rng)
            n += 1
    dt = time.perf_counter() - start
    envs = []
    i = 0
    while len(envs) < 500:
        env = Env.deal(dealer=0, seed=10**6 + i)
        i += 1
        while not env.is_terminal():
            if env.phase() == 1 and rng.random() < 0.15:
                break
            actions = env.legal_actions()
            env.step(actions[int(rng.random() * len(actions))])
        if not env.is_terminal() and env.phase() == 1:
            envs.append(env)
    t = time.perf_counter()
    for _ in range(10):
        for e in envs:
            e.legal_actions()
    legal_us = (time.perf_counter() - t) / (10 * len(envs)) * 1e6
    print(json.dumps({"engine": "colver", "hands": n, "hands_per_s": n / dt,
                      "legal_us": legal_us, "copy_us": None,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


main()
