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
from typer.core import TyperArgument

from rebelote.bots import LEVELS, is_level, make_bot
from rebelote.game import Game
from rebelote.record import RecordError, Replay, records_of, replay_file, write_record
from rebelote.rules import PRESETS, Rules, RulesError
from rebelote.scoring import ScoreError


def _argument_type_hidden(self: TyperArgument, ctx: Any) -> str | None:
    """Help shows an argument by its name (FILE), not by a Python type (``<path>``)."""
    return None


TyperArgument.display_type_rich = _argument_type_hidden  # type: ignore[method-assign,assignment]

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="rebelote: belote and its family — rules engine, records, bots.")


def _version(value: bool) -> None:
    if value:
        from rebelote import __version__

        print(f"rebelote {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """rebelote: belote and its family — rules engine, records, bots."""


def _fail(message: str, code: int = 2, payload: dict[str, Any] | None = None,
          as_json: bool = False) -> NoReturn:
    if as_json and payload is not None:
        print(json.dumps({"error": payload}, ensure_ascii=False))
    print(f"rebelote: {message}", file=sys.stderr)
    raise typer.Exit(code)


def _console() -> Any:
    """Rich's console on stdout (plain text, no colour, when piped)."""
    from rich.console import Console

    return Console(highlight=False)


def _progress(disable: bool) -> Any:
    """A progress bar on stderr, only on a terminal (piped output starts clean)."""
    from rich.console import Console
    from rich.progress import Progress

    err = Console(stderr=True)
    return Progress(console=err, transient=True, disable=disable or not err.is_terminal)


def _replay_tables(replays: list[Replay]) -> list[Any]:
    """Each game of a replay as a Rich table: one row per hand, totals and winner."""
    from rich.table import Table

    out: list[Any] = []
    for g, rep in enumerate(replays, 1):
        rules = rep.game.rules
        side = "team" if rules.players == 4 else "seat"
        title = f"{rules.preset}, target {rules.target}"
        table = Table(title=(f"game {g}: " if len(replays) > 1 else "") + title)
        for name in ("hand", "contract", "outcome", "cards", "ann.", "belote", "scored",
                     "reserve"):
            table.add_column(name, justify="left" if name in ("contract", "outcome")
                             else "right")
        for i, h in enumerate(rep.hands, 1):
            if h.outcome == "void":
                table.add_row(str(i), "—", "void (all passed)", "", "", "", "", "")
                continue
            who = f"seat {h.taker} {h.trump}" if h.taker is not None else "auction"
            table.add_row(str(i), who, h.outcome, _dash(h.card_points),
                          _dash(h.announcements), _dash(h.belote), _dash(h.scored),
                          str(h.reserve))
        totals = ", ".join(f"{side} {i} {t}" for i, t in enumerate(rep.game.totals))
        winner = rep.game.winner
        result = f"{side} {winner} wins" if winner is not None else "game not over"
        table.caption = f"totals: {totals}; {result}"
        out.append(table)
    return out


def _dash(values: tuple[int, ...]) -> str:
    return "-".join(str(v) for v in values)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (RECORD.md) to check and score.",
                                         metavar="FILE")],
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
        console = _console()
        for table in _replay_tables(replays):
            console.print(table)


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
        if not is_level(p):
            raise ValueError(f"unknown bot level {p!r} (known: {', '.join(LEVELS)}, "
                             "expert:MS)")
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
    preset: Annotated[str, typer.Option(help=f"Rules preset: {', '.join(PRESETS)}.",
                                        metavar="PRESET")] = "classic",
    hands: Annotated[int, typer.Option(min=1, help="Hands to play.", metavar="N")] = 10,
    seed: Annotated[int, typer.Option(help="Same seed, same games.", metavar="N")] = 0,
    bots: Annotated[str, typer.Option(help="Bot level(s): one, or one per seat.",
                                      metavar="LEVEL[,LEVEL...]")] = "random",
    record: Annotated[Path | None, typer.Option(help="Write the games as a record.",
                                                metavar="FILE")] = None,
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
    from rich.table import Table

    side = "team" if rules.players == 4 else "seat"
    table = Table(title=f"{hands} hands of {preset} by {', '.join(levels)} (seed {seed})",
                  caption="outcomes: " + ", ".join(f"{k} {v}" for k, v in
                                                   sorted(outcomes.items())))
    for name in ("game", "hands", "totals", "result"):
        table.add_column(name, justify="right" if name != "result" else "left")
    for i, g in enumerate(games, 1):
        state = f"{side} {g.winner} wins" if g.winner is not None else "not over"
        table.add_row(str(i), str(len(g.hands)), _dash(tuple(g.totals)), state)
    console = _console()
    console.print(table)
    if record is not None:
        console.print(f"record written to {record}")


