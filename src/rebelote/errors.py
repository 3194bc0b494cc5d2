"""Errors raised by the engine: each names the rule an action breaks.

Every one is a :class:`ValueError`; the state that raised it is left exactly as it was.
"""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow now; ``rule`` names the rule it breaks."""

    rule: str = "illegal action"

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule


class WrongPhase(IllegalAction):
    """A call during the play, a card during the auction, anything after the end."""

    rule = "wrong phase"


class NotYourTurn(IllegalAction):
    """An action for a seat whose turn it is not."""

    rule = "turn order"


class IllegalCall(IllegalAction):
    """A call the auction does not allow (e.g. naming the retourne's suit in round 2)."""

    rule = "auction"


class CardNotInHand(IllegalAction):
    """A card the player does not hold."""

    rule = "card not in hand"


class IllegalPlay(IllegalAction):
    """A card the play obligations of RULES.md §5 forbid."""

    rule = "play obligation"


class IllegalAnnouncement(IllegalAction):
    """An announcement declared out of time or not a combination."""

    rule = "announcement"
