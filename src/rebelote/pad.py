"""The interactive score pad (``rebelote score``): Rich prompts over :mod:`calculator`.

It only asks and renders; every number comes from :class:`~rebelote.calculator.ScoreSheet`.
The sheet is saved after every change, so Ctrl-C loses nothing and the next run resumes.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm, Prompt
from rich.table import Table

from rebelote.calculator import HandEntry, ScoreSheet, new_sheet
from rebelote.i18n import tr
from rebelote.rules import PRESETS
from rebelote.scoring import ScoreError

TARGETS = ("500", "501", "700", "701", "1000", "1500", "2000")


def sheet_table(sheet: ScoreSheet, lang: str = "en") -> Table:
    """The sheet as a Rich table: each hand, running totals and the reserve."""
    rules = sheet.rules
    target = rules.target or f"{rules.hands_limit} hands"
    table = Table(title=tr("sheet_title", lang, preset=rules.preset, target=target))
    table.add_column(tr("hand", lang), justify="right")
    table.add_column(tr("taker", lang))
    table.add_column(tr("outcome", lang))
    table.add_column(tr("us", lang), justify="right")
    table.add_column(tr("them", lang), justify="right")
    table.add_column(f"{tr('total', lang)} {tr('us', lang)}", justify="right")
    table.add_column(f"{tr('total', lang)} {tr('them', lang)}", justify="right")
    table.add_column(tr("reserve", lang), justify="right")
    for i, row in enumerate(sheet.rows(), 1):
        e = row.entry
        taker = tr("us" if e.taker == 0 else "them", lang)
        if e.bid or e.capot_bid:
            bid = "capot" if e.capot_bid else str(e.bid)
            taker += f" {bid}{e.suit or ''}" + {1: "", 2: " ×2", 4: " ×4"}[e.double]
        table.add_row(str(i), taker, tr(row.score.outcome, lang), str(row.score.scored[0]),
                      str(row.score.scored[1]), str(row.totals[0]), str(row.totals[1]),
                      str(row.reserve) if row.reserve else "")
    return table


class Pad:
    """One pad session on a sheet file."""

    def __init__(self, path: Path, console: Console, lang: str = "en") -> None:
        self.path = path
        self.console = console
        self.lang = lang

    def t(self, key: str, **values: object) -> str:
        return tr(key, self.lang, **values)

    def ask(self, key: str, choices: list[str], default: str | None = None) -> str:
        if default is None:
            return Prompt.ask(escape(self.t(key)), choices=choices, console=self.console)
        return Prompt.ask(escape(self.t(key)), choices=choices, default=default,
                          console=self.console)

    def ask_int(self, key: str, low: int, high: int) -> int:
        while True:
            raw = Prompt.ask(self.t(key), console=self.console)
            try:
                value = int(raw)
            except ValueError:
                self.error(self.t("invalid_number"))
                continue
            if low <= value <= high:
                return value
            self.error(f"{value} is not between {low} and {high}")

    def error(self, why: str) -> None:
        self.console.print(f"[bold red]{self.t('error', why=why)}[/]")

    def start(self) -> ScoreSheet:
        if self.path.exists():
            try:
                sheet = ScoreSheet.load(self.path)
            except ScoreError as exc:
                self.error(str(exc))
            else:
                if Confirm.ask(self.t("resume", hands=len(sheet.hands)), default=True,
                               console=self.console):
                    return sheet
        preset = self.ask("choose_preset", list(PRESETS), "classic")
        default_target = str(PRESETS[preset]().target)
        while True:
            raw = Prompt.ask(self.t("choose_target"), default=default_target,
                             console=self.console)
            if raw.isdigit() and int(raw) > 0:
                return new_sheet(preset, int(raw))
            self.error(self.t("invalid_number"))

    def ask_entry(self, sheet: ScoreSheet) -> HandEntry:
        rules = sheet.rules
        taker = int(self.ask("who_took", ["0", "1"]))
        bid, double, capot_bid, suit = 0, 1, False, None
        if rules.game == "auction":
            while True:
                raw = Prompt.ask(self.t("bid"), console=self.console).strip().lower()
                if raw == "capot":
                    capot_bid = True
                    break
                if raw.isdigit() and 80 <= int(raw) <= 160 and int(raw) % 10 == 0:
                    bid = int(raw)
                    break
                self.error(f"{raw!r}: a bid is 80 to 160 by tens, or capot")
            suits = ["S", "H", "D", "C"]
            suits += ["SA"] if rules.auction_no_trump else []
            suits += ["TA"] if rules.auction_all_trump else []
            suit = self.ask("suit", suits)
            double = int(self.ask("double", ["1", "2", "4"], "1"))
        capot_raw = self.ask("capot", ["n", "0", "1"], "n")
        capot = None if capot_raw == "n" else int(capot_raw)
        points = None if capot is not None else self.ask_int("points", 0, 162)
        announce = (0, 0)
        if rules.announcements:
            team = self.ask("ann_team", ["n", "0", "1"], "n")
            if team != "n":
                value = self.ask_int("ann_points", 20, 1000)
                announce = (value, 0) if team == "0" else (0, value)
        belote_raw = self.ask("belote", ["n", "0", "1", "b"], "n")
        belote = {"n": (), "0": (0,), "1": (1,), "b": (0, 1)}[belote_raw]
        return HandEntry(taker, points, capot, announce, belote, bid, double, capot_bid, suit)

    def run(self) -> int:
        sheet = self.start()
        sheet.save(self.path)
        while True:
            self.console.print(sheet_table(sheet, self.lang))
            if sheet.winner is not None:
                a, b = sheet.totals
                team = self.t("us" if sheet.winner == 0 else "them")
                self.console.print(f"[bold green]{self.t('winner', team=team, a=a, b=b)}[/]")
                if not Confirm.ask(self.t("new_game"), default=False, console=self.console):
                    return 0
                self.path.replace(self.path.with_suffix(".finished.json"))
                sheet = self.start()
                sheet.save(self.path)
                continue
            action = self.ask("menu", ["n", "u", "f", "q"], "n")
            if action == "q":
                self.console.print(self.t("saved", path=self.path))
                return 0
            try:
                if action == "n":
                    sheet.add(self.ask_entry(sheet))
                elif action == "u":
                    sheet.undo()
                    self.console.print(self.t("undone", n=len(sheet.hands) + 1))
                elif action == "f":
                    if not sheet.hands:
                        raise ScoreError("there is no hand to fix")
                    number = self.ask_int("fix_which", 1, len(sheet.hands))
                    sheet.fix(number, self.ask_entry(sheet))
            except ScoreError as exc:
                self.error(str(exc))
                continue
            sheet.save(self.path)


def run_pad(path: Path, lang: str = "en", console: Console | None = None) -> int:
    """Run the pad until the user quits; Ctrl-C or end of input keep the saved sheet."""
    console = console or Console()
    pad = Pad(path, console, lang)
    try:
        return pad.run()
    except (KeyboardInterrupt, EOFError):
        console.print()
        console.print(tr("bye", lang))
        return 130
