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


# -- contracts the rules cannot make, auction and contract, classic bids (issue 15) -------

_DEAL = [["JS", "9S", "AS", "10S", "KS", "QS", "8S", "7S"],
         ["JH", "9H", "AH", "10H", "KH", "QH", "8H", "7H"],
         ["JD", "9D", "AD", "10D", "KD", "QD", "8D", "7D"],
         ["JC", "9C", "AC", "10C", "KC", "QC", "8C", "7C"]]


def _contract_record(preset: str, contract: dict[str, Any]) -> dict[str, Any]:
    return {"format": "belote-record", "version": 1, "rules": {"preset": preset},
            "hands": [{"dealer": 3, "cards": _DEAL, "contract": contract}]}


@pytest.mark.parametrize(("preset", "contract", "fragment"), [
    ("classic", {"taker": 0, "trump": "SA"}, "round2_no_trump"),
    ("classic", {"taker": 0, "trump": "TA"}, "round2_all_trump"),
    ("acorralada", {"taker": 0, "trump": "SA", "bid": 100}, "auction_no_trump"),
    ("acorralada", {"taker": 1, "trump": "TA", "bid": 80}, "auction_all_trump"),
    ("classic", {"taker": 0, "trump": "S", "bid": 100}, "no bid or double"),
    ("ffb", {"taker": 0, "trump": "S", "double": 2}, "no bid or double"),
])
def test_contracts_the_rules_cannot_make_are_refused(preset: str, contract: dict[str, Any],
                                                     fragment: str) -> None:
    with pytest.raises(RecordError) as err:
        replay_record(_contract_record(preset, contract))
    assert fragment in str(err.value) and err.value.hand == 1


def test_contracts_the_rules_allow_still_replay() -> None:
    rules = {"preset": "classic", "round2_no_trump": True}
    rec = _contract_record("classic", {"taker": 0, "trump": "SA"})
    rec["rules"] = rules
    assert replay_record(rec).hands[0].trump == "SA"
    assert replay_record(_contract_record("coinche", {"taker": 0, "trump": "H", "bid": 90,
                                                      "double": 2})).hands[0].trump == "H"
    assert replay_record(_contract_record("classic", {"taker": 0, "trump": "S",
                                                      "double": 1})).hands[0].trump == "S"


@pytest.mark.parametrize("rules", [Rules.classic(), Rules.coinche()], ids=["classic", "coinche"])
def test_auction_and_contract_must_agree(rules: Rules) -> None:
    game = _random_game(rules, 7, hands=3)
    rec: dict[str, Any] = json.loads(json.dumps(game_to_record(game)))
    i, entry = _first_played_hand(rec)
    rec["hands"] = rec["hands"][:i + 1]
    hand = game.hands[i]
    agreeing: dict[str, Any] = {"taker": hand.taker, "trump": hand.contract_name()}
    if rules.game == "auction":
        agreeing |= {"bid": "capot" if hand.bid_level == 9 else hand.contract_value(),
                     "double": hand.double}
    entry["contract"] = agreeing
    assert replay_record(rec).hands[-1].scored == tuple(game.scores[i].scored)
    changes: list[dict[str, Any]] = [{"taker": (hand.taker + 1) % 4},
                                     {"trump": "SHDC"[(hand.contract + 1) % 4]}]
    if rules.game == "auction":
        changes += [{"bid": 160 if agreeing["bid"] != 160 else 150},
                    {"double": 4 if hand.double != 4 else 1}]
    for change in changes:
        entry["contract"] = agreeing | change
        with pytest.raises(RecordError) as err:
            replay_record(rec)
        assert "disagrees with the 'auction'" in str(err.value)
        assert err.value.hand == i + 1


def test_cli_refuses_an_impossible_contract_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "sa.json"
    path.write_text(json.dumps(_contract_record("classic", {"taker": 0, "trump": "SA"})))
    res = run_cli("replay", str(path))
    assert res.returncode == 2
    assert "SA cannot be made" in res.stderr and len(res.stderr.strip().splitlines()) == 1


# -- calls after the auction ended: hand, index, seat and rule ----------------------------

