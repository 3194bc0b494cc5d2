"""The ``rebelote`` command line: replay and self-play (RECORD.md's contract).

Exit codes: 0 success, 2 bad input (one sentence on stderr), 1 any other failure.
"""

from __future__ import annotations

import json
import os
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
from rebelote.scoring import ScoreError

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
            lines.append(
                head + f"{who:<16} {h.outcome:<11} cards {_dash(h.card_points):<11} "
                f"ann {_dash(h.announcements)} bel {_dash(h.belote)} "
                f"scored {_dash(h.scored):<11} reserve {h.reserve}")
        side = "team" if rep.game.rules.players == 4 else "seat"
        totals = ", ".join(f"{side} {i} {t}" for i, t in enumerate(rep.game.totals))
        winner = rep.game.winner
        result = f"{side} {winner} wins" if winner is not None else "game not over"
        lines.append(f"totals: {totals}; {result}")
    return "\n".join(lines)


def _dash(values: tuple[int, ...]) -> str:
    return "-".join(str(v) for v in values)


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
        out: dict[str, Any] = replays[-1].to_json()
        if len(replays) > 1:  # RECORD.md: every hand in order, the last game's totals
            out["hands"] = [h.to_json() for r in replays for h in r.hands]
            out["games"] = [r.to_json() for r in replays]
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(_replay_text(replays))


def _levels(spec: str, players: int = 4) -> list[str]:
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if len(parts) == 1:
        parts *= players
    elif len(parts) == 2 and players == 4:
        parts = [parts[0], parts[1], parts[0], parts[1]]
    if len(parts) != players:
        raise ValueError(f"--bots takes one level, or one per seat ({players})"
                         + (", or two (team 0, team 1)" if players == 4 else ""))
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
        levels = _levels(bots, rules.players)
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
    side = "team" if rules.players == 4 else "seat"
    for i, g in enumerate(games, 1):
        state = f"{side} {g.winner} wins" if g.winner is not None else "not over"
        print(f"game {i}: {len(g.hands)} hands, {_dash(tuple(g.totals))}, {state}")
    if record is not None:
        print(f"record written to {record}")


