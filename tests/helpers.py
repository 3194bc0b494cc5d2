"""Building test positions from card names."""

from __future__ import annotations

from rebelote.cards import parse_card, parse_contract
from rebelote.hand import HandState
from rebelote.rules import Rules


def deal_of(spec: dict[int, str]) -> list[list[int]]:
    """Hands for 4 seats: the given cards, the rest of the deck filled in card order."""
    hands = [[parse_card(c) for c in spec.get(s, "").split()] for s in range(4)]
    used = {c for h in hands for c in h}
    assert len(used) == sum(len(h) for h in hands), "a card is given twice"
    spare = [c for c in range(32) if c not in used]
    seat = 0
    while spare:  # round robin, so that filled-in cards rarely make sequences
        if len(hands[seat]) < 8:
            hands[seat].append(spare.pop(0))
        seat = (seat + 1) % 4
    return hands


def position(spec: dict[int, str], trump: str, taker: int = 0, played: str = "",
             rules: Rules | None = None, dealer: int = 3) -> HandState:
    """A hand in play: seat 0 leads (dealer 3), ``played`` cards already played."""
    hand = HandState.with_contract(rules or Rules.ffb(), dealer, deal_of(spec), taker,
                                   parse_contract(trump))
    for name in played.split():
        hand.play(parse_card(name))
    return hand


def names(mask: int) -> set[str]:
    from rebelote.cards import card_name, cards_of

    return {card_name(c) for c in cards_of(mask)}
