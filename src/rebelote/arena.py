"""Bot against bot in duplicate: each deal is played twice, seats swapped, so that the
cards cancel out and only the play counts.

Per deal, A minus B is the average over the two seatings of (A's side's score minus B's
side's score). Whole games are played out of the same deals, one after the other, in
each seating, for the win rates.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebelote.bots import make_bot
from rebelote.game import Game
from rebelote.hand import HandState, deal_deck
from rebelote.rules import Rules
from rebelote.tricks import team_of


@dataclass
class ChunkResult:
    """One worker's share: per-deal differences and whole-game results."""

    diffs: list[float] = field(default_factory=list)
    games_a: int = 0
    games_b: int = 0


def _play_seating(rules: Rules, decks: list[list[int]], first_dealer: int,
                  levels: list[str], seed: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """Play ``decks`` in order (games one after the other) with ``levels`` per seat;
    return each deal's scores and the winners of the games completed."""
    n = rules.players
    bots = [make_bot(level, seed * 7 + s) for s, level in enumerate(levels)]
    scores: list[tuple[int, ...]] = []
    winners: list[int] = []
    game = Game(rules, dealer=first_dealer)
    dealer = first_dealer
    for deck in decks:
        if game.is_over:
            winners.append(game.winner if game.winner is not None else -1)
            game = Game(rules, dealer=dealer)
        hand = game.start_hand(HandState.deal(rules, dealer, deck))
        while not hand.is_over:
            seat = hand.turn
            game.apply(bots[seat].choose(game.view(seat)))
        scores.append(game.scores[-1].scored)
        dealer = (dealer + 1) % n
    if game.is_over and game.winner is not None:
        winners.append(game.winner)
    return scores, winners


def play_chunk(preset: str, level_a: str, level_b: str, seed: int, deals: int) -> ChunkResult:
    """Play ``deals`` duplicate deals (worker entry point; picklable arguments)."""
    rules = Rules.preset_named(preset)
    if rules.players == 3:
        raise ValueError("the arena seats two sides: use a 2- or 4-player preset")
    rng = random.Random(seed)
    decks = [deal_deck(rng, rules.players) for _ in range(deals)]
    first_dealer = rng.randrange(rules.players)
    n = rules.players
    # Seating 1: A holds team 0 (seats 0, 2 / seat 0); seating 2: B does.
    seat_a = [level_a if team_of(s, n) == 0 else level_b for s in range(n)]
    seat_b = [level_b if team_of(s, n) == 0 else level_a for s in range(n)]
    s1, w1 = _play_seating(rules, decks, first_dealer, seat_a, seed)
    s2, w2 = _play_seating(rules, decks, first_dealer, seat_b, seed + 1)
    out = ChunkResult()
    for x, y in zip(s1, s2, strict=True):
        a_minus_b = (x[0] - x[1]) + (y[1] - y[0])
        out.diffs.append(a_minus_b / 2)
    out.games_a = sum(1 for w in w1 if w == 0) + sum(1 for w in w2 if w == 1)
    out.games_b = sum(1 for w in w1 if w == 1) + sum(1 for w in w2 if w == 0)
    return out


@dataclass
class ArenaReport:
    """What ``rebelote arena`` prints."""

    preset: str
    bots: tuple[str, str]
    deals: int
    mean: float
    ci95: tuple[float, float]
    games_a: int
    games_b: int
    diffs: list[float]

    @property
    def win_rate_a(self) -> float | None:
        total = self.games_a + self.games_b
        return self.games_a / total if total else None

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "bots": list(self.bots), "deals": self.deals,
                "a_minus_b_per_deal": round(self.mean, 2),
                "ci95": [round(self.ci95[0], 2), round(self.ci95[1], 2)],
                "games": {"a": self.games_a, "b": self.games_b},
                "win_rate_a": None if self.win_rate_a is None else round(self.win_rate_a, 3)}


def run_arena(preset: str, level_a: str, level_b: str, deals: int, seed: int, jobs: int = 1,
              progress: Callable[[int], None] | None = None, chunk: int = 25) -> ArenaReport:
    """Play ``deals`` duplicate deals on ``jobs`` processes; ``progress`` gets the deals
    done so far."""
    sizes = [min(chunk, deals - i) for i in range(0, deals, chunk)]
    seeds = [seed * 1_000_003 + i for i in range(len(sizes))]
    results: list[ChunkResult | None] = [None] * len(sizes)
    done = 0
    if jobs <= 1:
        for i, (size, s) in enumerate(zip(sizes, seeds, strict=True)):
            results[i] = play_chunk(preset, level_a, level_b, s, size)
            done += size
            if progress:
                progress(done)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(play_chunk, preset, level_a, level_b, s, size): i
                       for i, (size, s) in enumerate(zip(sizes, seeds, strict=True))}
            for fut in as_completed(futures):
                i = futures[fut]
                results[i] = fut.result()
                done += sizes[i]
                if progress:
                    progress(done)
    diffs = [d for r in results if r is not None for d in r.diffs]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) if len(diffs) > 1 else 0.0
    half = 1.96 * math.sqrt(var / len(diffs))
    games_a = sum(r.games_a for r in results if r is not None)
    games_b = sum(r.games_b for r in results if r is not None)
    return ArenaReport(preset, (level_a, level_b), len(diffs), mean, (mean - half, mean + half),
                       games_a, games_b, diffs)


def write_plot(report: ArenaReport, path: Path) -> None:
    """A PNG: the distribution of per-deal differences and the running mean with its
    95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    a, b = report.bots
    left.hist(report.diffs, bins=40, color="#3b6ea5")
    left.axvline(report.mean, color="#c0392b", label=f"mean {report.mean:+.1f}")
    left.set_title(f"{a} minus {b}, points per deal ({report.preset})")
    left.legend()
    running = []
    total = 0.0
    for i, d in enumerate(report.diffs, 1):
        total += d
        running.append(total / i)
    right.plot(range(1, len(running) + 1), running, color="#3b6ea5")
    right.axhspan(report.ci95[0], report.ci95[1], color="#3b6ea5", alpha=0.15,
                  label="95% interval")
    right.axhline(0, color="grey", linewidth=0.8)
    right.set_title("running mean")
    right.set_xlabel("deals")
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
