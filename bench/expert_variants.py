"""Two settings of the expert against each other in duplicate, at a fixed number of
worlds (so the result does not depend on the machine's load):
``python -m bench.expert_variants '{"misfit_weight": 0.3}' '{}' --deals 500``.

Each deal is played twice with the seats swapped; the first setting's side minus the
second's, points per deal with a 95% interval, on fresh deals (the seed is printed).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from typing import Any

from rich.console import Console
from rich.progress import track

from rebelote.bots.expert import ExpertBot
from rebelote.hand import HandState, deal_deck
from rebelote.rules import Rules


def play(rules: Rules, deck: list[int], dealer: int, settings: list[dict[str, Any]],
         seed: int) -> tuple[int, ...]:
    bots = [ExpertBot(seed + s, **settings[s % 2]) for s in range(4)]
    hand = HandState.deal(rules, dealer, deck)
    while not hand.is_over:
        hand.apply(bots[hand.turn].choose(hand.view(hand.turn)))
    return hand.score().scored if not hand.is_void else (0, 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("a", type=json.loads, help="ExpertBot keyword arguments (JSON)")
    parser.add_argument("b", type=json.loads)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--preset", default="contree")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    rules = Rules.preset_named(args.preset)
    rng = random.Random(seed)
    diffs = []
    console = Console(stderr=True)
    for i in track(range(args.deals), description="deals", console=console,
                   disable=not console.is_terminal):
        deck = deal_deck(rng)
        x = play(rules, deck, i % 4, [args.a, args.b], 1000 + i)
        y = play(rules, deck, i % 4, [args.b, args.a], 1000 + i)
        diffs.append(((x[0] - x[1]) + (y[1] - y[0])) / 2)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    print(json.dumps({"a": args.a, "b": args.b, "preset": args.preset, "seed": seed,
                      "deals": len(diffs), "mean": mean, "ci95": [mean - half, mean + half]}))


if __name__ == "__main__":
    main()
