"""``make bench``: every benchmark measured in one run, printed as one table.

Each engine runs in its own process (peers in their own virtualenvs) so that speed and
peak memory are its own; ratios are against rebelote in the same run, since the machine
is shared and noisy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / ".peers"
SECONDS = 3.0
FLOOR_HANDS_PER_S = 10_000
GOAL_HANDS_PER_S = 15_000


def _run(cmd: list[str], timeout: float | None = 600) -> dict[str, Any]:
    """Run a bench script: its last line on stdout is its JSON result; on failure, its
    last line on stderr (or the timeout) as ``error``. The strength matches run without a
    timeout: 2,000 deals against colver take about 10 minutes here."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"no result in {timeout} s"}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def engine_jobs() -> list[tuple[str, list[str]]]:
    jobs = [("rebelote classic", [sys.executable, "-m", "bench.engine_speed", str(SECONDS)])]
    peer_scripts = {"belote-cli": "belote_cli_speed.py", "colver": "colver_speed.py"}
    for name, script in peer_scripts.items():
        python = PEERS / name / "bin" / "python"
        jobs.append((name, [str(python), str(ROOT / "bench" / "peers" / script), str(SECONDS)]))
    return jobs


PRESET_SECONDS = 1.5


def preset_jobs() -> list[tuple[str, list[str]]]:
    from rebelote.rules import PRESETS

    return [(name, [sys.executable, "-m", "bench.engine_speed", str(PRESET_SECONDS), name])
            for name in PRESETS]


DEALS = ROOT / "bench" / "out" / "deals.json"
NO_TRUMP_DEALS = {4: ROOT / "bench" / "out" / "deals-sa.json",
                  5: ROOT / "bench" / "out" / "deals-ta.json"}
STRENGTH_DEALS = int(os.environ.get("REBELOTE_BENCH_DEALS", "2000"))  # smaller: a smoke run
SOLVER_DEALS = 200
"""Fresh random suit-contract deals the solvers are timed on each run (and a quarter as
many sans atout and tout atout ones, ours only: colver has neither)."""
BUDGET_SCALE = float(os.environ.get("REBELOTE_BENCH_BUDGET_SCALE", "0.1"))
"""The strength-by-budget rows: this fraction of ``make strength``'s deals."""


def write_deals(count: int, seed: int, path: Path = DEALS, trump: int | None = None) -> None:
    """Random deals and contracts that the solvers are timed on (suits at random, or
    ``trump`` for every deal: 4 sans atout, 5 tout atout)."""
    import random

    rng = random.Random(seed)
    deals = []
    for i in range(count):
        deck = list(range(32))
        rng.shuffle(deck)
        deals.append({"dealer": i % 4, "hands": [sorted(deck[8 * s:8 * s + 8]) for s in range(4)],
                      "trump": rng.randrange(4) if trump is None else trump,
                      "taker": rng.randrange(4)})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(deals))


