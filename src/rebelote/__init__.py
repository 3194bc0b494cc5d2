"""rebelote: belote and its family — a faithful rules engine, records, bots and play.

The core (cards, rules, hand, game, scoring, records) does no I/O besides reading and
writing record files; bots, the CLI and the user interfaces are layers on top.
"""

from rebelote.cards import (
    ALL_TRUMP,
    NO_TRUMP,
    Card,
    CardSet,
    card_name,
    cards_of,
    format_cards,
    mask_of,
    parse_card,
)
from rebelote.errors import (
    CardNotInHand,
    IllegalAction,
    IllegalAnnouncement,
    IllegalCall,
    IllegalPlay,
    NotYourTurn,
    WrongPhase,
)
from rebelote.game import Game
from rebelote.hand import PASS, TAKE, HandState, action_name, parse_action
from rebelote.rules import Rules
from rebelote.scoring import HandScore, score_hand
from rebelote.view import SeatView

__all__ = [
    "ALL_TRUMP", "NO_TRUMP", "PASS", "TAKE", "Card", "CardNotInHand", "CardSet", "Game",
    "HandScore", "HandState", "IllegalAction", "IllegalAnnouncement", "IllegalCall",
    "IllegalPlay", "NotYourTurn", "Rules", "SeatView", "WrongPhase", "action_name",
    "card_name", "cards_of", "format_cards", "mask_of", "parse_action", "parse_card",
    "score_hand",
]
__version__ = "0.1.0"
