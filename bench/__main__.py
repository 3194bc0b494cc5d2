"""``make bench``: every benchmark measured in one run, printed as one table.

Each engine runs in its own process (peers in their own virtualenvs) so that speed and
peak memory are its own; ratios are against rebelote in the same run, since the machine
is shared and noisy.
"""

from __future__ import annotations

import json
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


def _run(cmd: list[str]) -> dict[str, Any]:
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
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
    verdict = "PASS" if ours >= FLOOR_HANDS_PER_S else "FAIL"
    goal = "reached" if ours >= GOAL_HANDS_PER_S else "not reached"
    console.print(f"floor {FLOOR_HANDS_PER_S:,} hands/s: {verdict} ({ours:,.0f}); "
                  f"goal {GOAL_HANDS_PER_S:,}: {goal}")


if __name__ == "__main__":
    main()
