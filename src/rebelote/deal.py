"""The deal (RULES.md §2-§4 and docs/variants.md): the cards in play, a fair shuffle,
and the checks a deal given card by card (a record) must pass. Pure: cards only."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from rebelote.cards import Card, card_name

_DECK_OF_THREE: Final = frozenset(c for c in range(32) if c & 7 > 1)  # no 7s and 8s


_DECKS: Final = {4: tuple(range(32)), 3: tuple(sorted(_DECK_OF_THREE)), 2: tuple(range(32))}
_DECK_SETS: Final = {n: frozenset(deck) for n, deck in _DECKS.items()}


def deck_for(players: int) -> list[Card]:
    """The cards in play: 32, or 24 for three players (the 7s and 8s set aside)."""
    return list(_DECKS[players])


def deal_deck(rng: random.Random, players: int = 4) -> list[Card]:
    """A shuffled deck (32 cards; 24 for three players).

    Fisher-Yates with the swap positions read as mixed-radix digits of one 192-bit
    random number: 32! < 2**118, so each permutation's probability is off by less than
    2**-74 (``random.shuffle`` draws 31 numbers and costs a quarter of a random hand).
    """
    deck = deck_for(players)
    x = rng.getrandbits(192)
    for i in range(len(deck) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal_packets(deck: Sequence[Card], first: int, players: int,
                 packets: Sequence[int]) -> tuple[list[int], int]:
    """Each seat's cards (bitmasks) after dealing ``deck`` in ``packets`` (e.g. 3, 2),
    each packet round starting at seat ``first``; and how many cards were dealt."""
    hands = [0] * players
    i = 0
    for packet in packets:
        for k in range(players):
            seat = (first + k) % players
            for c in deck[i:i + packet]:
                hands[seat] |= 1 << c
            i += packet
    return hands, i


def check_deck(deck: Sequence[Card], players: int) -> None:
    """Raise ValueError unless ``deck`` holds each card in play exactly once."""
    if len(deck) != len(_DECKS[players]) or _DECK_SETS[players] != set(deck):
        raise ValueError(f"a deck must hold each of the {len(_DECKS[players])} cards in play "
                         "exactly once")


def check_deal(cards: Sequence[Sequence[Card]], n: int, allow_five: bool,
               retourne: int) -> None:
    """Raise ValueError unless ``cards`` is a complete deal for ``n`` seats (8 each, 16
    in découverte; or, ``allow_five``, a voided hand's 5 each beside the retourne)."""
    if len(cards) != n:
        raise ValueError(f"a deal lists the cards of {n} seats")
    seen: set[int] = set()
    sizes = {len(c) for c in cards}
    for listed in cards:
        for c in listed:
            if not isinstance(c, int) or not 0 <= c < 32:
                raise ValueError(f"{c!r} is not a card")
            if c in seen:
                raise ValueError(f"{card_name(c)} is dealt twice")
            if n == 3 and c & 7 < 2:
                raise ValueError(f"{card_name(c)} is not in play with three players "
                                 "(the 7s and 8s are set aside)")
            seen.add(c)
    if allow_five and sizes == {5} and n != 2:
        if retourne in seen:
            raise ValueError(f"the retourne {card_name(retourne)} is also in a hand")
        return
    size = 16 if n == 2 else 8
    if sizes != {size}:
        raise ValueError(f"each seat must hold {size} cards once the deal is complete"
                         + (" (or 5 cards in a voided hand)" if allow_five and n != 2 else ""))
    if allow_five and n != 2 and retourne not in seen:
        raise ValueError(f"the retourne {card_name(retourne)} must be in the taker's hand")
