"""``rebelote hint`` and ``rebelote analyze``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rebelote.analysis import analyze
from rebelote.cli import selfplay_games
from rebelote.record import game_to_record, replay_record
from rebelote.rules import Rules


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rebelote", *args], capture_output=True,
                          text=True, timeout=300)


def _played_record() -> dict[str, Any]:
    for seed in range(20):
        game = selfplay_games(Rules.ffb(), 1, seed, ["heuristic"] * 4)[0]
        if not game.hands[0].is_void:
            record: dict[str, Any] = json.loads(json.dumps(game_to_record(game)))
            return record
    raise AssertionError("no played hand in 20 seeds")


def test_hint_lists_every_legal_action(tmp_path: Path) -> None:
    rec = _played_record()
    rec["hands"][0]["play"] = rec["hands"][0]["play"][:13]  # mid-trick, trick 4
    path = tmp_path / "progress.json"
    path.write_text(json.dumps(rec))
    game = replay_record(rec).game
    assert game.current is not None
    legal = {c for c in game.current.legal_actions()}
    res = cli("hint", str(path), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["seat"] == game.current.turn and out["measure"] == "expected points"
    from rebelote.cards import parse_card

    assert {parse_card(a["action"]) for a in out["actions"]} == legal
    values = [a["value"] for a in out["actions"]]
    assert values == sorted(values, reverse=True)


def test_hint_in_the_auction_and_when_nothing_is_left(tmp_path: Path) -> None:
    rec = _played_record()
    rec["hands"][0]["auction"] = []
    rec["hands"][0].pop("play")
    path = tmp_path / "auction.json"
    path.write_text(json.dumps(rec))
    out = json.loads(cli("hint", str(path), "--json").stdout)
    assert {a["action"] for a in out["actions"]} == {"pass", "take"}
    done = tmp_path / "done.json"
    done.write_text(json.dumps(_played_record()))
    res = cli("hint", str(done))
    assert res.returncode == 2 and "no decision left" in res.stderr


def test_analyze_costs_are_zero_for_best_cards_and_never_negative() -> None:
    rec = _played_record()
    game = replay_record(rec).game
    costs = analyze(game)
    assert len(costs) == 32
    assert all(c.cost >= 0 for c in costs)
    assert costs[-1].cost == 0 and costs[-4].cost == 0  # the last trick: no choice
    assert any(c.cost == 0 for c in costs[:4])


def test_analyze_cli(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_played_record()))
    res = cli("analyze", str(path), "--json")
    assert res.returncode == 0, res.stderr
    assert len(json.loads(res.stdout)["cards"]) == 32
