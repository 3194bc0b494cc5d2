"""Bots: every level plays legal games in every preset, deterministically under a seed,
from the seat's view only; their inferences about hidden hands are sound."""

from __future__ import annotations

import random

import pytest

from rebelote.bots import LEVELS, make_bot
from rebelote.bots.expert import ExpertBot
from rebelote.bots.knowledge import knowledge_of, sample_hands
from rebelote.cli import selfplay_games
from rebelote.game import Game
from rebelote.hand import HandState
from rebelote.record import game_to_record
from rebelote.rules import PRESETS, Rules
from rebelote.view import SeatView


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_complete_legal_games(level: str, preset: str) -> None:
    games = selfplay_games(Rules.preset_named(preset), 3, 5, [level] * Rules.preset_named(
        preset).players)
    assert sum(len(g.hands) for g in games) == 3
    for g in games:
        for hand in g.hands:
            assert hand.is_over  # every action went through the engine's checks


@pytest.mark.parametrize("level", ["heuristic", "expert"])
def test_same_seed_same_games(level: str) -> None:
    a = selfplay_games(Rules.classic(), 4, 9, [level, "random", level, "random"])
    b = selfplay_games(Rules.classic(), 4, 9, [level, "random", level, "random"])
    assert [game_to_record(g) for g in a] == [game_to_record(g) for g in b]


def test_bots_decide_from_the_view_only() -> None:
    """Two deals that differ only in cards seat 0 cannot see give seat 0 the same view,
    hence the same decisions: nothing hidden leaks through the bot interface."""
    rng = random.Random(21)
    checked = 0
    while checked < 12:
        deck = list(range(32))
        rng.shuffle(deck)
        cards = [deck[8 * s:8 * s + 8] for s in range(4)]
        swapped = [cards[0], cards[3], cards[2], cards[1]]  # seats 1 and 3 exchange hands
        rules = Rules.ffb()
        one = HandState.with_contract(rules, 3, cards, 0, 1)
        two = HandState.with_contract(rules, 3, swapped, 0, 1)
        assert one.view(0) == two.view(0)
        for level in ("heuristic", "expert"):
            bot_one, bot_two = make_bot(level, 5), make_bot(level, 5)
            assert bot_one.choose(one.view(0)) == bot_two.choose(two.view(0))
        assert one.view(1) != two.view(1)  # the swap is real: seat 1's view changed
        checked += 1


def test_inferences_hold_for_the_real_deal_and_samples_fit_them() -> None:
    rng = random.Random(8)
    for i in range(200):
        rules = [Rules.ffb(), Rules.coinche(), Rules.three(),
                 Rules.ffb().replace(undertrump="free")][i % 4]
        game = Game(rules, rng)
        hand = game.current
        assert hand is not None
        while hand.phase == 0:
            game.apply(rng.choice(hand.legal_actions()))
        if hand.is_over:
            continue
        for _ in range(rng.randrange(0, 6 * rules.players)):
            if hand.is_over:
                break
            game.apply(rng.choice(hand.legal_actions()))
        if hand.is_over:
            continue
        seat = hand.turn
        k = knowledge_of(game.view(seat))
        for s in range(rules.players):
            if s == seat:
                continue
            assert k.known[s] & ~hand.hands[s] == 0, "a 'known' card is not there"
            assert k.excluded[s] & hand.hands[s] == 0, "an 'excluded' card is there"
            assert k.counts[s] == hand.hands[s].bit_count()
        sample = sample_hands(k, rng)
        assert sample[seat] == hand.hands[seat]
        for s in range(rules.players):
            if s != seat:
                assert sample[s] & k.excluded[s] == 0 and sample[s] & k.known[s] == k.known[s]
                assert sample[s].bit_count() == hand.hands[s].bit_count()
        assert sum(sample) == sum(hand.hands)