@app.command()
def arena(
    bots: Annotated[str, typer.Option(help="Two levels, A,B (random, heuristic, expert).")],
    deals: Annotated[int, typer.Option(min=1, help="Duplicate deals (each played twice).")]
    = 200,
    preset: Annotated[str, typer.Option(help="Rules preset (2 or 4 players).")] = "classic",
    seed: Annotated[int, typer.Option(help="Same seed, same deals.")] = 0,
    jobs: Annotated[int | None, typer.Option(min=1, help="Processes (default: all cores).")
                    ] = None,
    plot: Annotated[Path, typer.Option(help="Where to write the plot (PNG).")] = Path(
        "arena.png"),
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Duplicate match of two bot levels: points per deal with a 95% interval, game
    win rates, and a plot."""
    from rich.progress import Progress

    from rebelote.arena import run_arena, write_plot

    levels = [p.strip() for p in bots.split(",")]
    try:
        rules = Rules.preset_named(preset)
        if len(levels) != 2 or any(level not in LEVELS for level in levels):
            raise ValueError(f"--bots takes two levels A,B among {', '.join(LEVELS)}")
        if rules.players == 3:
            raise ValueError("the arena seats two sides: use a 2- or 4-player preset")
    except (RulesError, ValueError) as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    workers = jobs or (os.cpu_count() or 1)
    with Progress(transient=True, disable=as_json) as bar:
        task = bar.add_task(f"{levels[0]} vs {levels[1]}", total=deals)
        report = run_arena(preset, levels[0], levels[1], deals, seed, workers,
                           progress=lambda done: bar.update(task, completed=done))
    write_plot(report, plot)
    if as_json:
        print(json.dumps(report.to_json() | {"plot": str(plot)}))
        return
    a, b = report.bots
    rate = report.win_rate_a
    print(f"{report.deals} duplicate deals of {preset}: {a} minus {b} = "
          f"{report.mean:+.1f} points per deal (95% interval {report.ci95[0]:+.1f} to "
          f"{report.ci95[1]:+.1f})")
    print(f"games: {a} won {report.games_a}, {b} won {report.games_b}"
          + (f" ({a} {rate:.0%})" if rate is not None else ""))
    print(f"plot written to {plot}")


def _one_game(file: Path, as_json: bool) -> Game:
    try:
        replays = replay_file(file)
    except RecordError as exc:
        _fail(str(exc), 2, exc.to_json(), as_json)
    if len(replays) != 1:
        _fail(f"{file} holds {len(replays)} games: give a record of one game", 2,
              {"message": "several games"}, as_json)
    return replays[0].game


@app.command()
def hint(
    file: Annotated[Path, typer.Argument(help="A record of a game in progress.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """The next decision of a record: each legal action with the expert's evaluation."""
    from rebelote.analysis import AnalysisError
    from rebelote.analysis import hint as make_hint

    game = _one_game(file, as_json)
    try:
        seat, hints = make_hint(game)
    except AnalysisError as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    if as_json:
        print(json.dumps({"seat": seat, "measure": hints[0].measure,
                          "actions": [{"action": h.action, "value": round(h.value, 1)}
                                      for h in hints]}))
        return
    print(f"seat {seat} to act; {hints[0].measure} for each legal action, best first:")
    for h in hints:
        print(f"  {h.action:>6}  {h.value:7.1f}")


@app.command()
def analyze(
    file: Annotated[Path, typer.Argument(help="A record with finished hands.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Every card of the finished hands with what it cost against the best card, all
    cards visible (0 = a best card)."""
    from rich.progress import Progress

    from rebelote.analysis import AnalysisError
    from rebelote.analysis import analyze as run_analysis

    game = _one_game(file, as_json)
    try:
        with Progress(transient=True, disable=as_json) as bar:
            task = bar.add_task("analysing", total=None)
            costs = run_analysis(game, lambda done, total: bar.update(task, completed=done,
                                                                      total=total))
    except AnalysisError as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    if as_json:
        print(json.dumps({"cards": [{"hand": c.hand, "trick": c.trick, "seat": c.seat,
                                     "card": c.card, "cost": c.cost, "best": c.best}
                                    for c in costs]}))
        return
    by_seat: dict[int, float] = {}
    for c in costs:
        mark = "" if c.cost == 0 else f"  -{c.cost:g} (best {c.best})"
        print(f"hand {c.hand} trick {c.trick} seat {c.seat}: {c.card}{mark}")
        by_seat[c.seat] = by_seat.get(c.seat, 0.0) + c.cost
    print("points given away: " + ", ".join(f"seat {s} {v:g}" for s, v in sorted(
        by_seat.items())))


@app.command()
def play(
    preset: Annotated[str | None, typer.Option(help="Rules preset.")] = None,
    target: Annotated[int | None, typer.Option(min=1, help="Points to win.")] = None,
    bots: Annotated[str | None, typer.Option(help="random, heuristic or expert.")] = None,
    seat: Annotated[int, typer.Option(min=0, max=3, help="Your seat.")] = 0,
    lang: Annotated[str, typer.Option(help="fr, en or es.")] = "en",
    deck: Annotated[str, typer.Option(help="french, international, german or spanish.")]
    = "french",
    seed: Annotated[int | None, typer.Option(help="Same seed, same deals.")] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a saved game (a record).")]
    = None,
    record: Annotated[Path | None, typer.Option(help="Where the game is saved.")] = None,
) -> None:
    """Play at a table in the terminal, against bots (a setup screen when no options)."""
    from rebelote.decks import STYLES
    from rebelote.i18n import LANGS
    from rebelote.tui.app import BeloteApp, load_setup
    from rebelote.tui.session import Setup

    if lang not in LANGS:
        _fail(f"unknown language {lang!r} (fr, en, es)")
    if deck not in STYLES:
        _fail(f"unknown deck {deck!r} ({', '.join(STYLES)})")
    if bots is not None and bots not in LEVELS:
        _fail(f"unknown bot level {bots!r} ({', '.join(LEVELS)})")
    if preset is not None and preset not in PRESETS:
        _fail(f"unknown preset {preset!r} ({', '.join(PRESETS)})")
    if resume is not None and not resume.exists():
        _fail(f"{resume}: no such file")
    remembered = load_setup()
    setup = Setup(preset=preset or remembered.preset,
                  target=target if target is not None else (0 if preset else remembered.target),
                  bots=bots or remembered.bots, seat=seat, lang=lang, deck=deck, seed=seed,
                  announcements=None if preset else remembered.announcements,
                  direction=None if preset else remembered.direction)
    try:
        players = setup.rules().players
    except RulesError as exc:
        _fail(str(exc))
    if seat >= players:
        _fail(f"seat {seat} is not at a {players}-player table (seats 0..{players - 1})")
    ask = preset is None and target is None and bots is None and resume is None
    BeloteApp(setup, record=resume or record, resume=resume is not None,
              ask_setup=ask).run()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8000,
    database: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL (default: SQLite in ~/.local/share/rebelote).")] = None,
    redis: Annotated[str | None, typer.Option(
        help="Redis URL: the scale-out mode (several processes, here or on other "
             "machines, share the database and this Redis).")] = None,
    workers: Annotated[int, typer.Option(
        min=1, help="Server processes on this machine (more than one needs --redis).")] = 1,
) -> None:
    """The web platform: lobby, tables with bots and friends, history, statistics."""
    import os

    import uvicorn

    from rebelote.server.app import create_app, default_database_url, load_secret
    from rebelote.server.store import upgrade

    if workers > 1 and redis is None:
        _fail("several workers share their tables through Redis: give --redis URL", 2)
    # States are small: compressing each WebSocket message costs more than it saves.
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "info",
                               "ws_per_message_deflate": False}
    if workers == 1:
        uvicorn.run(create_app(database, redis_url=redis), **options)
        return
    url = database or default_database_url()
    upgrade(url)  # once, before the workers start
    os.environ.update(REBELOTE_DATABASE_URL=url, REBELOTE_REDIS_URL=redis or "",
                      REBELOTE_MIGRATED="1", REBELOTE_SECRET=load_secret())
    uvicorn.run("rebelote.server.app:app_from_environment", factory=True, workers=workers,
                **options)


score_app = typer.Typer(
    add_completion=False, invoke_without_command=True,
    help="The score calculator: interactive pad, or `hand` / `game` for scripts.")
app.add_typer(score_app, name="score")


def default_sheet_path() -> Path:
    """Where the pad keeps its sheet: $XDG_DATA_HOME/rebelote/score-sheet.json."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rebelote" / "score-sheet.json"


@score_app.callback()
def score(
    ctx: typer.Context,
    file: Annotated[Path | None, typer.Option(help="The sheet file (saved after every hand).")]
    = None,
    lang: Annotated[str, typer.Option(help="Language: en, fr, es.")] = "en",
) -> None:
    """Interactive score pad: enter each hand's outcome, see both teams' scores."""
    if ctx.invoked_subcommand is not None:
        return
    from rebelote.i18n import LANGS
    from rebelote.pad import run_pad

    if lang not in LANGS:
        _fail(f"unknown language {lang!r} (en, fr, es)")
    raise typer.Exit(run_pad(file or default_sheet_path(), lang))


def _parse_announce(items: list[str]) -> tuple[int, int]:
    ann = [0, 0]
    for item in items:
        team, sep, points = item.partition("=")
        if not sep or team.strip() not in ("0", "1") or not points.strip().isdigit():
            raise ScoreError(f"--announce takes TEAM=POINTS such as 0=20, not {item!r}")
        ann[int(team)] += int(points)
    return ann[0], ann[1]


@score_app.command("hand")
def score_hand_cmd(
    rules: Annotated[str, typer.Option("--rules", help="Rules preset.")] = "classic",
    taker: Annotated[int, typer.Option(help="The taking team: 0 or 1.")] = 0,
    points: Annotated[int | None, typer.Option(
        help="Team 0's card points, dix de der included (162 minus them for team 1).")] = None,
    capot: Annotated[int | None, typer.Option(help="The team that won every trick.")] = None,
    announce: Annotated[list[str] | None, typer.Option(
        help="TEAM=POINTS of announcements that scored (repeatable).")] = None,
    belote: Annotated[list[int] | None, typer.Option(
        help="A team that said belote-rebelote (repeatable).")] = None,
    bid: Annotated[str | None, typer.Option(help="Auction games: 80..160 or capot.")] = None,
    double: Annotated[int, typer.Option(help="1, 2 (coinche) or 4 (surcoinche).")] = 1,
    reserve: Annotated[int, typer.Option(help="Litige reserve carried in.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Score one hand from its outcome."""
    from rebelote.calculator import HandEntry
    from rebelote.scoring import score_outcome

    try:
        the_rules = Rules.preset_named(rules)
        capot_bid = bid is not None and bid.strip().lower() == "capot"
        bid_value = 0
        if bid is not None and not capot_bid:
            if not bid.strip().isdigit():
                raise ScoreError(f"--bid takes 80..160 or capot, not {bid!r}")
            bid_value = int(bid)
        entry = HandEntry(taker, points, capot, _parse_announce(announce or []),
                          tuple(belote or ()), bid_value, double, capot_bid)
        if reserve < 0:
            raise ScoreError("the reserve cannot be negative")
        result = score_outcome(the_rules, entry.outcome(the_rules), reserve)
    except (RulesError, ScoreError) as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    out = {"outcome": result.outcome, "scored": list(result.scored), "reserve": result.reserve}
    if as_json:
        print(json.dumps(out))
    else:
        print(f"{result.outcome}: team 0 scores {result.scored[0]}, team 1 scores "
              f"{result.scored[1]}; reserve {result.reserve}")


@score_app.command("game")
def score_game_cmd(
    file: Annotated[Path, typer.Argument(
        help="{\"rules\": {...}, \"hands\": [...]} or a saved sheet.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
    lang: Annotated[str, typer.Option(help="Language of the table: en, fr, es.")] = "en",
) -> None:
    """Score a whole game of hand outcomes: each hand, running totals, the winner."""
    from rebelote.calculator import ScoreSheet

    try:
        sheet = ScoreSheet.load(file)
        report = sheet.report()
    except ScoreError as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    if as_json:
        print(json.dumps(report))
        return
    from rich.console import Console

    from rebelote.pad import sheet_table

    console = Console()
    console.print(sheet_table(sheet, lang))
    winner = report["winner"]
    console.print(f"winner: team {winner}" if winner is not None else "game not over")


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
