"""The game record of ``shared/RECORD.md``: write a game to JSON, read and replay one.

Replaying checks every call and card against the rules; the first illegal action raises
a :class:`RecordError` that names the hand, the action's index, the seat and the rule.

Project additions to the format (allowed by RECORD.md): a file may hold a JSON array of
records (``rebelote selfplay`` writes one when its hands span several games); each
seat's ``cards`` are listed in the order received, first five first, which lets a replay
know what each seat held during the auction; and a hand whose classic auction is still
going on carries ``stock``, the undealt cards in dealing order, so that a saved game
resumes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rebelote.cards import (
    NO_TRUMP,
    CardError,
    CardSet,
    card_name,
    cards_of,
    contract_name,
    parse_card,
    parse_contract,
)
from rebelote.errors import IllegalAction
from rebelote.game import Game
from rebelote.hand import (
    AUCTION,
    BID_VALUES,
    CAPOT_LEVEL,
    PLAY,
    HandState,
    action_name,
    bid_action,
    parse_action,
)
from rebelote.rules import Rules, RulesError
from rebelote.scoring import VOID

FORMAT = "belote-record"
VERSION = 1


class RecordError(ValueError):
    """A record that is malformed or breaks the rules; the message says where."""

    def __init__(self, message: str, *, hand: int | None = None, index: int | None = None,
                 list_name: str | None = None, seat: int | None = None,
                 rule: str | None = None) -> None:
        super().__init__(message)
        self.hand = hand
        self.index = index
        self.list_name = list_name
        self.seat = seat
        self.rule = rule

    def to_json(self) -> dict[str, Any]:
        return {"message": str(self), "hand": self.hand, "list": self.list_name,
                "index": self.index, "seat": self.seat, "rule": self.rule}


# -- writing ------------------------------------------------------------------------------


def hand_to_json(hand: HandState) -> dict[str, Any]:
    """One hand as a record entry."""
    out: dict[str, Any] = {"dealer": hand.dealer}
    cards = []
    for seat in range(hand.n):
        if hand.n == 2:  # découverte: 6 in hand, 5 face up, the 5 under them
            columns = hand.layout[seat]
            table = {c for column in columns for c in column}
            listed = [c for c in cards_of(hand.initial[seat]) if c not in table]
            listed += [up for up, _ in columns] + [down for _, down in columns]
            cards.append([card_name(c) for c in listed])
            continue
        first = cards_of(hand.initial[seat])
        later = cards_of(hand.dealt[seat] & ~hand.initial[seat]) if hand.taker >= 0 else []
        cards.append([card_name(c) for c in first + later])
    out["cards"] = cards
    if hand.retourne >= 0:
        out["retourne"] = card_name(hand.retourne)
    stock = hand.stock
    if stock is not None:
        out["stock"] = [card_name(c) for c in stock]  # the auction is going on
    if hand.calls or hand.taker < 0:
        out["auction"] = [action_name(a) for a in hand.calls]
    else:
        out["contract"] = {"taker": hand.taker, "trump": contract_name(hand.contract)}
        if hand.rules.game == "auction":
            out["contract"]["bid"] = ("capot" if hand.bid_level == CAPOT_LEVEL
                                      else BID_VALUES[hand.bid_level])
            out["contract"]["double"] = hand.double
    if hand.taker >= 0:
        out["play"] = [card_name(c) for c in hand.played]
        if not hand.rules.auto_announce:
            out["announcements"] = [
                {"seat": s, "cards": [card_name(c) for c in cards_of(a.cards)]}
                for s in range(hand.n) for a in hand.announced[s]
            ]
            out["belote"] = [s for s, word, _ in hand.belote_said if word == "belote"]
    return out


def game_to_record(game: Game) -> dict[str, Any]:
    """A game (finished or in progress) as a record."""
    return hands_to_record(game.rules, game.players, game.hands)


def hands_to_record(rules: Rules, players: Sequence[str | None],
                    hands: Sequence[HandState]) -> dict[str, Any]:
    """A record of ``hands`` played under ``rules`` (some of a game's hands: the
    server's record of a table holds its finished ones only)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": rules.to_dict() | {"target": rules.target},
        "players": list(players),
        "hands": [hand_to_json(h) for h in hands],
    }


