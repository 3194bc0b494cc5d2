"""The expert's time budget: bot levels that name it, the anytime card play (more worlds
with more time, within the budget, an early stop when the choice is clear), bids on more
sampled deals, the background compile, and the peer match at a budget."""

from __future__ import annotations

import math
import random
import time

import pytest

from rebelote import HandState, Rules
from rebelote.bots import expert as expert_module
from rebelote.bots import is_level, make_bot, parse_level
from rebelote.bots.expert import CLEAR_Z, Evidence, ExpertBot, SampledBidder
from rebelote.solver import warm


def test_levels_name_a_budget_and_refuse_bad_ones() -> None:
    assert parse_level("expert") == ("expert", None)
    assert parse_level("expert:250") == ("expert", 250.0)
    assert parse_level("heuristic") == ("heuristic", None)
    for bad in ("expert:0", "expert:-5", "expert:abc", "expert:", "heuristic:10",
                "expert:99999", "wizard"):
        assert not is_level(bad)
        with pytest.raises(ValueError):
            make_bot(bad)
    bot = make_bot("expert:40", 3)
    assert isinstance(bot, ExpertBot)
    assert bot.budget_ms == 40 and bot.bid_budget_ms == 40
    assert not isinstance(bot.heuristic, SampledBidder)  # a budget bids by the model
    sampled = ExpertBot(3, budget_ms=40, bid_worlds=16)  # unless told otherwise
    assert isinstance(sampled.heuristic, SampledBidder) and sampled.heuristic.budget_ms == 40
    with pytest.raises(ValueError):
        ExpertBot(budget_ms=0)


def _mid_hand(seed: int, played: int = 5) -> HandState:
    """A contrée hand after ``played`` cards (by the heuristic) with a choice to make."""
    rng = random.Random(seed)
    rules = Rules.contree()
    bot = make_bot("heuristic", seed)
    while True:
        hand = HandState.new(rules, 0, rng)
        while hand.phase == 0:
            hand.apply(bot.choose(hand.view(hand.turn)))
        if hand.is_void:
            continue
        for _ in range(played):
            hand.apply(bot.choose(hand.view(hand.turn)))
        if len(hand.view(hand.turn).legal_actions) > 1:
            return hand


def test_more_budget_more_worlds_and_within_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # no early stop here: not even for cards equal in every world so far (CLEAR_Z alone
    # left that stop, and eight worlds alike ended a 200 ms decision before a 2 ms one)
    monkeypatch.setattr(expert_module, "MIN_WORLDS", 10**9)
    warm.warm_up()
    hand = _mid_hand(11, 17)  # the fifth trick: a world costs about 1 ms either way
    view = hand.view(hand.turn)
    used = {}
    for budget in (2.0, 200.0):
        bot = ExpertBot(seed=2, budget_ms=budget)
        bot.evaluate(view)  # learns what a world costs here
        t = time.perf_counter()
        values = bot.evaluate(view)
        elapsed = (time.perf_counter() - t) * 1000
        assert set(values) == set(view.legal_actions)
        used[budget] = bot.samples_used
        assert bot.stopped in ("budget", "worlds"), bot.stopped
        # the budget is kept: one world's overrun at most (a loaded machine: slack)
        assert elapsed <= 2 * budget + 60, (budget, elapsed)
    assert used[200.0] >= 2 * used[2.0] > 0, used


def test_the_first_trick_is_solved_exactly_only_with_time_for_it() -> None:
    warm.warm_up()
    rng = random.Random(5)
    hand = HandState.with_contract(Rules.contree(), 3,
                                   [sorted(d) for d in _deal(rng)], 0, 1, -1, 0, 1)
    view = hand.view(0)
    short, long_ = ExpertBot(seed=1, budget_ms=10), ExpertBot(seed=1, budget_ms=2000)
    short.evaluate(view)
    long_.evaluate(view)
    assert not short.solved  # rollouts: a full deal's exact solve takes ~35 ms on average
    assert long_.solved


def _deal(rng: random.Random) -> list[list[int]]:
    deck = list(range(32))
    rng.shuffle(deck)
    return [deck[8 * s:8 * s + 8] for s in range(4)]


def _clear(worlds: list[tuple[float, dict[int, float]]]) -> bool:
    evidence = Evidence(list(worlds[0][1]))
    for weight, values in worlds:
        evidence.add(weight, values)
    return evidence.clear()


