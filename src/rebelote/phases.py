"""The phases of a hand: the auction, the play, over (a voided hand too)."""

from __future__ import annotations

from typing import Final

AUCTION: Final = 0
PLAY: Final = 1
OVER: Final = 2
PHASE_NAMES: Final = ("auction", "play", "over")
"""Each phase's name, as views and clients show it."""