def write_record(records: dict[str, Any] | list[dict[str, Any]], path: str | Path) -> None:
    """Write a record (or a list of records) as UTF-8 JSON, atomically."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(records, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(p)


# -- reading ------------------------------------------------------------------------------


@dataclass
class HandSummary:
    """What ``rebelote replay --json`` reports for one hand."""

    taker: int | None
    trump: str | None
    outcome: str
    card_points: tuple[int, ...]
    announcements: tuple[int, ...]
    belote: tuple[int, ...]
    scored: tuple[int, ...]
    reserve: int

    def to_json(self) -> dict[str, Any]:
        return {"taker": self.taker, "trump": self.trump, "outcome": self.outcome,
                "card_points": list(self.card_points), "announcements": list(self.announcements),
                "belote": list(self.belote), "scored": list(self.scored), "reserve": self.reserve}


@dataclass
class Replay:
    """A replayed game: the engine's game and each hand's summary."""

    game: Game
    hands: list[HandSummary] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"hands": [h.to_json() for h in self.hands],
                "totals": list(self.game.totals), "winner": self.game.winner}


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Read a record file: one record object, or an array of them."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot be read as UTF-8 text "
                          f"({exc.__class__.__name__})") from None
    data = parse_json(text, str(path))
    records = data if isinstance(data, list) else [data]
    if not records:
        raise RecordError(f"{path}: the file holds no record")
    return records


MAX_DEPTH = 64
"""Deepest nesting of arrays and objects a record may have (a record needs 5)."""
MAX_DIGITS = 20
"""Longest integer a record may hold (a record's integers are seats, bids and doubles)."""


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def parse_json(text: str, where: str) -> Any:
    """Parse a record's JSON text, refusing as bad input (:class:`RecordError`) what no
    record holds and what would exhaust the parser: nesting deeper than
    :data:`MAX_DEPTH`, integers longer than :data:`MAX_DIGITS` digits."""
    depth = 0
    for m in _BRACKETS.finditer(_STRINGS.sub("", text)):  # nesting outside strings
        depth += 1 if m.group() in "[{" else -1
        if depth > MAX_DEPTH:
            raise RecordError(f"{where}: the JSON is nested more than {MAX_DEPTH} deep, "
                              "which no record is")

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_DIGITS:
            raise RecordError(f"{where}: an integer of {len(digits.lstrip('-'))} digits, "
                              f"longer than any record holds (at most {MAX_DIGITS})")
        return int(digits)

    try:
        return json.loads(text, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where}: malformed JSON at line {exc.lineno}, column {exc.colno} "
                          f"({exc.msg})") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise RecordError(f"{where}: the JSON is nested too deep") from None


def _seat(value: Any, what: str, hand_no: int, players: int = 4) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value not in range(players):
        raise RecordError(f"hand {hand_no}: {what} must be a seat 0..{players - 1}, "
                          f"not {value!r}", hand=hand_no)
    return value


def _cards(value: Any, where: str, hand_no: int) -> list[int]:
    if not isinstance(value, list):
        raise RecordError(f"hand {hand_no}: {where} must be a list of cards", hand=hand_no)
    try:
        return [parse_card(v) for v in value]
    except CardError as exc:
        raise RecordError(f"hand {hand_no}: {where}: {exc}", hand=hand_no) from None