def test_expert_prefers_the_winning_card_in_a_solved_endgame() -> None:
    # Seat 0 to lead with the master trump JH and a losing 7S; hearts trump; the last two
    # tricks: leading JH wins it and the 7S... the expert must find the better order.
    from rebelote.cards import parse_card

    spec = [["JH", "7S", "AS", "KS", "QS", "JS", "10S", "9S"],
            ["8H", "AD", "KD", "QD", "JD", "10D", "9D", "8D"],
            ["7H", "AC", "KC", "QC", "JC", "10C", "9C", "8C"],
            ["9H", "7D", "7C", "8S", "AH", "10H", "KH", "QH"]]
    h = HandState.with_contract(Rules.ffb(), 3, [[parse_card(c) for c in s] for s in spec],
                                0, 1)
    bot = ExpertBot(seed=1)
    values = bot.evaluate(h.view(0))
    assert set(values) == set(h.view(0).legal_actions)
    assert bot.samples_used == 16


def _spades_followed(second: str, other: str) -> tuple[SeatView, list[int], list[int]]:
    """Seat 0 leads AS (clubs trump), seat 1 follows with ``second`` and also holds the
    spade ``other``: seat 0's view, the real world, and the world where ``other`` went
    to seat 3 for its 7C (seat 1's play then forced)."""
    from rebelote.cards import mask_of, parse_card

    def cards(text: str) -> list[int]:
        return [parse_card(c) for c in text.split()]

    rest = [c for c in ("KS", "QS", "JS", "10S", "9S", "8S", "7S") if c not in (second, other)]
    spades = " ".join(rest)
    deal = [cards(f"AS {spades} AH KH"), cards(f"{second} {other} 7H 8H 9H 10H AD KD"),
            cards("QH JH QD JD 10D 9D 8D 7D"), cards("7C 8C 9C 10C JC QC KC AC")]
    h = HandState.with_contract(Rules.ffb(), 3, deal, 0, 3)  # clubs trump, seat 0 leads
    h.play(parse_card("AS"))
    h.play(parse_card(second))
    real = [h.hands[s] for s in range(4)]
    swap = mask_of(cards(other)) | mask_of(cards("7C"))
    forced = [real[0], real[1] ^ swap, real[2], real[3] ^ swap]
    return h.view(0), real, forced


def test_play_likelihood_favours_worlds_where_the_play_was_forced() -> None:
    """Seat 1 followed spades with 7S. A world where 7S was its only spade (the play
    was forced) weighs twice one where it also held 8S (one choice in two)."""
    from rebelote.bots.knowledge import play_likelihood

    view, real, forced = _spades_followed("7S", "8S")
    assert play_likelihood(view, real) == pytest.approx(1 / 2)
    assert play_likelihood(view, forced) == pytest.approx(1.0)


def test_the_play_model_doubts_a_ten_thrown_under_the_opponents_ace() -> None:
    """Seat 1 followed the opponents' ace of spades with its 10. Where it also held the
    7 (no points given), the points model finds that play e^2 times less likely than the
    7 (beta 0.2, the trick's 21 points against 11); where the 10 was its only spade, the
    play was forced: weight 1 either way."""
    import math

    from rebelote.bots.knowledge import PlayModel, play_likelihood

    view, real, forced = _spades_followed("10S", "7S")
    model = PlayModel(view, 0.2, 0.5)
    assert play_likelihood(view, real) == pytest.approx(1 / 2)
    assert model(real) == pytest.approx(1 / (1 + math.exp(2.0)))
    assert model(forced) == pytest.approx(1.0)
    assert PlayModel(view, 0.0, 0.0)(real) == pytest.approx(1 / 2)


def test_contract_points_grow_with_the_trump_honours_and_length() -> None:
    from rebelote.bots.heuristic import contract_points
    from rebelote.cards import parse_card

    def hand(names: str) -> int:
        return sum(1 << parse_card(n) for n in names.split())

    weak = hand("7S 8S 7H 8H 9H 7D 8D 9D")
    honours = hand("JS 9S 7H 8H 9H 7D 8D 9D")
    longer = hand("JS 9S AS 10S 9H 7D 8D 9D")
    assert contract_points(weak, 0, False) < contract_points(honours, 0, False) < (
        contract_points(longer, 0, False))
    assert contract_points(longer, 0, True) > contract_points(longer, 0, False)  # the lead