def _clear_from_the_list(worlds: list[tuple[float, dict[int, float]]]) -> bool:
    """The test written directly over the worlds (what the running sums replace)."""
    weight = sum(w for w, _ in worlds)
    weights_squared = sum(w * w for w, _ in worlds)
    cards = list(worlds[0][1])
    best = max(cards, key=lambda c: sum(w * v[c] for w, v in worlds))
    n_eff = weight * weight / weights_squared
    if n_eff < 2:
        return False
    for c in cards:
        if c == best:
            continue
        mean = sum(w * (v[best] - v[c]) for w, v in worlds) / weight
        var = sum(w * (v[best] - v[c] - mean) ** 2 for w, v in worlds) / weight
        if mean == 0 and var == 0:
            continue
        if mean <= CLEAR_Z * math.sqrt(var / n_eff):
            return False
    return True


def test_a_clear_choice_stops_early() -> None:
    # paired differences: card 1 is 10 points ahead in every world (noise around it)
    rng = random.Random(1)
    worlds = []
    for _ in range(12):
        base = rng.uniform(0, 100)
        worlds.append((1.0, {1: base + 10 + rng.uniform(-1, 1), 2: base}))
    assert _clear(worlds)
    # the same means, but the difference's sign changes from world to world
    noisy = [(1.0, {1: 50 + rng.choice((-40, 60)), 2: 50.0}) for _ in range(12)]
    assert not _clear(noisy)
    # equivalent cards: the same value in every world
    assert _clear([(1.0, {1: 40.0, 2: 40.0, 3: 10.0}) for _ in range(8)])
    # a best card far ahead in the weight of one world only is not clear
    assert not _clear([(1.0, {1: 90.0, 2: 0.0})] + [(1e-9, {1: 0.0, 2: 5.0})] * 10)


def test_the_running_sums_decide_as_the_worlds_themselves_do() -> None:
    """Solver values are whole points; worlds weighted by the play's likelihood."""
    rng = random.Random()
    seed = rng.getrandbits(32)
    rng.seed(seed)
    agree = {True: 0, False: 0}
    for _ in range(600):
        cards = rng.sample(range(32), rng.randint(2, 8))
        n = rng.randint(2, 60)
        spread = rng.choice((0, 3, 20, 80))
        lead = {c: rng.choice((0, 0, 5, 10, 30)) for c in cards}
        worlds = []
        for _ in range(n):
            base = rng.randint(0, 162)
            worlds.append((rng.choice((1.0, rng.random())),
                           {c: float(base + lead[c] + rng.randint(-spread, spread))
                            for c in cards}))
        expected = _clear_from_the_list(worlds)
        assert _clear(worlds) == expected, (seed, worlds)
        agree[expected] += 1
    assert min(agree.values()) > 50, agree  # both answers were tested


def test_the_bidder_keeps_its_deals_and_solves_when_it_doubles_them() -> None:
    warm.warm_up()
    rules = Rules.contree()
    hand = HandState.new(rules, 3, random.Random(8))
    view = hand.view(0)
    bidder = SampledBidder(1, ExpertBot().solver, budget_ms=50)
    bidder._worlds_now = 4
    first = [list(map(list, d)) for d in bidder._sampled_deals(view)]
    made4 = bidder._made(view, 1, 0)
    solves = bidder._solves
    bidder._worlds_now = 8
    deals = bidder._sampled_deals(view)
    assert len(deals) == 8 and [list(map(list, d)) for d in deals[:4]] == first
    bidder._made(view, 1, 0)
    assert bidder._solves == solves + 4  # only the 4 new deals were solved
    bidder._worlds_now = 4
    assert bidder._made(view, 1, 0) == made4  # and the first 4 give the same answer