def replay_record(record: Any) -> Replay:
    """Replay one record, checking every action; raise :class:`RecordError` on the first
    problem (malformed field, illegal call or card)."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    if record.get("format", FORMAT) != FORMAT:
        raise RecordError(f"not a belote record: format is {record.get('format')!r}, "
                          f"expected {FORMAT!r}")
    if record.get("version", VERSION) != VERSION:
        raise RecordError(f"unsupported record version {record.get('version')!r} "
                          f"(this program reads version {VERSION})")
    try:
        rules = Rules.from_dict(record.get("rules", {"preset": "classic"}))
    except (RulesError, TypeError) as exc:
        raise RecordError(f"rules: {exc}") from None
    hands = record.get("hands")
    if not isinstance(hands, list):
        raise RecordError("a record needs a 'hands' list")
    players = record.get("players")
    n = rules.players
    if players is not None and (not isinstance(players, list) or len(players) != n
                                or not all(isinstance(p, str) for p in players)):
        raise RecordError(f"'players' must list {n} names")
    first_dealer = 0
    if hands and isinstance(hands[0], dict):
        first_dealer = _seat(hands[0].get("dealer"), "dealer", 1, n)
    game = Game(rules, dealer=first_dealer, players=players)
    out = Replay(game)
    for i, entry in enumerate(hands):
        hand_no = i + 1
        if game.is_over:
            raise RecordError(f"hand {hand_no}: the game was already over after hand {i}",
                              hand=hand_no)
        if game.current is not None and not game.current.is_over:
            raise RecordError(f"hand {hand_no} follows hand {i}, which is not finished",
                              hand=hand_no)
        out.hands.append(_replay_hand(game, entry, hand_no))
    return out


def _replay_hand(game: Game, entry: Any, hand_no: int) -> HandSummary:
    if not isinstance(entry, dict):
        raise RecordError(f"hand {hand_no} must be an object", hand=hand_no)
    rules = game.rules
    n = rules.players
    dealer = _seat(entry.get("dealer"), "dealer", hand_no, n)
    raw_cards = entry.get("cards")
    if not isinstance(raw_cards, list) or len(raw_cards) != n:
        raise RecordError(f"hand {hand_no}: 'cards' must list the cards of {n} seats",
                          hand=hand_no)
    cards = [_cards(c, f"cards of seat {s}", hand_no) for s, c in enumerate(raw_cards)]
    retourne = -1
    if entry.get("retourne") is not None:
        retourne = _cards([entry["retourne"]], "retourne", hand_no)[0]
    try:
        if "auction" in entry and rules.game == "auction":
            hand = HandState.from_deal(rules, dealer, cards)
        elif "auction" in entry and n == 2:
            hand = HandState.from_cards(rules, dealer, cards, -1)
        elif "auction" in entry:
            if retourne < 0:
                raise RecordError(f"hand {hand_no}: a hand with an 'auction' needs its "
                                  "'retourne'", hand=hand_no)
            stock = (_cards(entry["stock"], "stock", hand_no) if entry.get("stock") is not None
                     else None)
            hand = HandState.from_cards(rules, dealer, cards, retourne, stock)
        elif "contract" in entry:
            taker, kind, level, double = _contract(rules, entry["contract"], hand_no)
            hand = HandState.with_contract(rules, dealer, cards, taker, kind, retourne, level,
                                           double)
        else:
            raise RecordError(f"hand {hand_no}: needs an 'auction' or a 'contract'", hand=hand_no)
        game.start_hand(hand)
    except RecordError:
        raise
    except ValueError as exc:
        raise RecordError(f"hand {hand_no}: {exc}", hand=hand_no) from None

    auction = entry.get("auction", [])
    if not isinstance(auction, list):
        raise RecordError(f"hand {hand_no}: 'auction' must be a list of calls", hand=hand_no)
    contract = _contract(rules, entry["contract"], hand_no) if (
        "auction" in entry and "contract" in entry) else None
    seat = hand.turn
    for k, name in enumerate(auction):
        if hand.phase != AUCTION:  # the seat whose turn it would be: the next one round
            seat = (seat + 1) % n
            rule = "calls only in the auction"
            raise RecordError(f"hand {hand_no}, auction index {k} (seat {seat}): "
                              f"{_short(name)} comes after the auction ended "
                              f"({_auction_end(hand)}) [rule: {rule}]", hand=hand_no,
                              index=k, list_name="auction", seat=seat, rule=rule)
        seat = hand.turn
        try:
            action = parse_action(name) if isinstance(name, str) else -1
            if action < 32:
                raise RecordError(f"hand {hand_no}, auction index {k} (seat {seat}): {name!r} "
                                  "is not a call (pass, take, S, H, D, C, SA, TA; in auction "
                                  "games a bid such as 80H or capotS, coinche, surcoinche)",
                                  hand=hand_no, index=k, list_name="auction", seat=seat,
                                  rule="call notation")
            game.apply(action)
        except (IllegalAction, CardError) as exc:
            rule = getattr(exc, "rule", "call notation")
            raise RecordError(f"hand {hand_no}, auction index {k} (seat {seat}): {exc} "
                              f"[rule: {rule}]", hand=hand_no, index=k, list_name="auction",
                              seat=seat, rule=rule) from None

    if contract is not None and contract != (hand.taker, hand.contract, hand.bid_level,
                                             hand.double):
        raise RecordError(f"hand {hand_no}: the 'contract' {_contract_text(*contract)} "
                          f"disagrees with the 'auction', which makes "
                          f"{_auction_end(hand)}: give one of them, or both alike",
                          hand=hand_no, rule="contract and auction")
    play = entry.get("play", [])
    if not isinstance(play, list):
        raise RecordError(f"hand {hand_no}: 'play' must be a list of cards", hand=hand_no)
    if play and hand.phase != PLAY:
        raise RecordError(f"hand {hand_no}: cards are played but the auction "
                          f"{'voided the hand' if hand.is_over else 'is not finished'}",
                          hand=hand_no, list_name="play", index=0)
    declared = _declared_announcements(entry, hand_no)
    belote_seats = _declared_belote(entry, hand_no)
    for k, name in enumerate(play):
        seat = hand.turn
        if hand.phase != PLAY:
            raise RecordError(f"hand {hand_no}, play index {k}: {name!r} comes after the "
                              "eighth trick", hand=hand_no, index=k, list_name="play")
        try:
            card = parse_card(name)
            announce = declared[seat] if declared is not None and hand.trick_number == 0 else None
            said = (seat in belote_seats) if belote_seats is not None else None
            game.apply(card, None, announce, said)
        except (IllegalAction, CardError) as exc:
            rule = getattr(exc, "rule", "card notation")
            raise RecordError(f"hand {hand_no}, play index {k} (seat {seat}): {exc} "
                              f"[rule: {rule}]", hand=hand_no, index=k, list_name="play",
                              seat=seat, rule=rule) from None
    return summarize(game, hand)


def _short(value: Any) -> str:
    """A record's value for a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _contract_text(taker: int, contract: int, level: int, double: int) -> str:
    if taker < 0:
        return "no contract (a voided hand)"
    name = contract_name(contract) if level < 0 else action_name(bid_action(level, contract))
    return f"seat {taker} {name}" + {1: "", 2: " coinched", 4: " surcoinched"}[double]


