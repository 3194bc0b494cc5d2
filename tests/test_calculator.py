"""The score calculator (issue: score pad): the seed's worked examples, the reserve,
undo / fix, impossible input, files, the CLI and the interactive pad."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rebelote.calculator import HandEntry, ScoreSheet, new_sheet
from rebelote.rules import Rules
from rebelote.scoring import ScoreError


def cli(*args: str, stdin: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rebelote", *args], capture_output=True,
                          text=True, input=stdin, timeout=120, env=env)


# -- the seed's worked examples (seeds/003) ------------------------------------------------

@pytest.mark.parametrize(("entry", "scored", "outcome"), [
    (HandEntry(0, capot=0, announce=(20, 0)), (272, 0), "made"),  # capot + suivi of 3
    (HandEntry(0, 70, belote=(0,), announce=(0, 20)), (20, 182), "failed"),
    (HandEntry(0, 57, announce=(50, 0)), (107, 105), "made"),  # a quarante: 57 suffice
    (HandEntry(0, 40, announce=(50, 0)), (0, 212), "failed"),  # failed taker with a 50
    (HandEntry(0, 82), (82, 80), "made"),  # 82 against 80 is made
    (HandEntry(1, capot=1), (0, 252), "made"),
    (HandEntry(0, capot=1), (0, 252), "failed"),  # defense capot: 252 instead of 162
])
def test_seed_examples(entry: HandEntry, scored: tuple[int, int], outcome: str) -> None:
    sheet = new_sheet("moroccan")
    row = sheet.add(entry)
    assert row.score.scored == scored and row.score.outcome == outcome


def test_ties_carried_until_the_next_decided_hand() -> None:
    sheet = new_sheet("classic")
    sheet.add(HandEntry(0, 81))  # litige: defense 81, reserve 81
    sheet.add(HandEntry(1, 91, belote=(1,)))  # team 1: 71 + 20 = 91 vs 91: litige again
    rows = sheet.rows()
    assert rows[0].reserve == 81 and rows[0].score.scored == (0, 81)
    assert rows[1].score.outcome == "litige"
    assert rows[1].score.scored == (91, 20)  # defense (team 0) 91; takers keep belote
    assert rows[1].reserve == 81 + 71  # reserves accumulate; belote never in the reserve
    sheet.add(HandEntry(1, 70))  # team 1 takes and makes 92 vs 70: wins the 152 reserve
    last = sheet.rows()[-1]
    assert last.score.scored == (70, 92 + 152) and last.reserve == 0
    assert sheet.totals == (0 + 91 + 70, 81 + 20 + 244)


def test_failed_hand_after_a_tie_gives_the_reserve_to_the_defense() -> None:
    sheet = new_sheet("classic")
    sheet.add(HandEntry(0, 81))
    row = sheet.add(HandEntry(0, 60))
    assert row.score.scored == (0, 162 + 81)


@pytest.mark.parametrize(("entry", "message"), [
    (HandEntry(0, 163), "0 to 162"),
    (HandEntry(0, -5), "0 to 162"),
    (HandEntry(0, 100, capot=0), "leaves team 1 no card points"),
    (HandEntry(0, 12, capot=1), "leaves team 0 no card points"),
    (HandEntry(2, 100), "taking team"),
    (HandEntry(0, 100, announce=(20, 20)), "only one team's announcements"),
    (HandEntry(0, 100, belote=(0, 1)), "belotes are impossible"),
    (HandEntry(0, 100, announce=(15, 0)), "not an announcement"),
    (HandEntry(0), "card points"),
])
def test_impossible_entries_are_refused_and_change_nothing(entry: HandEntry,
                                                           message: str) -> None:
    sheet = new_sheet("classic")
    sheet.add(HandEntry(0, 95))
    with pytest.raises(ScoreError, match=message):
        sheet.add(entry)
    assert len(sheet.hands) == 1 and sheet.totals == (95, 67)


def test_auction_entries() -> None:
    sheet = new_sheet("coinche")
    with pytest.raises(ScoreError, match="80 to 160"):
        sheet.add(HandEntry(0, 100, bid=70, suit="H"))
    with pytest.raises(ScoreError, match="need the bid"):
        sheet.add(HandEntry(0, 100))
    row = sheet.add(HandEntry(0, 100, bid=90, suit="H"))
    assert row.score.scored == (190, 60)  # 100 + 90 and 62, rounded to tens
    row = sheet.add(HandEntry(0, 100, bid=90, double=2, suit="S"))
    assert row.score.scored == (500, 0)  # (160 + 90) × 2
    with pytest.raises(ScoreError, match="no announcements"):
        new_sheet("contree").add(HandEntry(0, 100, bid=80, announce=(20, 0)))


def test_undo_and_fix_recompute_every_later_row() -> None:
    sheet = new_sheet("classic")
    sheet.add(HandEntry(0, 81))
    sheet.add(HandEntry(0, 100))
    assert sheet.rows()[1].score.scored == (181, 62)
    sheet.fix(1, HandEntry(0, 90))  # the first hand was in fact made
    assert [r.score.scored for r in sheet.rows()] == [(90, 72), (100, 62)]
    with pytest.raises(ScoreError):
        sheet.fix(2, HandEntry(0, 200))
    assert sheet.rows()[1].score.scored == (100, 62)
    assert sheet.undo() == HandEntry(0, 100)
    assert len(sheet.hands) == 1
    sheet.undo()
    with pytest.raises(ScoreError, match="no hand to undo"):
        sheet.undo()


def test_game_end_and_winner_with_the_end_rules() -> None:
    sheet = new_sheet("classic", 500)
    sheet.add(HandEntry(0, capot=0))  # 252
    sheet.add(HandEntry(1, 10))  # team 1: 152
    assert sheet.winner is None
    sheet.add(HandEntry(0, capot=0))  # 504: over
    assert sheet.winner == 0
    with pytest.raises(ScoreError, match="over"):
        sheet.add(HandEntry(0, 100))
    tie = new_sheet("classic", 300)
    tie.add(HandEntry(0, capot=0))  # 252 - 0
    tie.add(HandEntry(1, 0, capot=1))  # 252 - 252
    tie.add(HandEntry(0, 81))  # litige: 252 - 333: over, team 1 wins
    assert tie.winner == 1


def test_save_and_resume(tmp_path: Path) -> None:
    sheet = new_sheet("classic", 701)
    sheet.add(HandEntry(0, 81))
    sheet.add(HandEntry(1, 50, belote=(1,), announce=(0, 20)))
    path = tmp_path / "sheet.json"
    sheet.save(path)
    again = ScoreSheet.load(path)
    assert again.rules.target == 701 and again.rows() == sheet.rows()
    path.write_text("{broken")
    with pytest.raises(ScoreError, match="not a readable JSON"):
        ScoreSheet.load(path)


# -- the command line ---------------------------------------------------------------------

def test_score_hand_json() -> None:
    res = cli("score", "hand", "--rules", "classic", "--taker", "0", "--points", "70",
              "--belote", "0", "--announce", "1=20", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"outcome": "failed", "scored": [20, 182], "reserve": 0}
    res = cli("score", "hand", "--taker", "1", "--points", "81", "--json")
    assert json.loads(res.stdout) == {"outcome": "litige", "scored": [81, 0], "reserve": 81}


@pytest.mark.parametrize("args", [
    ("--points", "163"), ("--capot", "0", "--points", "100"), ("--announce", "zero=20"),
    ("--rules", "whist", "--points", "100"), ("--rules", "coinche", "--points", "90",
                                              "--bid", "75"),
])
def test_score_hand_bad_input_exit_2(args: tuple[str, ...]) -> None:
    res = cli("score", "hand", "--taker", "0", *args)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1


def test_score_game_file(tmp_path: Path) -> None:
    game: dict[str, Any] = {"rules": {"preset": "classic", "target": 500}, "hands": [
        {"taker": 0, "points": 81},
        {"taker": 1, "points": 90, "announce": {"0": 20}, "belote": [0]},
        {"taker": 0, "capot": 0},
    ]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game))
    res = cli("score", "game", str(path), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    # Hand 2: team 1 fails (72 vs 90 + 20 + 20): team 0 scores 162 + 20 + 20 and the
    # reserve of hand 1's litige (81).
    assert [h["scored"] for h in out["hands"]] == [[0, 81], [162 + 40 + 81, 0], [252, 0]]
    assert out["hands"][0]["reserve"] == 81 and out["hands"][1]["reserve"] == 0
    assert out["totals"] == [535, 81] and out["winner"] == 0
    game["hands"].append({"taker": 0, "points": 100})
    path.write_text(json.dumps(game))
    over = cli("score", "game", str(path), "--json")
    assert over.returncode == 2 and "over after hand 3" in over.stderr
    game["hands"][0]["points"] = 999
    path.write_text(json.dumps(game))
    bad = cli("score", "game", str(path), "--json")
    assert bad.returncode == 2 and "hand 1" in bad.stderr


def test_interactive_pad_plays_saves_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    env = dict(os.environ, COLUMNS="120")
    first = "\n".join([
        "classic", "500",  # rules, target
        "n", "0", "n", "95", "n", "n",  # hand 1: we took, made 95
        "n", "1", "n", "170",  # hand 2: an impossible 170 is asked again...
        "81", "n", "n",  # ... then 81: litige
        "u", "y",  # undo hand 2 (asked to confirm)
        "n", "1", "n", "81", "n", "1",  # hand 2 again: they took, 81 + belote
    ]) + "\n"  # end of input: like Ctrl-C, the sheet stays saved
    res = cli("score", "--file", str(path), stdin=first, env=env)
    assert res.returncode == 130
    assert "is not between 0 and 162" in res.stdout
    saved = ScoreSheet.load(path)
    assert [r.score.scored for r in saved.rows()] == [(95, 67), (81, 101)]
    second = "\n".join(["y", "n", "0", "0", "n", "n", "q"]) + "\n"  # resume, we capot
    res = cli("score", "--file", str(path), stdin=second, env=env)
    assert res.returncode == 0, res.stdout
    assert [r.score.scored for r in ScoreSheet.load(path).rows()][-1] == (252, 0)
    third = "\n".join(["y", "n", "0", "0", "n", "n"]) + "\n"  # a capot ends the game
    res = cli("score", "--file", str(path), "--lang", "fr", stdin=third, env=env)
    assert "Nous gagnons la partie" in res.stdout


def test_interactive_pad_with_an_auction_preset(tmp_path: Path) -> None:
    path = tmp_path / "coinche.json"
    env = dict(os.environ, COLUMNS="120")
    lines = "\n".join([
        "coinche", "2000",
        "n", "0", "70", "90", "H", "1", "n", "100", "n", "n",  # bid 70 refused, then 90H
        "n", "1", "capot", "S", "2", "1", "n", "n",  # they bid capot, coinched, made it
        "q",
    ]) + "\n"
    res = cli("score", "--file", str(path), stdin=lines, env=env)
    assert res.returncode == 0, res.stdout
    assert "a bid is 80 to 160" in res.stdout
    # the trump's letters are said (S was not obviously spades, nor in French)
    assert "Trump (S ♠ spades, H ♥ hearts, D ♦ diamonds, C ♣ clubs)" in res.stdout
    rows = ScoreSheet.load(path).rows()
    # Coinched capot made: (250 card points + 250 for the capot bid) x 2.
    assert [r.score.scored for r in rows] == [(190, 60), (0, 1000)]


# -- the pad as a new user meets it (issue 18, items 10 and 12) ---------------------------

def _pad(path: Path, lines: list[str], lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="140")
    return cli("score", "--file", str(path), "--lang", lang, stdin="\n".join(lines) + "\n",
               env=env)


def test_pad_yes_no_accepts_o_and_s_and_rich_speaks_the_language(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    _pad(path, ["classic", "500", "n", "0", "n", "95", "n", "n", "q"])
    res = _pad(path, ["x", "o", "q"], lang="fr")  # "x" refused in French, "o" is oui
    assert res.returncode == 0, res.stdout
    assert "[o/n]" in res.stdout and "(1 donne)" in res.stdout
    assert "Répondez o (oui) ou n (non)" in res.stdout and "Please" not in res.stdout
    assert len(ScoreSheet.load(path).hands) == 1
    res = _pad(path, ["s", "zz", "q"], lang="es")  # "s" is sí; "zz" not a menu choice
    assert "[s/n]" in res.stdout and "Elija una de las opciones propuestas" in res.stdout
    assert "(1 mano)" in res.stdout
    res = _pad(path, ["o", "n", "0", "n", "170", "95", "n", "n", "q"], lang="fr")
    assert "170 n'est pas entre 0 et 162" in res.stdout


def test_pad_declining_to_resume_keeps_the_old_sheet(tmp_path: Path) -> None:
    """'n', then Enter, Enter started an empty sheet over the old one."""
    path = tmp_path / "pad.json"
    _pad(path, ["classic", "500", "n", "0", "n", "95", "n", "n", "q"])
    res = _pad(path, ["n", "", "", "q"])
    assert res.returncode == 0, res.stdout
    backup = tmp_path / "pad.backup.json"
    assert len(ScoreSheet.load(backup).hands) == 1 and not ScoreSheet.load(path).hands
    assert "pad.backup.json" in res.stdout


def test_pad_keeps_a_sheet_it_cannot_read(tmp_path: Path) -> None:
    """A sheet with one wrong-typed field was replaced by an empty one."""
    path = tmp_path / "pad.json"
    text = json.dumps({"rules": {"preset": "classic"}, "hands": [{"taker": "zero",
                                                                  "points": 90}]})
    path.write_text(text)
    res = _pad(path, ["", "", "q"])
    assert res.returncode == 0, res.stdout
    assert (tmp_path / "pad.unreadable.json").read_text() == text
    assert "cannot be read" in res.stdout


def test_pad_undo_asks_and_can_be_restored(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    res = _pad(path, ["classic", "500", "n", "0", "n", "95", "n", "n",
                      "u", "n",  # declined: the hand stays
                      "u", "y",  # removed...
                      "r",  # ... and restored
                      "q"])
    assert res.returncode == 0, res.stdout
    assert "Remove hand 1" in res.stdout and "Hand 1 restored" in res.stdout
    assert [r.score.scored for r in ScoreSheet.load(path).rows()] == [(95, 67)]


def test_pad_can_correct_the_last_hand_once_the_game_is_won(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    res = _pad(path, ["classic", "500",
                      "n", "0", "0", "n", "n",  # capot by us: 252
                      "n", "0", "0", "n", "n",  # another: 504, the game is won
                      "f", "2", "0", "n", "100", "n", "n",  # hand 2 was only 100 points
                      "q"])
    assert res.returncode == 0, res.stdout
    rows = ScoreSheet.load(path).rows()
    assert [r.score.scored for r in rows] == [(252, 0), (100, 62)]
    assert "capot (Us)" in res.stdout  # a capot shows as such on the sheet


def test_pad_offers_both_belotes_only_where_possible(tmp_path: Path) -> None:
    """"b = both" was offered in a one-trump game, then refused, losing the hand."""
    path = tmp_path / "pad.json"
    res = _pad(path, ["classic", "500", "n", "0", "n", "95", "n", "b", "0", "q"])
    assert "b = both" not in res.stdout
    assert ScoreSheet.load(path).hands[0].belote == (0,)
    coinche = tmp_path / "coinche.json"
    res = _pad(coinche, ["coinche", "2000", "n", "0", "90", "TA", "1", "n", "100", "n", "b",
                         "q"])
    assert res.returncode == 0, res.stdout
    assert ScoreSheet.load(coinche).hands[0].belote == (0, 1)


def test_pad_does_not_offer_the_three_player_preset(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    res = _pad(path, ["three", "classic", "500", "q"])
    assert res.returncode == 0, res.stdout
    assert "Please choose one of the options shown" in res.stdout  # "three" refused
    assert ScoreSheet.load(path).rules.preset == "classic"
    with pytest.raises(ScoreError, match="three"):
        new_sheet("three")


# -- announcement totals no combination can make (issue 15) -------------------------------

@pytest.mark.parametrize("total", [10, 21, 30, 130, 460, 480, 510, 560, 1000, -20])
def test_impossible_announcement_totals_are_refused(total: int) -> None:
    with pytest.raises(ScoreError, match="not an announcement total"):
        HandEntry(0, 100, announce=(total, 0)).outcome(Rules.classic())


def test_announcement_totals_come_from_real_hands() -> None:
    """Every total two random partners hold is accepted; some edge totals are made by
    hands built for them (carrés of jacks and nines + aces and tens: 550)."""
    import random

    from rebelote.announcements import find_announcements, team_totals
    from rebelote.cards import mask_of, parse_card

    rng = random.Random(15)
    for _ in range(20000):
        deck = list(range(32))
        rng.shuffle(deck)
        total = sum(a.points for a in find_announcements(mask_of(deck[:8]))) + sum(
            a.points for a in find_announcements(mask_of(deck[8:16])))
        assert total in team_totals()

    def held(*hands: str) -> int:
        return sum(a.points for h in hands
                   for a in find_announcements(mask_of(parse_card(c) for c in h.split())))

    built = {
        550: ("JS JH JD JC 9S 9H 9D 9C", "AS AH AD AC 10S 10H 10D 10C"),
        120: ("7S 8S 9S 10S JS 7H 8H 9H", ""),
        140: ("7S 8S 9S 10S JS 7H 8H 9H", "7D 8D 9D"),
        70: ("7S 8S 9S JS QS KS AS", ""),
    }
    for total, hands in built.items():
        assert held(*hands) == total and total in team_totals()
        HandEntry(0, 100, announce=(total, 0)).outcome(Rules.classic())


def test_cli_refuses_an_impossible_announcement_total() -> None:
    res = cli("score", "hand", "--points", "100", "--announce", "0=30")
    assert res.returncode == 2 and "30 is not an announcement total" in res.stderr
    assert cli("score", "hand", "--points", "100", "--announce", "0=70").returncode == 0


def test_every_refusal_of_the_calculator_is_in_the_catalog_in_three_languages() -> None:
    """The pad and the web calculator said the engine's refusals in English only."""
    import string

    from rebelote.i18n import catalog
    from rebelote.scoring import SCORE_ERRORS

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    for lang in ("fr", "es"):
        texts = catalog(lang)["texts"]
        for key, english in SCORE_ERRORS.items():
            assert texts[key] != english, (lang, key)
            assert fields(texts[key]) == fields(english), (lang, key)


