"""Oracle run inside colver's own virtualenv (never the project's): plays random deals
and prints one JSON line per deal, in rebelote's encoding.

Line: {"dealer": d, "hands": [[card...] x4], "steps": [[legal...], action]...,
       "rewards": [ns, ew]}
Cards: rebelote's ints (suit * 8 + rank, ranks 7 8 9 10 J Q K A). Calls: 32 pass,
40 coinche, 41 surcoinche, 64 + level * 6 + suit for bids (level 9 = capot).
Usage: python colver_oracle.py DEALS SEED
"""

import json
import random
import sys

from colver import Env

RANK_TO_OURS = [0, 1, 2, 4, 5, 6, 3, 7]  # colver: 7 8 9 J Q K 10 A


def card(c):
    return (c >> 3) * 8 + RANK_TO_OURS[c & 7]


def action(a, phase):
    if phase == 1:
        return card(a)
    if a == 0:
        return 32
    if a == 41:
        return 40
    if a == 42:
        return 41
    if a <= 36:
        level, suit = divmod(a - 1, 4)
    else:
        level, suit = 9, a - 37
    return 64 + level * 6 + suit


def main():
    deals, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    out = sys.stdout
    for i in range(deals):
        dealer = rng.randrange(4)
        env = Env.deal(dealer=dealer, seed=seed * 1_000_003 + i)
        hands = [[card(c) for c in h] for h in env.get_initial_hands()]
        steps = []
        while not env.is_terminal():
            phase = env.phase()
            legal = env.legal_actions()
            if phase == 0 and len(legal) > 1 and rng.random() < 0.6:
                a = legal[0]  # pass often, so that auctions stay varied
            else:
                a = legal[int(rng.random() * len(legal))]
            steps.append([sorted(action(x, phase) for x in legal), action(a, phase)])
            env.step(a)
        out.write(json.dumps({"dealer": dealer, "hands": hands, "steps": steps,
                              "rewards": list(env.rewards())}) + "\n")


main()
