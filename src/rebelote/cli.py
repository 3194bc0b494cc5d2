"""The ``rebelote`` command line: replay and self-play (RECORD.md's contract).

Exit codes: 0 success, 2 bad input (one sentence on stderr), 1 any other failure.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from rebelote.bots import LEVELS, make_bot
from rebelote.game import Game
from rebelote.record import RecordError, Replay, records_of, replay_file, write_record
from rebelote.rules import PRESETS, Rules, RulesError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="rebelote: belote and its family — rules engine, records, bots.")


def _fail(message: str, code: int = 2, payload: dict[str, Any] | None = None,
          as_json: bool = False) -> NoReturn:
    if as_json and payload is not None:
        print(json.dumps({"error": payload}, ensure_ascii=False))
    print(f"rebelote: {message}", file=sys.stderr)
    raise typer.Exit(code)


def _replay_text(replays: list[Replay]) -> str:
    lines = []
    for g, rep in enumerate(replays, 1):
        if len(replays) > 1:
            lines.append(f"game {g}")
        lines.append(f"rules: {rep.game.rules.preset}, target {rep.game.rules.target}")
        for i, h in enumerate(rep.hands, 1):
            head = f"hand {i:>3}: "
            if h.outcome == "void":
                lines.append(head + "void (all passed twice)")
                continue
            who = f"seat {h.taker} took {h.trump}" if h.taker is not None else "auction"
            cards = f"{h.card_points[0]:>3}-{h.card_points[1]:<3}"
            lines.append(
                head + f"{who:<16} {h.outcome:<11} cards {cards} "
                f"ann {h.announcements[0]}-{h.announcements[1]} bel {h.belote[0]}-{h.belote[1]} "
                f"scored {h.scored[0]:>3}-{h.scored[1]:<3} reserve {h.reserve}")
        t = rep.game.totals
        winner = rep.game.winner
        result = f"team {winner} wins" if winner is not None else "game not over"
        lines.append(f"totals: team 0 {t[0]}, team 1 {t[1]}; {result}")
    return "\n".join(lines)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (RECORD.md) to check and score.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Check every call and card of a record against the rules and score it."""
    try:
        replays = replay_file(file)
    except RecordError as exc:
        _fail(str(exc), 2, exc.to_json(), as_json)
    if as_json:
        out: dict[str, Any] = replays[0].to_json() if len(replays) == 1 else {
            "games": [r.to_json() for r in replays]}
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(_replay_text(replays))


def _levels(spec: str) -> list[str]:
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if len(parts) == 1:
        parts *= 4
    elif len(parts) == 2:
        parts = [parts[0], parts[1], parts[0], parts[1]]
    if len(parts) != 4:
        raise ValueError("--bots takes one level, two (team 0, team 1) or four (seats 0..3)")
    for p in parts:
        if p not in LEVELS:
            raise ValueError(f"unknown bot level {p!r} (known: {', '.join(LEVELS)})")
    return parts


def selfplay_games(rules: Rules, hands: int, seed: int, levels: list[str]) -> list[Game]:
    """Play ``hands`` hands (voided ones included) with bots; games follow one another."""
    rng = random.Random(seed)
    bots = [make_bot(level, seed * 4 + seat) for seat, level in enumerate(levels)]
    games: list[Game] = []
    done = 0
    while done < hands:
        game = Game(rules, random.Random(rng.getrandbits(64)), auto_deal=False)
        games.append(game)
        while done < hands and not game.is_over:
            if game.current is None or game.current.is_over:
                game.deal()
            current = game.current
            assert current is not None
            while not current.is_over:
                seat = current.turn
                game.apply(bots[seat].choose(game.view(seat)))
            done += 1
    return games


@app.command()
def selfplay(
    preset: Annotated[str, typer.Option(help=f"Rules preset: {', '.join(PRESETS)}.")] = "classic",
    hands: Annotated[int, typer.Option(min=1, help="Hands to play.")] = 10,
    seed: Annotated[int, typer.Option(help="Same seed, same games.")] = 0,
    bots: Annotated[str, typer.Option(help="Bot level(s): one, or one per seat.")] = "random",
    record: Annotated[Path | None, typer.Option(help="Write the games as a record.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Play N hands with bots; --record writes them as a record `replay` accepts."""
    try:
        rules = Rules.preset_named(preset)
        levels = _levels(bots)
    except (RulesError, ValueError) as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    games = selfplay_games(rules, hands, seed, levels)
    if record is not None:
        try:
            write_record(records_of(games), record)
        except OSError as exc:
            _fail(f"cannot write the record to {record}: {exc.strerror}", 1)
    outcomes = Counter(s.outcome for g in games for s in g.scores)
    summary = {
        "preset": preset, "seed": seed, "bots": levels, "hands": hands,
        "outcomes": dict(sorted(outcomes.items())),
        "games": [{"hands": len(g.hands), "totals": list(g.totals), "winner": g.winner}
                  for g in games],
        "record": str(record) if record is not None else None,
    }
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
        return
    print(f"{hands} hands of {preset} by {', '.join(levels)} (seed {seed})")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for i, g in enumerate(games, 1):
        state = f"team {g.winner} wins" if g.winner is not None else "not over"
        print(f"game {i}: {len(g.hands)} hands, {g.totals[0]} - {g.totals[1]}, {state}")
    if record is not None:
        print(f"record written to {record}")


def main() -> None:
    """Console entry point: usage errors are one sentence with exit 2, unexpected
    failures one sentence with exit 1; never a traceback."""
    try:
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("rebelote: interrupted", file=sys.stderr)
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors (exit code 2) and the like
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        print(f"rebelote: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        print("rebelote: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # pragma: no cover - last resort, never a traceback
        print(f"rebelote: internal error: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
