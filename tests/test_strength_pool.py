"""``bench.strength --from``: the strength table and curve drawn from separate
``bench.peer_match`` runs, the runs of one budget and bidder pooled on all their deals."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.strength import budget_of, from_logs, pool

ROOT = Path(__file__).resolve().parents[1]


def result(mean: float, half: float, deals: int, budget: int = 100, bidder: str = "v2",
           card_max: float = 150.0, cards: int = 1000) -> dict[str, Any]:
    """A peer_match result line as the harness writes it (the fields the table reads)."""
    return {"peer": "colver", "colver_bidder": bidder, "level": f"expert:{budget}",
            "deals": deals, "mean": mean, "ci95": [mean - half, mean + half],
            "our_decision_ms": 40.0 + mean / 10, "peer_decision_ms": 25.0,
            "peer_time_ms": 43, "our_card_max_ms": card_max, "our_card_max_cpu_ms": card_max,
            "our_card_max_unheld_ms": card_max, "our_cards": cards,
            "our_cards_over_2_budgets": 1, "our_bid_max_ms": 0.5, "our_card_median_ms": 2.0,
            "our_bid_median_ms": 0.1}


def test_pool_weights_by_deals_and_narrows_the_interval() -> None:
    a, b = result(20.0, 14.0, 500), result(10.0, 14.0, 500, card_max=170.0, cards=1200)
    pooled = pool([a, b])
    assert pooled["deals"] == 1000 and pooled["runs"] == 2
    assert pooled["mean"] == pytest.approx(15.0)
    # two independent halves: the standard error falls by √2
    lo, hi = pooled["ci95"]
    assert (hi - lo) / 2 == pytest.approx(14.0 / math.sqrt(2))
    assert pooled["our_card_max_ms"] == 170.0  # the longest of any run
    assert pooled["our_cards"] == 2200 and pooled["our_cards_over_2_budgets"] == 2
    assert pooled["our_decision_ms"] == pytest.approx(41.5)
    # unequal runs: the larger one counts more
    c = pool([result(30.0, 10.0, 300), result(0.0, 10.0, 100)])
    assert c["mean"] == pytest.approx(22.5)
    assert pool([a])["ci95"] == pytest.approx(a["ci95"])
    assert pool([a])["our_cards"] == 1000 and isinstance(pool([a])["our_cards"], int)
    seeded = pool([dict(a, seed=7), dict(b, seed=8)])
    assert seeded["seeds"] == [7, 8] and "seed" not in seeded
    # a field one run lacks (an older record) is not known for the pool
    older = {k: v for k, v in b.items() if k != "our_card_median_ms"}
    assert "our_card_median_ms" not in pool([a, older])
    with pytest.raises(ValueError):
        pool([])


def test_budget_of_reads_the_level() -> None:
    assert budget_of(result(0, 1, 10, budget=500)) == 500
    assert budget_of({"budget_ms": 10}) == 10
    with pytest.raises(ValueError):
        budget_of({"level": "expert"})
    with pytest.raises(ValueError):
        budget_of({"level": "heuristic:10"})


def write_log(path: Path, res: dict[str, Any]) -> Path:
    path.write_text("probing...\n" + json.dumps(res) + "\n", encoding="utf-8")
    return path


def test_from_logs_groups_by_budget_and_bidder(tmp_path: Path) -> None:
    logs = [write_log(tmp_path / "a.log", result(20.0, 14.0, 500, 100, "v2")),
            write_log(tmp_path / "b.log", result(10.0, 14.0, 500, 100, "v2")),
            write_log(tmp_path / "c.log", result(30.0, 20.0, 200, 500, "v2")),
            write_log(tmp_path / "d.log", result(5.0, 14.0, 500, 100, "v1"))]
    record = tmp_path / "record.jsonl"  # several runs, one a line
    record.write_text(json.dumps(result(0.0, 20.0, 200, 500, "v2")) + "\n"
                      + json.dumps(result(0.0, 20.0, 200, 10, "v1")) + "\n", encoding="utf-8")
    rows = from_logs([*logs, record])
    assert [(r["budget_ms"], r["colver_bidder"], r["deals"]) for r in rows] == [
        (10, "v1", 200), (100, "v1", 500), (100, "v2", 1000), (500, "v2", 400)]
    assert rows[3]["mean"] == pytest.approx(15.0)
    rows = from_logs(logs)
    keys = [(r["budget_ms"], r["colver_bidder"], r["deals"]) for r in rows]
    assert keys == [(100, "v1", 500), (100, "v2", 1000), (500, "v2", 200)]
    assert rows[1]["mean"] == pytest.approx(15.0)
    fixed = write_log(tmp_path / "fixed.log", dict(result(9.0, 14.0, 100), play_only=True))
    with pytest.raises(ValueError, match="play-only"):
        from_logs([logs[0], fixed])
    bad = tmp_path / "bad.log"
    bad.write_text("Traceback (most recent call last):\n  boom\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.log: no peer_match result"):
        from_logs([bad])


def test_the_command_draws_the_pooled_curve(tmp_path: Path) -> None:
    logs = [str(write_log(tmp_path / f"{i}.log", result(10.0 * i, 14.0, 500, b, "v2")))
            for i, b in enumerate((10, 100, 100, 500))]
    png = tmp_path / "curve.png"
    out = subprocess.run([sys.executable, "-m", "bench.strength", "--from", *logs,
                          "--plot", str(png)], cwd=ROOT, capture_output=True, text=True,
                         timeout=120, check=True)
    rows = json.loads(out.stdout.strip().splitlines()[-1])["results"]
    assert [r["budget_ms"] for r in rows] == [10, 100, 500]
    assert rows[1]["deals"] == 1000 and rows[1]["mean"] == pytest.approx(15.0)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "runs pooled" in out.stderr
    bad = tmp_path / "empty.log"
    bad.write_text("", encoding="utf-8")
    failed = subprocess.run([sys.executable, "-m", "bench.strength", "--from", str(bad),
                             "--plot", str(png)], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert failed.returncode != 0 and "empty.log" in failed.stderr
