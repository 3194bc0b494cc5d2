"""The arena: duplicate matches between bot levels, from Python and from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rebelote.arena import run_arena


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rebelote", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_same_seed_same_match_whatever_the_processes() -> None:
    """Duplicate deals from the seed: one process or two give the same result."""
    one = run_arena("classic", "heuristic", "random", 6, seed=4, jobs=1, chunk=3)
    two = run_arena("classic", "heuristic", "random", 6, seed=4, jobs=2, chunk=3)
    assert one.diffs == two.diffs and len(one.diffs) == 6
    assert one.mean == sum(one.diffs) / 6


def test_the_command_with_its_defaults(tmp_path: Path) -> None:
    """`rebelote arena` without --jobs (all cores) plays, prints its JSON and writes the
    plot."""
    done = run_cli("arena", "--bots", "heuristic,random", "--deals", "2", "--seed", "1",
                   "--json", "--plot", "match.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["bots"] == ["heuristic", "random"] and out["deals"] == 2
    assert out["ci95"][0] <= out["a_minus_b_per_deal"] <= out["ci95"][1]
    assert (tmp_path / "match.png").stat().st_size > 0


def test_the_command_refuses_bad_levels_and_three_players(tmp_path: Path) -> None:
    done = run_cli("arena", "--bots", "expert,nobody", "--deals", "2", cwd=tmp_path)
    assert done.returncode == 2 and "--bots takes two levels" in done.stderr
    done = run_cli("arena", "--bots", "random,random", "--preset", "three", cwd=tmp_path)
    assert done.returncode == 2 and "two sides" in done.stderr
    done = run_cli("arena", "--bots", "random,random", "--jobs", "0", cwd=tmp_path)
    assert done.returncode == 2 and "--jobs" in done.stderr
    assert not list(tmp_path.iterdir())  # no plot for a refused match


def test_plot_into_a_missing_folder_is_made_and_an_impossible_one_refused_first(
        tmp_path: Path) -> None:
    """Issue 18 item 9: --plot into a missing folder makes it (the match's result was
    lost with an internal error); a plot that cannot be written is refused before the
    match is played; piped output starts with the result, not an empty line."""
    done = run_cli("arena", "--bots", "random,random", "--deals", "2", "--jobs", "1",
                   "--plot", "new/deeper/match.png", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new" / "deeper" / "match.png").stat().st_size > 0
    assert done.stdout.startswith("2 duplicate deals") and "plot written" in done.stdout
    (tmp_path / "a-file").write_text("x")
    refused = run_cli("arena", "--bots", "random,random", "--deals", "2000", "--jobs", "1",
                      "--plot", "a-file/match.png", cwd=tmp_path)
    assert refused.returncode == 2 and "cannot write the plot" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and refused.stdout == ""
