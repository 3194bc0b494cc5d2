"""Deck styles (RULES.md §1): display names and input in each style."""

from __future__ import annotations

import pytest

from rebelote.cards import CardError, parse_card
from rebelote.decks import (
    STYLES,
    announcement_label,
    long_label,
    parse_card_in,
    short_label,
)


def test_spanish_deck_names_stand_for_the_french_cards() -> None:
    # 4 5 6 7 sota caballo rey as stand for 7 8 9 10 J Q K A.
    assert long_label(parse_card("7D"), "spanish") == "cuatro de oros"
    assert long_label(parse_card("10H"), "spanish") == "siete de copas"
    assert long_label(parse_card("JS"), "spanish") == "sota de espadas"
    assert long_label(parse_card("QC"), "spanish") == "caballo de bastos"
    assert long_label(parse_card("AD"), "spanish") == "as de oros"
    assert short_label(parse_card("KH"), "spanish") == "R🏆"


def test_spanish_input() -> None:
    assert parse_card_in("4 oros", "spanish") == parse_card("7D")
    assert parse_card_in("siete de copas", "spanish") == parse_card("10H")
    assert parse_card_in("Sota de Espadas", "spanish") == parse_card("JS")
    assert parse_card_in("caballo bastos", "spanish") == parse_card("QC")
    assert parse_card_in("10H", "spanish") == parse_card("10H")  # canonical always works


def test_french_international_german_labels_and_input() -> None:
    jack = parse_card("JS")
    assert short_label(jack, "french") == "V♠" and long_label(jack, "french") == "valet de pique"
    assert short_label(jack, "international") == "J♠"
    assert long_label(jack, "german") == "Grün-Unter"
    assert parse_card_in("valet de pique", "french") == jack
    assert parse_card_in("dame de cœur", "french") == parse_card("QH")
    assert parse_card_in("dame de coeur", "french") == parse_card("QH")
    assert parse_card_in("Herz Ober", "german") == parse_card("QH")
    assert parse_card_in("king of clubs", "international") == parse_card("KC")


@pytest.mark.parametrize("bad", ["", "roi", "roi de bâtons", "11 oros", "sota"])
def test_unknown_cards_are_refused(bad: str) -> None:
    for style in STYLES:
        with pytest.raises(CardError):
            parse_card_in(bad, style)


def test_moroccan_announcement_names() -> None:
    assert announcement_label("tierce", "spanish") == "suivi de 3"
    assert announcement_label("cinquante", "spanish") == "suivi de 4"
    assert announcement_label("tierce", "french") == "tierce"


def test_every_card_round_trips_in_every_style() -> None:
    for style in STYLES:
        for card in range(32):
            assert parse_card_in(long_label(card, style), style) == card
