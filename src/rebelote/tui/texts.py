"""Texts of the terminal game, from the shared catalog :mod:`rebelote.i18n`."""

from __future__ import annotations

from rebelote.errors import IllegalAction
from rebelote.i18n import reason, tr


def t(key: str, lang: str = "en", **values: object) -> str:
    """The UI text ``key`` in ``lang``."""
    return tr(key, lang, **values)


def rule_reason(exc: IllegalAction, lang: str) -> str:
    """Why the engine refused an action, in the player's language."""
    return reason(exc.rule, str(exc), lang)
