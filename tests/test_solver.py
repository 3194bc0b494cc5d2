"""The compiled exact solver and rollouts against the readable engine (the reference)."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

import numpy as np
import pytest

from rebelote.cards import ALL_TRUMP_POINTS, cards_of, parse_card, points_table
from rebelote.hand import HandState
from rebelote.rules import Rules
from rebelote.solver import Position, Solver, kernel, position_of, rollouts
from rebelote.tricks import legal_cards, partner_of, side_of, strength, trick_winner


def with_loop_tricks(pos: Position, tricks: int) -> Position:
    """``pos`` with its last ``tricks`` tricks solved by the kernel's plain loops
    (1: none, the search's frames do all)."""
    params = pos.params.copy()
    params[kernel.P_LOOP_TRICKS] = tricks
    return dataclasses.replace(pos, params=params)


def after(h: HandState, card: int, team: int) -> tuple[HandState, int]:
    """The position after ``card`` and the points (capot bonus included) it gave ``team``."""
    g = h.copy()
    before = g.card_points[team]
    g.play(card)
    gain = g.card_points[team] - before
    if g.is_over and g.capot_team() == team:
        gain += g.rules.capot_points - 162
    return g, gain


def brute(h: HandState, team: int) -> int:
    """Minimax over the reference engine: card points ``team`` collects from here on,
    dix de der and capot bonus included."""
    if h.is_over:
        return 0
    mover = side_of(h.turn, h.n, h.taker)
    best: int | None = None
    for c in cards_of(h.legal_cards()):
        g, gain = after(h, c, team)
        v = gain + brute(g, team)
        if best is None or (v > best if mover == team else v < best):
            best = v
    assert best is not None
    return best


def random_endgame(rng: random.Random, rules: Rules, max_cards_left: int) -> HandState:
    """A random hand in play (random bids and cards) with 1 to ``max_cards_left`` cards
    still out; 0: before the first card."""
    while True:
        h = HandState.new(rules, rng.randrange(rules.players), rng)
        while h.phase == 0:
            h.apply(rng.choice(h.legal_actions()))
        if h.is_void or h.contract == 5:  # TA scaled values are approximate in raw points
            continue
        total = len(h.played) + sum(m.bit_count() for m in h.hands)
        stop = total - rng.randrange(1, max_cards_left + 1) if max_cards_left else 0
        while len(h.played) < stop:
            h.apply(rng.choice(h.legal_actions()))
        return h


RULESETS = [Rules.ffb(), Rules.classic(), Rules.ffb().replace(undertrump="free"),
            Rules.contree(), Rules.ffb().replace(partner_master_free=False), Rules.three(),
            Rules.classic().replace(round2_no_trump=True, round2_all_trump=True,
                                    all_trump_points="reduced13")]


def test_solver_matches_brute_force_on_1000_endgames() -> None:
    rng = random.Random(2026)
    solver = Solver()
    checked = 0
    for i in range(1000):
        rules = RULESETS[i % len(RULESETS)]
        h = random_endgame(rng, rules, 3 * rules.players)  # up to three tricks
        team = side_of(h.turn, h.n, h.taker) if i % 2 else 1 - side_of(h.turn, h.n, h.taker)
        expected = brute(h, team)
        assert solver.value(position_of(h, team)) == expected
        # The search's frames alone, and loops for the last two tricks only.
        for tricks in (1, 2):
            assert solver.value(with_loop_tricks(position_of(h, team), tricks)) == expected
        checked += 1
    assert checked == 1000


def test_move_values_match_brute_force() -> None:
    rng = random.Random(7)
    solver = Solver()
    for i in range(150):
        h = random_endgame(rng, RULESETS[i % 4], 10)
        team = side_of(h.turn, h.n, h.taker)
        values = solver.move_values(position_of(h, team))
        assert set(values) == set(cards_of(h.legal_cards()))
        for card, value in values.items():
            g, gain = after(h, card, team)
            assert value == gain + brute(g, team)


def test_equivalent_root_cards_are_searched_once_with_the_same_value() -> None:
    """A run of point-less cards of one suit in one hand is searched once: each card of
    it gets the value it has when searched alone (and brute force agrees on endgames)."""
    rng = random.Random(13)
    solver = Solver()
    merged = 0
    for i in range(600):
        rules = RULESETS[i % len(RULESETS)]
        h = random_endgame(rng, rules, 5 * rules.players)
        pos = position_of(h, side_of(h.turn, h.n, h.taker))
        reps = np.zeros(32, dtype=np.int64)
        legal = kernel.root_representatives(pos.hands, pos.n_in_trick, pos.leader, pos.led,
                                            pos.best_card, pos.best_value, pos.best_seat,
                                            pos.params, reps)
        assert legal == h.legal_cards()
        values = solver.move_values(pos)
        for card in cards_of(legal):
            rep = int(reps[card])
            if rep != card:
                merged += 1
                assert legal >> rep & 1 and rep >> 3 == card >> 3
                assert pos.points[card] == pos.points[rep] == 0
            alone = np.empty(8, dtype=np.int64), np.empty(8, dtype=np.int64)
            n = kernel.move_values(pos.hands.copy(), pos.n_in_trick, pos.leader, pos.led,
                                   pos.best_card, pos.best_value, pos.best_seat,
                                   pos.trick_points, pos.won0, pos.won1, pos.params,
                                   kernel.new_table(), 1, solver.stats, *alone,
                                   1 << card, -1, *kernel.new_heuristics())
            assert n == 1 and alone[1][0] == values[card]
    assert merged >= 20


def test_a_trick_card_between_two_pointless_cards_keeps_them_apart() -> None:
    """Seat 1 holds the 7 and 9 of spades while the 8 leads the trick: the 9 wins it, the
    7 does not. The equivalent-card merge once left the trick out and gave the 7 the 9's
    value (40 points for a card worth none here)."""
    rules = Rules.ffb()
    last = [["8S", "AC"], ["7S", "9S"], ["KD", "QD"], ["10C", "JD"]]
    first = [["7H", "8H", "9H", "10H", "JH", "QH"], ["KH", "AH", "7D", "8D", "9D", "10D"],
             ["AD", "7C", "8C", "9C", "JC", "QC"], ["KC", "AS", "10S", "KS", "QS", "JS"]]
    cards = [[parse_card(c) for c in a + b] for a, b in zip(last, first, strict=True)]
    h = HandState.with_contract(rules, 3, cards, 0, 1)
    while len(h.played) < 24:  # six tricks of the first cards: each seat its first legal
        seat = h.turn
        h.play(next(c for c in map(parse_card, first[seat]) if h.legal_cards() >> c & 1))
    assert h.turn == 0 and h.hands[0] == (1 << parse_card("8S")) | (1 << parse_card("AC"))
    h.play(parse_card("8S"))
    team = side_of(h.turn, h.n, h.taker)
    values = Solver().move_values(position_of(h, team))
    for card, value in values.items():
        g, gain = after(h, card, team)
        assert value == gain + brute(g, team)
    assert values[parse_card("7S")] != values[parse_card("9S")]


def two_pointless_of_the_led_suit(rng: random.Random, rules: Rules, max_cards_left: int
                                  ) -> HandState:
    """A random hand in play, mid-trick with at most ``max_cards_left`` cards out, where
    the player to move holds two or more point-less cards of the led suit."""
    while True:
        h = HandState.new(rules, rng.randrange(rules.players), rng)
        while h.phase == 0:
            h.apply(rng.choice(h.legal_actions()))
        if h.is_void or h.contract == 5:
            continue
        while not h.is_over:
            left = sum(m.bit_count() for m in h.hands)
            if h.trick and left <= max_cards_left:
                points = points_table(h.contract, rules.all_trump_points)
                led = [c for c in cards_of(h.hands[h.turn]) if c >> 3 == h.trick[0] >> 3]
                if sum(1 for c in led if points[c] == 0) >= 2:
                    return h
            h.apply(rng.choice(h.legal_actions()))


def test_pointless_cards_merged_mid_trick_match_brute_force() -> None:
    """Endgames where the player to move holds two point-less cards of the led suit:
    every card's value against brute force (the merge must weigh the trick's best card;
    the loops of the last tricks merge too)."""
    rng = random.Random(2027)
    solver = Solver()
    four = [r for r in RULESETS if r.players == 4]  # three play without the 7s and 8s
    for i in range(60):
        h = two_pointless_of_the_led_suit(rng, four[i % len(four)], 10)
        team = side_of(h.turn, h.n, h.taker)
        for card, value in solver.move_values(position_of(h, team)).items():
            g, gain = after(h, card, team)
            assert value == gain + brute(g, team)


def test_pointless_cards_are_the_weakest_of_their_suit_in_bit_order() -> None:
    """The kernel's merge of equivalent cards works on bits: in every contract and
    card-points option, each suit's point-less cards are its two or three weakest, and
    their bits rise with their strength."""
    for row in range(len(kernel.POINTS_TABLE)):
        mode = min(row, 5)
        zero = kernel._zero_mask(mode, row)
        for suit in range(4):
            zone = (zero >> (8 * suit)) & 0xFF
            assert zone in (0b11, 0b111)
            weakest = list(kernel.ORDER_TABLE[mode, suit][::-1][:zone.bit_count()])
            assert weakest == [8 * suit + i for i in range(zone.bit_count())]


def test_at_least_agrees_with_the_exact_value() -> None:
    """The null-window test answers "value >= target" exactly: true at the value, false
    one point above, on endgames and on full deals of every ruleset."""
    rng = random.Random(11)
    solver = Solver()
    for i in range(60):
        rules = RULESETS[i % len(RULESETS)]
        h = random_endgame(rng, rules, 8 * rules.players if i % 3 == 0 else 12)
        team = side_of(h.turn, h.n, h.taker)
        pos = position_of(h, team)
        v = solver.value(pos)
        assert solver.at_least(pos, v)
        assert not solver.at_least(pos, v + 1)
        assert solver.at_least(pos, v - 7) and not solver.at_least(pos, v + 9)


def test_threads_give_the_same_move_values() -> None:
    """Root cards solved side by side (two threads, one table each) give every card the
    value one thread gives it, on endgames of every ruleset and on full deals."""
    rng = random.Random(5)
    one, two = Solver(), Solver(threads=2)
    for i in range(40):
        rules = RULESETS[i % len(RULESETS)]
        h = random_endgame(rng, rules, 8 * rules.players if i % 4 == 0 else 16)
        pos = position_of(h, side_of(h.turn, h.n, h.taker))
        assert two.move_values(pos) == one.move_values(pos)
    assert two.stats[0] > 0  # the threads' node counts are added up
    with pytest.raises(ValueError, match="threads"):
        Solver(threads=0)


def _deal(spec: list[str]) -> list[list[int]]:
    return [[parse_card(c) for c in hand.split()] for hand in spec]


def test_known_full_deals() -> None:
    solver = Solver()
    suits = _deal(["JH 9H AH 10H KH QH 8H 7H", "AS KS QS JS 10S 9S 8S 7S",
                   "AD KD QD JD 10D 9D 8D 7D", "AC KC QC JC 10C 9C 8C 7C"])
    # Seat 0 holds every trump and leads: capot, 252 for team 0, nothing for team 1.
    h = HandState.with_contract(Rules.ffb(), 3, suits, 0, 1)
    assert solver.value(position_of(h, 0)) == 252
    assert solver.value(position_of(h, 1)) == 0
    # Spades trump, seat 0 leads hearts: seat 1 trumps every heart and wins every trick.
    h = HandState.with_contract(Rules.ffb(), 3, suits, 1, 0)
    assert solver.value(position_of(h, 1)) == 252
    # Sans atout, seat 0 leads: every suit is one hand's; seat 0 takes all its tricks.
    h = HandState.with_contract(Rules.ffb(), 3, suits, 0, 4)
    assert solver.value(position_of(h, 0)) == 252


def test_the_last_tricks_by_loops_or_by_the_search_agree_on_full_deals() -> None:
    """However many of the last tricks the plain loops take (none: the search's frames
    alone), a full deal's value and its root cards' values are the same."""
    rng = random.Random(31)
    solver = Solver()
    for rules in (Rules.ffb(), Rules.contree(), Rules.three()):
        h = random_endgame(rng, rules, 0)  # the whole play: no card played yet
        assert not h.played
        pos = position_of(h)
        values = {tricks: (solver.value(with_loop_tricks(pos, tricks)),
                           solver.move_values(with_loop_tricks(pos, tricks)))
                  for tricks in (1, 2, 3, 4, 5, 6)}
        assert len({repr(v) for v in values.values()}) == 1, values


@pytest.mark.parametrize("trump", [4, 5])
def test_the_last_tricks_by_loops_agree_in_sans_atout_and_tout_atout(trump: int) -> None:
    """The loops taking the last 2 to 6 tricks of full sans atout / tout atout deals give
    the same values."""
    rng = random.Random(40 + trump)
    rules = Rules.classic().replace(round2_no_trump=True, round2_all_trump=True)
    solver = Solver()
    for _ in range(2):
        deck = list(range(32))
        rng.shuffle(deck)
        h = HandState.with_contract(rules, rng.randrange(4),
                                    [deck[8 * s:8 * s + 8] for s in range(4)],
                                    rng.randrange(4), trump)
        pos = position_of(h)
        values = {tricks: (solver.value(with_loop_tricks(pos, tricks)),
                           solver.move_values(with_loop_tricks(pos, tricks)))
                  for tricks in (2, 4, 5, 6)}
        assert len({repr(v) for v in values.values()}) == 1, values


def test_the_kernel_counts_the_engine_card_points_in_every_contract() -> None:
    for option in ALL_TRUMP_POINTS:
        rules = Rules.classic().replace(all_trump_points=option)
        for mode in range(6):
            h = HandState.with_contract(rules, 0, [list(range(8 * s, 8 * s + 8))
                                                   for s in range(4)], 1, mode)
            assert list(position_of(h).points) == list(points_table(mode, option))


def test_compiled_rules_match_the_engine() -> None:
    """Legal moves and trick winners of the kernel against the engine, on random play."""
    rng = random.Random(11)
    for i in range(400):
        rules = RULESETS[i % len(RULESETS)]
        h = HandState.new(rules, rng.randrange(rules.players), rng)
        while h.phase == 0:
            h.apply(rng.choice(h.legal_actions()))
        if h.is_void:
            continue
        p = position_of(h, 0)
        while not h.is_over:
            n_in = len(h.trick)
            legal = kernel.legal_mask(
                h.hands[h.turn], n_in, h.led if n_in else 0, h.best_card if n_in else 0,
                h.best_value if n_in else 0, h.best_seat if n_in else 0, h.turn, h.contract,
                int(p.params[kernel.P_UNDERTRUMP]), int(p.params[kernel.P_PARTNER_FREE]), h.n)
            assert legal == h.legal_cards()
            card = rng.choice(cards_of(legal))
            if n_in:
                v = kernel.trick_value(card, h.led, h.contract)
                beats = v > h.best_value
            h.play(card)
            if n_in and h.trick:  # still the same trick: check the master
                assert (h.best_card == card) == beats


def test_rollouts_add_up_to_the_points_of_the_hand() -> None:
    rng = random.Random(4)
    h = random_endgame(rng, Rules.ffb(), 20)
    pos = position_of(h, 0)
    a, b = rollouts(pos, 1000, seed=3)
    pts = points_table(h.contract, h.rules.all_trump_points)
    already = sum(pts[c] for c in h.trick)
    remaining = sum(pts[c] for m in h.hands for c in cards_of(m))
    assert a + b == pytest.approx(remaining + already + 10)
    assert rollouts(pos, 500, seed=9) == rollouts(pos, 500, seed=9)


def test_solver_refuses_hidden_or_unplayed_positions() -> None:
    h = HandState.new(Rules.decouverte(), 0, random.Random(1))
    with pytest.raises(ValueError):
        position_of(h)
    h.call(34)
    with pytest.raises(ValueError, match="découverte"):
        position_of(h)


def test_the_table_is_cleared_when_its_stamp_wraps() -> None:
    """Entries carry the solve's 25-bit stamp: when it wraps, entries of an old solve
    (another deal: the same keys mean other owners) must not count for a new one."""
    rng = random.Random(5)
    deals = []
    for _ in range(2):
        deck = list(range(32))
        rng.shuffle(deck)
        deals.append(HandState.with_contract(Rules.ffb(), 3, [deck[8 * s:8 * s + 8]
                                                              for s in range(4)], 0, 1))
    first, second = (Solver().value(position_of(h)) for h in deals)
    assert first != second
    solver = Solver()
    assert solver.value(position_of(deals[0])) == first  # its entries: stamp 1
    solver.generation = kernel.GENERATIONS - 1  # the next solve wraps to stamp 1
    assert solver.value(position_of(deals[1])) == second
    assert solver.generation == 1


def test_a_torn_table_entry_does_not_match_its_key() -> None:
    """Threads share the table: an entry whose two words come from different writes (its
    data moved under another entry's key, as two threads writing one slot at once can
    leave it) is not taken for that key: the solve stays exact."""
    rng = random.Random(9)
    deck = list(range(32))
    rng.shuffle(deck)
    h = HandState.with_contract(Rules.ffb(), 3, [deck[8 * s:8 * s + 8] for s in range(4)],
                                0, 1)
    pos = position_of(h)
    exact = Solver().value(pos)
    table = kernel.new_table()
    stats = np.zeros(64, dtype=np.int64)

    def solve() -> int:
        return int(kernel.solve_window(pos.hands.copy(), 0, pos.leader, 0, 0, 0, 0, 0, 0, 0,
                                       pos.params, table, 1, stats, -1,
                                       *kernel.new_heuristics()))

    assert solve() == exact
    used = np.flatnonzero(table[:, 1])
    assert len(used) > 1000
    # Every entry's data word swapped with another's, bounds and best card included
    # (the stamp stays the current solve's): none may match its key any more.
    table[used, 1] = np.roll(table[used, 1], 1)
    assert solve() == exact


def test_compiled_trick_rules_are_the_pure_rules_module() -> None:
    """The kernel's twin of rebelote.tricks: on random tricks of every contract and
    rule option, the compiled legal cards and trick strengths are the pure module's."""
    rng = random.Random(15)
    for i in range(3000):
        rules = RULESETS[i % len(RULESETS)]
        players = rules.players
        mode = rng.randrange(6)
        deck = [c for c in range(32) if players != 3 or c & 7 > 1]
        rng.shuffle(deck)
        n_in = rng.randrange(players)
        trick = deck[:n_in]
        hand = sum(1 << c for c in deck[n_in:n_in + rng.randrange(1, 9)])
        leader = rng.randrange(players)
        seat = (leader + n_in) % players
        master = trick_winner(leader, trick, mode, players)
        undertrump = int(rules.undertrump == "required")
        partner_free = int(rules.partner_master_free)
        best = trick[(master - leader) % players] if trick else 0
        led = trick[0] >> 3 if trick else 0
        compiled = kernel.legal_mask(hand, n_in, led, best, strength(best, mode, led)
                                     if trick else 0, master if trick else 0, seat, mode,
                                     undertrump, partner_free, players)
        pure = legal_cards(hand, trick, mode, master >= 0 and master == partner_of(seat, players),
                           rules.undertrump, rules.partner_master_free)
        assert compiled == pure, (rules.preset, mode, trick, hand)
        if trick:
            for c in deck[n_in:n_in + 4]:
                assert kernel.trick_value(c, led, mode) == strength(c, mode, led)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_deadline_gives_up_the_search_and_leaves_the_table_sound(threads: int) -> None:
    """What a node costs varies twentyfold, so a decision's cap is a deadline: the
    search (running without the GIL) reads the clock every ``CLOCK_NODES`` nodes and
    gives up once it is past. Full sans-atout deals whose solves (every card's, and the
    value alone) take 30 ms or more: with the deadline 2 ms ahead each gives up (None)
    well before its solve would end, and the same solver's answers afterwards are
    exact; a deadline never outlives its search."""
    rng = random.Random()
    seed = rng.getrandbits(32)
    rng.seed(seed)
    rules = Rules.contree()
    limited, fresh = Solver(threads=threads), Solver()
    tested = 0
    while tested < 4:
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
        hand = HandState.with_contract(rules, 0, hands, 1, 4, -1, 0, 1)
        pos = position_of(hand, hand.turn % 2)  # the side to move maximizes
        started = time.perf_counter()
        exact = fresh.move_values(pos)
        took_moves = time.perf_counter() - started
        started = time.perf_counter()
        Solver().value(pos)  # one window only: often much quicker than every card's
        took_value = time.perf_counter() - started
        if min(took_moves, took_value) < 0.03:  # too quick to tell a deadline from the end
            continue
        tested += 1
        # each on a table as cold as the timed one's (what an aborted search stored in
        # ``limited`` could make its next search of this deal quick)
        valued = Solver()
        for within, took in ((limited.move_values_within, took_moves),
                             (valued.value_within, took_value)):
            started = time.perf_counter()
            assert within(pos, None, started + 0.002) is None, seed
            assert time.perf_counter() - started < 0.7 * took + 0.01, seed
        past = limited.at_least_within(pos, 1, None, time.perf_counter() - 1)
        assert past is None, seed  # a deadline already gone: given up at once
        assert limited.move_values_within(pos, None, time.perf_counter() + 60) == exact
        assert valued.value_within(pos, None, time.perf_counter() + 60) == max(
            exact.values()), seed
        assert limited.value_within(pos, None, time.perf_counter() + 60) == max(
            exact.values()), seed
    time.sleep(0.01)  # the deadlines of the searches above are all past by now
    assert limited.move_values(pos) == exact, seed
    assert limited.stats[kernel.S_NODE_LIMIT] == limited.stats[kernel.S_ABORTED] == 0
    assert limited.stats[kernel.S_DEADLINE] == 0


def _deadline_in_child(queue: Any) -> None:
    """Full sans-atout deals (most take 10 ms or more) searched with a deadline 2 ms
    ahead: how many were given up."""
    rng = random.Random(7)
    given_up = 0
    for _ in range(5):
        deck = list(range(32))
        rng.shuffle(deck)
        hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
        pos = position_of(HandState.with_contract(Rules.contree(), 0, hands, 1, 4, -1, 0, 1), 1)
        given_up += Solver().value_within(pos, None, time.perf_counter() + 0.002) is None
    queue.put(given_up)


def test_deadlines_stop_searches_in_a_forked_process() -> None:
    """The server's bot workers are forked: in a child of a process that searched with
    deadlines, deadlines still stop its searches (the search reads the clock itself:
    no thread of the parent's is needed, none is copied)."""
    import multiprocessing

    rules = Rules.contree()
    hands = [list(range(8 * s, 8 * s + 8)) for s in range(4)]
    pos = position_of(HandState.with_contract(rules, 0, hands, 1, 4, -1, 0, 1), 1)
    Solver().value_within(pos, None, time.perf_counter() + 0.001)  # the parent's first
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_deadline_in_child, args=(queue,))
    child.start()
    assert queue.get(timeout=60) >= 3  # its deadlines stopped them
    child.join(timeout=10)
    assert child.exitcode == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_a_node_limit_gives_up_and_leaves_the_table_sound(threads: int) -> None:
    """A decision that must keep to its time asks for a world's values within a node
    limit: past it the search gives up (None) at once; what it stored before is valid,
    so that the same solver's later answers are exact."""
    rng = random.Random()
    seed = rng.getrandbits(32)
    rng.seed(seed)
    limited, fresh = Solver(threads=threads), Solver()
    gave_up = 0
    for i in range(30):
        rules = RULESETS[i % len(RULESETS)]
        h = random_endgame(rng, rules, 0 if i % 2 == 0 else 20)  # full deals, endgames
        pos = position_of(h, side_of(h.turn, h.n, h.taker))
        before = pos.hands.copy()
        nodes = int(limited.stats[0])
        if limited.move_values_within(pos, 50) is None:
            gave_up += 1
            assert int(limited.stats[0]) - nodes <= 50 * threads + threads  # at once
        assert (pos.hands == before).all()  # the position itself is untouched
        assert limited.move_values_within(pos, 10**9) == fresh.move_values(pos), seed
        assert limited.move_values(pos) == fresh.move_values(pos), seed
    assert gave_up >= 15, seed  # every full deal at least
    assert limited.stats[kernel.S_NODE_LIMIT] == limited.stats[kernel.S_ABORTED] == 0
