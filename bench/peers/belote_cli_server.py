"""Seats belote-cli's bots at a table refereed elsewhere; runs in belote-cli's virtualenv.

belote-cli's bots read the whole game state (their partner's hand included), so this
server mirrors the whole deal. JSON lines, rebelote's card numbers (suit * 8 + rank,
ranks 7 8 9 10 J Q K A) and calls (32 pass, 33 take, 34..37 a suit, 38 SA, 39 TA):
  {"cmd": "deal", "dealer": d, "hands": [[5 cards] x4], "up": c, "rest": [11 cards],
   "seats": [1, 3], "level": "hard", "seed": s}             -> {"ok": true}
  {"cmd": "act", "seat": s}   -> {"action": a}
  {"cmd": "step", "action": a} -> {"ok": true}
"""

import json
import random
import sys
from dataclasses import replace

from belote.ai import AIPlayer, Difficulty
from belote.deck import Card, Rank, Suit
from belote.game import (
    SANS_ATOUT_BID,
    Phase,
    Seat,
    new_game,
    place_bid,
    play_card,
    reset_round_fields,
)

SUITS = [Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS]
RANKS = [Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE]


def card(c):
    return Card(SUITS[c >> 3], RANKS[c & 7])


def ours(x):
    return SUITS.index(x.suit) * 8 + RANKS.index(x.rank)


state = None
bots = {}


def apply(action):
    global state
    if state.phase == Phase.BIDDING:
        if action == 32:
            bid = None
        elif action == 33:
            bid = state.up_card.suit
        elif action == 38:
            bid = SANS_ATOUT_BID
        elif action == 39:
            bid = Suit.TOUT_ATOUT
        else:
            bid = SUITS[action - 34]
        state = place_bid(state, bid)
    else:
        state = play_card(state, card(action))


for line in sys.stdin:
    q = json.loads(line)
    if q["cmd"] == "deal":
        rng = random.Random(q["seed"])
        dealer = Seat(q["dealer"])
        first = dealer.next_seat()
        hands = tuple(tuple(card(c) for c in h) for h in q["hands"])
        state = reset_round_fields(
            replace(new_game(), dealer=dealer), hands=hands, initial_hands=hands,
            leader=first, turn=first, phase=Phase.BIDDING, up_card=card(q["up"]),
            remaining_cards=tuple(card(c) for c in q["rest"]), bidding_round=1,
            belote_holders={}, _rng=rng)
        level = {"easy": Difficulty.EASY, "medium": Difficulty.MEDIUM,
                 "hard": Difficulty.HARD}[q["level"]]
        bots = {s: AIPlayer(Seat(s), difficulty=level, rng=random.Random(q["seed"] + s))
                for s in q["seats"]}
        answer = {"ok": True}
    elif q["cmd"] == "act":
        bot = bots[q["seat"]]
        if state.phase == Phase.BIDDING:
            bid = bot.decide_bid(state)
            if bid is None:
                action = 32
            elif bid == SANS_ATOUT_BID:
                action = 38
            elif bid == Suit.TOUT_ATOUT:
                action = 39
            elif state.bidding_round == 1:
                action = 33
            else:
                action = 34 + SUITS.index(bid)
        else:
            action = ours(bot.decide_card(state))
        apply(action)
        answer = {"action": action}
    elif q["cmd"] == "hands":
        answer = {"hands": [sorted(ours(c) for c in h) for h in state.hands]}
    else:
        apply(q["action"])
        answer = {"ok": True}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
