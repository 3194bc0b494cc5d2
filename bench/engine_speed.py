"""Speed of rebelote's engine through the public Python API; prints one JSON line.

Run as its own process so that its peak memory is its own:
``python -m bench.engine_speed SECONDS [PRESET]``.
"""

from __future__ import annotations

import json
import random
import resource
import sys
import time

from rebelote import HandState, Rules


def random_hands(rules: Rules, seconds: float, seed: int = 1) -> tuple[int, float]:
    """Play random full hands (deal, taking, eight tricks, scoring) for ``seconds``."""
    rng = random.Random(seed)
    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            hand = HandState.new(rules, n % rules.players, rng)
            while not hand.is_over:
                actions = hand.legal_actions()
                hand.apply(actions[int(rng.random() * len(actions))])
            hand.score()
            n += 1
        now = time.perf_counter()
        if now >= deadline:
            return n, now - start


def selfplay_hands(rules: Rules, seconds: float, seed: int) -> tuple[int, float]:
    """Hands played the way ``rebelote selfplay --bots random`` plays them: through
    ``Game.view`` (a seat's view for every action) and random bots, for ``seconds``."""
    from rebelote.cli import selfplay_games

    n = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        selfplay_games(rules, 200, seed + n, ["random"] * rules.players)
        n += 200
        now = time.perf_counter()
        if now >= deadline:
            return n, now - start


def positions(rules: Rules, count: int, seed: int = 2) -> list[HandState]:
    """Random mid-play positions."""
    rng = random.Random(seed)
    out: list[HandState] = []
    while len(out) < count:
        hand = HandState.new(rules, 0, rng)
        while not hand.is_over:
            if hand.phase == 1 and rng.random() < 0.15:
                out.append(hand.copy())
            actions = hand.legal_actions()
            hand.apply(actions[int(rng.random() * len(actions))])
    return out


def micro(rules: Rules) -> tuple[float, float]:
    """Mean µs of ``legal_actions()`` and of ``copy()`` over random positions."""
    pos = positions(rules, 2000)
    reps = 20
    t = time.perf_counter()
    for _ in range(reps):
        for h in pos:
            h.legal_actions()
    legal_us = (time.perf_counter() - t) / (reps * len(pos)) * 1e6
    t = time.perf_counter()
    for _ in range(reps):
        for h in pos:
            h.copy()
    copy_us = (time.perf_counter() - t) / (reps * len(pos)) * 1e6
    return legal_us, copy_us


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    rules = Rules.preset_named(sys.argv[2] if len(sys.argv) > 2 else "classic")
    random_hands(rules, 0.3)  # warm-up
    n, dt = random_hands(rules, seconds)
    seed = random.SystemRandom().randrange(1 << 30)  # fresh deals each run
    views_n, views_dt = selfplay_hands(rules, seconds, seed)
    legal_us, copy_us = micro(rules)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"engine": "rebelote", "preset": rules.preset, "hands": n,
                      "hands_per_s": n / dt, "legal_us": legal_us, "copy_us": copy_us,
                      "selfplay_hands_per_s": views_n / views_dt, "selfplay_seed": seed,
                      "peak_rss_mb": peak_kb / 1024}))


if __name__ == "__main__":
    main()
