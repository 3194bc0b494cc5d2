"""Our bots against a peer's bot at our table, in duplicate: each deal twice, seats
swapped. ``python -m bench.peer_match colver --deals N --level expert``.

The peer runs in its own virtualenv behind a small server (``bench/peers/``); our
engine referees every action (a peer's illegal action would raise).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import track

from rebelote.bots import make_bot, parse_level
from rebelote.cards import cards_of
from rebelote.hand import (
    BID_BASE,
    COINCHE,
    PASS,
    SURCOINCHE,
    HandState,
    deal_deck,
)
from rebelote.rules import Rules
from rebelote.solver.warm import warm_up

ROOT = Path(__file__).resolve().parents[1]
# colver's contrée: free discard instead of under-trumping, surcoinche x3 on the bid,
# points made + bid, a chute worth 162 + the contract and every belote, no rounding.
COLVER_RULES = Rules.contree().replace(
    undertrump="free", surcoinche_multiplier=3, multiplier_on="bid", contree_adds_bid=True,
    capot_points=252, chute_points=162, chute_capot="takers", belote_when_lost="to_winner",
    auction_no_trump=False, auction_all_trump=False, rounding="none")
RANK_TO_COLVER = [0, 1, 2, 6, 3, 4, 5, 7]
RANK_FROM_COLVER = [0, 1, 2, 4, 5, 6, 3, 7]


def to_colver(action: int) -> int:
    if action < 32:
        return (action >> 3) * 8 + RANK_TO_COLVER[action & 7]
    if action == PASS:
        return 0
    if action == COINCHE:
        return 41
    if action == SURCOINCHE:
        return 42
    level, suit = divmod(action - BID_BASE, 6)
    return 37 + suit if level == 9 else 1 + level * 4 + suit


def from_colver(action: int, phase: str) -> int:
    if phase == "play":
        return (action >> 3) * 8 + RANK_FROM_COLVER[action & 7]
    if action == 0:
        return PASS
    if action == 41:
        return COINCHE
    if action == 42:
        return SURCOINCHE
    level, suit = (9, action - 37) if action >= 37 else divmod(action - 1, 4)
    return BID_BASE + level * 6 + suit


class PeerServer:
    """A peer's server script running in the peer's own virtualenv (JSON lines)."""

    def __init__(self, venv: str, script: str) -> None:
        python = ROOT / ".peers" / venv / "bin" / "python"
        self.proc = subprocess.Popen([str(python), str(ROOT / "bench" / "peers" / script)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, q: dict[str, object]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(q) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)


COLVER_BIDDERS = {"v1": "improved", "v2": "improved_v2"}
"""colver's rule bidders: ``improved`` is its legacy v1 (``bid_improved_v1``), ``improved_v2``
its documented default."""


class Colver(PeerServer):
    """colver's IS-DD bot with uniform worlds (no model needed) and a time budget."""

    def __init__(self, time_ms: int, bidder: str = "v1") -> None:
        super().__init__("colver", "colver_server.py")
        self.spec = (f'[bid]\nstrategy = "{COLVER_BIDDERS[bidder]}"\n[play]\n'
                     f'method = "isdd"\ntime_ms = {time_ms}\n[worlds]\nsource = "uniform"\n')


def fixed_contract(hands: list[list[int]], dealer: int) -> tuple[int, int]:
    """Play-only matches: first hand takes 80 in his strongest suit."""
    from rebelote.bots.heuristic import suit_strength

    taker = (dealer + 1) % 4
    mask = sum(1 << c for c in hands[taker])
    return taker, max(range(4), key=lambda s: suit_strength(mask, s))


class BeloteCli(PeerServer):
    """belote-cli's bots (they read their partner's hand) behind a server in its venv."""

    rules = Rules.ffb().replace(round2_no_trump=True, round2_all_trump=True)

    def __init__(self, level: str = "hard") -> None:
        super().__init__("belote-cli", "belote_cli_server.py")
        self.level = level