def test_bids_get_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget the bidder decides again on twice the deals while time remains:
    a long budget solves more deals than a short one for the same close call."""
    warm.warm_up()
    seen: dict[float, int] = {}
    for budget in (5.0, 400.0):
        rng = random.Random(21)
        solves = 0
        bot = ExpertBot(seed=3, budget_ms=budget, bid_worlds=16)
        assert isinstance(bot.heuristic, SampledBidder)
        for i in range(12):  # the solves of 12 auctions' first calls
            hand = HandState.new(Rules.contree(), i % 4, rng)
            view = hand.view(hand.turn)
            t = time.perf_counter()
            bot.choose(view)
            assert (time.perf_counter() - t) * 1000 <= 3 * budget + 400
            solves += bot.heuristic._solves
        seen[budget] = solves
    assert seen[400.0] > seen[5.0], seen


def test_the_expert_stands_in_while_the_solver_compiles(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hand = _mid_hand(3)
    view = hand.view(hand.turn)
    bot = ExpertBot(seed=1)
    calls: list[int] = []
    original = bot.stand_in.choose

    def stand_in(v: object) -> int:
        calls.append(1)
        return original(v)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.stand_in, "choose", stand_in)
    monkeypatch.setattr(warm, "ready", lambda: False)
    assert bot.choose(view) in view.legal_actions
    assert calls and bot.samples_used == 0  # no world was solved
    monkeypatch.setattr(warm, "ready", lambda: True)
    bot.choose(view)
    assert len(calls) == 1 and bot.samples_used > 0


def test_a_background_compile_runs_in_another_process() -> None:
    warm.start_background()
    assert warm._process is not None and warm._process.pid
    deadline = time.time() + 120
    while warm.preparing() and time.time() < deadline:
        time.sleep(0.1)
    assert warm.ready() and warm._process.returncode == 0


def test_what_the_warm_up_loads_is_frozen_out_of_the_collector() -> None:
    """numba's compiler and types (about 100,000 objects) made each full collection
    cost 49 ms inside a decision: after ``warm_up`` they are frozen, so the collector
    tracks only what came after (in a fresh interpreter: nothing here froze anything)."""
    import subprocess
    import sys

    script = ("import gc; from rebelote.solver import warm; import numba; "
              "before = len(gc.get_objects()); warm.warm_up(); "
              "print(before, gc.get_freeze_count(), len(gc.get_objects()))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=300).stdout.split()
    before, frozen, tracked = map(int, out)
    assert frozen > before > 10_000  # what was loaded before and during the warm-up...
    assert tracked < before // 10  # ...no longer in the collector's sight


def test_the_peer_match_gives_colver_our_measured_time_and_reports_both() -> None:
    """``bench.peer_match --budget-ms``: colver's time_ms is our mean wall time per
    decision with a choice (bids included) on the probe deals; both sides' measured
    times are reported beside the result, and our longest card with its CPU time, and
    the longest that the machine did not hold up (our threads' wait for a core)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if not (root / ".peers" / "colver" / "bin" / "python").exists():
        pytest.fail("colver's virtualenv is missing: run `make peers`")
    import json

    out = subprocess.run([sys.executable, "-m", "bench.peer_match", "colver", "--deals", "2",
                          "--seed", "4", "--budget-ms", "5", "--colver-bidder", "v2"],
                         capture_output=True, text=True, cwd=root, timeout=600, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["level"] == "expert:5" and r["colver_bidder"] == "v2" and r["deals"] == 2
    assert r["seed"] == 4  # the result names its deals
    assert r["our_decision_ms"] > 0 and r["peer_decision_ms"] > 0
    assert r["peer_time_ms"] >= 1
    assert 0 < r["our_card_median_ms"] <= r["our_card_max_ms"]
    assert 0 < r["our_bid_median_ms"] <= r["our_bid_max_ms"]
    assert r["our_card_max_cpu_ms"] > 0 and 0 < r["our_card_max_busy_ms"] <= r["our_card_max_ms"]
    # how long our threads waited for a core, card by card (Linux keeps it)
    assert r["our_cards"] > 10 and 0 <= r["our_cards_held_up"] <= r["our_cards"]
    # (forced cards take no time, so some cards are never held up)
    assert 0 < r["our_card_max_unheld_ms"] <= r["our_card_max_ms"]
    assert r["our_cards_held_up"] < r["our_cards"]
    assert (0 <= r["our_cards_over_2_budgets_unheld"] <= r["our_cards_over_2_budgets"]
            <= r["our_cards"])
    lo, hi = r["ci95"]
    assert lo <= r["mean"] <= hi


def _replayed_likelihood(view: object, hands: list[int], middle: float = 0.0,
                         last: float = 0.0) -> float:
    """The play likelihood by replaying the hand through the referee (the reference):
    each legal card of an observed play is tried on a copy of the referee's hand, its
    score the points on the trick after it, for the player's side if that side then
    wins the trick (the referee's winning card, or the completed trick's winner)."""
    from rebelote.cards import cards_of, points_table
    from rebelote.tricks import side_of
    from rebelote.view import SeatView

    assert isinstance(view, SeatView)
    n = view.rules.players
    points = points_table(view.contract, view.rules.all_trump_points)
    tricks = [*view.tricks, *((view.trick,) if view.trick is not None else ())]
    order = [(t.seat_of(i, n), c, i) for t in tricks for i, c in enumerate(t.cards)]
    initial = [list(cards_of(hands[s])) for s in range(n)]
    for seat, card, _ in order:
        initial[seat].append(card)
    hand = HandState.with_contract(view.rules, view.dealer, initial, view.taker,
                                   view.contract, -1,
                                   0 if view.rules.game == "auction" else -1, 1)

    def odds(seat: int, card: int, index: int) -> float:
        beta = 0.0 if index == 0 else last if index == n - 1 else middle
        trial = hand.copy()
        before = trial.view(seat).trick
        on_trick = sum(points[c] for c in before.cards) if before is not None else 0
        won = len(trial.trick_winners)
        trial.play(card, announce=[], belote=False)
        if len(trial.trick_winners) > won:
            winner = trial.trick_winners[-1]
        else:
            trick = trial.view(seat).trick
            assert trick is not None
            winner = trick.seat_of(trick.cards.index(trial.best_card), n)
        score = on_trick + points[card]
        if side_of(winner, n, view.taker) != side_of(seat, n, view.taker):
            score = -score
        return math.exp(beta * score)

    weight = 1.0
    for seat, card, index in order:
        if seat != view.seat:
            legal = cards_of(hand.legal_cards())
            weight *= odds(seat, card, index) / sum(odds(seat, c, index) for c in legal)
        hand.play(card, announce=[], belote=False)
    return weight


@pytest.mark.parametrize("preset", ["contree", "classic", "three", "skill7"])
def test_play_likelihood_from_the_pure_rules_matches_the_referee(preset: str) -> None:
    """Sampled worlds of random hands (random play; sans atout and tout atout too where
    the preset allows them): the likelihood from the trick rules is the referee's, with
    each legal card as likely and with the points model (:class:`PlayModel`)."""
    from rebelote.bots.knowledge import PlayModel, knowledge_of, play_likelihood, sample_hands

    rng = random.Random(preset)
    rules = Rules.preset_named(preset)
    checked = 0
    for _ in range(40):
        hand = HandState.new(rules, rng.randrange(rules.players), rng)
        while hand.phase == 0:
            hand.apply(rng.choice(hand.legal_actions()))
        if hand.is_void:
            continue
        for _ in range(rng.randrange(1, 4 * rules.players)):
            hand.apply(rng.choice(hand.legal_actions()))
        view = hand.view(hand.turn)
        k = knowledge_of(view)
        for _ in range(3):
            world = sample_hands(k, rng)
            assert play_likelihood(view, world) == pytest.approx(
                _replayed_likelihood(view, world))
            model = PlayModel(view, 0.1, 0.3)
            assert model(world) == pytest.approx(_replayed_likelihood(view, world, 0.1, 0.3))
            checked += 1
    assert checked >= 60


def test_auction_fit_weighs_down_worlds_where_a_bid_would_not_have_been_made() -> None:
    from rebelote.bots.expert import auction_fit
    from rebelote.cards import parse_card
    from rebelote.hand import bid_action

    def mask(text: str) -> int:
        return sum(1 << parse_card(c) for c in text.split())

    rules = Rules.contree()
    hand = HandState.from_deal(rules, 3, [[c for c in range(32) if c // 8 == s]
                                          for s in range(4)])
    hand.apply(bid_action(2, 1))  # seat 0: 100 hearts
    for _ in range(3):
        hand.apply(32)  # pass
    view = hand.view(1)
    strong = mask("JH 9H AH 10H KH AS AD AC")  # seat 0 as the bid says
    weak = mask("7H 8S 9S 7D 8D 9D 7C 8C")
    rest = [c for c in range(32) if not (strong | view.hand) >> c & 1]
    world = [strong, view.hand, sum(1 << c for c in rest[:8]), sum(1 << c for c in rest[8:])]
    assert auction_fit(view, world, 0.3) == 1.0
    rest = [c for c in range(32) if not (weak | view.hand) >> c & 1]
    world = [weak, view.hand, sum(1 << c for c in rest[:8]), sum(1 << c for c in rest[8:])]
    assert auction_fit(view, world, 0.3) == pytest.approx(0.3)
    assert auction_fit(view, world, 1.0) == 1.0


def test_the_command_line_takes_a_budgeted_expert() -> None:
    """``--bots expert:MS`` is a level for selfplay; a bad budget is refused (exit 2)."""
    import subprocess
    import sys

    ok = subprocess.run([sys.executable, "-m", "rebelote", "selfplay", "--preset", "contree",
                         "--hands", "1", "--seed", "3", "--bots", "expert:20"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, "-m", "rebelote", "selfplay", "--hands", "1",
                          "--bots", "expert:0"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "expert:0" in bad.stderr


def test_the_expert_can_solve_on_several_threads_without_leaving_them_behind() -> None:
    """colver's search uses every core: the expert's solver may too (``threads``). A bot
    is made per deal in a match: the solvers share one pool instead of one each."""
    import threading

    warm.warm_up()
    assert make_bot("expert:30", 1).solver.threads == 1  # type: ignore[attr-defined]
    before = threading.active_count()
    for seed in range(30):
        bot = make_bot("expert:30", seed, threads=2)
        assert isinstance(bot, ExpertBot) and bot.solver.threads == 2
        hand = _mid_hand(seed, 12)  # the fourth trick: worlds solved exactly
        card = bot.choose(hand.view(hand.turn))
        assert hand.legal_cards() >> card & 1 and bot.solved
    assert threading.active_count() <= before + 2


def test_the_cap_leaves_room_within_two_budgets() -> None:
    """A world is given up in time for the decision to end within two budgets (the
    threads' return and the decision's last steps: ``CAP_SLACK_MS``), never before the
    budget itself is spent."""
    for budget in (1, 3, 5, 8, 10, 25, 100, 500, 10_000):
        cap = expert_module.cap_ms(budget)
        assert budget <= cap <= expert_module.CAP_FACTOR * budget
        assert cap == budget or cap <= 2 * budget - expert_module.CAP_SLACK_MS


def test_a_world_that_would_overrun_the_budget_is_given_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A full deal's exact solve took 5 to 300 ms (more on a busy machine): a world still
    being solved at ``cap_ms`` is given up (the solver's deadline), and the
    decision made from the worlds before it (here: none, the heuristic's card)."""
    warm.warm_up()
    monkeypatch.setattr(expert_module, "WORLD_MS_PRIOR", {(True, 8): 0.01, (False, 8): 0.01})
    hand = _mid_hand(4, 1)  # the first trick: a world solved exactly is a whole deal
    view = hand.view(hand.turn)
    monkeypatch.setattr(expert_module, "cap_ms", lambda budget: 0.0)  # passed at once
    bot = ExpertBot(4, budget_ms=10)
    card = bot.choose(view)
    assert hand.legal_cards() >> card & 1
    assert bot.samples_used == 0 and bot.solved and bot.stopped == "cap"
    monkeypatch.setattr(expert_module, "cap_ms", lambda budget: 1e9)  # no cap in effect
    fast = ExpertBot(4, budget_ms=10)
    fast.choose(view)
    assert fast.samples_used >= 1 and fast.stopped != "cap"


def test_a_bid_whose_solve_would_overrun_the_budget_falls_back_on_the_model(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A sampled deal's solve is given up at ``cap_ms``: the call is then the
    model's (or the last pass's), never a decision that overruns its budget many times."""
    warm.warm_up()
    rng = random.Random(21)
    capped = given_up = 0
    real_cap = expert_module.cap_ms
    for i in range(12):
        hand = HandState.new(Rules.contree(), i % 4, rng)
        view = hand.view(hand.turn)
        monkeypatch.setattr(expert_module, "cap_ms", lambda budget: 0.0)  # all given up
        slow = ExpertBot(seed=3, budget_ms=50, bid_worlds=16)
        bidder = slow.heuristic
        assert isinstance(bidder, SampledBidder)
        call = slow.choose(view)
        assert call in view.legal_actions and bidder._cap == math.inf  # and reset after
        monkeypatch.setattr(expert_module, "cap_ms", real_cap)
        free = ExpertBot(seed=3, budget_ms=50, bid_worlds=16)
        free.choose(view)
        assert isinstance(free.heuristic, SampledBidder)
        if free.heuristic._solves:  # a close call that solves deals
            capped += 1
            given_up += bidder._solves == 0
    assert capped >= 2 and given_up == capped, (capped, given_up)


def test_a_card_is_held_up_when_its_threads_waited_long_for_a_core() -> None:
    """bench.peer_match's test: a quarter of the card's time and 2 ms at least (a short
    card's thread wake-ups alone wait a fraction of a millisecond)."""
    from bench.peer_match import held_up, waited_for_a_core

    assert held_up(0.025, 0.012)  # a 25 ms card that waited 12 ms: the machine
    assert not held_up(0.025, 0.003)  # its own work
    assert not held_up(0.001, 0.0006)  # a 1 ms card's wake-ups
    before = waited_for_a_core()
    assert before is not None and before >= 0.0  # Linux keeps it (CI's machine too)
    after = waited_for_a_core()
    assert after is not None and after >= before
