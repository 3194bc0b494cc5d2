"""A seat's view holds its own cards and what is public, nothing else."""

from __future__ import annotations

import dataclasses
import random

from rebelote.bots import RandomBot
from rebelote.cards import mask_of
from rebelote.game import Game
from rebelote.hand import HandState
from rebelote.rules import Rules
from rebelote.view import SeatView


def _cards_in_view(view: SeatView) -> int:
    """Every card a view reveals, wherever it sits in the view."""
    seen = view.hand | view.played_cards()
    if view.retourne >= 0:
        seen |= 1 << view.retourne
    for a in view.announcements:
        if a.cards is not None:
            seen |= a.cards
    return seen


def test_views_never_reveal_other_seats_hidden_cards() -> None:
    rng = random.Random(8)
    for _ in range(150):
        game = Game(Rules.classic(), rng)
        hand = game.current
        assert hand is not None
        while not hand.is_over:
            for seat in range(4):
                view = game.view(seat)
                assert view.hand == hand.hands[seat]
                hidden = 0
                for other in range(4):
                    if other != seat:
                        hidden |= hand.hands[other]
                public = 0
                for a in view.announcements:
                    if a.cards is not None and a.seat != seat:
                        public |= a.cards
                if hand.retourne >= 0 and hand.taker >= 0:
                    public |= 1 << hand.retourne
                leaked = _cards_in_view(view) & hidden & ~public
                assert not leaked, f"seat {seat} sees {leaked:#x}"
            game.apply(rng.choice(hand.legal_actions()))


def test_view_is_a_separate_type_without_the_state() -> None:
    h = HandState.new(Rules.classic(), 0, random.Random(1))
    v = h.view(2)
    assert not isinstance(v, HandState)
    for f in dataclasses.fields(v):
        assert not isinstance(getattr(v, f.name), HandState)
    assert not hasattr(v, "hands")


def test_announcement_cards_hidden_until_trick_two_then_only_the_winners() -> None:
    from tests.helpers import deal_of

    spec = {0: "AS KS QS JS 7H 7C 8D 9D", 1: "AH KH QH 7S 8C JC 7D 9C"}
    h = HandState.with_contract(Rules.classic(), 3, deal_of(spec), 0, 3)
    h.play(min(c for c in range(32) if h.legal_cards() >> c & 1))
    v = h.view(1)
    mine_seat0 = [a for a in v.announcements if a.seat == 0]
    assert mine_seat0 and all(a.cards is None for a in mine_seat0)
    assert h.view(0).announcements[0].cards == mask_of([7, 6, 5, 4])  # own: known
    for _ in range(3):
        h.play(min(c for c in range(32) if h.legal_cards() >> c & 1))
    v = h.view(1)
    shown = {a.seat: a.cards for a in v.announcements}
    assert shown[0] is not None  # team 0's cinquante won: shown to all
    v3 = h.view(3)
    assert [a.cards for a in v3.announcements if a.seat == 1] == [None]  # lost: never shown


def test_bot_chooses_from_the_view_only() -> None:
    bot = RandomBot(1)
    h = HandState.new(Rules.classic(), 0, random.Random(2))
    seat = h.turn
    view = h.view(seat)
    assert bot.choose(view) in view.legal_actions
    assert h.view((seat + 1) % 4).legal_actions == ()