def _auction_end(hand: HandState) -> str:
    """How a hand's auction ended (or stands), for a message."""
    if hand.phase == AUCTION:
        return "an auction not finished"
    return _contract_text(hand.taker, hand.contract, hand.bid_level, hand.double)


def _contract(rules: Rules, contract: Any, hand_no: int) -> tuple[int, int, int, int]:
    """(taker, contract, bid level, double) of a record's ``contract`` object, refusing
    one these rules cannot make."""
    if not isinstance(contract, dict):
        raise RecordError(f"hand {hand_no}: 'contract' must be an object", hand=hand_no)
    taker = _seat(contract.get("taker"), "the contract's taker", hand_no, rules.players)
    try:
        kind = parse_contract(str(contract.get("trump", "")))
    except CardError:
        raise RecordError(f"hand {hand_no}: the contract's trump must be S, H, D, C, "
                          f"SA or TA, not {_short(contract.get('trump'))}",
                          hand=hand_no) from None
    if kind not in rules.contracts:
        raise RecordError(f"hand {hand_no}: the contract {contract_name(kind)} cannot be made "
                          f"under these {rules.preset} rules (the option "
                          f"{_contract_option(rules, kind)} is off)", hand=hand_no,
                          rule="contract the rules allow")
    level, double = _contract_bid(rules.game, contract, hand_no)
    return taker, kind, level, double


def _contract_option(rules: Rules, contract: int) -> str:
    prefix = "auction" if rules.game == "auction" else "round2"
    return f"{prefix}_{'no_trump' if contract == NO_TRUMP else 'all_trump'}"


