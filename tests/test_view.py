"""A seat's view holds its own cards and what is public, nothing else."""

from __future__ import annotations

import random

import pytest

from rebelote.actions import CAPOT_LEVEL
from rebelote.bots import RandomBot
from rebelote.cards import cards_of, mask_of, parse_card
from rebelote.game import Game
from rebelote.hand import HandState
from rebelote.rules import Rules
from rebelote.view import PublicAnnouncement, SeatView, Trick


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
    for name in SeatView.FIELDS:
        assert not isinstance(getattr(v, name), HandState)
    for name in SeatView.__slots__:  # the storage too: public records, never the state
        assert not isinstance(getattr(v, name), HandState)
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


# -- the fields clients need: master, contract, teams, announcements that scored --------

def test_view_master_is_the_seat_winning_the_trick_so_far() -> None:
    from tests.helpers import position

    h = position({0: "AS", 1: "7S", 2: "7H 8H 9H 10H 7D 8D 9D 10D"}, "H")
    assert h.view(1).master == -1  # nothing played yet
    h.play(parse_card("AS"))
    assert h.view(1).master == 0
    h.play(parse_card("7S"))
    assert [h.view(s).master for s in range(4)] == [0, 0, 0, 0]
    h.play(parse_card("7H"))  # seat 2 trumps
    assert h.view(3).master == 2 == h.view(-1).master


def test_view_classic_contract_known_once_taken() -> None:
    from rebelote.hand import PASS, TAKE

    h = HandState.new(Rules.classic(), 0, random.Random(3))
    assert h.view(1).contract_info is None
    h.call(PASS)
    h.call(TAKE)
    info = h.view(0).contract_info
    assert info is not None
    assert (info.bidder, info.kind, info.level, info.value, info.double, info.final) == (
        2, h.retourne >> 3, -1, 0, 1, True)
    assert info.name == "SHDC"[h.retourne >> 3]


def test_view_auction_contract_follows_bids_coinche_and_surcoinche() -> None:
    from rebelote.hand import COINCHE, PASS, SURCOINCHE, bid_action

    h = HandState.new(Rules.coinche(), 3, random.Random(4))  # seat 0 speaks first
    assert h.view(0).contract_info is None
    h.call(bid_action(0, 1))           # seat 0: 80H
    info = h.view(2).contract_info
    assert info is not None and (info.bidder, info.kind, info.value, info.final) == (
        0, 1, 80, False)
    h.call(bid_action(2, 3))           # seat 1: 100C
    h.call(COINCHE)                    # seat 2 coinches its opponents' 100C
    info = h.view(0).contract_info
    assert info is not None
    assert (info.bidder, info.kind, info.value, info.double, info.doubled_by) == (
        1, 3, 100, 2, 2)
    assert not info.final
    h.call(PASS)                       # seat 3
    h.call(PASS)                       # seat 0
    h.call(SURCOINCHE)                 # seat 1
    info = h.view(-1).contract_info
    assert info is not None
    assert (info.double, info.doubled_by, info.redoubled_by, info.final, info.name) == (
        4, 2, 1, True, "100C")


def test_view_acorralada_contra_and_recontra_seats() -> None:
    from rebelote.hand import COINCHE, PASS, SURCOINCHE, bid_action

    h = HandState.new(Rules.acorralada(), 3, random.Random(5))
    h.call(bid_action(1, 0))            # seat 0: 90S
    for _ in range(3):
        h.call(PASS)                    # 1, 2, 3 pass: seat 0 may raise
    h.call(bid_action(CAPOT_LEVEL, 0))  # seat 0 raises to capot
    h.call(PASS)                        # seat 1
    h.call(COINCHE)                     # seat 3 (its partner 2 is skipped): contra
    h.call(SURCOINCHE)                  # seat 0: recontra
    info = h.view(2).contract_info
    assert info is not None
    assert (info.bidder, info.level, info.value, info.double, info.doubled_by,
            info.redoubled_by, info.final, info.is_capot) == (
        0, CAPOT_LEVEL, 250, 4, 3, 0, True, True)


def test_view_teams() -> None:
    rng = random.Random(1)
    assert HandState.new(Rules.classic(), 0, rng).view(0).teams == (0, 1, 0, 1)
    assert HandState.new(Rules.three(), 0, rng).view(0).teams == (0, 1, 2)
    assert HandState.new(Rules.decouverte(), 0, rng).view(1).teams == (0, 1)


def test_view_announcements_that_scored() -> None:
    from tests.helpers import deal_of

    spec = {0: "AS KS QS JS 7H 7C 8D 9D", 1: "AH KH QH 7S 8C JC 7D 9C"}
    h = HandState.with_contract(Rules.classic(), 3, deal_of(spec), 0, 3)
    for _ in range(3):
        h.play(min(cards_of(h.legal_cards())))
    v = h.view(1)
    assert (v.announcement_points, v.announcement_seats) == ((0, 0), ())  # trick 1 on
    h.play(min(cards_of(h.legal_cards())))
    for seat in (-1, 0, 1):
        v = h.view(seat)
        assert v.announcement_winner == 0
        assert v.announcement_seats == (0,)
        assert v.announcement_points == (50, 0)