def _strong_and_weak_deal() -> list[list[int]]:
    """Seat 0: a long spade suit with its jack and nine and side aces; seat 2: nothing
    (no jack, no nine: no trump honour whatever the trump)."""
    from rebelote.cards import parse_card

    strong = "JS 9S AS 10S KS AH AD 7C"
    weak = "7S 8S 7H 8H QH 7D 8D QD"
    others = [c for c in range(32) if c not in {parse_card(n) for n in strong.split()}
              and c not in {parse_card(n) for n in weak.split()}]
    return [[parse_card(n) for n in strong.split()], others[:8],
            [parse_card(n) for n in weak.split()], others[8:]]


@pytest.mark.parametrize("bot", ["heuristic", "expert"])
def test_auction_bids_follow_the_hand(bot: str) -> None:
    """First to speak in contrée: the strong hand bids spades at the lowest level (80: a
    higher contract is worth more only if made, and fails more), and outbids an
    opponent's 100 in hearts with the lowest level that does (110); the hand without
    trump honours passes."""
    from rebelote.hand import PASS, bid_action

    deal = _strong_and_weak_deal()
    hand = HandState.from_deal(Rules.contree(), 3, deal)  # seat 0 speaks first
    assert make_bot(bot, 1).choose(hand.view(0)) == bid_action(0, 0)
    hand = HandState.from_deal(Rules.contree(), 0, deal)  # seat 1 speaks first
    hand.apply(bid_action(2, 1), 1)  # 100 hearts
    hand.apply(PASS, 2)
    hand.apply(PASS, 3)
    assert make_bot(bot, 1).choose(hand.view(0)) == bid_action(3, 0)
    hand = HandState.from_deal(Rules.contree(), 1, deal)  # seat 2 speaks first
    assert make_bot(bot, 1).choose(hand.view(2)) == PASS


def test_auction_style_highest_level() -> None:
    """With ``lowest_level=False`` the heuristic opens at the highest level its model
    makes with the style's probability (at least 100 with the strong hand); a higher
    required probability never bids higher."""
    from rebelote.bots.heuristic import AuctionStyle, HeuristicBot
    from rebelote.hand import BID_BASE, bid_of

    hand = HandState.from_deal(Rules.contree(), 3, _strong_and_weak_deal())
    levels = []
    for p in (0.5, 0.69, 0.9):
        action = HeuristicBot(1, AuctionStyle(lowest_level=False, make_probability=p)).choose(
            hand.view(0))
        assert action >= BID_BASE and bid_of(action)[1] == 0
        levels.append(bid_of(action)[0])
    assert levels[1] >= 2 and levels[0] >= levels[1] >= levels[2]
    assert levels[0] > levels[2]