@app.command()
def arena(
    bots: Annotated[str, typer.Option(help="Two levels, A,B (random, heuristic, expert, "
                                      "expert:MS).",
                                      metavar="A,B")],
    deals: Annotated[int, typer.Option(min=1, help="Duplicate deals (each played twice).",
                                       metavar="N")] = 200,
    preset: Annotated[str, typer.Option(help="Rules preset (2 or 4 players).",
                                        metavar="PRESET")] = "classic",
    seed: Annotated[int, typer.Option(help="Same seed, same deals.", metavar="N")] = 0,
    jobs: Annotated[int | None, typer.Option(min=1, help="Processes (default: all cores).",
                                             metavar="N")] = None,
    plot: Annotated[Path, typer.Option(help="Where to write the plot (PNG); its folder is "
                                       "made if missing.", metavar="FILE")] = Path(
        "arena.png"),
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Duplicate match of two bot levels: points per deal with a 95% interval, game win
    rates, and a plot."""
    from rebelote.arena import run_arena, write_plot

    levels = [p.strip() for p in bots.split(",")]
    try:
        rules = Rules.preset_named(preset)
        if len(levels) != 2 or not all(is_level(level) for level in levels):
            raise ValueError(f"--bots takes two levels A,B among {', '.join(LEVELS)}, "
                             "expert:MS")
        if rules.players == 3:
            raise ValueError("the arena seats two sides: use a 2- or 4-player preset")
    except (RulesError, ValueError) as exc:
        _fail(str(exc), 2, {"message": str(exc)}, as_json)
    try:  # before the match: a plot that cannot be written would lose its result
        plot.parent.mkdir(parents=True, exist_ok=True)
        if plot.is_dir():
            raise IsADirectoryError(21, "it is a folder")
        if not os.access(plot.parent, os.W_OK):
            raise PermissionError(13, "the folder is not writable")
    except OSError as exc:
        _fail(f"cannot write the plot to {plot}: {exc.strerror or exc}", 2,
              {"message": f"cannot write the plot to {plot}"}, as_json)
    workers = jobs or (os.cpu_count() or 1)
    with _progress(as_json) as bar:
        task = bar.add_task(f"{levels[0]} vs {levels[1]}", total=deals)
        report = run_arena(preset, levels[0], levels[1], deals, seed, workers,
                           progress=lambda done: bar.update(task, completed=done))
    try:
        write_plot(report, plot)
        plot_error = None
    except OSError as exc:
        plot_error = f"cannot write the plot to {plot}: {exc.strerror or exc}"
    if as_json:
        print(json.dumps(report.to_json() | {"plot": str(plot) if plot_error is None
                                             else None}))
        if plot_error:
            _fail(plot_error, 1)
        return
    a, b = report.bots
    rate = report.win_rate_a
    print(f"{report.deals} duplicate deals of {preset}: {a} minus {b} = "
          f"{report.mean:+.1f} points per deal (95% interval {report.ci95[0]:+.1f} to "
          f"{report.ci95[1]:+.1f})")
    print(f"games: {a} won {report.games_a}, {b} won {report.games_b}"
          + (f" ({a} {rate:.0%})" if rate is not None else ""))
    if plot_error:
        _fail(plot_error, 1)
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
    file: Annotated[Path, typer.Argument(help="A record of a game in progress.",
                                         metavar="FILE")],
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
    from rich.table import Table

    table = Table(title=f"seat {seat} to act: each legal action, best first")
    table.add_column("action")
    table.add_column(hints[0].measure, justify="right")
    for h in hints:
        table.add_row(h.action, f"{h.value:.1f}")
    _console().print(table)


@app.command()
def analyze(
    file: Annotated[Path, typer.Argument(help="A record with finished hands.",
                                         metavar="FILE")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Every card of the finished hands with what it cost against the best card, all cards
    visible (0 = a best card)."""
    from rebelote.analysis import AnalysisError
    from rebelote.analysis import analyze as run_analysis

    game = _one_game(file, as_json)
    try:
        with _progress(as_json) as bar:
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
    from rich.table import Table

    by_seat: dict[int, float] = {}
    table = Table(title="every card played, and what it cost against the best card")
    for name in ("hand", "trick", "seat", "card", "cost", "best card"):
        table.add_column(name, justify="right")
    for c in costs:
        table.add_row(str(c.hand), str(c.trick), str(c.seat), c.card,
                      "" if c.cost == 0 else f"-{c.cost:g}", "" if c.cost == 0 else c.best)
        by_seat[c.seat] = by_seat.get(c.seat, 0.0) + c.cost
    table.caption = "points given away: " + ", ".join(f"seat {s} {v:g}" for s, v in sorted(
        by_seat.items()))
    _console().print(table)


@app.command()
def play(
    preset: Annotated[str | None, typer.Option(help="Rules preset.", metavar="PRESET")]
    = None,
    target: Annotated[int | None, typer.Option(min=1, help="Points to win.", metavar="N")]
    = None,
    bots: Annotated[str | None, typer.Option(help="random, heuristic, expert, or expert:MS "
                                             "(thinking MS ms a card).",
                                             metavar="LEVEL")] = None,
    seat: Annotated[int | None, typer.Option(min=0, max=3, help="Your seat (0 first).",
                                             metavar="N")] = None,
    lang: Annotated[str | None, typer.Option(help="fr, en or es (default: the last one).",
                                             metavar="LANG")] = None,
    deck: Annotated[str | None, typer.Option(
        help="french, international, german or spanish (default: the rules' deck, else "
             "the language's).", metavar="DECK")] = None,
    seed: Annotated[int | None, typer.Option(help="Same seed, same deals.", metavar="N")]
    = None,
    resume: Annotated[Path | None, typer.Option(help="Continue a saved game (a record).",
                                                metavar="FILE")] = None,
    record: Annotated[Path | None, typer.Option(help="Where the game is saved.",
                                                metavar="FILE")] = None,
) -> None:
    """Play at a table in the terminal, against bots. Without options: the setup screen
    (resume the saved game, or choose the rules, language, deck and seat)."""
    from rebelote.decks import STYLES
    from rebelote.i18n import LANGS
    from rebelote.tui.app import BeloteApp, load_setup
    from rebelote.tui.session import Setup, human_seat

    if lang is not None and lang not in LANGS:
        _fail(f"unknown language {lang!r} (fr, en, es)")
    if deck is not None and deck not in STYLES:
        _fail(f"unknown deck {deck!r} ({', '.join(STYLES)})")
    if bots is not None and not is_level(bots):
        _fail(f"unknown bot level {bots!r} ({', '.join(LEVELS)}, or expert:MS for the "
              "expert thinking MS ms a card)")
    if preset is not None and preset not in PRESETS:
        _fail(f"unknown preset {preset!r} ({', '.join(PRESETS)})")
    remembered = load_setup()
    if resume is not None:
        try:
            game = replay_file(resume)[-1].game
        except (RecordError, OSError) as exc:
            _fail(f"cannot resume {resume}: {getattr(exc, 'strerror', None) or exc}")
        players = game.rules.players
        human = human_seat(game, seat if seat is not None else 0)
        if human >= players:
            _fail(f"seat {human} is not at this {players}-player table")
        seat = human
    setup = Setup(preset=preset or remembered.preset,
                  target=target if target is not None else (0 if preset else remembered.target),
                  bots=bots or remembered.bots,
                  seat=seat if seat is not None else remembered.seat,
                  lang=lang or remembered.lang,
                  deck=deck if deck is not None else ("" if lang or preset else
                                                      remembered.deck),
                  seed=seed,
                  announcements=None if preset else remembered.announcements,
                  direction=None if preset else remembered.direction)
    try:
        players = setup.rules().players
    except RulesError as exc:
        _fail(str(exc))
    if resume is None and setup.seat >= players:
        if seat is not None:
            _fail(f"seat {seat} is not at a {players}-player table (seats 0..{players - 1})")
        setup = Setup(**{**{k: getattr(setup, k) for k in Setup.__dataclass_fields__},
                         "seat": 0})
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        _fail("`rebelote play` needs a terminal (stdin and stdout are not one); "
              "`rebelote selfplay` plays without one")
    ask = all(x is None for x in (preset, target, bots, seat, lang, deck, resume))
    from rebelote.solver import warm

    # The solver compiles (or loads its cache) in another process while the setup screen
    # shows: the expert never freezes the game on its first solve (the heuristic plays
    # for it until then).
    warm.start_background()
    BeloteApp(setup, record=resume or record, resume=resume is not None,
              ask_setup=ask).run()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(
        help="Address to listen on [env REBELOTE_HOST; default 127.0.0.1].")] = None,
    port: Annotated[int | None, typer.Option(
        help="Port [env REBELOTE_PORT; default 8000].")] = None,
    database: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL [env REBELOTE_DATABASE_URL; default SQLite in the data "
             "folder].")] = None,
    redis: Annotated[str | None, typer.Option(
        help="Redis URL: the scale-out mode (several processes, here or on other "
             "machines, share the database and this Redis) [env REBELOTE_REDIS_URL].")
    ] = None,
    workers: Annotated[int | None, typer.Option(
        help="Server processes on this machine (more than one needs --redis) "
             "[env REBELOTE_WORKERS; default 1].")] = None,
    data_dir: Annotated[Path | None, typer.Option(
        help="Data folder [env REBELOTE_DATA_DIR; default the user data folder].")] = None,
    log_format: Annotated[str | None, typer.Option(
        help="plain or json [env REBELOTE_LOG_FORMAT; default plain].")] = None,
    log_level: Annotated[str | None, typer.Option(
        help="debug, info, warning or error [env REBELOTE_LOG_LEVEL; default info].")] = None,
    owner_timeout: Annotated[float | None, typer.Option(
        help="Seconds before a dead process's tables are taken over "
             "[env REBELOTE_OWNER_TIMEOUT; default 15].")] = None,
    guests_per_hour: Annotated[int | None, typer.Option(
        help="New guests one address may make in an hour, 0 for no limit "
             "[env REBELOTE_GUESTS_PER_HOUR; default 60].")] = None,
    name: Annotated[str | None, typer.Option(
        help="This process's name in logs and metrics [env REBELOTE_NAME].")] = None,
    migrate: Annotated[bool | None, typer.Option(
        "--migrate/--no-migrate",
        help="Upgrade the database schema at start [env REBELOTE_MIGRATE; default on].")
    ] = None,
    loop: Annotated[str | None, typer.Option(
        help="The event loop: asyncio, uvloop (if installed) or auto "
             "[env REBELOTE_LOOP; default auto].")] = None,
) -> None:
    """The web platform: lobby, tables with bots and friends, history, statistics.
    Every option can also be set by its environment variable (docs/operations.md)."""
    from rebelote.server.settings import Settings, SettingsError

    try:
        settings = Settings.load(host=host, port=port, database=database, redis=redis,
                                 workers=workers, data_dir=data_dir, log_format=log_format,
                                 log_level=log_level, owner_timeout=owner_timeout,
                                 guests_per_hour=guests_per_hour, name=name,
                                 migrate=migrate, loop=loop)
    except SettingsError as exc:
        _fail(str(exc), 2)
    from rebelote.server.app import run
    from rebelote.server.store import StoreError

    try:
        run(settings)
    except StoreError as exc:  # one sentence naming the database
        _fail(str(exc), 1)
    except ModuleNotFoundError as exc:
        extra = {"psycopg": "postgres", "redis": "cluster"}.get(str(exc.name).split(".")[0])
        if extra is None:
            raise
        _fail(f"{exc.name} is not installed: pip install 'rebelote[{extra}]'", 1)


