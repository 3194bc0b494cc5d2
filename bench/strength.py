"""The expert against colver IS-DD by time budget: ``python -m bench.strength``
(``make strength``). For each budget B, ours is ``expert:B`` and colver's ``time_ms`` is
the wall time ours really used per decision with a choice (bids included, measured on
probe deals first); both of colver's rule bidders (v1 ``improved``, v2 ``improved_v2``,
its documented default). Fresh duplicate deals each run (the seed is printed). Prints a
table, writes the curve to ``bench/out/strength.png`` and, as its last line, the results
as JSON. ``--from LOG ...`` draws the table and the curve from runs of ``bench.peer_match
colver --budget-ms B`` instead (their result lines: a log's last, or a record's every
line), pooling the runs of one budget and bidder (:func:`pool`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.peer_match import colver_match, unheld_text
from rebelote.bots import parse_level

ROOT = Path(__file__).resolve().parents[1]
BUDGETS = {10: 1000, 100: 500, 500: 200}
"""Budget (ms) -> duplicate deals (the bots issue's minimum at each budget)."""
GOAL = 10.0
"""Points per deal ahead of colver at every budget."""


def budget_of(result: dict[str, Any]) -> int:
    """The budget (ms) of a match result: its ``budget_ms``, or its level ``expert:B``."""
    if "budget_ms" in result:
        return int(result["budget_ms"])
    level = str(result.get("level", ""))
    _, budget = parse_level(level)  # a ValueError for an unknown level
    if budget is None:
        raise ValueError(f"not a budgeted expert's match: level {level!r}")
    return int(budget)


def pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several match results of one budget and bidder as one, on all their deals: the
    deal-weighted mean, its interval from each run's (each run's deals independent, so
    the standard errors add in quadrature, weighted by the runs' shares of the deals);
    the longest times the longest of any run; mean and median times deal-weighted (the
    medians so only approximately)."""
    if not runs:
        raise ValueError("nothing to pool")
    total = sum(int(r["deals"]) for r in runs)
    if total <= 0:
        raise ValueError("no deals to pool")
    share = [int(r["deals"]) / total for r in runs]
    mean = sum(w * float(r["mean"]) for w, r in zip(share, runs, strict=True))
    se = math.sqrt(sum((w * (float(r["ci95"][1]) - float(r["ci95"][0])) / (2 * 1.96)) ** 2
                       for w, r in zip(share, runs, strict=True)))
    out: dict[str, Any] = dict(runs[0])
    out.update(budget_ms=budget_of(runs[0]), runs=len(runs))
    if "seed" in out:  # each run's deals
        out["seeds"] = [r.get("seed") for r in runs]
        del out["seed"]
    if len(runs) == 1:
        return out
    out.update(deals=total, mean=mean, ci95=[mean - 1.96 * se, mean + 1.96 * se])
    for key, value in runs[0].items():
        if (not isinstance(value, (int, float)) or isinstance(value, bool)
                or key in ("deals", "mean", "budget_ms", "runs", "seed")):
            continue
        values = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
        if len(values) != len(runs):  # not known for every run: not known pooled
            del out[key]
            continue
        if "max" in key:
            out[key] = max(values)
        elif key.endswith(("held_up", "_cards", "over_2_budgets", "over_2_budgets_unheld")):
            out[key] = sum(values)
        else:
            out[key] = sum(w * v for w, v in zip(share, values, strict=True))
    return out


def results_in(path: Path) -> list[dict[str, Any]]:
    """The match results in a file: each line that is a JSON object with ``mean`` and
    ``ci95`` (a ``bench.peer_match`` log ends with one; a record of several runs, JSON
    lines, has one a line)."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "mean" in value and "ci95" in value:
            found.append(value)
    if not found:
        raise ValueError(f"{path}: no peer_match result in it")
    return found


def from_logs(paths: list[Path]) -> list[dict[str, Any]]:
    """The pooled results of ``bench.peer_match`` logs (or records), one per (budget,
    bidder), in budget order."""
    groups: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for path in paths:
        for result in results_in(path):
            key = (budget_of(result), str(result.get("colver_bidder", "v1")))
            groups.setdefault(key, []).append(result)
    for (budget, bidder), runs in groups.items():
        if len({bool(r.get("play_only")) for r in runs}) > 1:
            raise ValueError(f"{budget} ms, colver {bidder}: card-play-only runs mixed "
                             "with full deals")
    return [pool(groups[key]) for key in sorted(groups)]


def plot(results: list[dict[str, Any]], path: Path) -> None:
    """expert − colver by budget, one line per colver bidder, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    bidders = sorted({r["colver_bidder"] for r in results})
    for i, bidder in enumerate(bidders):
        rows = sorted((r for r in results if r["colver_bidder"] == bidder),
                      key=lambda r: r["budget_ms"])
        dodge = 1.06 ** (i - (len(bidders) - 1) / 2)  # the bidders' bars side by side
        xs = [r["budget_ms"] * dodge for r in rows]
        ys = [r["mean"] for r in rows]
        err = [[r["mean"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["mean"] for r in rows]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=4, label=f"colver bidder {bidder}")
    ax.axhline(GOAL, color="green", linestyle="--", linewidth=1, label=f"goal +{GOAL:.0f}")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    budgets = sorted({r["budget_ms"] for r in results})
    ax.set_xticks(budgets, [str(b) for b in budgets])
    ax.set_xlabel("time budget per decision (ms, colver at our measured wall time)")
    ax.set_ylabel("expert − colver, points per deal")
    ax.set_title("rebelote expert against colver IS-DD (contrée, duplicate deals)")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def table(results: list[dict[str, Any]], seed: int | None) -> Table:
    where = f"seed {seed}" if seed is not None else "runs pooled"
    out = Table(title=f"expert − colver IS-DD by budget (contrée, duplicate, {where})")
    for col in ("budget ms", "colver bidder", "deals", "points per deal (95% CI)",
                "ours ms/decision", "colver ms/decision",
                "ms: card med / max (CPU) / max not held up; bid med / max",
                f"≥ +{GOAL:.0f}"):
        out.add_column(col, justify="right")
    for r in results:
        lo, hi = r["ci95"]

        def ms(key: str, digits: int = 0, r: dict[str, Any] = r) -> str:
            value = r.get(key)
            return "—" if value is None else f"{value:.{digits}f}"

        out.add_row(str(r["budget_ms"]), r["colver_bidder"], str(r["deals"]),
                    f"{r['mean']:+.1f} ({lo:+.1f}..{hi:+.1f})",
                    ms("our_decision_ms", 1), ms("peer_decision_ms", 1),
                    (f"{ms('our_card_median_ms', 1)} / {ms('our_card_max_ms')} "
                     f"({ms('our_card_max_cpu_ms')}) / {unheld_text(r)}; "
                     f"{ms('our_bid_median_ms', 1)} / {ms('our_bid_max_ms', 1)}"),
                    "yes" if lo >= GOAL else ("no" if hi < GOAL else "open"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh one")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of each budget's deals (a smoke run: 0.05)")
    parser.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    parser.add_argument("--bidders", default="v1,v2")
    parser.add_argument("--plot", type=Path, default=ROOT / "bench" / "out" / "strength.png")
    parser.add_argument("--from", dest="logs", type=Path, nargs="+", default=None,
                        metavar="LOG", help="draw from bench.peer_match logs, no match run")
    args = parser.parse_args()
    if args.logs:
        try:
            pooled = from_logs(args.logs)
        except (OSError, ValueError) as exc:
            raise SystemExit(f"strength: {exc}") from None
        Console(stderr=True, width=140).print(table(pooled, None))
        plot(pooled, args.plot)
        Console(stderr=True).print(f"curve: {args.plot}")
        print(json.dumps({"results": pooled}))
        return
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    console = Console(stderr=True)
    budgets = [int(b) for b in args.budgets.split(",")]
    bidders = args.bidders.split(",")
    results = []
    plan = [(b, max(10, round(BUDGETS.get(b, 200) * args.scale))) for b in budgets]
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("deals", total=sum(d for _, d in plan) * len(bidders))
        for budget, deals in plan:
            for bidder in bidders:
                progress.update(task, description=f"{budget} ms, colver {bidder}, "
                                                  f"{deals} deals")
                rng = random.Random(seed * 1000 + budget)  # the same deals for both bidders
                r = colver_match(deals, f"expert:{budget}", rng, 0, bidder,
                                 on_deal=lambda: progress.advance(task),
                                 threads=os.cpu_count() or 1)  # colver uses every core
                r["budget_ms"] = budget
                results.append(r)
    Console(stderr=True, width=140).print(table(results, seed))
    plot(results, args.plot)
    Console(stderr=True).print(f"curve: {args.plot}")
    print(json.dumps({"seed": seed, "results": results}))


if __name__ == "__main__":
    main()