def test_a_raise_is_made_once() -> None:
    """Partners do not raise each other's suit back and forth: a raise already counts
    the partner's strength. Seat 0 opens in spades, partner raises: seat 0 passes."""
    from rebelote.cards import parse_card
    from rebelote.hand import BID_BASE, PASS, bid_action

    strong = [parse_card(n) for n in ["JS", "9S", "AS", "7S", "AH", "8D", "7C", "8H"]]
    others = [c for c in range(32) if c not in strong]
    hand = HandState.from_deal(Rules.contree(), 3, [strong, others[:8], others[8:16],
                                                    others[16:]])
    bot = make_bot("heuristic", 1)
    opening = bot.choose(hand.view(0))
    assert opening >= BID_BASE and (opening - BID_BASE) % 6 == 0  # spades
    hand.apply(opening, 0)
    hand.apply(PASS, 1)
    hand.apply(bid_action((opening - BID_BASE) // 6 + 1, 0), 2)  # partner raises
    hand.apply(PASS, 3)
    assert bot.choose(hand.view(0)) == PASS


def test_expert_bids_from_solved_deals() -> None:
    """The expert's auction from exact solves of sampled deals: each sampled deal keeps
    the bidder's hand and deals exactly the unseen cards, 8 a seat; a partner's bid
    shades the sampling towards hands that fit it; the strong hand still bids spades at
    80 and the empty hand passes."""
    from rebelote.bots.expert import SampledBidder
    from rebelote.bots.heuristic import contract_points
    from rebelote.hand import PASS, bid_action
    from rebelote.solver import Solver

    deal = _strong_and_weak_deal()
    hand = HandState.from_deal(Rules.contree(), 3, deal)  # seat 0 speaks first
    bidder = SampledBidder(5, Solver(), worlds=6)
    assert bidder.choose(hand.view(0)) == bid_action(0, 0)
    hand.apply(bid_action(0, 0), 0)
    hand.apply(PASS, 1)
    view = hand.view(2)
    worlds = bidder._sampled_deals(view)
    assert len(worlds) == 6
    for world in worlds:
        assert sorted(world[2]) == sorted(deal[2])
        assert sorted(c for h in world for c in h) == list(range(32))
        assert all(len(h) == 8 for h in world)
        # partner (seat 0) bid 80 spades: its sampled hand fits by the model
        assert contract_points(sum(1 << c for c in world[0]), 0, True) >= 80 - 40
    assert bidder.choose(view) == PASS


def test_expert_solves_a_close_call() -> None:
    """A hand near the line (the model puts jack-third of spades and a side ace around
    96 points) is decided by solving sampled deals; a clear one is not."""
    from rebelote.bots.expert import SampledBidder
    from rebelote.cards import parse_card
    from rebelote.hand import BID_BASE
    from rebelote.solver import Solver

    close = [parse_card(n) for n in ["JS", "7S", "AH", "9H", "7D", "8D", "7C", "8C"]]
    others = [c for c in range(32) if c not in close]
    hand = HandState.from_deal(Rules.contree(), 3, [close, others[:8], others[8:16],
                                                   others[16:]])
    bidder = SampledBidder(2, Solver(), worlds=6)
    assert bidder.choose(hand.view(0)) in hand.view(0).legal_actions
    assert bidder.solver.stats[0] > 0  # nodes searched
    # a clear spade hand, without the aces or jacks to weigh sans / tout atout
    strong = [parse_card(n) for n in ["JS", "9S", "AS", "10S", "KS", "QS", "AH", "7C"]]
    others = [c for c in range(32) if c not in strong]
    clear = SampledBidder(2, Solver(), worlds=6)
    assert clear.choose(HandState.from_deal(Rules.contree(), 3, [
        strong, others[:8], others[8:16], others[16:]]).view(0)) >= BID_BASE
    assert clear.solver.stats[0] == 0


def test_heuristic_coinches_an_opposing_suit_it_holds() -> None:
    """An opponent opens 80 spades: the next seat holding jack, nine and ace of spades
    coinches (trump strength 7 and more: it measured best, from 80 up); a seat holding
    two small spades does not."""
    from rebelote.bots.heuristic import AuctionStyle, HeuristicBot, suit_strength
    from rebelote.cards import parse_card
    from rebelote.hand import COINCHE, bid_action

    holder = [parse_card(n) for n in ["JS", "9S", "AS", "7H", "8H", "7D", "8D", "9D"]]
    small = [parse_card(n) for n in ["7S", "8S", "9H", "10H", "QD", "KD", "7C", "8C"]]
    assert suit_strength(sum(1 << c for c in holder), 0) >= AuctionStyle().coinche_strength

    def after_80_spades(seat_cards: list[int]) -> HandState:
        others = [c for c in range(32) if c not in seat_cards]
        hand = HandState.from_deal(Rules.contree(), 3, [others[:8], seat_cards,
                                                        others[8:16], others[16:]])
        hand.apply(bid_action(0, 0), 0)  # seat 0 opens 80 spades
        return hand

    assert HeuristicBot(1).choose(after_80_spades(holder).view(1)) == COINCHE
    assert HeuristicBot(1).choose(after_80_spades(small).view(1)) != COINCHE
    # the previous style coinched only from 110
    previous = HeuristicBot(1, AuctionStyle(coinche_level=3))
    assert previous.choose(after_80_spades(holder).view(1)) != COINCHE


def test_calibrated_result_scores_by_the_rules() -> None:
    """A contract's expected result from an exact value: real play 6 points short of it,
    scored by the rules (contrée: 80 bid, made from 80 real points; classic: more than the
    defenders, 81 a litige), an exact capot made 44% of the time."""
    from rebelote.bots.expert import EXACT_CAPOT_MADE, EXACT_SHORTFALL, calibrated_result
    from rebelote.cards import BELOTE_PAIR
    from rebelote.scoring import HandOutcome, score_outcome

    deal = _strong_and_weak_deal()
    rules = Rules.contree()
    masks = [sum(1 << c for c in h) for h in deal]
    mode = next(m for m in range(4) if all(h & BELOTE_PAIR[m] != BELOTE_PAIR[m]
                                           for h in masks))  # no belote to count
    hand = HandState.with_contract(rules, 3, deal, 0, mode, -1, 0, 1)  # 80 by seat 0
    diff, made = calibrated_result(hand, 80 + EXACT_SHORTFALL)
    expected = score_outcome(rules, HandOutcome(0, (80, 82), None, bid=80)).scored
    assert made == 1.0 and diff == expected[0] - expected[1]
    assert calibrated_result(hand, 79 + EXACT_SHORTFALL)[1] == 0.0
    capot, made = calibrated_result(hand, 252)
    assert made == 1.0
    full = score_outcome(rules, HandOutcome(0, (0, 0), 0, bid=80)).scored
    assert capot > EXACT_CAPOT_MADE * (full[0] - full[1])  # plus the missed capots' share
    retourne = next(c for c in deal[0] if c >> 3 == mode)
    classic = HandState.with_contract(Rules.ffb(), 3, deal, 0, mode, retourne)
    assert calibrated_result(classic, 82 + EXACT_SHORTFALL)[1] == 1.0
    assert calibrated_result(classic, 81 + EXACT_SHORTFALL)[1] == 0.5  # litige
    assert calibrated_result(classic, 80 + EXACT_SHORTFALL)[1] == 0.0


def test_expert_takes_or_passes_from_solved_deals_in_classic() -> None:
    """Classic, first round: a hand near the take threshold is decided by solved deals
    (each keeps the seat's five cards, gives it the retourne and two unseen cards, eight
    to every other seat), a clear hand as the heuristic does, without a solve."""
    from rebelote.bots.expert import SampledBidder
    from rebelote.bots.heuristic import TAKE_THRESHOLD, suit_strength
    from rebelote.hand import PASS, TAKE
    from rebelote.solver import Solver

    rng = random.Random(4)
    close = clear = None
    while close is None or clear is None:
        hand = HandState.new(Rules.ffb(), 3, rng)  # seat 0 speaks first
        view = hand.view(0)
        strength = suit_strength(view.hand, view.retourne >> 3, view.retourne)
        if abs(strength - TAKE_THRESHOLD) <= 0.5 and close is None:
            close = view
        elif strength < TAKE_THRESHOLD - 3 and clear is None:
            clear = view
    bidder = SampledBidder(1, Solver(), worlds=6)
    assert bidder.choose(close) in (TAKE, PASS)
    assert bidder.solver.stats[0] > 0
    for world in bidder._sampled_deals(close):
        assert all(len(h) == 8 for h in world)
        assert sorted(c for h in world for c in h) == list(range(32))
        own = set(world[0])
        assert own >= {*range(32)} & {c for c in range(32) if close.hand >> c & 1}
        assert close.retourne in own
    # the solves decide: taken when made in 3 of 4 sampled deals or more
    made = bidder._made(close, close.retourne >> 3)
    assert (bidder.choose(close) == TAKE) == (made >= 0.75)
    quiet = SampledBidder(1, Solver(), worlds=6)
    assert quiet.choose(clear) == PASS and quiet.solver.stats[0] == 0


def test_expert_coinches_from_solved_deals() -> None:
    """An opponent opens 80 spades; a seat with jack and ace of spades (a strength near
    the coinche line) decides by solving the deals it samples, the opener as taker: it
    coinches exactly when that raises its expected score over them."""
    from rebelote.bots.expert import SampledBidder
    from rebelote.cards import parse_card
    from rebelote.hand import COINCHE, bid_action
    from rebelote.solver import Solver

    seat = [parse_card(n) for n in ["JS", "AS", "AH", "7H", "8D", "7D", "8C", "7C"]]
    others = [c for c in range(32) if c not in seat]
    hand = HandState.from_deal(Rules.contree(), 3, [others[:8], seat, others[8:16],
                                                   others[16:]])
    hand.apply(bid_action(0, 0), 0)
    view = hand.view(1)
    bidder = SampledBidder(3, Solver(), worlds=6)
    action = bidder.choose(view)
    assert action in view.legal_actions and bidder.solver.stats[0] > 0
    passed, coinched = bidder._results(view, 0, 0, 0, (1, 2))
    gain = sum(d for d, _ in coinched) - sum(d for d, _ in passed)
    assert (action == COINCHE) == (gain > 0)


def test_classic_passes_shade_the_sampled_deals() -> None:
    """A classic pass says the five cards it was made with were weak in the retourne's
    suit (first round) or in every other suit (second round); the sampled deals keep it
    in mind: the first seat's pass makes its spade honours rarer in the next seat's deals."""
    from rebelote.bots.expert import SampledBidder
    from rebelote.cards import parse_card
    from rebelote.hand import PASS
    from rebelote.solver import Solver

    five = sum(1 << parse_card(n) for n in ["JS", "9S", "AS", "7H", "8H"])
    weak = sum(1 << parse_card(n) for n in ["7S", "8H", "9H", "7D", "8C"])
    jack_spades = parse_card("JS")
    assert not SampledBidder._would_pass(five, parse_card("10S"), 0)
    assert SampledBidder._would_pass(weak, parse_card("10S"), 0)
    assert not SampledBidder._would_pass(five, parse_card("10H"), 1)  # names spades
    assert SampledBidder._would_pass(weak, parse_card("10H"), 1)

    rng = random.Random(8)
    held = {True: 0, False: 0}
    deals = 0
    while deals < 12:
        hand = HandState.new(Rules.ffb(), 3, rng)  # seat 0 speaks first
        if (hand.retourne >> 3 != 0 or hand.retourne == jack_spades
                or (hand.hands[1] >> jack_spades) & 1):
            continue  # spades turned, the jack unseen by seat 1
        deals += 1
        after = hand.copy()
        after.apply(PASS, 0)
        for passed, view in ((False, hand.view(1)), (True, after.view(1))):
            bidder = SampledBidder(1, Solver(), worlds=8)
            for world in bidder._sampled_deals(view):
                held[passed] += jack_spades in world[0]
    assert held[True] < 0.75 * held[False], held


def test_expert_bids_sans_atout_and_tout_atout_from_solved_deals() -> None:
    """Where the rules allow them, the expert weighs sans atout and tout atout when its
    hand has their cards: four aces and two tens open 80 SA, which the model (suits
    only) would not; with SA/TA off in the rules, or in the bidder, it bids a suit or
    passes. (A clear suit hand solves nothing: test_expert_solves_a_close_call.)"""
    from rebelote.bots.expert import SampledBidder, no_trump_candidate
    from rebelote.cards import parse_card
    from rebelote.hand import BID_BASE, bid_action, bid_of
    from rebelote.solver import Solver

    def cards(spec: str) -> list[int]:
        return [parse_card(n) for n in spec.split()]

    aces = cards("AS AH AD AC 10S 10H 7D 8C")
    jacks = cards("JS JH JD 9S 9H 9D 7C 8C")
    assert no_trump_candidate(sum(1 << c for c in aces), 4)
    assert not no_trump_candidate(sum(1 << c for c in aces), 5)
    assert no_trump_candidate(sum(1 << c for c in jacks), 5)
    assert not no_trump_candidate(sum(1 << c for c in cards("JS 9S AS 10S KS QS 7D 8C")), 5)
    others = [c for c in range(32) if c not in aces]
    deal = [aces, others[:8], others[8:16], others[16:]]
    hand = HandState.from_deal(Rules.contree(), 3, deal)  # seat 0 speaks first
    assert SampledBidder(4, Solver(), worlds=8).choose(hand.view(0)) == bid_action(0, 4)
    plain = HandState.from_deal(Rules.contree().replace(auction_no_trump=False,
                                                        auction_all_trump=False), 3, deal)
    call = SampledBidder(4, Solver(), worlds=8).choose(plain.view(0))
    assert call < BID_BASE or bid_of(call)[1] < 4
    without = SampledBidder(4, Solver(), worlds=8, no_trump_bids=False)
    call = without.choose(hand.view(0))
    assert call < BID_BASE or bid_of(call)[1] < 4
