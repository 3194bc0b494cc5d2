"""The interactive score pad (``rebelote score``): Rich prompts over :mod:`calculator`.

It only asks and renders; every number comes from :class:`~rebelote.calculator.ScoreSheet`.
The sheet is saved after every change, so Ctrl-C loses nothing and the next run resumes;
a sheet is never dropped without a copy (declining to resume, or a file that cannot be
read, keeps the old one beside it). Every prompt, Rich's own included, speaks the
player's language, and yes/no accepts y, o (oui) and s (sí).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm, InvalidResponse, Prompt
from rich.table import Table

from rebelote.announcements import team_totals
from rebelote.calculator import HandEntry, ScoreSheet, new_sheet
from rebelote.i18n import error_text, plural, preset_name, tr
from rebelote.rules import PRESETS
from rebelote.scoring import ScoreError

TARGETS = ("500", "501", "700", "701", "1000", "1500", "2000")
PAD_PRESETS = tuple(name for name, make in PRESETS.items() if make().players != 3)
"""The presets a two-team sheet can score (three players, each for himself, cannot)."""
_YES = {"y", "yes", "o", "oui", "s", "si", "sí"}
_NO = {"n", "no", "non"}


def sheet_table(sheet: ScoreSheet, lang: str = "en") -> Table:
    """The sheet as a Rich table: each hand, running totals and the reserve."""
    rules = sheet.rules
    target = tr("to_target", lang, n=rules.target) if rules.target else tr(
        "in_hands", lang, n=rules.hands_limit)
    table = Table(title=tr("sheet_title", lang, preset=preset_name(rules.preset, lang),
                           target=target))
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
        table.add_row(str(i), entry_taker(e, lang), outcome_label(e, row.score.outcome, lang),
                      str(row.score.scored[0]), str(row.score.scored[1]), str(row.totals[0]),
                      str(row.totals[1]), str(row.reserve) if row.reserve else "")
    return table


def entry_taker(e: HandEntry, lang: str) -> str:
    taker = tr("us" if e.taker == 0 else "them", lang)
    if e.bid or e.capot_bid:
        bid = "capot" if e.capot_bid else str(e.bid)
        taker += f" {bid}{e.suit or ''}" + {1: "", 2: " ×2", 4: " ×4"}.get(e.double, "")
    return taker


def outcome_label(e: HandEntry, outcome: str, lang: str) -> str:
    """made / failed / litige, and capot (by which side) when one side took every trick."""
    label = tr(outcome, lang)
    if e.capot is not None:
        label += f" · capot ({tr('us' if e.capot == 0 else 'them', lang)})"
    return label


def _prompt_class(lang: str) -> type[Prompt]:
    class LangPrompt(Prompt):
        illegal_choice_message = ("[prompt.invalid.choice]"
                                  + escape(tr("rich_invalid_choice", lang)))
        validate_error_message = f"[prompt.invalid]{escape(tr('invalid_number', lang))}"

    return LangPrompt


def _confirm_class(lang: str) -> type[Confirm]:
    yes = tr("yes_letter", lang)

    class LangConfirm(Confirm):
        """Yes / no in the player's language: [o/n] in French, [s/n] in Spanish; y, o
        and s are all understood as yes."""

        validate_error_message = f"[prompt.invalid]{escape(tr('rich_yes_no', lang))}"
        choices: ClassVar[list[str]] = [yes, "n"]  # type: ignore[misc]

        def process_response(self, value: str) -> bool:
            answer = value.strip().lower()
            if answer in _YES:
                return True
            if answer in _NO:
                return False
            raise InvalidResponse(self.validate_error_message)

    return LangConfirm


def kept_path(path: Path, why: str) -> Path:
    """Where a sheet is kept aside (``why``: backup, unreadable, finished)."""
    return path.with_name(f"{path.stem}.{why}{path.suffix}")


class Pad:
    """One pad session on a sheet file."""

    def __init__(self, path: Path, console: Console, lang: str = "en") -> None:
        self.path = path
        self.console = console
        self.lang = lang
        self.prompt = _prompt_class(lang)
        self.confirm = _confirm_class(lang)
        self.undone: list[HandEntry] = []

    def t(self, key: str, **values: object) -> str:
        return tr(key, self.lang, **values)

    def ask(self, key: str, choices: list[str], default: str | None = None,
            **values: object) -> str:
        text = escape(self.t(key, **values))
        if default is None:
            return self.prompt.ask(text, choices=choices, console=self.console)
        return self.prompt.ask(text, choices=choices, default=default, console=self.console)

    def yes(self, key: str, default: bool, **values: object) -> bool:
        return bool(self.confirm.ask(escape(self.t(key, **values)), default=default,
                                     console=self.console))

    def ask_int(self, key: str, low: int, high: int) -> int:
        while True:
            raw = self.prompt.ask(escape(self.t(key)), console=self.console)
            try:
                value = int(raw)
            except ValueError:
                self.error(self.t("invalid_number"))
                continue
            if low <= value <= high:
                return value
            self.error(self.t("not_between", value=value, low=low, high=high))

    def error(self, why: str) -> None:
        self.console.print(f"[bold red]{escape(self.t('error', why=why))}[/]")

    def keep_aside(self, why: str) -> None:
        kept = kept_path(self.path, why)
        self.path.replace(kept)
        self.console.print(escape(self.t("kept_backup", path=kept)))

    def start(self) -> ScoreSheet:
        if self.path.exists():
            try:
                sheet = ScoreSheet.load(self.path)
            except ScoreError as exc:
                self.error(self.t("sheet_unreadable", why=error_text(exc, self.lang)))
                self.keep_aside("unreadable")
            else:
                hands = plural("hands", len(sheet.hands), self.lang)
                if self.yes("resume", True, hands=hands):
                    return sheet
                self.keep_aside("backup")
        preset = self.ask("choose_preset", list(PAD_PRESETS), "classic")
        default_target = str(PRESETS[preset]().target)
        while True:
            raw = self.prompt.ask(escape(self.t("choose_target")), default=default_target,
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
                raw = self.prompt.ask(escape(self.t("bid")), console=self.console)
                raw = raw.strip().lower()
                if raw == "capot":
                    capot_bid = True
                    break
                if raw.isdigit() and 80 <= int(raw) <= 160 and int(raw) % 10 == 0:
                    bid = int(raw)
                    break
                self.error(self.t("bad_bid", raw=repr(raw)))
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
                while True:
                    value = self.ask_int("ann_points", 20, 1000)
                    if value in team_totals():
                        break
                    self.error(self.t("bad_announce", value=value))
                announce = (value, 0) if team == "0" else (0, value)
        both = suit == "TA" or (suit is None and rules.game != "auction"
                                and rules.round2_all_trump)
        if suit == "SA":
            belote: tuple[int, ...] = ()
        else:
            key = "belote" if both else "belote_one"
            belote_raw = self.ask(key, ["n", "0", "1", *(["b"] if both else [])], "n")
            belote = {"n": (), "0": (0,), "1": (1,), "b": (0, 1)}[belote_raw]
        return HandEntry(taker, points, capot, announce, belote, bid, double, capot_bid, suit)

    def hand_summary(self, sheet: ScoreSheet, number: int) -> str:
        row = sheet.rows()[number - 1]
        return (f"{entry_taker(row.entry, self.lang)}, "
                f"{outcome_label(row.entry, row.score.outcome, self.lang)}, "
                f"{row.score.scored[0]}-{row.score.scored[1]}")

    def act(self, sheet: ScoreSheet, action: str) -> None:
        """One menu action on the sheet; :class:`ScoreError` (and no change) if refused."""
        if action == "n":
            sheet.add(self.ask_entry(sheet))
            self.undone.clear()
        elif action == "u":
            if not sheet.hands:
                raise ScoreError(self.t("no_hand_to_undo"))
            n = len(sheet.hands)
            if self.yes("confirm_undo", False, n=n, summary=self.hand_summary(sheet, n)):
                self.undone.append(sheet.undo())
                self.console.print(escape(self.t("undone", n=n)))
        elif action == "r":
            if not self.undone:
                raise ScoreError(self.t("nothing_to_redo"))
            sheet.add(self.undone[-1])
            self.undone.pop()
            self.console.print(escape(self.t("redone", n=len(sheet.hands))))
        elif action == "f":
            if not sheet.hands:
                raise ScoreError(self.t("no_hand_to_fix"))
            number = self.ask_int("fix_which", 1, len(sheet.hands))
            sheet.fix(number, self.ask_entry(sheet))

    def run(self) -> int:
        sheet = self.start()
        sheet.save(self.path)
        while True:
            self.console.print(sheet_table(sheet, self.lang))
            if sheet.winner is not None:
                a, b = sheet.totals
                line = self.t("we_win" if sheet.winner == 0 else "they_win",
                              a=max(a, b), b=min(a, b))
                self.console.print(f"[bold green]{escape(line)}[/]")
                action = self.ask("menu_over", ["u", "f", "g", "q"], "q")
                if action == "g":
                    self.keep_aside("finished")
                    self.undone.clear()
                    sheet = self.start()
                    sheet.save(self.path)
                    continue
            else:
                choices = ["n", "u", *(["r"] if self.undone else []), "f", "q"]
                if self.undone:
                    action = self.ask("menu_redo", choices, "n", n=len(sheet.hands) + 1)
                else:
                    action = self.ask("menu", choices, "n")
            if action == "q":
                self.console.print(escape(self.t("saved", path=self.path)))
                return 0
            try:
                self.act(sheet, action)
            except ScoreError as exc:
                self.error(error_text(exc, self.lang))
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