def play_classic_deal(peer: BeloteCli, deck: list[int], dealer: int, ours_even: bool,
                      level: str, seed: int, times: list[float]) -> tuple[int, ...]:
    hand = HandState.deal(peer.rules, dealer, deck)
    peer_seats = [1, 3] if ours_even else [0, 2]
    first = (dealer + 1) % 4
    five = [[deck[i] for i in range(20) if ((i % 12) // 3 if i < 12 else
                                              (i - 12) // 2) == (s - first) % 4]
            for s in range(4)]
    peer.ask({"cmd": "deal", "dealer": dealer, "seed": seed, "seats": peer_seats,
              "level": peer.level, "hands": five, "up": deck[20], "rest": deck[21:]})
    bots = {s: make_bot(level, seed + s) for s in range(4) if s not in peer_seats}
    checked = False
    while not hand.is_over:
        seat = hand.turn
        if hand.phase == 1 and not checked:  # the deal completed the same on both sides
            mirrored = peer.ask({"cmd": "hands"})["hands"]
            assert mirrored == [cards_of(m) for m in hand.hands], "deals differ"
            checked = True
        if seat in bots:
            t = time.perf_counter()
            action = bots[seat].choose(hand.view(seat))
            if hand.phase == 1:
                times.append(time.perf_counter() - t)
            hand.apply(action, seat)
            peer.ask({"cmd": "step", "action": action})
        else:
            hand.apply(peer.ask({"cmd": "act", "seat": seat})["action"], seat)
    return hand.score().scored if not hand.is_void else (0, 0)


def play_deal(peer: Colver, deck: list[int], dealer: int, ours_even: bool, level: str,
              seed: int, times: list[float], play_only: bool = False,
              bid_times: list[float] | None = None,
              decisions: dict[str, list[float]] | None = None,
              threads: int = 1, card_cpu: list[float] | None = None,
              card_wait: list[float] | None = None) -> tuple[int, ...]:
    """One deal, ours on the even seats or the odd. ``times`` / ``bid_times``: our wall
    time of every card / call; ``decisions``: each side's (``ours``, ``peer``) wall time
    of every decision that had a choice, calls included (colver's through its server:
    the pipe's round trip, a few µs, counts against it); ``card_cpu``: the CPU time
    this process spent on each card of ``times`` (all its threads: a card whose CPU is
    well under its wall time was held up by the machine, not by its search);
    ``card_wait``: how long this process's threads were runnable but waited for a core
    during each card (:func:`waited_for_a_core`), where the kernel tells."""
    hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
    peer_seats = [1, 3] if ours_even else [0, 2]
    query: dict[str, object] = {"cmd": "deal", "dealer": dealer, "seed": seed,
                                "spec": peer.spec, "seats": peer_seats,
                                "hands": [[to_colver(c) for c in h] for h in hands]}
    if play_only:
        taker, trump = fixed_contract(hands, dealer)
        hand = HandState.with_contract(COLVER_RULES, dealer, hands, taker, trump, -1, 0, 1)
        query["contract"] = [trump, 80, taker & 1]
    else:
        hand = HandState.from_deal(COLVER_RULES, dealer, hands)
    peer.ask(query)
    bots = {s: make_bot(level, seed + s, threads) for s in range(4) if s not in peer_seats}
    while not hand.is_over:
        seat = hand.turn
        phase = "auction" if hand.phase == 0 else "play"
        forced = len(hand.legal_actions()) == 1
        if seat in bots:
            waited = waited_for_a_core() if card_wait is not None else None
            cpu = time.process_time()
            t = time.perf_counter()
            action = bots[seat].choose(hand.view(seat))
            elapsed = time.perf_counter() - t
            if phase == "play":
                times.append(elapsed)
                if card_cpu is not None:
                    card_cpu.append(time.process_time() - cpu)
                after = waited_for_a_core() if card_wait is not None else None
                if card_wait is not None and waited is not None and after is not None:
                    card_wait.append(after - waited)
            elif bid_times is not None:
                bid_times.append(elapsed)
            if decisions is not None and not forced:
                decisions["ours"].append(elapsed)
            hand.apply(action, seat)
            peer.ask({"cmd": "step", "action": to_colver(action)})
        else:
            t = time.perf_counter()
            answer = peer.ask({"cmd": "act", "seat": seat})["action"]
            if decisions is not None and not forced:
                decisions["peer"].append(time.perf_counter() - t)
            action = from_colver(answer, phase)
            hand.apply(action, seat)  # our engine checks the peer's action
    return hand.score().scored if not hand.is_void else (0, 0)


HELD_UP = 0.5
"""A card whose process CPU time is under this share of its wall time was held up by
the machine (the host's steal, another process), not by its search."""
HELD_WAIT = 0.25
"""A card during which this process's threads together waited for a core (runnable,
not running) more than this share of its wall time, and more than :data:`HELD_WAIT_MIN_S`,
was held up by the machine. With two solver threads a card's CPU is up to twice its wall
time, so :data:`HELD_UP` alone let cards held up for half their time pass as busy."""
HELD_WAIT_MIN_S = 0.002
"""... the threads' wake-ups alone wait some: a 1 ms card of many small solves waited a
quarter of it (a tenth of the cards of a 10 ms match)."""


def held_up(wall: float, waited: float) -> bool:
    """Whether a card of ``wall`` seconds whose threads waited ``waited`` seconds for a
    core was held up by the machine (:data:`HELD_WAIT`)."""
    return waited > HELD_WAIT * wall and waited > HELD_WAIT_MIN_S


def unheld_text(result: dict[str, Any]) -> str:
    """A match result's longest card not held up by the machine, for a table (ms; a
    dash where the kernel did not say, or for an older result)."""
    value = result.get("our_card_max_unheld_ms")
    return "—" if value is None else f"{value:.0f}"


def waited_for_a_core() -> float | None:
    """Seconds this process's threads have spent runnable but waiting for a core, all
    together (Linux's ``/proc/self/task/*/schedstat``); None where the kernel does not
    keep it (no such files, or zeros: its scheduler statistics off)."""
    waited = on_core = 0
    try:
        tasks = list(Path("/proc/self/task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:  # a thread that ended meanwhile is left out
            fields = (task / "schedstat").read_text().split()
            on_core += int(fields[0])
            waited += int(fields[1])
        except (OSError, IndexError, ValueError):
            continue
    return waited / 1e9 if on_core > 0 else None


def _deals(count: int, label: str) -> Iterable[int]:
    """``range(count)`` with a progress bar on a terminal (none when the output is
    captured, as under ``make bench``, which shows its own)."""
    console = Console(stderr=True)
    return track(range(count), description=label, console=console, transient=True,
                 disable=not console.is_terminal)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("peer", choices=["colver", "belote-cli"])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-ms", type=int, default=0,
                        help="colver's time_ms; 0: our bot's mean wall time per decision "
                             "with a choice (bids included), measured on probe deals")
    parser.add_argument("--budget-ms", type=int, default=0,
                        help="our expert's time budget per decision (level expert:MS); "
                             "0: the level as given")
    parser.add_argument("--colver-bidder", choices=sorted(COLVER_BIDDERS), default="v1",
                        help="colver's rule bidder: v1 (improved) or v2 (improved_v2, its "
                             "documented default)")
    parser.add_argument("--play-only", action="store_true",
                        help="a fixed contract (80 by first hand): card play only")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="our expert's solver threads (default: every core, as colver's "
                             "IS-DD search uses every core through rayon)")
    args = parser.parse_args()
    if args.budget_ms:
        args.level = f"expert:{args.budget_ms}"
    rng = random.Random(args.seed)
    times: list[float] = []
    if args.peer == "belote-cli":
        cli = BeloteCli("hard")
        cli_diffs = []
        for i in _deals(args.deals, "belote-cli hard"):
            deck = deal_deck(rng)
            a = play_classic_deal(cli, deck, i % 4, True, args.level, 1000 + i, times)
            b = play_classic_deal(cli, deck, i % 4, False, args.level, 1000 + i, times)
            cli_diffs.append(((a[0] - a[1]) + (b[1] - b[0])) / 2)
        cli.close()
        m = statistics.mean(cli_diffs)
        h = 1.96 * statistics.stdev(cli_diffs) / math.sqrt(len(cli_diffs))
        print(json.dumps({"peer": "belote-cli hard", "level": args.level,
                          "seed": args.seed, "deals": len(cli_diffs), "our_decisions": len(times),
                          "peer_time_ms": 0, "mean": m,
                          "ci95": [m - h, m + h]}))
        return
    result = colver_match(args.deals, args.level, rng, args.time_ms, args.colver_bidder,
                          args.play_only, threads=args.threads)
    result["seed"] = args.seed  # a result names its deals
    print(json.dumps(result))


def colver_match(deals: int, level: str, rng: random.Random, time_ms: int = 0,
                 bidder: str = "v1", play_only: bool = False,
                 on_deal: Callable[[], None] | None = None, threads: int = 1
                 ) -> dict[str, Any]:
    """``deals`` duplicate deals of our ``level`` against colver IS-DD with ``bidder``;
    colver's ``time_ms`` (0: our bot's mean wall time per decision with a choice, bids
    included, measured first on 20 probe deals, which do not count). The result: the
    points per deal (ours minus colver's) with a 95% interval, and each side's measured
    mean wall ms per decision with a choice over the match. ``on_deal`` is called after
    each deal (a caller's progress bar); without it a bar shows on a terminal.
    ``threads``: our expert's solver threads (colver's search uses every core)."""
    warm_up()  # every kernel loaded now: a first call would cost its decision ~0.6 s
    times: list[float] = []
    if not time_ms:  # measure our bot first: the peer gets the same time per decision
        probe = Colver(5, bidder)
        warm: list[float] = []  # the first deal loads the compiled code: not timed
        play_deal(probe, deal_deck(rng), 0, True, level, 0, warm, play_only, threads=threads)
        probed: dict[str, list[float]] = {"ours": [], "peer": []}
        for i in range(1, 21):  # 20 deals: fewer read too low (3 ms for a 5.7 ms mean)
            play_deal(probe, deal_deck(rng), i % 4, True, level, i, times, play_only,
                      None, probed, threads)
        probe.close()
        time_ms = max(1, round(statistics.mean(probed["ours"]) * 1000))
    peer = Colver(time_ms, bidder)
    diffs = []
    times = []
    card_cpu: list[float] = []
    card_wait: list[float] = []
    bid_times: list[float] = []
    decisions: dict[str, list[float]] = {"ours": [], "peer": []}
    label = f"colver IS-DD ({bidder}) at {time_ms} ms"
    for i in (_deals(deals, label) if on_deal is None else range(deals)):
        deck = deal_deck(rng)
        dealer = i % 4
        a = play_deal(peer, deck, dealer, True, level, 1000 + i, times, play_only,
                      bid_times, decisions, threads, card_cpu, card_wait)
        b = play_deal(peer, deck, dealer, False, level, 1000 + i, times, play_only,
                      bid_times, decisions, threads, card_cpu, card_wait)
        diffs.append(((a[0] - a[1]) + (b[1] - b[0])) / 2)
        if on_deal is not None:
            on_deal()
    peer.close()
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0

    budget_ms = parse_level(level)[1]
    budget = budget_ms / 1e3 if budget_ms is not None else None

    def ms(values: list[float]) -> float:
        return statistics.mean(values) * 1e3 if values else 0.0

    return {"peer": "colver", "colver_bidder": bidder, "level": level, "deals": len(diffs),
            "play_only": play_only, "peer_time_ms": time_ms, "our_threads": threads,
            "our_decision_ms": ms(decisions["ours"]),
            "peer_decision_ms": ms(decisions["peer"]),
            "our_card_max_ms": max(times, default=0.0) * 1e3,
            # the slowest card's CPU time, and the slowest card that had at least half
            # its wall time of CPU (the others were held up by the machine: host steal)
            "our_card_max_cpu_ms": max(zip(times, card_cpu, strict=True),
                                       default=(0.0, 0.0))[1] * 1e3,
            "our_card_max_busy_ms": max((w for w, c in zip(times, card_cpu, strict=True)
                                         if c >= HELD_UP * w), default=0.0) * 1e3,
            # the slowest card during which our threads did not wait for a core more
            # than HELD_WAIT of its time (None: the kernel does not say)
            "our_card_max_unheld_ms": (max((w for w, q in zip(times, card_wait, strict=True)
                                            if not held_up(w, q)), default=0.0) * 1e3
                                       if len(card_wait) == len(times) else None),
            "our_cards_held_up": (sum(held_up(w, q) for w, q in
                                      zip(times, card_wait, strict=True))
                                  if len(card_wait) == len(times) else None),
            "our_cards": len(times),
            # cards past two budgets (None: no budget), and those of them not held up
            "our_cards_over_2_budgets": (sum(w > 2 * budget for w in times)
                                         if budget is not None else None),
            "our_cards_over_2_budgets_unheld": (
                sum(w > 2 * budget and not held_up(w, q)
                    for w, q in zip(times, card_wait, strict=True))
                if budget is not None and len(card_wait) == len(times) else None),
            "our_bid_max_ms": max(bid_times, default=0.0) * 1e3,
            "our_mean_ms": ms(times), "our_bid_mean_ms": ms(bid_times),
            "our_card_median_ms": statistics.median(times) * 1e3 if times else 0.0,
            "our_bid_median_ms": statistics.median(bid_times) * 1e3 if bid_times else 0.0,
            "mean": mean, "ci95": [mean - half, mean + half]}


if __name__ == "__main__":
    main()
