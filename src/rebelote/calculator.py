"""The score pad for a real table: hands' outcomes in, both teams' scores out.

A :class:`ScoreSheet` holds the rules and what the players entered for each hand
(:class:`HandEntry`); everything shown — each hand's scores, running totals, the litige
reserve, the winner — is computed from it with the engine's own scoring
(:func:`rebelote.scoring.score_outcome`). The terminal pad and the web page only render
what this module computes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebelote.announcements import team_totals
from rebelote.rules import Rules, RulesError
from rebelote.scoring import (
    MADE,
    HandOutcome,
    HandScore,
    ScoreError,
    game_winner,
    score_outcome,
)

SHEET_FORMAT = "belote-score-sheet"


@dataclass(frozen=True, slots=True)
class HandEntry:
    """One hand as the players enter it (team 0 is "us", team 1 "them")."""

    taker: int
    points: int | None = None
    """Team 0's card points, dix de der included; team 1 has 162 minus them. May be
    omitted on a capot."""
    capot: int | None = None
    announce: tuple[int, int] = (0, 0)
    """Announcement points that scored, per team (only one team can have any)."""
    belote: tuple[int, ...] = ()
    """The team of each belote-rebelote said."""
    bid: int = 0
    double: int = 1
    capot_bid: bool = False
    suit: str | None = None
    """Auction games: the contract's suit (``S H D C SA TA``), for the sheet."""

    def outcome(self, rules: Rules) -> HandOutcome:
        """The engine's outcome for this entry; :class:`ScoreError` if impossible."""
        check_two_teams(rules)
        if self.taker not in (0, 1):
            raise ScoreError("err_taker_team", value=self.taker)
        if self.capot is not None:
            if self.capot not in (0, 1):
                raise ScoreError("err_capot_team", value=self.capot)
            allowed = (162, rules.capot_points) if self.capot == 0 else (0,)
            if self.points is not None and self.points not in allowed:
                loser = 1 - self.capot
                given = 162 - self.points if loser == 1 else self.points
                raise ScoreError("err_capot_points", team=self.capot, loser=loser,
                                 given=given)
            cards = (0, 0)
        else:
            if self.points is None:
                raise ScoreError("err_points_missing")
            if not 0 <= self.points <= 162:
                raise ScoreError("err_points_range", value=self.points)
            cards = (self.points, 162 - self.points)
        belote = [0, 0]
        for team in self.belote:
            if team not in (0, 1):
                raise ScoreError("err_belote_team", value=team)
            belote[team] += 20
        all_trump_possible = rules.round2_all_trump or rules.auction_all_trump
        if self.suit == "SA":
            max_belotes = 0
        elif self.suit == "TA" or (self.suit is None and all_trump_possible):
            max_belotes = 4  # one per suit in tout atout
        else:
            max_belotes = 1
        if len(self.belote) > max_belotes:
            raise ScoreError("err_belote_count", count=len(self.belote), most=max_belotes)
        if any(self.announce) and not rules.announcements:
            raise ScoreError("err_no_announcements", preset=rules.preset)
        for value in self.announce:
            if value not in team_totals():
                raise ScoreError("err_announce_total", value=value)
        if rules.game == "auction" and not (self.bid or self.capot_bid):
            raise ScoreError("err_bid_missing")
        bid = rules.capot_bid_value if self.capot_bid else self.bid
        return HandOutcome(self.taker, cards, self.capot, self.announce,
                           (belote[0], belote[1]), bid, self.capot_bid, self.double)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"taker": self.taker}
        if self.points is not None:
            out["points"] = self.points
        if self.capot is not None:
            out["capot"] = self.capot
        out["announce"] = {str(t): v for t, v in enumerate(self.announce) if v}
        out["belote"] = list(self.belote)
        if self.bid or self.capot_bid:
            out["bid"] = "capot" if self.capot_bid else self.bid
            out["double"] = self.double
        if self.suit is not None:
            out["suit"] = self.suit
        return out

    @classmethod
    def from_json(cls, data: Any) -> HandEntry:
        """An entry from its JSON form (the ``score game`` file format)."""
        if not isinstance(data, dict):
            raise ScoreError("err_field_object")
        known = {"taker", "points", "capot", "announce", "belote", "bid", "double", "suit"}
        unknown = set(data) - known
        if unknown:
            raise ScoreError("err_field_unknown", name=sorted(unknown)[0])

        def integer(name: str, value: Any) -> int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ScoreError("err_field_number", name=name, value=value)
            return value

        if "taker" not in data:
            raise ScoreError("err_field_taker")
        taker = integer("taker", data["taker"])
        points = None if data.get("points") is None else integer("points", data["points"])
        capot = None if data.get("capot") is None else integer("capot", data["capot"])
        raw_ann = data.get("announce", {})
        if not isinstance(raw_ann, dict):
            raise ScoreError("err_field_announce")
        announce = [0, 0]
        for team, value in raw_ann.items():
            if team not in ("0", "1"):
                raise ScoreError("err_field_announce_team", value=team)
            announce[int(team)] = integer("an announcement", value)
        raw_belote = data.get("belote", [])
        if not isinstance(raw_belote, list):
            raise ScoreError("err_field_belote")
        belote = tuple(integer("a belote team", b) for b in raw_belote)
        bid_raw = data.get("bid", 0)
        capot_bid = bid_raw == "capot"
        bid = 0 if capot_bid else integer("bid", bid_raw)
        double = integer("double", data.get("double", 1))
        suit = data.get("suit")
        if suit is not None and suit not in ("S", "H", "D", "C", "SA", "TA"):
            raise ScoreError("err_field_suit", value=suit)
        return cls(taker, points, capot, (announce[0], announce[1]), belote, bid, double,
                   capot_bid, suit)


