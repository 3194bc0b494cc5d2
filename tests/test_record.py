"""RECORD.md: records written and replayed, errors located, the CLI contract."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rebelote.cli import selfplay_games
from rebelote.game import Game
from rebelote.record import RecordError, game_to_record, replay_record
from rebelote.rules import Rules


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rebelote", *args], capture_output=True,
                          text=True, timeout=120)


def _random_game(rules: Rules, seed: int, hands: int = 1000) -> Game:
    rng = random.Random(seed)
    game = Game(rules, rng)
    while not game.is_over and len(game.hands) <= hands:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_record_written_and_replayed_gives_the_same_result() -> None:
    for seed, rules in enumerate([Rules.classic(), Rules.ffb(), Rules.skill7(),
                                  Rules.moroccan().replace(auto_announce=False)]):
        game = _random_game(rules, seed)
        rec = json.loads(json.dumps(game_to_record(game)))
        rep = replay_record(rec)
        assert rep.game.totals == game.totals
        assert rep.game.winner == game.winner
        assert [s.scored for s in rep.game.scores] == [s.scored for s in game.scores]


def _example() -> dict[str, Any]:
    game = _random_game(Rules.classic(), 42, hands=1)
    record: dict[str, Any] = json.loads(json.dumps(game_to_record(game)))
    return record


def test_example_record_shape() -> None:
    rec = _example()
    assert rec["format"] == "belote-record" and rec["version"] == 1
    assert rec["rules"]["preset"] == "classic"
    h = rec["hands"][0]
    assert {"dealer", "cards", "retourne", "auction"} <= set(h)
    assert all(isinstance(c, str) for seat in h["cards"] for c in seat)


def _first_played_hand(rec: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    for i, h in enumerate(rec["hands"]):
        if h.get("play"):
            return i, h
    raise AssertionError("no played hand")


def test_illegal_card_is_located_with_index_seat_and_rule() -> None:
    rec = _example()
    i, h = _first_played_hand(rec)
    rec["hands"] = rec["hands"][:i + 1]
    # Swap the second card of the play for a card its player does not hold.
    h["play"][1] = h["play"][0]
    with pytest.raises(RecordError) as err:
        replay_record(rec)
    e = err.value
    assert (e.hand, e.index, e.list_name) == (i + 1, 1, "play")
    assert e.seat is not None and e.rule == "card not in hand"
    assert f"hand {i + 1}, play index 1 (seat {e.seat})" in str(e)


def test_illegal_call_is_located() -> None:
    rec = _example()
    rec["hands"] = rec["hands"][:1]
    rec["hands"][0]["auction"] = ["pass", "pass", "pass", "pass", rec["hands"][0]["retourne"][-1]]
    rec["hands"][0].pop("play", None)
    with pytest.raises(RecordError) as err:
        replay_record(rec)
    assert err.value.index == 4 and err.value.rule == "round 2 names another suit"


@pytest.mark.parametrize("mutate", [
    lambda r: r.update(format="chess"),
    lambda r: r.update(version=9),
    lambda r: r.update(rules={"preset": "whist"}),
    lambda r: r.update(rules={"preset": "classic", "pisser": True}),
    lambda r: r.update(hands="none"),
    lambda r: r["hands"][0].update(dealer=7),
    lambda r: r["hands"][0].update(cards=[["JS"]] * 4),
    lambda r: r["hands"][0].update(retourne="XX"),
    lambda r: r["hands"][0].update(auction="take"),
])
def test_malformed_records_are_refused(mutate: Any) -> None:
    rec = _example()
    mutate(rec)
    with pytest.raises(RecordError):
        replay_record(rec)


def test_contract_record_without_auction() -> None:
    deal = [["JS", "9S", "AS", "10S", "KS", "QS", "8S", "7S"],
            ["JH", "9H", "AH", "10H", "KH", "QH", "8H", "7H"],
            ["JD", "9D", "AD", "10D", "KD", "QD", "8D", "7D"],
            ["JC", "9C", "AC", "10C", "KC", "QC", "8C", "7C"]]
    play = []
    for trick in range(8):  # seat 0 leads spades, wins every trick
        play += [deal[s][trick] for s in range(4)]
    rec = {"format": "belote-record", "version": 1, "rules": {"preset": "ffb"},
           "hands": [{"dealer": 3, "cards": deal, "contract": {"taker": 0, "trump": "S"},
                      "play": play}]}
    rep = replay_record(rec).to_json()
    h = rep["hands"][0]
    assert h["outcome"] == "made" and h["card_points"] == [252, 0]
    assert h["belote"] == [20, 0] and h["scored"] == [272, 0]


def test_in_progress_record() -> None:
    rec = _example()
    i, h = _first_played_hand(rec)
    rec["hands"] = rec["hands"][:i + 1]
    h["play"] = h["play"][:5]
    out = replay_record(rec).to_json()
    assert out["hands"][-1]["outcome"] == "in_progress" and out["winner"] is None


def test_selfplay_same_seed_same_games() -> None:
    a = selfplay_games(Rules.classic(), 20, 5, ["random"] * 4)
    b = selfplay_games(Rules.classic(), 20, 5, ["random"] * 4)
    assert [game_to_record(g) for g in a] == [game_to_record(g) for g in b]
    c = selfplay_games(Rules.classic(), 20, 6, ["random"] * 4)
    assert [game_to_record(g) for g in a] != [game_to_record(g) for g in c]
    assert sum(len(g.hands) for g in a) == 20


def test_cli_selfplay_record_replay_roundtrip(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    sp = run_cli("selfplay", "--preset", "skill7", "--hands", "25", "--seed", "3",
                 "--bots", "random", "--record", str(path), "--json")
    assert sp.returncode == 0, sp.stderr
    summary = json.loads(sp.stdout)
    rp = run_cli("replay", str(path), "--json")
    assert rp.returncode == 0, rp.stderr
    out = json.loads(rp.stdout)
    games = out.get("games", [out])
    assert [g["totals"] for g in games] == [g["totals"] for g in summary["games"]]
    text = run_cli("replay", str(path))
    assert text.returncode == 0 and "totals:" in text.stdout


def test_cli_replay_json_fields(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps(_example()))
    out = json.loads(run_cli("replay", str(path), "--json").stdout)
    assert set(out) == {"hands", "totals", "winner"}
    assert set(out["hands"][0]) == {"taker", "trump", "outcome", "card_points", "announcements",
                                    "belote", "scored", "reserve"}


@pytest.mark.parametrize(("content", "fragment"), [
    ("{not json", "malformed JSON"),
    ('{"format": "belote-record", "version": 1, "hands": [{"dealer": 0, "cards": '
     '[["ZZ"]], "auction": []}]}', "'cards' must list the cards of 4 seats"),
])
def test_cli_bad_input_exits_2_with_one_sentence(tmp_path: Path, content: str,
                                                 fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    res = run_cli("replay", str(path))
    assert res.returncode == 2
    assert fragment in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_cli_illegal_card_exit_2(tmp_path: Path) -> None:
    rec = _example()
    i, h = _first_played_hand(rec)
    rec["hands"] = rec["hands"][:i + 1]
    h["play"][1] = "7X"
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(rec))
    res = run_cli("replay", str(path), "--json")
    assert res.returncode == 2
    assert f"hand {i + 1}, play index 1" in res.stderr and "7X" in res.stderr
    assert json.loads(res.stdout)["error"]["index"] == 1


def test_cli_missing_file_and_unknown_preset() -> None:
    assert run_cli("replay", "/nonexistent/file.json").returncode == 2
    res = run_cli("selfplay", "--preset", "whist")
    assert res.returncode == 2 and "unknown preset" in res.stderr


@pytest.mark.parametrize("args", [("replay",), ("selfplay", "--hands", "x"), ("bogus",)])
def test_cli_usage_errors_are_one_sentence_exit_2(args: tuple[str, ...]) -> None:
    res = run_cli(*args)
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_a_game_saved_during_the_auction_resumes() -> None:
    from rebelote.hand import PASS, TAKE

    rng = random.Random(3)
    game = Game(Rules.classic(), rng, dealer=0)
    game.apply(PASS)  # seat 1 passes; the auction is going on
    rec = json.loads(json.dumps(game_to_record(game)))
    assert len(rec["hands"][0]["stock"]) == 11
    resumed = replay_record(rec).game
    assert resumed.current is not None and resumed.current.calls == [PASS]
    resumed.apply(TAKE)  # seat 2 takes: the deal completes from the saved stock
    game.apply(TAKE)
    assert resumed.current.hands == game.current.hands  # type: ignore[union-attr]
    rec["hands"][0]["stock"] = rec["hands"][0]["stock"][:-1]
    with pytest.raises(RecordError, match="every card"):
        replay_record(rec)


def test_direction_is_recorded_and_seat_s_plus_1_always_plays_next() -> None:
    rules = Rules.classic().replace(direction="clockwise")
    game = _random_game(rules, 12, hands=2)
    rec = json.loads(json.dumps(game_to_record(game)))
    assert rec["rules"]["direction"] == "clockwise"
    replayed = replay_record(rec).game
    assert replayed.rules.direction == "clockwise"
    hand = next(h for h in replayed.hands if len(h.played) >= 3)
    for i, card in enumerate(hand.played[:3]):  # the first trick: seats in s, s+1, s+2
        assert hand.dealt[(hand.trick_leaders[0] + i) % 4] >> card & 1