def _located_call(rec: dict[str, Any], auction: list[str]) -> RecordError:
    rec["hands"] = rec["hands"][:1]
    rec["hands"][0]["auction"] = auction
    rec["hands"][0].pop("play", None)
    with pytest.raises(RecordError) as err:
        replay_record(rec)
    return err.value


def test_call_after_a_take_is_located_with_seat_and_rule() -> None:
    rec = _example()
    e = _located_call(rec, ["pass", "take", "pass"])
    dealer = rec["hands"][0]["dealer"]
    seat = (dealer + 3) % 4  # first hand passed, the next took, this is the one after
    assert (e.hand, e.index, e.list_name, e.seat, e.rule) == (
        1, 2, "auction", seat, "calls only in the auction")
    assert f"hand 1, auction index 2 (seat {seat})" in str(e)
    assert "[rule: calls only in the auction]" in str(e)
    assert f"seat {(dealer + 2) % 4} " in str(e)  # says who took


def test_calls_after_a_coinche_auction_ended_are_located() -> None:
    game = _random_game(Rules.coinche(), 2, hands=1)
    base: dict[str, Any] = json.loads(json.dumps(game_to_record(game)))
    dealer = base["hands"][0]["dealer"]
    first = (dealer + 1) % 4
    cases = [  # (auction, index of the late call, its seat)
        (["80H", "pass", "pass", "pass", "coinche"], 4, first),  # after three passes
        (["80H", "coinche", "pass", "pass", "pass", "pass"], 5, (first + 1) % 4),
        (["80H", "coinche", "surcoinche", "pass"], 3, (first + 3) % 4),
    ]
    for auction, index, seat in cases:
        e = _located_call(json.loads(json.dumps(base)), auction)
        assert (e.index, e.seat, e.rule) == (index, seat, "calls only in the auction"), auction
        assert f"auction index {index} (seat {seat})" in str(e)


# -- replay --json of several games, hostile JSON ------------------------------------------

def test_cli_replay_json_of_several_games_keeps_the_documented_fields(tmp_path: Path) -> None:
    path = tmp_path / "games.json"
    sp = run_cli("selfplay", "--preset", "skill7", "--hands", "30", "--seed", "5",
                 "--bots", "random", "--record", str(path), "--json")
    assert sp.returncode == 0, sp.stderr
    games = json.loads(sp.stdout)["games"]
    assert len(games) > 1
    out = json.loads(run_cli("replay", str(path), "--json").stdout)
    assert set(out) == {"hands", "totals", "winner", "games"}
    assert len(out["games"]) == len(games)
    assert out["hands"] == [h for g in out["games"] for h in g["hands"]]
    assert len(out["hands"]) == 30
    assert out["totals"] == games[-1]["totals"] == out["games"][-1]["totals"]
    assert out["winner"] == games[-1]["winner"]


_HOSTILE = {
    "deep_array": "[" * 5000 + "]" * 5000,
    "deep_in_record": '{"format": "belote-record", "hands": [{"dealer": ' + "[" * 3000
                      + "]" * 3000 + "}]}",
    "huge_int": '{"format": "belote-record", "hands": [{"dealer": ' + "7" * 5000 + "}]}",
    "huge_negative": '{"version": -' + "1" * 5000 + ', "hands": []}',
}


@pytest.mark.parametrize("command", ["replay", "analyze", "hint"])
@pytest.mark.parametrize("name", list(_HOSTILE))
def test_hostile_json_is_bad_input_exit_2(tmp_path: Path, command: str, name: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(_HOSTILE[name])
    res = run_cli(command, str(path))
    assert res.returncode == 2, res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and len(res.stderr) < 300


def test_deep_strings_do_not_count_as_nesting() -> None:
    from rebelote.record import parse_json

    assert parse_json('{"a": "' + "[" * 500 + '\\" ]"}', "x") == {"a": "[" * 500 + '" ]'}
    with pytest.raises(RecordError):
        parse_json("[" * 65 + "]" * 65, "x")
    assert parse_json("[" * 64 + "]" * 64, "x")