def check_two_teams(rules: Rules) -> None:
    """:class:`ScoreError` for rules a two-team sheet cannot score (three players)."""
    if rules.players == 3:
        raise ScoreError("err_three_players", preset=rules.preset)


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the sheet: the entry, its score, the running totals and reserve."""

    entry: HandEntry
    score: HandScore
    totals: tuple[int, int]
    reserve: int


@dataclass
class ScoreSheet:
    """A game's score sheet: rules and entries; rows, totals and winner are computed."""

    rules: Rules
    hands: list[HandEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_two_teams(self.rules)

    def rows(self) -> list[SheetRow]:
        """Every hand scored in order, with running totals and reserve."""
        return self._compute(self.hands)

    def _compute(self, hands: list[HandEntry]) -> list[SheetRow]:
        rows: list[SheetRow] = []
        totals = [0, 0]
        reserve = 0
        for i, entry in enumerate(hands):
            if rows and self._winner_after(rows) is not None:
                raise ScoreError("err_game_over_after", n=i)
            try:
                score = score_outcome(self.rules, entry.outcome(self.rules), reserve)
            except ScoreError as exc:
                raise ScoreError("err_in_hand", n=i + 1, why=exc) from None
            totals = [totals[0] + score.scored[0], totals[1] + score.scored[1]]
            reserve = score.reserve
            rows.append(SheetRow(entry, score, (totals[0], totals[1]), reserve))
        return rows

    def _winner_after(self, rows: list[SheetRow]) -> int | None:
        if not rows:
            return None
        last = rows[-1]
        return game_winner(self.rules, last.totals, last.entry.taker, len(rows),
                           last.score.outcome == MADE)

    @property
    def totals(self) -> tuple[int, int]:
        rows = self.rows()
        return rows[-1].totals if rows else (0, 0)

    @property
    def reserve(self) -> int:
        rows = self.rows()
        return rows[-1].reserve if rows else 0

    @property
    def winner(self) -> int | None:
        """The winning team once the game is over (RULES.md §9), else ``None``."""
        return self._winner_after(self.rows())

    def add(self, entry: HandEntry) -> SheetRow:
        """Score one more hand; :class:`ScoreError` (and no change) if impossible."""
        if self.winner is not None:
            raise ScoreError("err_game_over")
        rows = self._compute([*self.hands, entry])
        self.hands.append(entry)
        return rows[-1]

    def undo(self) -> HandEntry:
        """Remove the last hand and return it."""
        if not self.hands:
            raise ScoreError("err_no_undo")
        return self.hands.pop()

    def fix(self, number: int, entry: HandEntry) -> None:
        """Replace hand ``number`` (1-based); every later row is recomputed."""
        if not 1 <= number <= len(self.hands):
            raise ScoreError("err_no_such_hand", n=number, count=len(self.hands))
        hands = list(self.hands)
        hands[number - 1] = entry
        self._compute(hands)  # raises, changing nothing, if the fix is impossible
        self.hands = hands

    # -- files -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"format": SHEET_FORMAT, "version": 1,
                "rules": self.rules.to_dict() | {"target": self.rules.target},
                "hands": [h.to_json() for h in self.hands]}

    @classmethod
    def from_json(cls, data: Any) -> ScoreSheet:
        """A sheet from ``{"rules": {...}, "hands": [...]}`` (a saved sheet or a game file)."""
        if not isinstance(data, dict):
            raise ScoreError("err_sheet_shape")
        try:
            rules = Rules.from_dict(data.get("rules", {"preset": "classic"}))
        except (RulesError, TypeError) as exc:
            raise ScoreError("err_sheet_rules", why=exc) from None
        hands = data.get("hands", [])
        if not isinstance(hands, list):
            raise ScoreError("err_sheet_hands")
        entries = []
        for i, h in enumerate(hands):
            try:
                entries.append(HandEntry.from_json(h))
            except ScoreError as exc:
                raise ScoreError("err_in_hand", n=i + 1, why=exc) from None
        sheet = cls(rules, entries)
        sheet.rows()  # validates every hand
        return sheet

    def save(self, path: str | Path) -> None:
        """Write the sheet atomically (a crash mid-write never loses the old one)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def load(cls, path: str | Path) -> ScoreSheet:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ScoreError("err_no_file", path=path) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ScoreError("err_unreadable", path=path, why=exc) from None
        return cls.from_json(data)

    def report(self) -> dict[str, Any]:
        """The ``score game --json`` answer: each hand, the totals, the winner."""
        rows = self.rows()
        return {
            "hands": [{"outcome": r.score.outcome, "scored": list(r.score.scored),
                       "totals": list(r.totals), "reserve": r.reserve} for r in rows],
            "totals": list(rows[-1].totals) if rows else [0, 0],
            "winner": self._winner_after(rows),
        }


def new_sheet(preset: str, target: int | None = None) -> ScoreSheet:
    """An empty sheet for a preset, with another target if given."""
    rules = Rules.preset_named(preset)
    if target is not None:
        rules = rules.replace(target=target)
    return ScoreSheet(rules)

