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
    assert out["measure"] == "% made"  # from solved deals, as the expert bids
    value = {a["action"]: a["value"] for a in out["actions"]}
    assert value["pass"] == 75 and 0 <= value["take"] <= 100  # pass: the expert's line
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


def test_auction_hints_give_each_bid_its_expected_score() -> None:
    """Contrée, a long spade suit with its jack and nine: bidding it is worth more than
    passing (0), a heart bid is worth less, and bidding too high costs."""
    from rebelote.analysis import hint
    from rebelote.cards import parse_card
    from rebelote.game import Game
    from rebelote.hand import HandState

    strong = [parse_card(n) for n in ["JS", "9S", "AS", "10S", "KS", "AH", "AD", "7C"]]
    others = [c for c in range(32) if c not in strong]
    rules = Rules.contree()
    game = Game(rules, dealer=3)
    game.start_hand(HandState.from_deal(rules, 3, [strong, others[:8], others[8:16],
                                                   others[16:]]))
    seat, hints = hint(game)
    assert seat == 0 and {h.measure for h in hints} == {"expected score"}  # solved deals
    value = {h.action: h.value for h in hints}
    assert value["pass"] == 0
    assert value["80S"] > 0 > value["80H"]
    assert value["160S"] < max(value[f"{v}S"] for v in (80, 90, 100, 110, 120))