def _contract_bid(game: str, contract: dict[str, Any], hand_no: int) -> tuple[int, int]:
    """(bid level, double) of a record's contract; (-1, 1) in classic games."""
    if game != "auction":
        extra = [k for k in ("bid", "double") if k in contract
                 and (k == "bid" or contract[k] != 1)]
        if extra:
            raise RecordError(f"hand {hand_no}: classic belote has no bid or double, but the "
                              f"contract gives {' and '.join(repr(k) for k in extra)}",
                              hand=hand_no, rule="classic contract")
        return -1, 1
    bid = contract.get("bid")
    if bid == "capot":
        level = CAPOT_LEVEL
    elif isinstance(bid, int) and bid in BID_VALUES:
        level = BID_VALUES.index(bid)
    else:
        raise RecordError(f"hand {hand_no}: the contract's bid must be 80..160 by tens or "
                          f"\"capot\", not {_short(bid)}", hand=hand_no)
    double = contract.get("double", 1)
    if double not in (1, 2, 4) or isinstance(double, bool):
        raise RecordError(f"hand {hand_no}: the contract's double must be 1, 2 or 4, not "
                          f"{double!r}", hand=hand_no)
    return level, double


def _declared_announcements(entry: dict[str, Any], hand_no: int) -> list[list[CardSet]] | None:
    if "announcements" not in entry:
        return None
    raw = entry["announcements"]
    if not isinstance(raw, list):
        raise RecordError(f"hand {hand_no}: 'announcements' must be a list", hand=hand_no)
    out: list[list[CardSet]] = [[] for _ in range(4)]
    for item in raw:
        if not isinstance(item, dict):
            raise RecordError(f"hand {hand_no}: each announcement is an object with 'seat' "
                              "and 'cards'", hand=hand_no)
        seat = _seat(item.get("seat"), "an announcement's seat", hand_no)
        mask = 0
        for c in _cards(item.get("cards"), f"announcement of seat {seat}", hand_no):
            mask |= 1 << c
        out[seat].append(mask)
    return out


def _declared_belote(entry: dict[str, Any], hand_no: int) -> set[int] | None:
    if "belote" not in entry:
        return None
    raw = entry["belote"]
    if not isinstance(raw, list):
        raise RecordError(f"hand {hand_no}: 'belote' must list seats", hand=hand_no)
    return {_seat(s, "a belote seat", hand_no) for s in raw}


def summarize(game: Game, hand: HandState) -> HandSummary:
    """The replay summary of ``hand`` (the last one started in ``game``)."""
    taker = hand.taker if hand.taker >= 0 else None
    trump = hand.contract_name() or None
    zeros = (0,) * game.sides
    if game.sides == 3:  # each for himself: per player
        points: tuple[int, ...] = tuple(hand.seat_points)
        belote: tuple[int, ...] = tuple(hand.seat_belote)
    else:
        points = hand.scaled_card_points()
        belote = (hand.belote_points[0], hand.belote_points[1])
    announcements = hand.ann_points if game.sides == 2 else zeros
    if not hand.is_over:
        return HandSummary(taker, trump, "in_progress", tuple(hand.card_points)
                           if game.sides == 2 else points, announcements, belote, zeros,
                           game.reserve)
    score = game.scores[len(game.hands) - 1]
    if score.outcome == VOID:
        return HandSummary(None, None, VOID, zeros, zeros, zeros, zeros, score.reserve)
    capot = hand.capot_team()
    if capot is not None:
        cp = hand.rules.capot_points
        if game.sides == 3:
            taker_side = [cp if s == hand.taker else 0 for s in range(3)]
            points = tuple(taker_side) if capot == 0 else tuple(
                0 if s == hand.taker else cp // 2 for s in range(3))
        else:
            points = (cp, 0) if capot == 0 else (0, cp)
    return HandSummary(taker, trump, score.outcome, points, announcements, belote,
                       score.scored, score.reserve)


def replay_file(path: str | Path) -> list[Replay]:
    """Replay every record of a file."""
    return [replay_record(r) for r in load_records(path)]


def records_of(games: Sequence[Game]) -> dict[str, Any] | list[dict[str, Any]]:
    """One record for one game, an array of records for several."""
    records = [game_to_record(g) for g in games]
    return records[0] if len(records) == 1 else records