def _expected_view(state: HandState, seat: int) -> dict[str, object]:
    """What a view must say, read straight from the referee's state (as views were
    built before they were made cheap)."""
    n = state.n
    tricks = tuple(Trick(state.trick_leaders[i], tuple(state.played[n * i:n * i + n]), w)
                   for i, w in enumerate(state.trick_winners))
    current = Trick(state.trick_leaders[-1], tuple(state.trick)) if state.trick else None
    shown = state.trick_number >= 1
    winner = state.announcement_winner if shown else None
    anns = tuple(
        PublicAnnouncement(s, a.kind, a.points,
                           a.cards if s == seat or winner == (s & 1) else None)
        for s in range(n) for a in state.announced[s])
    return {
        "seat": seat, "rules": state.rules, "dealer": state.dealer, "first_hand": state.first,
        "phase": ("auction", "play", "over")[state.phase], "turn": state.turn,
        "hand": state.hands[seat] if seat >= 0 else 0, "retourne": state.retourne,
        "calls": tuple(state.calls), "taker": state.taker, "contract": state.contract,
        "tricks": tricks, "trick": current, "card_points": tuple(state.card_points),
        "announcements": anns, "announcement_winner": winner,
        "belote_said": tuple(state.belote_said),
        "legal_actions": tuple(state.legal_actions()) if state.turn == seat >= 0 else (),
        "table": tuple(state.table_up) if n == 2 else (),
        "master": state.best_seat if state.trick else -1,
        "announcement_points": state.ann_points if winner is not None else (0, 0),
    }


@pytest.mark.parametrize("rules", [
    Rules.classic(), Rules.classic().replace(round2_all_trump=True, round2_no_trump=True),
    Rules.coinche(), Rules.acorralada(), Rules.three(), Rules.decouverte(),
    Rules.moroccan().replace(auto_announce=False),
], ids=lambda r: r.preset)
def test_cheap_views_say_what_the_state_says_and_never_change(rules: Rules) -> None:
    """Views are built lazily from the state's growing records: each one, read at once
    or long after (when the hand has moved on), says what the state said when it was
    made."""
    rng = random.Random(21)
    for _ in range(25):
        game = Game(rules, random.Random(rng.getrandbits(32)), auto_deal=False)
        hand = game.current
        assert hand is not None
        kept: list[tuple[SeatView, dict[str, object]]] = []
        while not hand.is_over:
            for seat in range(-1, hand.n):
                view = game.view(seat)
                expected = _expected_view(hand, seat)
                if rng.random() < 0.5:  # read some now, the others at the end
                    assert {k: getattr(view, k) for k in expected} == expected
                kept.append((view, expected))
            game.apply(rng.choice(hand.legal_actions()))
        for view, expected in kept:
            assert {k: getattr(view, k) for k in expected} == expected
            assert view.contract_info == (None if view.contract < 0 and view.taker < 0
                                          and rules.game != "auction" else view.contract_info)
            assert view.played_cards() == sum(
                1 << c for t in view.tricks for c in t.cards) | sum(
                1 << c for c in (view.trick.cards if view.trick else ()))


def test_views_at_the_same_point_share_what_every_seat_sees() -> None:
    """What is public (the calls, the tricks, the trick on the table, the belotes) is
    built once for all the views made at the same point of the hand: a server builds a
    view per listener at every action."""
    game = Game(Rules.classic(), random.Random(4))
    hand = game.current
    assert hand is not None
    rng = random.Random(5)
    while not hand.is_over:
        a, b = game.view(0), game.view(2)
        assert a.calls is b.calls and a.tricks is b.tricks and a.trick is b.trick
        assert a.belote_said is b.belote_said
        game.apply(rng.choice(hand.legal_actions()))
        if hand.is_over:
            break
        assert game.view(1).tricks == a.tricks or len(game.view(1).tricks) == len(a.tricks) + 1


def test_a_view_keeps_the_finished_tricks_an_earlier_view_built() -> None:
    """Each finished trick is built once per hand: a view after the next trick ends
    holds the earlier views' tricks themselves, and only the new one is made (a busy
    server rebuilt all of them at each trick, a tenth of its young objects)."""
    game = Game(Rules.classic(), random.Random(6), auto_deal=False)
    hand = game.current
    assert hand is not None
    rng = random.Random(7)
    before = game.view(0).tricks
    while not hand.is_over:
        game.apply(rng.choice(hand.legal_actions()))
        after = game.view(3).tricks
        assert after[:len(before)] == before
        if not hand.is_over:  # (once over, the views carry the game's new totals)
            assert all(x is y for x, y in zip(before, after, strict=False))
        assert len(after) in (len(before), len(before) + 1)
        before = after
    assert len(before) == 8


def test_views_are_immutable_and_compare_by_value() -> None:
    h = HandState.new(Rules.classic(), 0, random.Random(2))
    v = h.view(1)
    with pytest.raises(AttributeError):
        v.seat = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        v.tricks = ()  # type: ignore[misc]
    assert v == h.view(1) and hash(v) == hash(h.view(1)) and v != h.view(2)
    rebuilt = SeatView(**{name: getattr(v, name) for name in SeatView.FIELDS})
    assert rebuilt == v
    import pickle

    assert pickle.loads(pickle.dumps(v)) == v
