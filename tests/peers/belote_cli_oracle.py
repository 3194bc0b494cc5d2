"""Oracle run inside belote-cli's own virtualenv (never the project's): reads positions
as JSON lines on stdin, writes belote-cli's legal cards and trick winners as JSON lines.

Input line: {"hand": [card...], "trump": 0..5, "trick": [[seat, card]...], "seat": s}
  or        {"winner_of": [[seat, card] x4], "trump": 0..5}
Cards are rebelote's ints (suit * 8 + rank, suits S H D C, ranks 7 8 9 10 J Q K A).
"""

import json
import sys

from belote.deck import Card, Rank, Suit
from belote.game import _CARD_TO_ID, Seat, TrickCard, _calculate_legal_cards_impl, trick_winner_seat

SUITS = [Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS]
RANKS = [Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE]
TO_PEER = [_CARD_TO_ID[Card(SUITS[c >> 3], RANKS[c & 7])] for c in range(32)]
FROM_PEER = {pid: c for c, pid in enumerate(TO_PEER)}
PEER_CARD = [Card(SUITS[c >> 3], RANKS[c & 7]) for c in range(32)]


def contract(mode):
    if mode < 4:
        return SUITS[mode], False
    if mode == 4:
        return None, True
    return Suit.TOUT_ATOUT, False


out = sys.stdout
for line in sys.stdin:
    q = json.loads(line)
    trump, is_sa = contract(q["trump"])
    if "winner_of" in q:
        trick = tuple(TrickCard(Seat(s), PEER_CARD[c]) for s, c in q["winner_of"])
        out.write(json.dumps(trick_winner_seat(trick, trump, False, is_sa).value) + "\n")
        continue
    ids = _calculate_legal_cards_impl(
        tuple(TO_PEER[c] for c in q["hand"]), trump,
        tuple((s, TO_PEER[c]) for s, c in q["trick"]), q["seat"], False, is_sa)
    out.write(json.dumps(sorted(FROM_PEER[i] for i in ids)) + "\n")