score_app = typer.Typer(
    add_completion=False, invoke_without_command=True,
    help="The score calculator: interactive pad, or `hand` / `game` for scripts.")
app.add_typer(score_app, name="score")


def default_sheet_path() -> Path:
    """Where the pad keeps its sheet: score-sheet.json in the data folder
    (:mod:`rebelote.paths`)."""
    from rebelote.paths import data_dir

    return data_dir() / "score-sheet.json"


@score_app.callback()
def score(
    ctx: typer.Context,
    file: Annotated[Path | None, typer.Option(help="The sheet file (saved after every hand).",
                                              metavar="FILE")] = None,
    lang: Annotated[str, typer.Option(help="Language: en, fr, es.", metavar="LANG")] = "en",
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
    rules: Annotated[str, typer.Option("--rules", help="Rules preset (two teams).",
                                       metavar="PRESET")] = "classic",
    taker: Annotated[int, typer.Option(help="The taking team: 0 or 1.", metavar="TEAM")] = 0,
    points: Annotated[int | None, typer.Option(
        help="Team 0's card points, dix de der included (162 minus them for team 1).",
        metavar="N")] = None,
    capot: Annotated[int | None, typer.Option(help="The team that won every trick.",
                                              metavar="TEAM")] = None,
    announce: Annotated[list[str] | None, typer.Option(
        help="TEAM=POINTS of announcements that scored (repeatable).",
        metavar="TEAM=POINTS")] = None,
    belote: Annotated[list[int] | None, typer.Option(
        help="A team that said belote-rebelote (repeatable).", metavar="TEAM")] = None,
    bid: Annotated[str | None, typer.Option(help="Auction games: 80..160 or capot.",
                                            metavar="BID")] = None,
    double: Annotated[int, typer.Option(help="1, 2 (coinche) or 4 (surcoinche).",
                                        metavar="N")] = 1,
    reserve: Annotated[int, typer.Option(help="Litige reserve carried in.", metavar="N")]
    = 0,
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
        help="{\"rules\": {...}, \"hands\": [...]} or a saved sheet.", metavar="FILE")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
    lang: Annotated[str, typer.Option(help="Language of the table: en, fr, es.",
                                      metavar="LANG")] = "en",
) -> None:
    """Score a whole game of hand outcomes: each hand, running totals, the winner."""
    from rebelote.calculator import ScoreSheet
    from rebelote.i18n import LANGS, error_text, tr

    if lang not in LANGS:
        _fail(f"unknown language {lang!r} (en, fr, es)")
    try:
        sheet = ScoreSheet.load(file)
        report = sheet.report()
    except ScoreError as exc:
        _fail(error_text(exc, lang), 2, {"message": str(exc)}, as_json)
    if as_json:
        print(json.dumps(report))
        return
    from rich.console import Console

    from rebelote.pad import sheet_table

    console = Console()
    console.print(sheet_table(sheet, lang))
    winner = report["winner"]
    if winner is None:
        console.print(tr("game_not_over", lang))
    else:
        a, b = sheet.totals
        console.print(tr("we_win" if winner == 0 else "they_win", lang,
                         a=max(a, b), b=min(a, b)))


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
        if exc.__class__.__name__ == "NoArgsIsHelpError":  # `rebelote` alone: the help
            print(exc.format_message())
            sys.exit(0)
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