def test_the_pad_says_the_calculator_s_refusals_in_the_user_s_language(tmp_path: Path) -> None:
    path = tmp_path / "pad.json"
    res = _pad(path, ["classic", "250",
                      "n", "0", "n", "95", "n", "n",
                      "n", "0", "n", "95", "n", "n",
                      "f", "1", "0", "0", "n", "n",  # a capot in hand 1 would end the game
                      "q"], lang="fr")
    assert res.returncode == 0, res.stdout
    assert "la partie était finie après la donne 1" in res.stdout, res.stdout
    assert "the game was over" not in res.stdout
    assert [r.score.scored for r in ScoreSheet.load(path).rows()] == [(95, 67), (95, 67)]
    text = json.dumps({"rules": {"preset": "classic"}, "hands": [{"taker": "zero"}]})
    path.write_text(text)
    res = _pad(path, ["", "", "q"], lang="es")
    assert "mano 1: taker debe ser un número entero, no 'zero'" in res.stdout, res.stdout


def test_the_web_calculator_refuses_in_the_page_s_language() -> None:
    from rebelote.server.app import score_sheet_report

    sheet = json.dumps({"rules": {"preset": "classic"},
                        "hands": [{"taker": 0, "points": 170}]}).encode()
    status, body = score_sheet_report(sheet, "fr")
    assert status == 400
    assert json.loads(body)["error"] == ("donne 1 : les points de plis vont de 0 à 162 "
                                         "(dix de der compris), pas 170")
    assert "card points go" in json.loads(score_sheet_report(sheet)[1])["error"]
