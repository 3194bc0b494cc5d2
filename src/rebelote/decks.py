"""Deck styles for display and input (RULES.md §1): French (R D V), international
(K Q J), German (K O U) and the Spanish deck of the Moroccan game, where
``4 5 6 7 sota caballo rey as`` stand for ``7 8 9 10 J Q K A`` and the suits are
oros, copas, espadas, bastos.

Records always use the canonical notation of :mod:`rebelote.cards`; these names are for
people. :func:`parse_card_in` reads any style (and the canonical notation).
"""

from __future__ import annotations

import unicodedata
from typing import Final

from rebelote.cards import CardError, card_name, parse_card

STYLES: Final = ("french", "international", "german", "spanish")

# Index: rank 0..7 = 7 8 9 10 J Q K A; suit 0..3 = spades, hearts, diamonds, clubs.
_SHORT_RANKS: Final = {
    "french": ("7", "8", "9", "10", "V", "D", "R", "A"),
    "international": ("7", "8", "9", "10", "J", "Q", "K", "A"),
    "german": ("7", "8", "9", "10", "U", "O", "K", "A"),
    "spanish": ("4", "5", "6", "7", "S", "C", "R", "A"),
}
_LONG_RANKS: Final = {
    "french": ("sept", "huit", "neuf", "dix", "valet", "dame", "roi", "as"),
    "international": ("seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"),
    "german": ("Sieben", "Acht", "Neun", "Zehn", "Unter", "Ober", "König", "Ass"),
    "spanish": ("cuatro", "cinco", "seis", "siete", "sota", "caballo", "rey", "as"),
}
_SUIT_SYMBOLS: Final = {
    "french": "♠♥♦♣", "international": "♠♥♦♣", "german": "🍃❤🔔🌰", "spanish": "⚔🏆🪙🌿",
}
_SUIT_NAMES: Final = {
    "french": ("pique", "cœur", "carreau", "trèfle"),
    "international": ("spades", "hearts", "diamonds", "clubs"),
    "german": ("Grün", "Herz", "Schellen", "Eichel"),
    "spanish": ("espadas", "copas", "oros", "bastos"),
}
_JOIN: Final = {"french": "de", "international": "of", "german": "", "spanish": "de"}


def _check(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"unknown deck style {style!r} (known: {', '.join(STYLES)})")


def short_label(card: int, style: str = "french") -> str:
    """A compact label: ``R♥`` (French), ``K♥`` (international), ``R🏆`` (Spanish)."""
    _check(style)
    return _SHORT_RANKS[style][card & 7] + _SUIT_SYMBOLS[style][card >> 3]


def long_label(card: int, style: str = "french") -> str:
    """A spoken name: ``roi de cœur``, ``king of hearts``, ``rey de copas``."""
    _check(style)
    rank = _LONG_RANKS[style][card & 7]
    suit = _SUIT_NAMES[style][card >> 3]
    if style == "german":
        return f"{suit}-{rank}"
    return f"{rank} {_JOIN[style]} {suit}"


def suit_label(suit: int, style: str = "french") -> str:
    """The name of a suit in a deck style."""
    _check(style)
    return _SUIT_NAMES[style][suit]


def announcement_label(kind: str, style: str = "french") -> str:
    """An announcement's name: tierce / cinquante / cent / carré, or the Moroccan game's
    *suivi de 3 / 4 / 5* with the Spanish deck."""
    if style == "spanish":
        return {"tierce": "suivi de 3", "cinquante": "suivi de 4", "cent": "suivi de 5",
                "carre": "carré"}[kind]
    return {"tierce": "tierce", "cinquante": "cinquante", "cent": "cent",
            "carre": "carré"}[kind]


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold().replace("œ", "oe"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).strip()


def _word_tables() -> tuple[dict[str, int], dict[str, int]]:
    ranks: dict[str, int] = {}
    for style in ("french", "international", "german"):
        for r, name in enumerate(_LONG_RANKS[style]):
            ranks.setdefault(_fold(name), r)
    ranks.update({"sota": 4, "caballo": 5, "rey": 6})  # unambiguous Spanish words
    suits = {_fold(name): s for style in STYLES for s, name in enumerate(_SUIT_NAMES[style])}
    suits.update({"laub": 0, "eicheln": 3})
    return ranks, suits


_RANK_WORDS, _SUIT_WORDS = _word_tables()
# With the Spanish deck, numbers name the Spanish cards: 4 is the 7, ..., 7 is the 10.
_SPANISH_RANKS: Final = {"4": 0, "5": 1, "6": 2, "7": 3, "cuatro": 0, "cinco": 1, "seis": 2,
                         "siete": 3, "sota": 4, "caballo": 5, "rey": 6, "as": 7}


def parse_card_in(text: str, style: str = "french") -> int:
    """Parse a card as a player of ``style`` writes it: the canonical ``JS`` / ``10H``,
    or words such as ``valet de pique``, ``sota de espadas``, ``4 oros`` (Spanish: the
    7 of diamonds)."""
    _check(style)
    try:
        return parse_card(text)
    except CardError:
        pass
    words = [w for w in _fold(text).replace("-", " ").split() if w not in ("de", "of", "la")]
    if len(words) == 2:
        rank_word, suit_word = words
        if suit_word in _SUIT_WORDS:
            suit = _SUIT_WORDS[suit_word]
            if style == "spanish" and rank_word in _SPANISH_RANKS:
                return suit * 8 + _SPANISH_RANKS[rank_word]
            if rank_word in _RANK_WORDS:
                return suit * 8 + _RANK_WORDS[rank_word]
        if rank_word in _SUIT_WORDS and style == "german":  # "Herz Ober"
            return parse_card_in(f"{suit_word} {rank_word}", style)
    raise CardError(f"{text!r} is not a card of the {style} deck (e.g. "
                    f"{long_label(4, style)!r} or {card_name(4)!r})")
