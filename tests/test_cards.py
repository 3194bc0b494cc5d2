"""Cards: notation in and out, orders and points (RULES.md §1)."""

from __future__ import annotations

import pytest

from rebelote.cards import (
    ALL_TRUMP,
    HIGHER,
    NO_TRUMP,
    CardError,
    card_name,
    cards_of,
    format_cards,
    mask_of,
    parse_card,
    points_table,
)


def test_canonical_names_and_parsing() -> None:
    assert [card_name(c) for c in range(8)] == ["7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]
    assert card_name(parse_card("10H")) == "10H"
    for text in ("TH", "th", "10♥", "10h", " 10H "):
        assert card_name(parse_card(text)) == "10H"
    assert card_name(parse_card("j♠")) == "JS"
    for bad in ("", "1H", "JX", "11S", "JSS", "H"):
        with pytest.raises(CardError):
            parse_card(bad)


def test_masks() -> None:
    m = mask_of([parse_card("JS"), parse_card("AC")])
    assert format_cards(m) == "JS AC"
    assert cards_of((1 << 32) - 1) == list(range(32))


@pytest.mark.parametrize(("mode", "ta", "total"), [
    (0, "scaled", 152), (3, "scaled", 152), (NO_TRUMP, "scaled", 152),
    (ALL_TRUMP, "scaled", 248), (ALL_TRUMP, "reduced13", 152), (ALL_TRUMP, "reduced14", 152),
])
def test_points_per_mode(mode: int, ta: str, total: int) -> None:
    assert sum(points_table(mode, ta)) == total


def test_trump_and_plain_orders() -> None:
    spades = [parse_card(c) for c in ("JS", "9S", "AS", "10S", "KS", "QS", "8S", "7S")]
    for i, c in enumerate(spades):  # trump order J 9 A 10 K Q 8 7
        assert HIGHER[0][c] == mask_of(spades[:i])
    plain = [parse_card(c) for c in ("AS", "10S", "KS", "QS", "JS", "9S", "8S", "7S")]
    for i, c in enumerate(plain):  # plain order A 10 K Q J 9 8 7
        assert HIGHER[1][c] == mask_of(plain[:i])
        assert HIGHER[NO_TRUMP][c] == mask_of(plain[:i])
        assert HIGHER[ALL_TRUMP][spades[i]] == mask_of(spades[:i])
    assert points_table(0)[parse_card("JS")] == 20 and points_table(1)[parse_card("JS")] == 2
    assert points_table(NO_TRUMP)[parse_card("AS")] == 19


def test_card_name_refuses_numbers_that_are_not_cards() -> None:
    for bad in (-1, 32, 99):
        with pytest.raises(CardError):
            card_name(bad)


def test_held_order_puts_trumps_first_colours_alternating_strongest_first() -> None:
    from rebelote.cards import ALL_TRUMP, HEARTS, NO_CONTRACT, held_order

    hand = mask_of(parse_card(c) for c in ("10H", "JH", "9H", "AS", "10S", "KD", "AC", "7S"))

    def names(cards: list[int]) -> list[str]:
        return [card_name(c) for c in cards]

    assert names(held_order(hand, HEARTS)) == ["JH", "9H", "10H", "AS", "10S", "7S", "AC",
                                               "KD"]
    assert names(held_order(hand, NO_CONTRACT)) == ["AS", "10S", "7S", "10H", "JH", "9H",
                                                    "AC", "KD"]
    assert names(held_order(hand, ALL_TRUMP))[3:6] == ["JH", "9H", "10H"]
