"""The command line as a user meets it (issue 18, item 13 and the play command's items 4
and 5): help, errors, tables, languages, refusing to run without a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def cli(*args: str, stdin: str | None = None, cwd: Path | None = None,
        timeout: int = 120, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run([sys.executable, "-m", "rebelote", *args], capture_output=True,
                          text=True, input=stdin if stdin is not None else "", timeout=timeout,
                          cwd=cwd, env=env)


def test_rebelote_alone_prints_the_help_and_no_empty_error() -> None:
    done = cli()
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("Usage:") and "play" in done.stdout


@pytest.mark.parametrize("command", [(), ("play",), ("arena",), ("replay",), ("score", "hand"),
                                     ("selfplay",), ("analyze",)])
def test_help_screens_name_values_not_python_types(command: tuple[str, ...]) -> None:
    done = cli(*command, "--help")
    assert done.returncode == 0, done.stderr
    for hint in ("<bool>", "<str>", "<int>", "<path>", "<int range>"):
        assert hint not in done.stdout, (command, hint)


def test_help_paragraphs_are_wrapped_to_the_terminal() -> None:
    """A docstring's own line breaks do not show (they cut sentences in two)."""
    done = cli("arena", "--help", columns=200)
    words = " ".join(done.stdout.split())
    assert "with a 95% interval, game win rates, and a plot." in words


def test_play_refuses_a_bad_record_and_runs_only_on_a_terminal(tmp_path: Path) -> None:
    """Item 4: a bad --resume file is one sentence with exit 2 (it was a long traceback
    with exit 0); without a terminal `play` refuses at once (it spun a core)."""
    bad = tmp_path / "bad.json"
    for content in ('{"rules": {"preset": "classic"}}', "not json", '{"hands": [[1, 2]]}'):
        bad.write_text(content)
        done = cli("play", "--resume", str(bad))
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    done = cli("play", "--preset", "classic", timeout=60)
    assert done.returncode == 2 and "needs a terminal" in done.stderr


def test_play_resume_reads_the_seat_from_the_record(tmp_path: Path) -> None:
    """Item 5: the record names the human's seat "You"; resume takes that seat."""
    from rebelote.record import replay_file
    from rebelote.tui.session import Setup, TableSession, human_seat

    record = tmp_path / "g.json"
    TableSession.new(Setup(seat=3, seed=2), record)
    game = replay_file(record)[0].game
    assert human_seat(game, 0) == 3
    assert TableSession.resume(record, 0, "random").human == 3


def test_replay_selfplay_and_hint_print_tables(tmp_path: Path) -> None:
    record = tmp_path / "r.json"
    done = cli("selfplay", "--hands", "2", "--record", str(record))
    assert done.returncode == 0 and "┃" in done.stdout and "game" in done.stdout
    done = cli("replay", str(record))
    assert done.returncode == 0 and "┃" in done.stdout and "totals: team 0" in done.stdout
    as_json = json.loads(cli("replay", str(record), "--json").stdout)
    assert len(as_json["hands"]) == 2


def test_analyze_piped_starts_with_its_table(tmp_path: Path) -> None:
    """Piped, `analyze` shows no progress bar (an empty first line) on stdout."""
    record = tmp_path / "r.json"
    cli("selfplay", "--hands", "1", "--record", str(record))
    done = cli("analyze", str(record), timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip(" ").startswith("every card played") or \
        done.stdout.splitlines()[0].strip(), done.stdout[:200]
    assert done.stdout.splitlines()[0].strip() != ""


def test_score_game_ends_in_the_chosen_language(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"rules": {"preset": "classic", "target": 500}, "hands": [
        {"taker": 0, "capot": 0}, {"taker": 0, "capot": 0}]}))
    done = cli("score", "game", str(path), "--lang", "fr")
    assert done.returncode == 0, done.stderr
    assert "Nous gagnons la partie, 504 à 0" in done.stdout
    path.write_text(json.dumps({"rules": {"preset": "classic"}, "hands": [
        {"taker": 0, "points": 100}]}))
    done = cli("score", "game", str(path), "--lang", "es")
    assert "La partida no ha terminado" in done.stdout


def test_score_refuses_the_three_player_preset() -> None:
    """Item 12: three players, each for himself, cannot be scored as two teams."""
    done = cli("score", "hand", "--rules", "three", "--points", "100")
    assert done.returncode == 2 and "three" in done.stderr
