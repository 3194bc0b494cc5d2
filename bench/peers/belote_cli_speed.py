"""Random hands per second of belote-cli, run in ITS virtualenv; prints one JSON line.

Same measure as ours: deal, taking (random take/pass, random suit in round 2), eight
tricks of random legal cards, scoring, through its public Python functions.
"""

import json
import random
import resource
import sys
import time

from belote.deck import CARD_SUITS
from belote.game import Phase, legal_cards, new_game, place_bid, play_card, start_round
from belote.scoring import score_round


def one_hand(state, rng):
    s = start_round(state, rng)
    while s.phase == Phase.BIDDING:
        if s.bidding_round == 1:
            bid = rng.choice([None, s.up_card.suit])
        else:
            bid = rng.choice([None] + [x for x in CARD_SUITS if x != s.up_card.suit])
        s = place_bid(s, bid)
    if s.phase != Phase.PLAYING:
        return
    while s.phase == Phase.PLAYING:
        cards = legal_cards(s, s.turn)
        s = play_card(s, cards[int(rng.random() * len(cards))])
    score_round(s)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    rng = random.Random(1)
    base = new_game()
    for _ in range(50):
        one_hand(base, rng)
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            one_hand(base, rng)
            n += 1
    dt = time.perf_counter() - start
    # legal_cards µs on random mid-play positions
    pos = []
    while len(pos) < 500:
        s = start_round(base, rng)
        s = place_bid(s, s.up_card.suit)
        while s.phase == Phase.PLAYING:
            if rng.random() < 0.15:
                pos.append(s)
            cards = legal_cards(s, s.turn)
            s = play_card(s, rng.choice(cards))
    t = time.perf_counter()
    for _ in range(10):
        for p in pos:
            legal_cards(p, p.turn)
    legal_us = (time.perf_counter() - t) / (10 * len(pos)) * 1e6
    print(json.dumps({"engine": "belote-cli", "hands": n, "hands_per_s": n / dt,
                      "legal_us": legal_us, "copy_us": None,
                      "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


main()
