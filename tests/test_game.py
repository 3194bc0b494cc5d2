"""RULES.md §9 and the game loop: dealer rotation, the reserve across hands, the end."""

from __future__ import annotations

import random

import pytest

from rebelote.errors import WrongPhase
from rebelote.game import Game, draw_dealer
from rebelote.hand import PASS, HandState, deck_for
from rebelote.rules import Rules


def _play_hand(game: Game, rng: random.Random) -> None:
    hand = game.current
    assert hand is not None
    while not hand.is_over:
        game.apply(rng.choice(hand.legal_actions()))


def test_dealer_rotates_also_after_a_voided_hand() -> None:
    game = Game(Rules.classic(), random.Random(1), dealer=2, auto_deal=False)
    first = game.current
    assert first is not None and first.dealer == 2
    for _ in range(8):
        game.apply(PASS)
    assert first.is_void and game.scores[-1].outcome == "void"
    second = game.deal()
    assert second.dealer == 3
    _play_hand(game, random.Random(2))
    assert game.deal().dealer == 0


def test_voided_hands_do_not_count_towards_a_hands_limit() -> None:
    rules = Rules.ffb().replace(target=0, hands_limit=2)
    game = Game(rules, random.Random(1), dealer=0, auto_deal=False)
    for _ in range(8):
        game.apply(PASS)
    assert game.hands_played == 0 and not game.is_over
    rng = random.Random(4)
    while not game.is_over:
        if game.current is None or game.current.is_over:
            game.deal()
        _play_hand(game, rng)
    assert game.hands_played >= 2


def test_reserve_carries_to_the_next_decided_hand() -> None:
    # Random games until a litige happens, then check the game's bookkeeping.
    rng = random.Random(11)
    checked = 0
    for _ in range(200):
        g = Game(Rules.ffb(), rng, dealer=0)
        while not g.is_over:
            before_reserve = g.reserve
            before = list(g.totals)
            n = len(g.scores)
            _play_hand(g, rng)
            s = g.scores[n]
            assert g.totals == [before[0] + s.scored[0], before[1] + s.scored[1]]
            if s.outcome == "litige":
                assert g.reserve > before_reserve
            elif s.outcome in ("made", "failed") and before_reserve:
                hand = g.hands[n]
                winner = hand.taker & 1 if s.outcome == "made" else 1 - (hand.taker & 1)
                assert s.reserve_won_by == winner and g.reserve == 0
                assert s.scored[winner] >= before_reserve
                checked += 1
        if checked >= 3:
            break
    assert checked >= 3, "no litige reserve was won in 200 random games"


def test_game_ends_after_the_hand_that_reaches_the_target() -> None:
    rng = random.Random(7)
    game = Game(Rules.skill7(), rng)
    while not game.is_over:
        _play_hand(game, rng)
    assert max(game.totals) >= 501
    assert game.winner == (0 if game.totals[0] > game.totals[1] else 1)
    with pytest.raises(WrongPhase):
        game.apply(PASS)


def test_start_hand_checks_the_dealer() -> None:
    game = Game(Rules.classic(), dealer=1)
    deck = list(range(32))
    game.start_hand(HandState.deal(Rules.classic(), 1, deck))
    for _ in range(8):
        game.apply(PASS)
    with pytest.raises(ValueError, match="dealer must be seat 2"):
        game.start_hand(HandState.deal(Rules.classic(), 3, deck))


def test_cut_only_deals_the_gathered_cards_cut() -> None:
    rules = Rules.classic().replace(shuffle="cut")
    rng = random.Random(3)
    game = Game(rules, rng, dealer=0, auto_deal=False)
    while game.current is not None and game.current.is_void:
        game.deal()
    _play_hand(game, random.Random(9))
    gathered = list(game.hands[-1].played)
    nxt = game.deal()
    k = (gathered.index(nxt.retourne) - 20) % 32
    expected = HandState.deal(rules, nxt.dealer, gathered[k:] + gathered[:k])
    assert 0 < k < 32
    assert expected.initial == nxt.initial


def test_draw_dealer_is_seeded_and_in_range() -> None:
    dealers = {draw_dealer(random.Random(s)) for s in range(60)}
    assert dealers == {0, 1, 2, 3}
    assert draw_dealer(random.Random(5)) == draw_dealer(random.Random(5))


@pytest.mark.parametrize("preset", ["classic", "three", "decouverte"])
def test_a_voided_hand_gathers_every_card_in_play_once(preset: str) -> None:
    rules = Rules.preset_named(preset)
    hand = HandState.new(rules, 0, random.Random(11))
    assert hand.stock is not None or preset == "decouverte"
    while not hand.is_over:
        hand.apply(PASS)
    gathered = hand.gathered_cards()
    assert sorted(gathered) == deck_for(rules.players)
    assert hand.stock is None  # the auction is over: no stock left to show


@pytest.mark.parametrize("preset", ["coinche", "contree", "acorralada"])
def test_each_hands_terms_make_its_score(preset: str) -> None:
    """``Game.hand_terms`` (what the web's and the terminal's summaries write, each of
    which found the hand's outcome and carried reserve itself before): each finished
    auction hand's terms, rounded as the rules round, are what each side scored. An
    auction game keeps no litige reserve (a contract is made or failed), so no hand's
    terms hold one."""
    from rebelote.bots import make_bot
    from rebelote.scoring import VOID, round_score

    rules = Rules.preset_named(preset)
    bots = [make_bot("random", s) for s in range(4)]
    checked = 0
    for seed in range(20):
        game = Game(rules, random.Random(seed))
        while not game.is_over and len(game.hands) < 40:
            hand = game.current
            assert hand is not None
            game.apply(bots[hand.turn].choose(game.view(hand.turn)))
        for i, score in enumerate(game.scores):
            assert score.reserve == 0
            if score.outcome == VOID:
                continue
            terms = game.hand_terms(i)
            assert [round_score(rules, x.value) for x in terms] == list(score.scored), i
            assert not [p for x in terms for p in x.parts if p.name == "reserve"]
            checked += 1
    assert checked >= 20, checked  # random bots bid high: games end in a few hands