def _fmt(value: Any, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def main() -> None:
    console = Console()
    jobs = engine_jobs()
    presets = preset_jobs()
    results: list[tuple[str, dict[str, Any]]] = []
    per_preset: list[tuple[str, dict[str, Any]]] = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("engines", total=len(jobs) + len(presets))
        for label, cmd in jobs:
            progress.update(task, description=f"measuring {label}")
            results.append((label, _run(cmd)))
            progress.advance(task)
        for label, cmd in presets:
            progress.update(task, description=f"measuring preset {label}")
            per_preset.append((label, _run(cmd)))
            progress.advance(task)
    ours = results[0][1].get("hands_per_s", 0.0)
    table = Table(title="Random full hands through each engine's Python API "
                        f"({SECONDS:.0f} s each, one run)")
    for col in ("engine", "hands/s", "vs rebelote", "legal actions µs", "state copy µs",
                "peak RSS MB"):
        table.add_column(col, justify="right" if col != "engine" else "left")
    for label, r in results:
        if "error" in r:
            table.add_row(label, f"error: {r['error']}", "", "", "", "")
            continue
        hps = r["hands_per_s"]
        table.add_row(label, f"{hps:,.0f}", f"{hps / ours:.2f}×" if ours else "—",
                      _fmt(r.get("legal_us"), ".2f"), _fmt(r.get("copy_us"), ".2f"),
                      _fmt(r.get("peak_rss_mb"), ".1f"))
    console.print(table)
    views_row(console, results[0][1])
    by_preset = Table(title=f"rebelote: random hands per preset ({PRESET_SECONDS} s each)")
    for col in ("preset", "players", "hands/s", "legal actions µs", "state copy µs"):
        by_preset.add_column(col, justify="left" if col == "preset" else "right")
    from rebelote.rules import Rules

    for label, r in per_preset:
        if "error" in r:
            by_preset.add_row(label, "", f"error: {r['error']}", "", "")
            continue
        by_preset.add_row(label, str(Rules.preset_named(label).players),
                          f"{r['hands_per_s']:,.0f}", _fmt(r.get("legal_us"), ".2f"),
                          _fmt(r.get("copy_us"), ".2f"))
    console.print(by_preset)
    server_section(console)
    web_section(console)
    bots_section(console)
    verdict = "PASS" if ours >= FLOOR_HANDS_PER_S else "FAIL"
    goal = "reached" if ours >= GOAL_HANDS_PER_S else "not reached"
    console.print(f"floor {FLOOR_HANDS_PER_S:,} hands/s: {verdict} ({ours:,.0f}); "
                  f"goal {GOAL_HANDS_PER_S:,}: {goal}")


VIEWS_GOAL_HANDS_PER_S = 8_000


def views_row(console: Console, ours: dict[str, Any]) -> None:
    """Hands through the views: what ``rebelote selfplay --bots random`` does (a seat's
    view for every action, a random bot choosing from it), against the engine alone."""
    views = ours.get("selfplay_hands_per_s")
    if views is None:
        console.print(f"selfplay through views: {ours.get('error', 'no result')}")
        return
    engine = ours.get("hands_per_s") or 0.0
    table = Table(title="rebelote selfplay --bots random: hands through Game.view and bots "
                        f"({SECONDS:.0f} s, seed {ours.get('selfplay_seed')})")
    for col in ("path", "hands/s", "vs Game engine alone", "goal", "met"):
        table.add_column(col, justify="left" if col == "path" else "right")
    table.add_row("views + random bots", f"{views:,.0f}",
                  f"{views / engine:.2f}×" if engine else "—",
                  f"{VIEWS_GOAL_HANDS_PER_S:,}", "yes" if views >= VIEWS_GOAL_HANDS_PER_S
                  else "no")
    console.print(table)


def server_section(console: Console) -> None:
    """The web server under load on loopback (target of the web issue): one process,
    and the scale-out mode with two processes and Redis (on this 2-core machine the
    load generator shares the cores: the second row shows the mode's overhead, not
    its gain, which needs more cores or machines)."""
    runs = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("server: 200 tables, 400 clients", total=2)
        for workers in (1, 2):
            runs.append((workers, _run([sys.executable, "-m", "bench.server_load", "200",
                                        "20", str(workers)])))
            progress.advance(task)
    table = Table(title="Web server: 200 tables (expert bots on 20, random bots on the "
                        "others), 400 connected clients, loopback, 20 s")
    for col in ("processes", "actions/s", "p50 ms", "p99 ms", "target p99", "unanswered",
                "memory/table KB", "loops on a core / waiting %", "clients' CPU %"):
        table.add_column(col, justify="right")
    for workers, r in runs:
        label = "1" if workers == 1 else f"{workers} + Redis"
        if "error" in r:
            table.add_row(label, f"error: {r['error']}", "", "", "", "", "", "", "")
            continue
        met = (r["p99_ms"] or 1e9) <= 100
        loops = " ".join(f"{run:.0f}/{wait:.0f}"
                         for run, wait in r.get("server_loops_percent", []))
        table.add_row(label, f"{r['actions_per_s']:,.0f}", _fmt(r["p50_ms"], ".0f"),
                      _fmt(r["p99_ms"], ".0f"),
                      ("≤ 100 " + ("(met)" if met else "(not met)")) if workers == 1 else "—",
                      str(r["unanswered"]), f"{r['memory_per_table_kb']:.0f}", loops,
                      f"{r['client_cpu_percent']:.0f} ({r.get('client', 'websockets')})")
    console.print(table)
    responsiveness_section(console)
    soak_section(console)
    cluster_section(console)


def responsiveness_section(console: Console) -> None:
    """One process kept busy (100 expert tables, 10 players asking hints, 2 clients
    sending wrong passwords, one posting a 20,000-hand score sheet): the lobby and an
    idle table's sync, and the event loop's largest stall, beside the same quiet."""
    with Progress(console=console, transient=True) as progress:
        progress.add_task("server: responsiveness, quiet then busy", total=None)
        r = _run([sys.executable, "-m", "bench.server_responsiveness", "15"])
    table = Table(title="Web server responsiveness (one process; busy: 100 expert tables, "
                        "10 hint askers, 2 password guessers, a 20,000-hand score sheet)")
    for col in ("run", "lobby p99 ms", "idle sync p99 ms", "largest loop stall ms",
                "goal", "met"):
        table.add_column(col, justify="left" if col == "run" else "right")
    if "error" in r:
        table.add_row("both", f"error: {r['error']}", "", "", "", "")
    else:
        for run in ("quiet", "busy"):
            x = r[run]
            met = (x["lobby_p99_ms"] <= 50 and x["sync_p99_ms"] <= 50
                   and x.get("largest_stall_ms", 1e9) <= 20)
            table.add_row(run, f"{x['lobby_p99_ms']:.1f}", f"{x['sync_p99_ms']:.1f}",
                          _fmt(x.get("largest_stall_ms"), ".1f"), "≤ 50 / ≤ 50 / ≤ 20",
                          "yes" if met else "no")
    console.print(table)


def soak_section(console: Console) -> None:
    """Random kill -9 and full-disk windows during play; then every table replays and
    no acknowledged action is missing."""
    with Progress(console=console, transient=True) as progress:
        progress.add_task("server: fault soak (kill -9, full disk)", total=None)
        r = _run([sys.executable, "-m", "bench.server_faults", "60", "10"])
    table = Table(title="Web server fault soak: 60 s, 10 tables, random kill -9 and "
                        "full-disk windows")
    for col in ("kills", "disk full", "acknowledged", "storage errors", "tables replayed",
                "quarantined", "acknowledged lost", "stored twice / holes", "ok"):
        table.add_column(col, justify="right")
    if "error" in r:
        table.add_row(f"error: {r['error']}", "", "", "", "", "", "", "", "")
    else:
        table.add_row(str(r["kills"]), f"{r['disk_full']} ({r['write_failures']})",
                      str(r["acknowledged"]), str(r["storage_errors_seen"]),
                      f"{r['tables_replayed']}/{r['tables']}", str(r["quarantined"]),
                      str(r["acknowledged_lost"]),
                      f"{r['actions_stored_twice']} / {r['action_holes']}",
                      "yes" if r["ok"] else "no")
    console.print(table)


CLUSTER_TABLES = int(os.environ.get("REBELOTE_BENCH_CLUSTER_TABLES", "1000"))


def cluster_section(console: Console) -> None:
    """The make-cluster topology (PostgreSQL, Redis, two servers, HAProxy) with a
    server process kill -9'd halfway: throughput, latency, takeover, lost/duplicated
    (on this 2-core shared machine the 2,000 clients, both servers, PostgreSQL and
    HAProxy share the cores)."""
    with Progress(console=console, transient=True) as progress:
        progress.add_task(f"cluster: {CLUSTER_TABLES} tables, kill -9 of a server", total=1)
        r = _run([sys.executable, "-m", "bench.cluster_load", str(CLUSTER_TABLES), "40"],
                 timeout=1200)
    table = Table(title="Cluster through HAProxy: 2 server processes, PostgreSQL, Redis; "
                        "one process kill -9'd after 20 s of 40")
    for col in ("tables", "clients", "actions/s", "p50 ms", "p99 ms", "takeover p50 / max s",
                "lost", "duplicated", "reconnects"):
        table.add_column(col, justify="right")
    if "error" in r:
        table.add_row(str(CLUSTER_TABLES), f"error: {r['error']}", "", "", "", "", "", "", "")
    else:
        table.add_row(str(r["tables"]), str(r["clients"]), f"{r['actions_per_s']:,.0f}",
                      _fmt(r["p50_ms"], ".0f"), _fmt(r["p99_ms"], ".0f"),
                      f"{_fmt(r['takeover_p50_s'], '.2f')} / {_fmt(r['takeover_max_s'], '.2f')}"
                      + (f" ({r['not_taken_over']} not)" if r["not_taken_over"] else ""),
                      str(r["lost"]), str(r["duplicated"]), str(r["reconnects"]))
    console.print(table)


def web_section(console: Console) -> None:
    """The web client as a new visitor gets it (bench.web_client): the first load's
    weight, compressed (goal < 400 KB), and the time from "create" to a playable table."""
    from bench.web_client import GOAL_KB

    r = _run([sys.executable, "-m", "bench.web_client", "3"])
    table = Table(title="Web client: a new visitor in Chromium, loopback, fresh server")
    for col in ("first load KB (compressed)", "goal", "card sprite KB", "uncompressed KB",
                "files", "create → playable ms (median of 3)", "max ms"):
        table.add_column(col, justify="right")
    if "error" in r:
        table.add_row(f"error: {r['error']}", "", "", "", "", "", "")
    else:
        met = r["first_load_kb"] < GOAL_KB
        table.add_row(f"{r['first_load_kb']:.0f}", f"< {GOAL_KB} " + ("(met)" if met else
                                                                     "(not met)"),
                      f"{r['sprite_kb']:.0f}", f"{r['uncompressed_kb']:.0f}", str(r["files"]),
                      str(r["create_to_playable_ms"]), str(r["create_to_playable_max_ms"]))
    console.print(table)


def bots_section(console: Console) -> None:
    """Solver, rollouts and expert against colver on identical deals; expert strength."""
    import random

    from bench.peer_match import unheld_text

    seed = random.SystemRandom().randrange(10**6)  # fresh deals each run
    write_deals(SOLVER_DEALS, seed)
    for mode, path in NO_TRUMP_DEALS.items():
        write_deals(SOLVER_DEALS // 4, seed + mode, path, mode)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("solvers", total=3)
        ours = _run([sys.executable, "-m", "bench.solver_speed", str(DEALS)])
        no_trump = {mode: _run([sys.executable, "-m", "bench.solver_speed", str(path),
                                "--solve-only"]) for mode, path in NO_TRUMP_DEALS.items()}
        progress.advance(task)
        theirs = _run([str(PEERS / "colver" / "bin" / "python"),
                       str(ROOT / "bench" / "peers" / "colver_solver.py"), str(DEALS)])
        progress.advance(task)
        from rebelote.arena import run_arena

        bar = progress.add_task("expert vs heuristic", total=STRENGTH_DEALS)
        strength = run_arena("classic", "expert", "heuristic", STRENGTH_DEALS, 1,
                             os.cpu_count() or 1,
                             progress=lambda done: progress.update(bar, completed=done))
        progress.add_task(f"expert vs colver IS-DD ({STRENGTH_DEALS} deals, two runs)",
                          total=None)
        peer = _run([sys.executable, "-m", "bench.peer_match", "colver", "--deals",
                     str(STRENGTH_DEALS)], timeout=None)
        peer_play = _run([sys.executable, "-m", "bench.peer_match", "colver", "--deals",
                          str(STRENGTH_DEALS // 4), "--play-only"], timeout=None)
        cli = _run([sys.executable, "-m", "bench.peer_match", "belote-cli", "--deals",
                    str(STRENGTH_DEALS)], timeout=None)
        progress.add_task("expert vs colver by budget", total=None)
        by_budget = _run([sys.executable, "-m", "bench.strength", "--scale", str(BUDGET_SCALE),
                          "--seed", str(seed)], timeout=None)
        progress.advance(task)
    table = Table(title=f"Solver and bots (identical deals, fresh each run: seed {seed}; "
                        "targets from the bots issues)")
    for col in ("measure", "rebelote", "colver", "target", "met"):
        table.add_column(col, justify="left" if col == "measure" else "right")

    def row(label: str, mine: Any, peer: Any, target: str, met: bool | None) -> None:
        table.add_row(label, str(mine), str(peer), target,
                      "—" if met is None else ("yes" if met else "no"))

    if "error" in ours:
        console.print(f"solver bench failed: {ours['error']}")
        return
    peer_med = theirs.get("all_moves_median_ms")
    row("solve, every root card: median ms", f"{ours['all_moves_median_ms']:.1f}",
        _fmt(peer_med, ".1f"), "≤ colver",
        None if peer_med is None else ours["all_moves_median_ms"] <= peer_med)
    row(f"solve, every root card: max ms ({SOLVER_DEALS} deals)",
        f"{ours['all_moves_max_ms']:.1f}",
        _fmt(theirs.get("all_moves_max_ms"), ".1f"), "≤ 50", ours["all_moves_max_ms"] <= 50)
    for mode, label in ((4, "sans atout"), (5, "tout atout")):
        r = no_trump[mode]
        if "error" in r:
            row(f"solve, {label}", f"error: {r['error']}", "—", "", None)
            continue
        row(f"solve, every root card, {label} ({SOLVER_DEALS // 4} deals): median / max ms",
            f"{r['all_moves_median_ms']:.1f} / {r['all_moves_max_ms']:.1f}", "—", "max ≤ 150",
            r["all_moves_max_ms"] <= 150)
    threads = int(ours["threads"])
    row(f"solve, every root card, {threads} threads: median / max ms",
        f"{ours['all_moves_threads_median_ms']:.1f} / {ours['all_moves_threads_max_ms']:.1f}",
        f"{_fmt(peer_med, '.1f')} / {_fmt(theirs.get('all_moves_max_ms'), '.1f')} (1 thread)",
        "≤ colver / ≤ 50",
        None if peer_med is None else (ours["all_moves_threads_median_ms"] <= peer_med
                                       and ours["all_moves_threads_max_ms"] <= 50))
    row("solve, value only: median / max ms",
        f"{ours['value_median_ms']:.1f} / {ours['value_max_ms']:.1f}", "—", "", None)
    peer_roll = theirs.get("rollouts_per_s")
    row("random rollouts per second", f"{ours['rollouts_per_s']:,.0f}", _fmt(peer_roll, ",.0f"),
        "≥ 1× colver", None if peer_roll is None else ours["rollouts_per_s"] >= peer_roll)
    row("expert decision: median ms", f"{ours['expert_median_ms']:.1f}", "—", "≤ 100",
        ours["expert_median_ms"] <= 100)
    row("expert decision: max ms", f"{ours['expert_max_ms']:.1f}", "—", "≤ 1000",
        ours["expert_max_ms"] <= 1000)
    row("expert bid: median / max ms",
        f"{ours['expert_bid_median_ms']:.1f} / {ours['expert_bid_max_ms']:.1f}", "—",
        "≤ 100 / ≤ 1000",
        ours["expert_bid_median_ms"] <= 100 and ours["expert_bid_max_ms"] <= 1000)
    row("first start after install (s)", f"{ours['first_start_s']:.1f}", "—", "≤ 30",
        ours["first_start_s"] <= 30)
    row("later starts (s)", f"{ours['later_start_s']:.1f}", "—", "≤ 2",
        ours["later_start_s"] <= 2)
    row(f"expert − heuristic, {strength.deals} duplicate deals",
        f"{strength.mean:+.1f} ({strength.ci95[0]:+.1f}..{strength.ci95[1]:+.1f})", "—",
        "> 0", strength.ci95[0] > 0)
    for label, r in ((f"expert − colver IS-DD, contrée, {STRENGTH_DEALS} deals", peer),
                     (f"  the same, card play only ({STRENGTH_DEALS // 4} deals)", peer_play)):
        if "error" in r:
            row(label, f"error: {r['error']}", "", "", None)
            continue
        lo, hi = r["ci95"]
        row(label, f"{r['mean']:+.1f} ({lo:+.1f}..{hi:+.1f})", f"{r['peer_time_ms']} ms",
            "≥ +10", lo >= 10)
    if "error" in cli:
        row("expert − belote-cli hard", f"error: {cli['error']}", "", "", None)
    else:
        lo, hi = cli["ci95"]
        row(f"expert − belote-cli hard, classic, {STRENGTH_DEALS} deals",
            f"{cli['mean']:+.1f} ({lo:+.1f}..{hi:+.1f})", "its own pace", "≥ +40", lo >= 40)
    console.print(table)
    if "error" in by_budget:
        console.print(f"strength by budget failed: {by_budget['error']}")
        return
    budget_table = Table(title="expert − colver IS-DD by time budget (colver at our measured "
                               "wall time per decision, bids included; `make strength` for "
                               "the full runs and the curve)")
    for col in ("budget ms", "colver bidder", "deals", "points per deal (95% CI)",
                "ours / colver ms per decision",
                "ms: card med / max (CPU) / max not held up; bid med / max", "≥ +10"):
        budget_table.add_column(col, justify="right")
    for r in by_budget["results"]:
        lo, hi = r["ci95"]
        budget_table.add_row(
            str(r["budget_ms"]), r["colver_bidder"], str(r["deals"]),
            f"{r['mean']:+.1f} ({lo:+.1f}..{hi:+.1f})",
            f"{r['our_decision_ms']:.1f} / {r['peer_decision_ms']:.1f}",
            (f"{r['our_card_median_ms']:.1f} / {r['our_card_max_ms']:.0f} "
             f"({r['our_card_max_cpu_ms']:.0f}) / {unheld_text(r)}; "
             f"{r['our_bid_median_ms']:.1f} / "
             f"{r['our_bid_max_ms']:.0f}"),
            "yes" if lo >= 10 else ("no" if hi < 10 else "open"))
    console.print(budget_table)


if __name__ == "__main__":
    main()
