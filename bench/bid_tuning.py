"""Bidding styles against colver's bidder, scored by calibrated exact solves.

A full match against colver (bench.peer_match) spends nearly all its time playing the
cards and its result swings by ±7 points a deal over 2,000 deals, so bidding changes
cannot be told apart with it. Here only the auction is played (our style on two seats,
colver's ``improved`` bidder on the others, each deal twice with the seats swapped); the
final contract is scored by the rules with the card points of an exact solve of the
deal, corrected for how much real play falls short of it (``calibrate``). All styles
see the same deals, so their differences are measured paired.

``python -m bench.bid_tuning [--deals N] [--seed S]``: the table of styles;
``python -m bench.bid_tuning classic [--expert-worlds N]``: classic take/pass, the
expert's bidding from solved deals against the heuristic's;
``python -m bench.bid_tuning no-trump``: contrée, the expert bidding sans atout / tout
atout against the same without them;
``python -m bench.bid_tuning calibrate [--deals N]``: exact value against real play
(the expert on all four seats), which gives the corrections below.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.peer_match import COLVER_RULES, Colver, from_colver, to_colver
from rebelote.bots import make_bot
from rebelote.bots.expert import (
    AUCTION_WORLDS,
    CLASSIC_WORLDS,
    LEVEL_MAKE_PROBABILITY,
    TAKE_MAKE_PROBABILITY,
    SampledBidder,
    calibrated_result,
)
from rebelote.bots.heuristic import AuctionStyle, HeuristicBot
from rebelote.hand import HandState, deal_deck
from rebelote.rules import Rules
from rebelote.solver import Solver, position_of
from rebelote.view import SeatView

STYLES: dict[str, AuctionStyle] = {
    "tuned (default)": AuctionStyle(),
    "highest level": AuctionStyle(lowest_level=False),
    "the first style (highest level, p 0.69, coinche from 110)": AuctionStyle(
        lowest_level=False, make_probability=0.69, coinche_level=3),
    "p 0.58": AuctionStyle(make_probability=0.58),
    "p 0.69": AuctionStyle(make_probability=0.69),
    "p 0.73": AuctionStyle(make_probability=0.73),
    "over opponents p 0.5": AuctionStyle(outbid_probability=0.5),
    "over opponents p 0.56": AuctionStyle(outbid_probability=0.56),
    "over opponents p 0.72": AuctionStyle(outbid_probability=0.72),
    "coinche from 90": AuctionStyle(coinche_level=1),
    "coinche from 110 (before)": AuctionStyle(coinche_level=3),
    "coinche from 130": AuctionStyle(coinche_level=5),
    "coinche 6.5": AuctionStyle(coinche_strength=6.5),
    "coinche 7.5": AuctionStyle(coinche_strength=7.5),
    "coinche 6": AuctionStyle(coinche_strength=6.0),
    "coinche 8": AuctionStyle(coinche_strength=8.0),
    "never coinche": AuctionStyle(coinche_strength=99.0),
}


@dataclass
class Tally:
    diffs: list[float] = field(default_factory=list)
    taken: int = 0
    levels: int = 0


class ExactScorer:
    """The expected score difference (team 0 − team 1) of a hand whose auction is over,
    from an exact solve corrected by the calibration (:func:`calibrated_result`, whose
    constants ``calibrate`` measures); solves are cached per deal."""

    def __init__(self) -> None:
        self.solver = Solver()
        self.cache: dict[tuple[int, int, int, int], int] = {}

    def __call__(self, hand: HandState, deal: int) -> float:
        if hand.taker < 0:
            return 0.0
        team = hand.taker & 1
        # the taker matters in classic (it gets the retourne), only its side in auctions
        key = (deal, hand.contract, team, hand.taker if hand.rules.game == "retourne" else -1)
        if key not in self.cache:
            pos = position_of(hand, max_team=team)  # tout atout 'scaled': back to 162
            self.cache[key] = round(self.solver.value(pos) * pos.scale)
        return calibrated_result(hand, self.cache[key])[0]


def auction(peer: Colver, hands: list[list[int]], dealer: int, ours_even: bool,
            bidder: Callable[[SeatView], int], seed: int) -> HandState:
    """The auction of one deal, our style on seats 0 and 2 (or 1 and 3)."""
    peer_seats = [1, 3] if ours_even else [0, 2]
    peer.ask({"cmd": "deal", "dealer": dealer, "seed": seed, "spec": peer.spec,
              "seats": peer_seats, "hands": [[to_colver(c) for c in h] for h in hands]})
    hand = HandState.from_deal(COLVER_RULES, dealer, hands)
    while hand.phase == 0:
        seat = hand.turn
        if seat in peer_seats:
            action = from_colver(peer.ask({"cmd": "act", "seat": seat})["action"], "auction")
        else:
            action = bidder(hand.view(seat))
            peer.ask({"cmd": "step", "action": to_colver(action)})
        hand.apply(action, seat)
    return hand


def _mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.mean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
    return mean, half


def compare(deals: int, seed: int, console: Console, expert_worlds: int = 0,
            styles: list[str] | None = None, variants: list[str] | None = None) -> None:
    peer = Colver(5)  # the time only matters for its card play, not played here
    score = ExactScorer()
    rng = random.Random(seed)
    bots: dict[str, Callable[[SeatView], int]] = {
        name: HeuristicBot(0, style).bid for name, style in STYLES.items()
        if styles is None or name in styles or name == next(iter(STYLES))}
    if expert_worlds:
        solver = Solver()
        for variant in variants or [str(LEVEL_MAKE_PROBABILITY)]:
            p, *flags = variant.split("/")
            band = next((int(f[1:]) for f in flags if f.startswith("b")), 2)
            sampled = SampledBidder(0, solver, expert_worlds, level_probability=float(p),
                                    solve_coinche="model" not in flags, band=band)
            bots[f"expert, {expert_worlds} solved deals, levels p {p}, band {band}"
                 + (", coinche by the model" if "model" in flags else "")] = sampled.choose
    tallies = {name: Tally() for name in bots}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"auctions ({len(bots)} styles)", total=deals)
        for i in range(deals):
            deck = deal_deck(rng)
            hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
            for name, bidder in bots.items():
                tally = tallies[name]
                both = []
                for ours_even in (True, False):
                    hand = auction(peer, hands, i % 4, ours_even, bidder, 1000 + i)
                    both.append(score(hand, i))
                    if hand.taker >= 0 and (hand.taker % 2 == 0) == ours_even:
                        tally.taken += 1
                        tally.levels += hand.contract_value()
                tally.diffs.append((both[0] - both[1]) / 2)
            progress.advance(task)
    peer.close()
    base_name = next(iter(bots))
    base = tallies[base_name].diffs
    table = Table(title=f"bidding styles against colver's bidder, {deals} deals "
                        f"in duplicate, exact solves calibrated on real play (seed {seed})")
    for col in ("style", "− colver, points/deal", f"− {base_name}", "contracts taken",
                "average contract"):
        table.add_column(col, justify="left" if col == "style" else "right")
    for name, tally in tallies.items():
        mean, half = _mean_ci(tally.diffs)
        rel = [a - b for a, b in zip(tally.diffs, base, strict=True)]
        rmean, rhalf = _mean_ci(rel)
        table.add_row(name, f"{mean:+.1f} ± {half:.1f}",
                      "—" if name == base_name else f"{rmean:+.1f} ± {rhalf:.1f}",
                      str(tally.taken), f"{tally.levels / max(1, tally.taken):.0f}")
    console.print(table)


def auctions_both_ways(rules: Rules, deck: list[int], dealer: int,
                       ours: Callable[[SeatView], int], others: Callable[[SeatView], int]
                       ) -> list[tuple[bool, HandState]]:
    """The auction of one deal twice, ``ours`` bidding on seats 0 and 2, then on 1 and
    3 (``others`` on the rest): for each, whether ours sat on the even seats, and the
    hand after the auction."""
    out = []
    for ours_even in (True, False):
        hand = HandState.deal(rules, dealer, deck)
        while hand.phase == 0:
            view = hand.view(hand.turn)
            bidder = ours if (hand.turn % 2 == 0) == ours_even else others
            hand.apply(bidder(view), hand.turn)
        out.append((ours_even, hand))
    return out


def compare_classic(deals: int, seed: int, console: Console, worlds: int,
                    probabilities: list[float]) -> None:
    """Classic take/pass: the expert's bidding from solved deals (one per take
    probability) on two seats, the heuristic's on the other two, each deal twice with
    the seats swapped, scored like :func:`compare` (a deal passed out scores 0)."""
    rules = Rules.classic()
    score = ExactScorer()
    rng = random.Random(seed)
    heuristic = HeuristicBot(0)
    bidders = {p: SampledBidder(0, score.solver, worlds, take_probability=p)
               for p in probabilities}
    diffs: dict[float, list[float]] = {p: [] for p in probabilities}
    taken = dict.fromkeys(probabilities, 0)
    changed = dict.fromkeys(probabilities, 0)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("classic auctions", total=deals)
        for i in range(deals):
            deck = deal_deck(rng)
            for p, bidder in bidders.items():

                def counted(view: SeatView, p: float = p, bidder: SampledBidder = bidder
                            ) -> int:
                    action = bidder.choose(view)
                    changed[p] += action != heuristic.choose(view)
                    return action

                both = []
                for ours_even, hand in auctions_both_ways(rules, deck, i % 4, counted,
                                                          heuristic.choose):
                    both.append(score(hand, i))
                    if hand.taker >= 0 and (hand.taker % 2 == 0) == ours_even:
                        taken[p] += 1
                diffs[p].append((both[0] - both[1]) / 2)
            progress.advance(task)
    table = Table(title=f"classic take/pass against the heuristic, {deals} deals in "
                        f"duplicate, exact solves calibrated on real play (seed {seed})")
    for col in ("bidder", "− heuristic, points/deal", "contracts taken",
                "calls unlike the heuristic's"):
        table.add_column(col, justify="left" if col == "bidder" else "right")
    for p in probabilities:
        mean, half = _mean_ci(diffs[p])
        table.add_row(f"expert, {worlds} solved deals, takes when made ≥ {p:.0%}",
                      f"{mean:+.1f} ± {half:.1f}", str(taken[p]), str(changed[p]))
    console.print(table)


def compare_no_trump(deals: int, seed: int, console: Console, worlds: int) -> None:
    """Contrée (sans atout and tout atout may be bid): the expert's bidding with them
    (:class:`SampledBidder`, ``no_trump_bids``) against the same without them, on two
    seats; the expert's bidding without them on the other two; each deal twice with the
    seats swapped, both bidders on the same deals, scored like :func:`compare`."""
    rules = Rules.contree()
    score = ExactScorer()
    rng = random.Random(seed)
    others = SampledBidder(1, score.solver, worlds, no_trump_bids=False)
    bidders = {"with": SampledBidder(0, score.solver, worlds),
               "without": SampledBidder(0, score.solver, worlds, no_trump_bids=False)}
    results: dict[str, list[float]] = {name: [] for name in bidders}
    no_trump_taken = 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("contrée auctions, with and without SA/TA", total=deals)
        for i in range(deals):
            deck = deal_deck(rng)

            def seeded(bidder: SampledBidder, i: int = i) -> Callable[[SeatView], int]:
                def choose(view: SeatView) -> int:
                    # the same sampled deals for a decision with and without SA/TA
                    bidder.rng.seed(i * 1000 + 10 * len(view.calls) + view.seat)
                    return bidder.choose(view)
                return choose

            for name, bidder in bidders.items():
                both = []
                for ours_even, hand in auctions_both_ways(rules, deck, i % 4, seeded(bidder),
                                                          seeded(others)):
                    both.append(score(hand, i))
                    if (name == "with" and hand.taker >= 0 and hand.contract >= 4
                            and (hand.taker % 2 == 0) == ours_even):
                        no_trump_taken += 1
                results[name].append((both[0] - both[1]) / 2)
            progress.advance(task)
    rel = [a - b for a, b in zip(results["with"], results["without"], strict=True)]
    changed = [d for d in rel if d != 0]
    mean, half = _mean_ci(rel)
    table = Table(title=f"contrée: the expert bidding sans atout / tout atout against the "
                        f"same without, {deals} deals in duplicate, exact solves "
                        f"calibrated on real play (seed {seed})")
    for col in ("measure", "value"):
        table.add_column(col, justify="left" if col == "measure" else "right")
    table.add_row("with − without, points/deal", f"{mean:+.2f} ± {half:.2f}")
    table.add_row("SA/TA contracts taken by the bidder (both seatings)", str(no_trump_taken))
    table.add_row("deals whose score changed", str(len(changed)))
    if changed:
        cmean, chalf = _mean_ci(changed)
        table.add_row("  with − without on those deals", f"{cmean:+.1f} ± {chalf:.1f}")
    console.print(table)


def calibrate(deals: int, seed: int, console: Console) -> None:
    """Exact value of the full deal against the points the taking side really made,
    with the expert on all four seats."""
    rng = random.Random(seed)
    solver = Solver()
    plain: list[int] = []
    capots = made_capots = 0
    missed: list[int] = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("expert self-play", total=deals)
        for i in range(deals):
            deck = deal_deck(rng)
            hands = [sorted(deck[8 * s:8 * s + 8]) for s in range(4)]
            hand = HandState.from_deal(COLVER_RULES, i % 4, hands)
            bots = [make_bot("expert", seed * 10_000 + 4 * i + s) for s in range(4)]
            while hand.phase == 0:
                hand.apply(bots[hand.turn].choose(hand.view(hand.turn)), hand.turn)
            progress.advance(task)
            if hand.taker < 0:
                continue
            team = hand.taker & 1
            exact = solver.value(position_of(hand, max_team=team))
            while not hand.is_over:
                hand.apply(bots[hand.turn].choose(hand.view(hand.turn)), hand.turn)
            real = hand.scaled_card_points()[team]
            if exact >= 162:
                capots += 1
                if hand.capot_team() == team:
                    made_capots += 1
                else:
                    missed.append(real)
            else:
                plain.append(exact - real)
    table = Table(title=f"exact value against real play, {deals} deals (seed {seed})")
    table.add_column("measure")
    table.add_column("value", justify="right")
    if plain:
        table.add_row("contracts, exact value no capot", str(len(plain)))
        table.add_row("  shortfall of real play: mean / median",
                      f"{statistics.mean(plain):.1f} / {statistics.median(plain):.0f}")
    table.add_row("exact capots / made in play", f"{capots} / {made_capots}")
    if missed:
        table.add_row("  points when missed: mean", f"{statistics.mean(missed):.0f}")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", nargs="?", default="compare",
                        choices=["compare", "classic", "no-trump", "calibrate"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--expert-worlds", type=int, default=0,
                        help="add the expert bidding from this many solved deals")
    parser.add_argument("--take-probabilities", default=str(TAKE_MAKE_PROBABILITY),
                        help="classic: the expert's take probabilities to compare")
    parser.add_argument("--expert-variants",
                        help="with --expert-worlds: level probabilities to compare, each "
                             "optionally '/model' (coinche by the model) and '/bN' (levels "
                             "solved within N of the model's), e.g. 0.56,0.64/model/b1")
    parser.add_argument("--styles", help="only these styles (comma-separated names)")
    args = parser.parse_args()
    console = Console(width=max(Console().width, 110))
    if args.what == "calibrate":
        calibrate(args.deals, args.seed, console)
    elif args.what == "no-trump":
        compare_no_trump(args.deals, args.seed, console, args.expert_worlds or AUCTION_WORLDS)
    elif args.what == "classic":
        compare_classic(args.deals, args.seed, console, args.expert_worlds or CLASSIC_WORLDS,
                        [float(p) for p in args.take_probabilities.split(",")])
    else:
        compare(args.deals, args.seed, console, args.expert_worlds,
                args.styles.split(",") if args.styles else None,
                args.expert_variants.split(",") if args.expert_variants else None)


if __name__ == "__main__":
    main()
