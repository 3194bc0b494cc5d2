"""The tables of the platform and the protocol spoken at them; the server is the only
authority.

:meth:`TableService.handle` takes one message from one player and returns the messages
to send, each to one recipient: a refused message gets an error for its sender only and
changes nothing; an accepted action is validated by the engine, committed to the store,
and only then does every player at the table get its own seat's view (spectators the
public view). Bots play the seats given to them. A new service rebuilds every table from
the store, exactly where it stood.

Client messages (JSON objects):
  {"type": "lobby"}                                    the lobby, pushed at every change
  {"type": "create", "preset": P, "options": {...}}   a new table; you sit at "seat" (0)
                           (options: "target", "private": true, "hints": false,
                           "timer": seconds, "seat": S, "rules": {any rule option: value})
  {"type": "join", "table": T, "seat": S, "invite": K}  sit at a free seat (K: private)
  {"type": "watch", "table": T}                        spectate
  {"type": "bots", "table": T, "level": L}             bots take the free seats (creator)
  {"type": "act", "table": T, "action": "JS", "id": N}  a call or a card, in record notation
                           (the optional ``id``, a number or a short text, is echoed:
                           the actor's next state says ``"ack": {"id": N, "seq": S}``,
                           S where the action is stored; a refusal says ``"id": N``)
  {"type": "sync", "table": T}                         your view again
  {"type": "hint", "table": T}                         the expert's evaluation, to you
  {"type": "chat", "table": T, "text": X | "phrase": Q} a line or a quick phrase, to all
  {"type": "leave", "table": T}                        leave the table
  {"type": "rematch", "table": T}                      the same table again, after a game
Server messages: {"type": "created", "table": T, "invite": K}, {"type": "state", ...},
{"type": "hint", "table": T, "actions": [...]}, {"type": "lobby", "tables", "mine"},
{"type": "chat", ...}, {"type": "left"}, {"type": "timeout"},
{"type": "error", "code": C, "message": M} (docs/web.md has every field).
"""

from __future__ import annotations

import collections
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from rebelote.bots import OFFERED_LEVELS, Bot, make_bot
from rebelote.cards import CardError, card_name, cards_of, contract_name
from rebelote.errors import IllegalAction
from rebelote.game import Game
from rebelote.hand import HandState, action_name, call_seats, deal_deck, parse_action
from rebelote.rules import Rules, RulesError
from rebelote.scoring import HandScore, contract_need, three_need
from rebelote.server.store import Store, StoredTable
from rebelote.server.summary import Summaries
from rebelote.server.wire import Composed, encode, fragment
from rebelote.view import SeatView, Trick, make_view

log = logging.getLogger(__name__)
Message = dict[str, Any]
GRACE_S = 120.0
"""A player who drops keeps the seat this long while a bot plays for him."""
TABLE_FIXED_OPTIONS = frozenset({"players", "game", "deck_style"})
"""Rule options a table's creator cannot change (the preset's variant; each client
chooses its own deck style)."""
STAND_IN_AFTER_S = 10.0
"""A bot stands in for a dropped player only after this long (a reload is no drop)."""
MAX_TARGET = 10_000
"""The highest target a table may set (the presets' highest is 2,000): a game ends."""
MAX_HANDS = 100
"""The most hands a fixed-hands game (``hands_limit``) may set."""
MAX_OPEN_TABLES = 10
"""Unfinished tables one player may have created."""
MAX_CREATED_PER_MINUTE = 10
"""New tables one player may create in a minute."""
STORAGE_ERROR = ("the server could not save the last action: the table is back where it "
                 "was last saved; try again in a moment")
UNAVAILABLE = ("this table is unavailable: its saved game could not be read back "
               "(the operators are told)")
CHAT_MAX = 140
"""The longest chat line a table accepts (characters)."""
PHRASES = ("well_played", "your_turn", "sorry", "thanks", "hello", "good_game", "hurry")
"""The quick phrases (each a ``phrase_*`` text of the catalog, said in the reader's
language)."""


def seat_label(who: dict[str, str], names: dict[str, str] | None = None) -> str | None:
    """Who sits at a seat: a player's display name, ``bot:LEVEL``, or None if free."""
    if "player" in who:
        return (names or {}).get(who["player"], who["player"])
    return f"bot:{who['bot']}" if "bot" in who else None


MAX_ID = 64
"""The longest text an action's ``id`` may be."""


def valid_id(value: Any) -> bool:
    """An action's ``id``: a whole number or a short text (echoed in its answer)."""
    if isinstance(value, bool):
        return False
    return (isinstance(value, int) and abs(value) < 2 ** 53) or (
        isinstance(value, str) and len(value) <= MAX_ID)


def refusing(refusal: Message, message: Any) -> Message:
    """``refusal`` naming the ``id`` of the action ``message`` it refuses, if it has a
    valid one (the client tells which of its actions was not made)."""
    if isinstance(message, dict) and valid_id(message.get("id")):
        refusal["id"] = message["id"]
    return refusal


def error_message(exc: ServiceError) -> Message:
    """The ``error`` message for a refusal."""
    error: Message = {"type": "error", "code": exc.code, "message": str(exc)}
    if exc.rule:
        error["rule"] = exc.rule
    return error


class ServiceError(ValueError):
    """A message the server refuses; ``code`` says why, for clients."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule  # the engine's rule, for an illegal action

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a worker process, pickled back
        return (ServiceError, (self.code, str(self), self.rule))


class LazyBot:
    """A table's bot, made at its first decision here: where bots think in worker
    processes (the web server), an expert's solver is never built in the server's
    own memory (it was most of a table's memory)."""

    def __init__(self, level: str, seed: int) -> None:
        self.name = level
        self.seed = seed
        self._bot: Bot | None = None

    def choose(self, view: SeatView) -> int:
        if self._bot is None:
            self._bot = make_bot(self.name, self.seed)
        return self._bot.choose(view)


@dataclass
class Table:
    """One table: its rules, who sits where, its game once every seat is taken."""

    id: str
    rules: Rules
    creator: str
    seats: list[dict[str, str]]
    options: dict[str, Any]
    game: Game | None = None
    seq: int = 0
    bots: dict[int, Bot] = field(default_factory=dict)
    spectators: set[str] = field(default_factory=set)
    stand_ins: dict[int, Bot] = field(default_factory=dict)
    """Bots playing for players who dropped (their seat is kept for ``GRACE_S``)."""
    absent_since: dict[int, float] = field(default_factory=dict)
    turn_since: float = 0.0
    """When the seat to act got its turn (for the turn timer)."""
    timed_out: int | None = None
    """The seat whose turn timer ran out: a bot plays that one turn for it."""
    stored_absent: set[int] = field(default_factory=set)
    """Seats whose stand-in timer was in the store when the table was restored."""
    shown: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Parts of the state message that change once a hand (the last hand's summary, the
    score sheet), kept with the hand or game they were made from: every state message
    built them again, a cost that grew with the game."""

    def seat_of(self, player: str) -> int | None:
        for seat, who in enumerate(self.seats):
            if who.get("player") == player:
                return seat
        return None

    @property
    def full(self) -> bool:
        return all(self.seats)

    def listeners(self) -> list[tuple[str, int]]:
        """(player, seat) of everyone to tell about the table; seat -1 for spectators."""
        seated = [(who["player"], s) for s, who in enumerate(self.seats) if "player" in who]
        return seated + [(p, -1) for p in sorted(self.spectators)]


@functools.lru_cache(maxsize=1024)
def _shown_rules(rules: Rules) -> tuple[tuple[str, Any], ...]:
    """The options a table's lobby entry names (those that differ from its preset, but
    the target): computed once per set of rules, not at every lobby write (a tenth of
    a busy cluster process's loop went to it)."""
    return tuple((k, v) for k, v in rules.to_dict().items() if k not in ("preset", "target"))


def auction_of(v: SeatView) -> Message:
    """The auction as the table heard it: each call with its seat (turn order from the
    first hand, but the acorralada's raise and contra: :func:`call_seats`), and the
    contract so far (the view's ``contract_info``): bidder, value (None in classic),
    trump, the coinche multiplier, who doubled, whether final."""
    said = [{"seat": seat, "call": _action_name(call)}
            for seat, call in zip(call_seats(v), v.calls, strict=True)]
    c = v.contract_info
    contract: Message | None = None
    if c is not None:
        double = v.rules.surcoinche_multiplier if c.double == 4 else c.double
        contract = {"seat": c.bidder, "trump": contract_name(c.kind),
                    "value": None if c.level < 0 else "capot" if c.is_capot else str(c.value),
                    "double": double, "doubled_by": None if c.doubled_by < 0 else c.doubled_by,
                    "redoubled_by": None if c.redoubled_by < 0 else c.redoubled_by,
                    "final": c.final}
    return {"calls": said, "contract": contract}


@functools.lru_cache(maxsize=512)
def _action_name(action: int) -> str:
    """:func:`action_name`, kept: the names of calls and legal cards are written into
    every state message (a few hundred distinct actions)."""
    return action_name(action)


_BYTE_NAMES = [[tuple(card_name(c) for c in cards_of(byte << (8 * suit)))
                for byte in range(256)] for suit in range(4)]
"""The names of the cards of each suit's byte of a card set: a hand's names in four
lookups instead of a name per card."""


def _names(mask: int) -> list[str]:
    """The names of the cards of ``mask``, in card order (as ``cards_of``)."""
    return [*_BYTE_NAMES[0][mask & 0xFF], *_BYTE_NAMES[1][mask >> 8 & 0xFF],
            *_BYTE_NAMES[2][mask >> 16 & 0xFF], *_BYTE_NAMES[3][mask >> 24 & 0xFF]]


def _trick_messages(tricks: Iterable[Trick]) -> list[Message]:
    return [{"leader": t.leader, "winner": t.winner,
             "cards": [card_name(c) for c in t.cards]} for t in tricks]


def hand_summary(game: Game, index: int) -> Message:
    """What the hand ``index`` (0-based, finished) scored, for the summary shown after
    it: every trick (all public once the hand is over), card points with the dix de der,
    announcements, belote, the outcome, the reserve, capot."""
    hand, score = game.hands[index], game.scores[index]
    v = make_view(hand, -1)
    out: Message = {"hand": index + 1, "outcome": score.outcome,
                    "scored": list(score.scored), "totals": list(score.totals),
                    "reserve": score.reserve, "reserve_won_by": score.reserve_won_by,
                    "void": hand.is_void, "tricks": _trick_messages(v.tricks),
                    "taker": v.taker if v.taker >= 0 else None,
                    "contract": auction_of(v)["contract"],
                    "announcements": _announcements(v),
                    "belote": [[s, word] for s, word, _card in v.belote_said]}
    if not hand.is_void:
        o = hand.outcome()
        need = (three_need(hand.rules, hand.taker, score.totals, tuple(hand.seat_belote))
                if hand.rules.players == 3
                else contract_need(hand.rules, o))
        out |= {"card_points": list(o.card_points), "capot": o.capot,
                "capot_points": hand.rules.capot_points,
                "announcement_points": list(o.announcements), "belote_points": list(o.belote),
                "dix_de_der": v.tricks[-1].winner if v.tricks else None,
                "need": None if need is None else list(need)}
        if hand.rules.game == "auction" and hand.rules.players == 4:
            # how each side's score was made (the bid, a ×2), as the rules computed it
            out["terms"] = [term.as_dict() for term in game.hand_terms(index)]
    return out


def _finished(game: Game | None) -> tuple[list[HandState], list[HandScore]]:
    """The game's finished hands and their scores, copied: a finished hand does not
    change any more, so a thread may read this snapshot while the game goes on."""
    if game is None:
        return [], []
    hands = game.hands[:]
    if hands and not hands[-1].is_over:
        hands.pop()
    return hands, game.scores[:len(hands)]


def _seat_header(table: Table, seat: int) -> Message:
    """The fields of a state message that depend on the seat it is for."""
    out: Message = {"seat": seat,
                    "hints": bool(table.options.get("hints", True)) and seat >= 0,
                    "creator": seat >= 0 and table.seats[seat].get("player") == table.creator}
    if table.options.get("private") and seat >= 0:
        out["invite"] = table.options.get("invite")
    return out


def _seat_hand(v: SeatView) -> Message:
    """The fields of a playing table's state message that depend on the seat: its cards,
    what it may do, the announcements as it may see them."""
    return {"hand": _names(v.hand),
            "legal": [_action_name(a) for a in v.legal_actions],
            "announcements": _announcements(v)}


def _announcements(v: SeatView) -> list[Message]:
    """The announcements as ``v``'s seat may see them (the cards of those it may)."""
    return [{"seat": a.seat, "kind": a.kind, "points": a.points,
             "cards": None if a.cards is None else _names(a.cards)}
            for a in v.announcements]


def view_messages(table: Table, seats: list[int], names: dict[str, str] | None = None,
                  now: float | None = None) -> list[Message]:
    """:func:`view_message` for each of ``seats``, what every seat sees alike built once
    (a broadcast built it for each listener: most of a busy server's time per action),
    and written once (:class:`~rebelote.server.wire.Composed`)."""
    if not seats:
        return []
    game = table.game
    v = game.view(seats[0]) if game is not None and game.current is not None else None
    shared, written = _shared_fields(table, v, names, now)
    return [_seat_message(table, seat, v if i == 0 else None, shared, written)
            for i, seat in enumerate(seats)]


def view_message(table: Table, seat: int, names: dict[str, str] | None = None,
                 now: float | None = None) -> Message:
    """What ``seat`` (-1: a spectator) may see of ``table``, as a JSON-ready object;
    ``names`` gives players' display names, ``now`` the clock (for the turn timer)."""
    return view_messages(table, [seat], names, now)[0]


def _seat_message(table: Table, seat: int, v: SeatView | None, shared: Message,
                  written: Message) -> Message:
    """``seat``'s state message: the shared fields and its own (``v``: its view, if
    made already)."""
    own = _seat_header(table, seat)
    game = table.game
    if game is not None and game.current is not None:
        own.update(_seat_hand(game.view(seat) if v is None else v))
    return Composed(shared, own, written)


def _kept(shown: dict[str, Any], key: str, value: Any) -> None:
    """``value`` kept in ``shown`` as ``key``, with its text (``key`` + ``_text``)."""
    shown[key] = value
    shown[key + "_text"] = fragment(value)


def _kept_growing(shown: dict[str, Any], key: str, of: object, length: int,
                  build: Callable[[int, int], list[Any]]) -> None:
    """A list that only grows while ``of`` (by identity) stays, kept in ``shown`` as
    ``key`` with its text (``key`` + ``_text``): ``build(start, end)`` makes its items
    from ``start`` to ``end``. Those kept already stay, as does their text, and only the
    ones after them are built: the finished tricks and the score sheet, rebuilt whole at
    each trick or hand, were about half the young objects of a busy server's collection
    (each walked by it; one sample of 300)."""
    if shown.get(key + "_of") is of and shown[key + "_length"] == length:
        return
    kept: list[Any] = shown[key] if shown.get(key + "_of") is of else []
    if len(kept) > length:
        kept = []
    added = build(len(kept), length)
    if not kept:
        text = encode(added)
    elif added:
        text = shown[key + "_bytes"][:-1] + b"," + encode(added)[1:]
    else:
        text = shown[key + "_bytes"]
    shown[key + "_of"], shown[key + "_length"] = of, length
    shown[key], shown[key + "_bytes"] = kept + added, text
    shown[key + "_text"] = orjson.Fragment(text)


def _shared_fields(table: Table, v: SeatView | None, names: dict[str, str] | None,
                   now: float | None) -> tuple[Message, Message]:
    """The fields of a state message that every seat sees alike (from ``v``, the view
    of one of them; None: no hand is being played), and the same to write: the parts
    that change by hand or by trick only written once, when they change."""
    rules = table.rules
    shown = table.shown
    out: Message = {"type": "state", "table": table.id,
                    "preset": rules.preset, "players": rules.players,
                    "direction": rules.direction, "game": rules.game,
                    "scoring": rules.auction_scoring, "target": rules.target,
                    "seats": [seat_label(w, names) for w in table.seats],
                    "bots": [w.get("bot") for w in table.seats],
                    "away": sorted(table.absent_since),
                    "stand_ins": sorted(table.stand_ins),
                    "timer": table.options.get("timer"),
                    "private": bool(table.options.get("private")),
                    "rematch": table.options.get("rematch"),
                    "rematch_by": table.options.get("rematch_by")}
    game = table.game
    if game is None or game.current is None or v is None:
        out["phase"] = "waiting"
        return out, out
    if shown.get("auction_of") is not game.current or shown["auction_length"] != len(v.calls):
        # the auction changes with its calls only, and every seat hears it alike
        shown["auction_of"], shown["auction_length"] = game.current, len(v.calls)
        auction = auction_of(v)
        _kept(shown, "auction", auction["calls"])
        _kept(shown, "bid", auction["contract"])
    last = len(game.hands) - 1  # the last finished hand (every hand before the current is)
    if last >= 0 and not game.hands[last].is_over:
        last -= 1
    summarized = game.hands[last] if last >= 0 else None
    if "summary" not in shown or shown["summary_of"] is not summarized:
        shown["summary_of"] = summarized
        _kept(shown, "summary", None if last < 0 else hand_summary(game, last))
    tricks, scores, hands = v.tricks, game.scores, game.hands
    _kept_growing(shown, "tricks", game.current, len(tricks),
                  lambda start, end: _trick_messages(tricks[start:end]))
    _kept_growing(shown, "scores", scores, len(scores),
                  lambda start, end: [list(s.scored) for s in scores[start:end]])
    _kept_growing(shown, "sheet", scores, len(scores), lambda start, end: [
        {"outcome": s.outcome, "scored": list(s.scored),
         "contract": auction_of(make_view(h, -1))["contract"]}
        for s, h in zip(scores[start:end], hands[start:end], strict=True)])
    out.update({
        "phase": v.phase, "dealer": v.dealer, "turn": v.turn, "first_hand": v.first_hand,
        "hand_number": v.hand_number,
        "table_cards": [_names(m) for m in v.table],
        "calls": [_action_name(a) for a in v.calls],
        "auction": shown["auction"], "bid": shown["bid"],
        "retourne": card_name(v.retourne) if v.retourne >= 0 else None,
        "taker": v.taker if v.taker >= 0 else None,
        "contract": contract_name(v.contract) if v.contract >= 0 else None,
        "trick": None if v.trick is None else {
            "leader": v.trick.leader, "cards": [card_name(c) for c in v.trick.cards],
            "winner": v.master if v.master >= 0 else None},
        "tricks": shown["tricks"],
        "announcement_winner": v.announcement_winner,
        "announcement_points": list(v.announcement_points),
        "announcement_seats": list(v.announcement_seats), "teams": list(v.teams),
        "belote": [[s, word] for s, word, _card in v.belote_said],
        "totals": list(game.totals), "reserve": game.reserve,
        "scores": shown["scores"], "sheet": shown["sheet"],
        "last_hand": shown["summary"],
        "winner": game.winner,
    })
    timer = table.options.get("timer")
    if timer and now is not None and not game.is_over and v.phase != "over":
        out["turn_left"] = round(max(0.0, timer - (now - table.turn_since)), 1)
    written = out.copy()
    written.update(auction=shown["auction_text"], bid=shown["bid_text"],
                   tricks=shown["tricks_text"], scores=shown["scores_text"],
                   sheet=shown["sheet_text"], last_hand=shown["summary_text"])
    return out, written


def compute_hint(table_id: str, view: SeatView) -> Message:
    """The expert's evaluation of the legal actions of the seat whose ``view`` this is
    (CPU-bound: the web layer runs it in a worker process, given the view: what the
    seat may see, and a few kilobytes however long the game)."""
    from rebelote.analysis import AnalysisError, hint_view

    try:
        hints = hint_view(view, samples=24)
    except AnalysisError as exc:
        raise ServiceError("no_hint", str(exc)) from None
    return {"type": "hint", "table": table_id, "measure": hints[0].measure,
            "actions": [{"action": h.action, "value": round(h.value, 1)} for h in hints]}


class StorageFailure(Exception):
    """A write to the store failed: the tables it touched are back at their stored
    state; ``messages`` tell their players (a ``storage`` error, then their view)."""

    def __init__(self, tables: set[str], messages: list[tuple[str, Message]]) -> None:
        super().__init__(f"the store refused the actions of {len(tables)} table(s)")
        self.tables = tables
        self.messages = messages


@dataclass
class BotTurn:
    """A bot's decision to make off the event loop: the table at ``seq``, the seat to
    act, its bot and its view (a snapshot: safe to read from another thread)."""

    table: str
    seq: int
    seat: int
    bot: Bot
    view: SeatView
    level: str
    """The bot's level and seed: a worker process makes the same bot of them."""
    seed: int


class TableService:
    """Every table of the server, kept in step with the store."""

    def __init__(self, store: Store, seed: int | None = None,
                 clock: Callable[[], float] = time.monotonic, load_all: bool = True) -> None:
        self.store = store
        self.clock = clock
        self.rng = random.Random(seed)
        self.tables: dict[str, Table] = {}
        """The tables this service runs (with ``load_all=False``, as in the scale-out
        mode, only those it created or adopted: other processes run the others)."""
        self.created: collections.deque[str] = collections.deque(maxlen=64)
        """The ids of the last tables created here, newest last."""
        self.created_count = 0
        """How many tables were created here (with :attr:`created`: which ones a
        message created)."""
        self.load_all = load_all
        self.names: dict[str, str] = store.names()
        """Players' display names (nicknames), kept in the store."""
        self.quarantined: dict[str, str] = {}
        """Tables whose stored actions do not replay: id -> why (logged at start)."""
        self.defer_bots = False
        """Set by the web layer: bots do not think inside :meth:`handle`; the tables
        whose bot is to act are left in :attr:`bots_due` for :meth:`bot_turn`."""
        self.bots_due: set[str] = set()
        self.created_at: dict[str, list[float]] = {}
        """When each player created tables lately (the creation rate limit)."""
        self._pending: list[tuple[str, int, str, dict[str, Any]]] = []
        self.defer_absences = False
        """Set by the web layer: stand-in timers are written with the next batch of
        actions (by its writer thread), not at once on the event loop."""
        self.absences: dict[tuple[str, int], float | None] = {}
        """Stand-in timers to write: (table, seat) -> since (wall clock) or None."""
        self.summaries = Summaries(store)
        """Statistics and ratings, counted as hands and games finish."""
        self.lobby_watchers: set[str] = set()
        """Players looking at the lobby: told of every change to it (no reload)."""
        if load_all:
            self.summaries.prime()
            for stored in store.load():
                self._load(stored)
            for table in list(self.tables.values()):  # a rematch asked before a restart
                first = self.tables.get(table.options.get("rematch_of") or "")
                if first is not None:
                    self._link_rematch(first, table)
            self.summaries.update(self.tables.values())  # what a crash left uncounted

    def _load(self, stored: StoredTable) -> Table | None:
        """Restore a stored table, or quarantine it (logged) if it does not replay."""
        try:
            table = self.tables[stored.id] = self._restore(stored)
        except Exception as exc:  # any failure to replay: this table only
            reason = f"{type(exc).__name__}: {exc}"
            self.quarantined[stored.id] = reason
            self.tables.pop(stored.id, None)
            log.error("table %s is quarantined: its stored actions do not replay (%s)",
                      stored.id, reason)
            return None
        self.quarantined.pop(stored.id, None)
        return table

    def _restore(self, stored: StoredTable) -> Table:
        """A table rebuilt from the store, exactly where it stood."""
        if stored.error is not None:
            raise ValueError(stored.error)
        table = Table(stored.id, Rules.from_dict(stored.rules),
                      stored.options.get("creator", ""), [{} for _ in stored.seats],
                      stored.options)
        for kind, payload in stored.actions:
            self._apply(table, kind, payload)
            table.seq += 1
        now = self.clock()
        table.turn_since = now  # the turn timer starts anew after a restart
        wall = time.time()
        table.stored_absent = set(stored.absent)
        for seat, who in enumerate(table.seats):
            if "player" in who:  # nobody is connected to a table just restored
                since = stored.absent.get(seat)
                table.absent_since[seat] = now if since is None else now - max(0.0,
                                                                               wall - since)
        return table

    def adopt(self, table_id: str, commit: bool = True) -> list[tuple[str, Message]] | None:
        """Run the stored table ``table_id`` from now on (the scale-out mode: no process
        runs it, or the one that did is gone); None if there is no such table, else the
        messages to send if a bot whose turn it was played on. With ``commit=False`` the
        caller commits (and counts the table's statistics) before sending them."""
        restored = self.restore_many([table_id])
        if isinstance(restored.get(table_id, "not stored"), str):
            self.install(restored, commit=False)  # quarantined (logged)
            return None
        return self.install(restored, commit=commit)[0]

    def restore_many(self, table_ids: Collection[str]) -> dict[str, Table | str]:
        """The stored tables ``table_ids`` rebuilt (three queries for them all, then
        their actions replayed), or why one does not replay; a table not stored is
        left out. Reads the store and builds new tables only: the cluster runs it in a
        thread, off the event loop, before :meth:`install`."""
        out: dict[str, Table | str] = {}
        for stored in self.store.load(ids=table_ids):
            try:
                out[stored.id] = self._restore(stored)
            except Exception as exc:  # any failure to replay: this table only
                out[stored.id] = f"{type(exc).__name__}: {exc}"
        return out

    def install(self, restored: dict[str, Table | str], commit: bool = True
                ) -> tuple[list[tuple[str, Message]], list[Table]]:
        """Run the tables :meth:`restore_many` rebuilt (those that do not replay are
        quarantined, logged): rematches linked, a bot whose turn it was set going. The
        messages to send (the tables a bot or a deal moved on) and the tables now run
        here. With ``commit=False`` the caller commits (and counts their statistics)
        before sending any message."""
        adopted: list[Table] = []
        for table_id, table in restored.items():
            if isinstance(table, str):
                self.quarantined[table_id] = table
                self.tables.pop(table_id, None)
                log.error("table %s is quarantined: its stored actions do not replay (%s)",
                          table_id, table)
                continue
            self.quarantined.pop(table_id, None)
            self.tables[table_id] = table
            adopted.append(table)
        by_first = {t.options.get("rematch_of"): t for t in self.tables.values()
                    if t.options.get("rematch_of")}
        for table in adopted:  # a rematch asked before (either way)
            first = self.tables.get(table.options.get("rematch_of") or "")
            if first is not None:
                self._link_rematch(first, table)
            second = by_first.get(table.id)
            if second is not None:
                self._link_rematch(table, second)
        moved = []
        for table in adopted:
            seq = table.seq
            self._progress(table)
            if table.seq != seq:
                moved.append(table)
        if commit:
            try:
                self.commit()
            except StorageFailure as failure:
                return failure.messages, [t for t in adopted if t.id in self.tables]
            self.summaries.update(adopted)
        return [m for t in moved for m in self._broadcast(t)], adopted

    def back_at_restored(self, tables: list[Table], online: set[str]) -> list[tuple[str, int]]:
        """Tables just restored count every seated player as away: those in
        ``online`` are back (their seats theirs again). Their stored stand-in timers are
        cleared with the next batch (:attr:`defer_absences`), or else returned: the
        (table, seat) the caller clears (in one write)."""
        now = self.clock()
        cleared = []
        for table in tables:
            for seat, who in enumerate(table.seats):
                if who.get("player") in online and seat in table.absent_since:
                    table.stand_ins.pop(seat, None)
                    del table.absent_since[seat]
                    table.turn_since = now
                    if seat not in table.stored_absent:
                        continue  # nothing stored to clear
                    if self.defer_absences:  # written with the next batch
                        self.absences[table.id, seat] = None
                    else:
                        cleared.append((table.id, seat))
        return cleared

    def drop(self, table_id: str) -> None:
        """Stop running ``table_id`` (another process runs it now)."""
        self.tables.pop(table_id, None)
        self.summaries.forget(table_id)

    def peek(self, table_id: Any) -> Table:
        """A table to read: one this service runs, or else a copy from the store."""
        if isinstance(table_id, str) and table_id not in self.tables and not self.load_all:
            stored = self.store.load(table_id)
            if stored:
                try:
                    return self._restore(stored[0])
                except Exception:
                    raise ServiceError("unavailable", UNAVAILABLE) from None
        return self.running_table(table_id)

    def every_table(self) -> list[Table]:
        """Every table of the platform, for statistics (from the store when other
        processes run some of them)."""
        if self.load_all:
            return list(self.tables.values())
        out = []
        for s in self.store.load():
            try:
                out.append(self.tables.get(s.id) or self._restore(s))
            except Exception:
                continue  # a quarantined table counts for nothing
        return out

    def lobby_entry(self, table: Table, private: bool = False) -> Message | None:
        """The table as the lobby shows it: rules, who sits where, free seats, status;
        None for a private table (unless ``private``)."""
        if table.options.get("private") and not private:
            return None
        changed = dict(_shown_rules(table.rules))
        game = table.game
        status = ("waiting" if game is None else "over" if game.is_over else "playing")
        reserved = table.options.get("reserved") or {}
        return {"table": table.id, "preset": table.rules.preset, "target": table.rules.target,
                "players": table.rules.players, "rules": changed,
                "seats": [seat_label(w, self.names) for w in table.seats],
                "free": [s for s, who in enumerate(table.seats)
                         if not who and str(s) not in reserved],
                "status": status, "hand": len(game.hands) if game is not None else 0,
                "totals": list(game.totals) if game is not None else None}

    # -- the protocol -------------------------------------------------------------------

    def handle(self, player: str, message: Any, commit: bool = True
               ) -> list[tuple[str, Message]]:
        """One message from ``player``; the messages to send, each to one recipient.
        With ``commit=False`` the caller must :meth:`commit` before sending any of them
        (the web server commits the messages of one event-loop turn together). A failed
        write raises :class:`StorageFailure` from :meth:`commit`."""
        pending = len(self._pending)
        try:
            out = self._handle(player, message)
        except ServiceError as exc:
            assert len(self._pending) == pending  # a refused message records nothing
            return [(player, refusing(error_message(exc), message))]
        if commit:
            try:
                self.commit()  # every action this message caused, before anyone hears
            except StorageFailure as failure:
                return failure.messages
        return out

    @property
    def uncommitted(self) -> bool:
        """Whether actions wait for :meth:`commit`."""
        return bool(self._pending)

    def commit(self) -> None:
        """Write the actions handled since the last commit, in one transaction. If the
        write fails, every table with actions in it returns to its last stored state
        (nothing of them was acknowledged) and :class:`StorageFailure` is raised."""
        batch = self.take_pending()
        if not batch:
            return
        tables = self.tables_of(batch)
        try:
            self.store_batch(batch, tables)
        except Exception as exc:
            raise self.not_stored(batch, exc) from exc

    @property
    def pending_count(self) -> int:
        """How many actions wait to be taken to be written (grows as a message records
        actions)."""
        return len(self._pending)

    def pending_tables(self) -> set[str]:
        """The tables with actions handled but not yet taken to be written."""
        return {t for t, *_ in self._pending}

    def take_pending(self) -> list[tuple[str, int, str, dict[str, Any]]]:
        """The actions handled since the last commit, to be written (:meth:`store_batch`
        and then :meth:`not_stored` if it failed); later ones make the next batch."""
        batch, self._pending = self._pending, []
        return batch

    def tables_of(self, batch: list[tuple[str, int, str, dict[str, Any]]]) -> list[Table]:
        """The tables a batch touched (read on the event loop, before the write)."""
        return [self.tables[t] for t in dict.fromkeys(t for t, *_ in batch) if t in self.tables]

    def store_batch(self, batch: list[tuple[str, int, str, dict[str, Any]]],
                    tables: list[Table], stored: Callable[[], None] | None = None) -> None:
        """Write a batch in one transaction, then count what its tables finished in the
        summary tables (soon: :meth:`Summaries.later`): the web server runs it in its
        writer thread, off the event loop (it only reads the tables, whose finished
        hands never change). ``stored`` is called between the two: the actions are
        stored, their answers may go (a count took 3.8 ms on average, 14 ms at p90,
        under load, and answers waited for it)."""
        self.store.append(batch)
        if stored is not None:
            stored()
        self.summaries.later(tables)

    def statistics_waiting(self) -> bool:
        """Whether finished hands written wait to be counted in the summaries."""
        return self.summaries.waiting()

    def settle_statistics(self) -> None:
        """Count in the summaries every finished hand written so far (in a thread)."""
        self.summaries.settle()

    def snapshot(self, out: list[tuple[str, Message]]) -> dict[str, Table | None]:
        """The tables that messages ``out`` speak of, as they are now: after a commit,
        :meth:`undone` tells which of them a failed write has since undone."""
        ids = {m["table"] for _p, m in out if isinstance(m.get("table"), str)}
        return {t: self.tables.get(t) for t in ids}

    def undone(self, snapshot: dict[str, Table | None]) -> dict[str, set[str]]:
        """The tables of ``snapshot`` that a failed write has replaced by their stored
        state (or removed) since, each with the players told of it then. Whatever batch
        an action was written in, its answer is sent only if its table was not undone
        meanwhile (an action taken on a table whose earlier write then failed stood on
        actions that are not stored)."""
        return {t: {p for p, _seat in table.listeners()} for t, table in snapshot.items()
                if table is not None and self.tables.get(t) is not table}

    def not_stored(self, batch: list[tuple[str, int, str, dict[str, Any]]],
                   exc: BaseException) -> StorageFailure:
        """After a failed write of ``batch``: its tables back at their stored state (the
        actions handled since on them dropped too), and what to tell their players."""
        failed = {table_id for table_id, *_ in batch}
        log.error("storing the actions of %d table(s) failed: %s", len(failed), exc)
        return StorageFailure(failed, self._revert(failed))

    def _revert(self, failed: set[str]) -> list[tuple[str, Message]]:
        """Tables back to their stored state after a failed write; a ``storage`` error
        and the view as stored for each of their players."""
        out: list[tuple[str, Message]] = []
        error: Message = {"type": "error", "code": "storage", "message": STORAGE_ERROR}
        for table_id in failed:
            old = self.tables.pop(table_id, None)
            self.bots_due.discard(table_id)
            self.summaries.drop(table_id)
            try:
                stored = self.store.load(table_id)
            except Exception as exc:
                stored = []
                log.error("table %s could not be read back: %s", table_id, exc)
            table = self._load(stored[0]) if stored else None
            if table is not None and old is not None:
                table.spectators = old.spectators
                table.absent_since = {s: t for s, t in old.absent_since.items()
                                      if "player" in table.seats[s]}
                table.stand_ins = {s: b for s, b in old.stand_ins.items()
                                   if s in table.absent_since}
            if table is None and old is not None:
                self.quarantined.setdefault(table_id, "its stored state could not be read")
            known = table or old
            listeners = known.listeners() if known is not None else []
            for player, seat in listeners:
                out.append((player, error | {"table": table_id}))
                if table is not None:
                    out.append((player, view_message(table, seat, self.names)))
            if table is not None and table.seq == 0:  # its creation was not kept
                self.tables.pop(table_id, None)
            elif table is not None:
                self._progress(table)  # a bot whose turn it is (deferred: bots_due)
        self._pending = [p for p in self._pending if p[0] not in failed]
        return out

    def _handle(self, player: str, message: Any) -> list[tuple[str, Message]]:
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise ServiceError("bad_message", "a message is a JSON object with a 'type'")
        kind = message["type"]
        if kind == "lobby":
            self.lobby_watchers.add(player)
            return [(player, self.lobby_message(player))]
        if kind == "create":
            table = self.create(player, message.get("preset", "classic"),
                                message.get("options", {}))
            self.lobby_watchers.discard(player)
            created: Message = {"type": "created", "table": table.id}
            if table.options.get("private"):
                created["invite"] = table.options["invite"]
            seat = table.seat_of(player)
            return [(player, created),
                    (player, view_message(table, 0 if seat is None else seat, self.names,
                                          self.clock())),
                    *self._lobby_news()]
        table = self.running_table(message.get("table"))
        lobby_changes = kind in ("join", "bots", "leave", "rematch")
        if kind == "join":
            self._check_invite(table, player, message)
            self.join(table, player, message.get("seat"))
            self.lobby_watchers.discard(player)
        elif kind == "hint":
            return [(player, self.hint(table, player))]
        elif kind == "watch":
            self._check_invite(table, player, message)
            self.lobby_watchers.discard(player)
            seat = table.seat_of(player)
            if seat is not None:  # his own table (an invite link opened again): his seat
                return [(player, view_message(table, seat, self.names, self.clock()))]
            table.spectators.add(player)
            return [(player, view_message(table, -1, self.names, self.clock()))]
        elif kind == "bots":
            self.add_bots(table, player, message.get("level", "heuristic"))
        elif kind == "act":
            ack = message.get("id")
            if ack is not None and not valid_id(ack):
                raise ServiceError("bad_message", "an action's id is a whole number or a "
                                   f"text of at most {MAX_ID} characters")
            over = table.game is not None and table.game.is_over
            seq = table.seq
            self.act(table, player, message.get("action"))
            lobby_changes = table.game is not None and table.game.is_over and not over
            out = self._broadcast(table) + (self._lobby_news() if lobby_changes else [])
            if ack is not None:  # the actor hears where his action is stored
                for recipient, answer in out:
                    if recipient == player and answer.get("table") == table.id:
                        answer["ack"] = {"id": ack, "seq": seq}
            return out
        elif kind == "sync":
            seat = table.seat_of(player)
            if seat is None and player not in table.spectators:
                self._check_invite(table, player, message)
            self.lobby_watchers.discard(player)
            return [(player, view_message(table, -1 if seat is None else seat, self.names,
                                          self.clock()))]
        elif kind == "chat":
            return self.chat(table, player, message)
        elif kind == "leave":
            self.leave(table, player)
            self.lobby_watchers.add(player)
            return [(player, {"type": "left", "table": table.id}), *self._broadcast(table),
                    *self._lobby_news()]
        elif kind == "rematch":
            new = self.rematch(table, player)
            return (self._broadcast(table) + self._broadcast(new) + self._lobby_news())
        else:
            raise ServiceError("bad_message", f"unknown message type {kind!r}")
        return self._broadcast(table) + (self._lobby_news() if lobby_changes else [])

    @staticmethod
    def _check_invite(table: Table, player: str, message: Message) -> None:
        """A private table is for those invited (its seated players, its creator)."""
        if (table.options.get("private") and table.seat_of(player) is None
                and player != table.creator
                and message.get("invite") != table.options["invite"]):
            raise ServiceError("private", "this table is private: join by its invite link")

    def running_table(self, table_id: Any) -> Table:
        """The table ``table_id`` this service runs (ServiceError if none, or quarantined)."""
        if isinstance(table_id, str) and table_id in self.quarantined:
            raise ServiceError("unavailable", UNAVAILABLE)
        if not isinstance(table_id, str) or table_id not in self.tables:
            raise ServiceError("no_table", f"there is no table {str(table_id)[:40]!r}")
        return self.tables[table_id]

    # -- what players do --------------------------------------------------------------

    def open_tables(self, player: str) -> int:
        """Tables ``player`` created whose game is not over."""
        return sum(1 for t in self.tables.values() if t.creator == player
                   and not (t.game is not None and t.game.is_over))

    def create(self, player: str, preset: Any, options: Any) -> Table:
        if not isinstance(options, dict):
            raise ServiceError("bad_message", "options must be an object")
        chosen = options.get("rules", {})
        if not isinstance(chosen, dict):
            raise ServiceError("bad_rules", "'rules' must be an object of rule options")
        fixed = sorted(set(chosen) & TABLE_FIXED_OPTIONS)
        if fixed:
            raise ServiceError("bad_rules", f"{fixed[0]!r} is decided by the preset here")
        try:
            rules = Rules.from_dict({**chosen, "preset": str(preset)[:40]})
            if "target" in options:
                rules = rules.replace(target=options["target"])
        except (RulesError, TypeError, ValueError) as exc:
            raise ServiceError("bad_rules", str(exc)) from None
        if rules.target > MAX_TARGET:
            raise ServiceError("bad_rules", f"a target is at most {MAX_TARGET} points")
        if rules.hands_limit > MAX_HANDS:
            raise ServiceError("bad_rules", f"a game is at most {MAX_HANDS} hands")
        timer = options.get("timer")
        if timer is not None and (not isinstance(timer, int | float) or isinstance(timer, bool)
                                  or not 5 <= timer <= 600):
            raise ServiceError("bad_rules", "a turn timer is 5 to 600 seconds")
        seat = options.get("seat", 0)
        if type(seat) is not int or not 0 <= seat < rules.players:
            raise ServiceError("bad_message", f"a seat is 0 to {rules.players - 1}")
        if self.open_tables(player) >= MAX_OPEN_TABLES:
            raise ServiceError("limit", f"you have {MAX_OPEN_TABLES} unfinished tables: "
                               "finish or leave one first")
        now = self.clock()
        recent = [t for t in self.created_at.get(player, []) if now - t < 60.0]
        if len(recent) >= MAX_CREATED_PER_MINUTE:
            raise ServiceError("limit", f"at most {MAX_CREATED_PER_MINUTE} new tables a "
                               "minute: try again in a moment")
        self.created_at[player] = [*recent, now]
        return self._new_table(player, rules, {
            "private": options.get("private", False) is True,
            "hints": options.get("hints", True) is not False, "timer": timer}, seat)

    def _new_table(self, player: str, rules: Rules, options: dict[str, Any],
                   seat: int) -> Table:
        table_id = secrets.token_hex(8)
        seats: list[dict[str, str]] = [{} for _ in range(rules.players)]
        opts: dict[str, Any] = {"creator": player} | options
        if opts["private"]:
            opts["invite"] = secrets.token_urlsafe(12)
        try:
            self.store.create_table(table_id, rules.to_dict() | {"target": rules.target},
                                    seats, opts)
        except Exception as exc:
            log.error("storing a new table failed: %s", exc)
            raise ServiceError("storage", STORAGE_ERROR) from None
        table = Table(table_id, rules, player, seats, opts)
        self.tables[table_id] = table
        self.created.append(table_id)
        self.created_count += 1
        self._record(table, "seat", {"seat": seat, "player": player})
        return table

    def join(self, table: Table, player: str, seat: Any) -> None:
        if table.seat_of(player) is not None:
            raise ServiceError("seated", "you already sit at this table")
        if table.game is not None and table.game.is_over:
            raise ServiceError("game_over", "this game is over")
        reserved = table.options.get("reserved") or {}
        free = [s for s, who in enumerate(table.seats)
                if not who and reserved.get(str(s), player) == player]
        if not free:
            raise ServiceError("table_full", "this table is full: you may watch it")
        mine = [s for s in free if reserved.get(str(s)) == player]
        if seat is None:
            seat = (mine or free)[0]
        if type(seat) is not int or seat not in free:
            raise ServiceError("seat_taken", f"seat {str(seat)[:20]!r} is not free "
                               f"(free: {free})")
        self._record(table, "seat", {"seat": seat, "player": player})
        table.spectators.discard(player)  # a watcher who sits down is told as a player only
        self._progress(table)

    def add_bots(self, table: Table, player: str, level: Any) -> None:
        if player != table.creator:
            raise ServiceError("not_creator", "only the table's creator can call bots in")
        if level not in OFFERED_LEVELS:
            raise ServiceError("bad_message", f"unknown bot level {str(level)[:20]!r}")
        if table.game is not None and table.game.is_over:
            raise ServiceError("game_over", "the game is over")
        if table.full:
            raise ServiceError("seat_taken", "every seat is taken")
        for seat, who in enumerate(table.seats):
            if not who:
                self._record(table, "seat", {"seat": seat, "bot": level})
        self._progress(table)

    def leave(self, table: Table, player: str) -> None:
        """``player`` leaves ``table``: a spectator stops watching; a seat at a waiting
        table is freed; at a game in progress a bot takes the seat for good; a finished
        game changes nothing."""
        table.spectators.discard(player)
        seat = table.seat_of(player)
        if seat is None:
            return
        game = table.game
        if game is None:
            self._record(table, "seat", {"seat": seat, "free": True})
        elif not game.is_over:
            table.absent_since.pop(seat, None)
            table.stand_ins.pop(seat, None)
            self._record(table, "seat", {"seat": seat, "bot": "heuristic"})
            self._progress(table)

    def rematch(self, table: Table, player: str) -> Table:
        """A new table with the same rules and the same seats after a finished game: the
        first player who asks creates it (bots keep their seats, every player's seat is
        kept for him), the others join it by the same message."""
        seat = table.seat_of(player)
        if seat is None:
            raise ServiceError("not_seated", "you do not sit at this table")
        if table.game is None or not table.game.is_over:
            raise ServiceError("not_over", "a rematch is for a finished game")
        new_id = table.options.get("rematch")
        if new_id is None:
            for other in self.tables.values():
                if other.options.get("rematch_of") == table.id:
                    self._link_rematch(table, other)
                    new_id = other.id
        if new_id is not None:
            new = self.running_table(new_id)
            if new.seat_of(player) is None:
                self.join(new, player, seat)
            return new
        reserved = {str(s): w["player"] for s, w in enumerate(table.seats) if "player" in w}
        options = {"private": table.options.get("private", False),
                   "hints": table.options.get("hints", True),
                   "timer": table.options.get("timer"), "rematch_of": table.id,
                   "reserved": reserved}
        new = self._new_table(player, table.rules, options, seat)
        self._link_rematch(table, new)
        for s, who in enumerate(table.seats):
            if "bot" in who:
                self._record(new, "seat", {"seat": s, "bot": who["bot"]})
        self._progress(new)
        return new

    @staticmethod
    def _link_rematch(table: Table, new: Table) -> None:
        """``new`` is the rematch of the finished ``table``, asked first by its creator:
        the state of ``table`` says so (``rematch``, ``rematch_by``: his seat), so that
        the other players see the offer."""
        table.options["rematch"] = new.id
        table.options["rematch_by"] = table.seat_of(new.creator)

    def chat(self, table: Table, player: str, message: Message) -> list[tuple[str, Message]]:
        """A chat line or a quick phrase, to everyone at the table (not stored)."""
        seat = table.seat_of(player)
        if seat is None and player not in table.spectators:
            raise ServiceError("not_seated", "you are not at this table")
        out: Message = {"type": "chat", "table": table.id,
                        "seat": -1 if seat is None else seat,
                        "name": self.names.get(player, player)}
        phrase, text = message.get("phrase"), message.get("text")
        if phrase is not None:
            if phrase not in PHRASES:
                raise ServiceError("bad_message", f"unknown phrase {phrase!r}")
            out["phrase"] = phrase
        elif isinstance(text, str) and 0 < len(text.strip()) <= CHAT_MAX:
            out["text"] = text.strip()
        else:
            raise ServiceError("bad_message", f"a chat line is 1 to {CHAT_MAX} characters")
        return [(p, out) for p, _s in table.listeners()]

    def act(self, table: Table, player: str, text: Any) -> None:
        seat = table.seat_of(player)
        if seat is None:
            raise ServiceError("not_seated", "you do not sit at this table")
        game = table.game
        if game is None or game.current is None:
            raise ServiceError("not_started", "the game starts when every seat is taken")
        if game.is_over:
            raise ServiceError("game_over", "the game is over")
        if game.current.turn != seat:
            raise ServiceError("not_your_turn", f"it is seat {game.current.turn}'s turn")
        try:
            action = parse_action(text) if isinstance(text, str) and len(text) < 16 else -1
            if action < 0:
                raise ServiceError("bad_message", f"{str(text)[:20]!r} is not a call or a card")
            # Applied once: the engine leaves the state unchanged when it refuses.
            self._record(table, "act", {"seat": seat, "action": action_name(action)}, action)
        except IllegalAction as exc:
            raise ServiceError("illegal", str(exc), exc.rule) from None
        except CardError as exc:
            raise ServiceError("illegal", str(exc), "card notation") from None
        self._progress(table)

    # -- the game's course ------------------------------------------------------------

    def _bot_of(self, table: Table, seat: int) -> Bot | None:
        """Who plays ``seat``'s turn for it: its bot, a stand-in, or the turn timer's."""
        bot = table.bots.get(seat) or table.stand_ins.get(seat)
        if bot is None and table.timed_out == seat:
            bot = LazyBot("heuristic", int(table.id[:8], 16) + 20 + seat)
        return bot

    def _progress(self, table: Table) -> None:
        """Deal when the table fills, let bots play, deal the next hand. With
        :attr:`defer_bots`, stop at a bot's turn and leave the table in :attr:`bots_due`."""
        if not table.full:
            return
        while True:
            game = table.game
            if game is None or (game.current is not None and game.current.is_over
                                and not game.is_over):
                dealer = (self.rng.randrange(table.rules.players) if game is None
                          else game.next_dealer)
                deck = deal_deck(self.rng, table.rules.players)
                self._record(table, "deal", {"dealer": dealer,
                                             "deck": [card_name(c) for c in deck]})
                continue
            if game.is_over or game.current is None:
                return
            turn = game.current.turn
            bot = self._bot_of(table, turn)
            if bot is None:
                table.turn_since = self.clock()
                return
            if self.defer_bots and bot.name != "random":  # random bots do not think
                self.bots_due.add(table.id)
                return
            self._bot_plays(table, turn, bot.choose(game.view(turn)))

    def _bot_plays(self, table: Table, seat: int, action: int) -> None:
        """A bot's move for ``seat``, stored with who made it (``by``: the seat's
        ``bot``, a ``stand_in`` for a player away, the turn ``timer``'s): the store
        tells a player's own moves from those made for him."""
        by = "bot" if seat in table.bots else "stand_in" if seat in table.stand_ins \
            else "timer"
        table.timed_out = None
        self._record(table, "act", {"seat": seat, "action": action_name(action), "by": by},
                     action)

    def bot_turn(self, table_id: str) -> BotTurn | None:
        """The decision a bot is to make at ``table_id`` now, if any (for the web layer
        to compute off the event loop, then give to :meth:`bot_played`)."""
        table = self.tables.get(table_id)
        game = table.game if table is not None else None
        if table is None or game is None or game.current is None or game.is_over:
            return None
        if game.current.is_over:
            return None
        seat = game.current.turn
        bot = self._bot_of(table, seat)
        if bot is None:
            return None
        base = int(table.id[:8], 16)
        if seat in table.bots:
            level, seed = table.seats[seat]["bot"], base + seat
        elif seat in table.stand_ins:
            level, seed = "heuristic", base + 10 + seat
        else:
            level, seed = "heuristic", base + 20 + seat
        return BotTurn(table.id, table.seq, seat, bot, game.view(seat), level, seed)

    def bot_played(self, turn: BotTurn, action: int) -> list[tuple[str, Message]]:
        """A bot's decision, made off the loop: applied if the table still stands where
        it did (nobody else acted meanwhile); the messages to send once committed."""
        table = self.tables.get(turn.table)
        if table is None or table.seq != turn.seq or self._bot_of(table, turn.seat) is None:
            return []
        try:
            self._bot_plays(table, turn.seat, action)
        except IllegalAction:
            log.exception("a bot chose an illegal action at table %s", table.id)
            return []
        self._progress(table)
        return self._broadcast(table)

    def _record(self, table: Table, kind: str, payload: dict[str, Any],
                action: int | None = None) -> None:
        """Apply an action and queue it; :meth:`handle` commits the queue before it
        returns any message, so nobody hears of an action the store does not have. An
        action the engine refuses raises here and is neither applied nor queued."""
        if action is not None:
            assert table.game is not None
            table.game.apply(action, payload["seat"])
        else:
            self._apply(table, kind, payload)
        self._pending.append((table.id, table.seq, kind, payload))
        table.seq += 1

    def _apply(self, table: Table, kind: str, payload: dict[str, Any]) -> None:
        if kind == "seat":
            seat = payload["seat"]
            if "player" in payload:
                table.seats[seat] = {"player": payload["player"]}
            elif payload.get("free"):  # a player left a waiting table
                table.seats[seat] = {}
            else:
                table.seats[seat] = {"bot": payload["bot"]}
                table.bots[seat] = LazyBot(payload["bot"], int(table.id[:8], 16) + seat)
        elif kind == "deal":
            if table.game is None:
                table.game = Game(table.rules, dealer=payload["dealer"])
            deck = [parse_action(c) for c in payload["deck"]]
            table.game.start_hand(HandState.deal(table.rules, payload["dealer"], deck))
        elif kind == "act":
            assert table.game is not None
            table.game.apply(parse_action(payload["action"]), payload["seat"])
        else:
            raise ValueError(f"unknown stored action kind {kind!r}")

    # -- presence and time ------------------------------------------------------------

    def _store_absence(self, table: Table, seat: int, since: float | None) -> None:
        """Keep a stand-in timer in the store (wall-clock time), so that it survives a
        restart; a failure to write it is logged (the timer still runs here)."""
        wall = None if since is None else time.time() - (self.clock() - since)
        if self.defer_absences:
            self.absences[table.id, seat] = wall
            return
        try:
            self.store.set_absence(table.id, seat, wall)
        except Exception as exc:
            log.warning("could not store the absence at table %s: %s", table.id, exc)

    def store_absences(self, absences: dict[tuple[str, int], float | None]) -> None:
        """Write stand-in timers taken from :attr:`absences` (the writer thread does,
        with a batch) in one transaction; a failure is logged (the timers still run
        here)."""
        try:
            self.store.set_absences(absences)
        except Exception as exc:
            log.warning("could not store %d absence(s): %s", len(absences), exc)

    def disconnected(self, player: str) -> None:
        """``player`` has no open connection left: if he is not back within
        ``STAND_IN_AFTER_S`` a bot plays his seats (see :meth:`tick`)."""
        self.lobby_watchers.discard(player)
        for table in self.tables.values():
            seat = table.seat_of(player)
            table.spectators.discard(player)
            if table.game is not None and table.game.is_over:
                continue  # a finished game is never handed to a bot
            if seat is not None and seat not in table.absent_since:
                table.absent_since[seat] = self.clock()
                self._store_absence(table, seat, table.absent_since[seat])

    def reconnected(self, player: str) -> None:
        """``player`` is back: his seats are his again. Another player away whom nobody
        was there to wait for keeps only the time someone did wait for him (until the
        last of the others left): the rest does not count against him (the first back
        found the other's clock run from when he left, and his seat went to a bot at
        the next tick)."""
        for table in self.tables.values():
            if not table.absent_since:  # nobody away there (most tables): no seat to give
                continue
            seat = table.seat_of(player)
            if seat is not None and seat in table.absent_since:
                now = table.turn_since = self.clock()
                kept: dict[int, float] = {}
                for other, since in table.absent_since.items():
                    if other != seat and not self.waited_on(table, other):
                        last_left = max(t for s, t in table.absent_since.items() if s != other)
                        kept[other] = now - max(0.0, last_left - since)
                table.stand_ins.pop(seat, None)
                del table.absent_since[seat]
                self._store_absence(table, seat, None)
                for other, since in kept.items():
                    table.absent_since[other] = since
                    self._store_absence(table, other, since)

    @staticmethod
    def waited_on(table: Table, seat: int) -> bool:
        """Whether another player, there now, waits for ``seat``: a stand-in plays for
        a player away only then. Against bots alone the game waits for him to come back
        (a closed tab does not hand his game to a bot, and he finds it in his tables)."""
        return any("player" in who and other != seat and other not in table.absent_since
                   for other, who in enumerate(table.seats))

    def tick(self, commit: bool = True) -> list[tuple[str, Message]]:
        """Time passes: a bot stands in for a player gone ``STAND_IN_AFTER_S``; a seat
        dropped for ``GRACE_S`` goes to the bot for good; a player past the table's turn
        timer has a bot play that turn for him. All three only where another player
        waits (:meth:`waited_on`): against bots alone the game waits."""
        now = self.clock()
        out: list[tuple[str, Message]] = []
        for table in list(self.tables.values()):
            changed = False
            if table.game is not None and table.game.is_over:
                table.absent_since.clear()  # a finished game is never handed to a bot
                table.stand_ins.clear()
            for seat, since in list(table.absent_since.items()):
                if not self.waited_on(table, seat):
                    continue  # only bots at the table: the game waits for him, as it was
                if now - since >= GRACE_S:
                    del table.absent_since[seat]
                    table.stand_ins.pop(seat, None)
                    self._record(table, "seat", {"seat": seat, "bot": "heuristic"})
                    self._store_absence(table, seat, None)
                    changed = True
                elif (now - since >= STAND_IN_AFTER_S and seat not in table.stand_ins
                      and table.game is not None):
                    table.stand_ins[seat] = LazyBot("heuristic",
                                                     int(table.id[:8], 16) + 10 + seat)
                    changed = True
            timer = table.options.get("timer")
            game = table.game
            if (timer and game is not None and game.current is not None
                    and not game.is_over and not game.current.is_over
                    and now - table.turn_since >= timer):
                seat = game.current.turn
                if (seat not in table.bots and seat not in table.stand_ins
                        and (seat not in table.absent_since or self.waited_on(table, seat))):
                    table.timed_out = seat  # the next bot move is this seat's
                    changed = True
                    who = table.seats[seat].get("player")
                    if who:
                        out.append((who, {"type": "timeout", "table": table.id,
                                          "seat": seat}))  # a bot plays this turn
            if changed:
                self._progress(table)
                out += self._broadcast(table)
        if not commit:  # the caller commits before sending (the web server's writer)
            return out
        try:
            self.commit()
        except StorageFailure as failure:
            out = [(p, m) for p, m in out if m.get("table") not in failure.tables]
            out += failure.messages
        return out

    def _broadcast(self, table: Table) -> list[tuple[str, Message]]:
        now = self.clock()
        listeners = table.listeners()
        return list(zip((p for p, _s in listeners),
                        view_messages(table, [s for _p, s in listeners], self.names, now),
                        strict=True))

    def hint_view(self, table: Table, player: str) -> SeatView:
        """The view to evaluate for ``player``'s hint (checks that he may have one): the
        seat's own view, a value safe to send to a worker while the table goes on."""
        seat = table.seat_of(player)
        if seat is None:
            raise ServiceError("not_seated", "you do not sit at this table")
        if not table.options.get("hints", True):
            raise ServiceError("no_hints", "this table plays without hints")
        game = table.game
        if game is None or game.current is None or game.current.turn != seat:
            raise ServiceError("not_your_turn", "a hint is for your own turn")
        return game.view(seat)

    def hint(self, table: Table, player: str) -> Message:
        """The expert's evaluation of the seat's legal actions, where the table allows."""
        return compute_hint(table.id, self.hint_view(table, player))

    def history(self, table_id: Any, player: str | None = None,
                invite: Any = None) -> Message:
        """The finished hands, ready for the replay viewer: every seat's cards (all
        public once the hand is over), the contract, each trick in order, the score.
        A private table's history is for its players and those with its invite."""
        return self.history_job(table_id, player, invite)()

    def history_job(self, table_id: Any, player: str | None = None,
                    invite: Any = None) -> Callable[[], Message]:
        """:meth:`history` in two steps: the checks and a snapshot of the finished hands
        now (on the event loop: a few microseconds), and the returned function, which
        builds the answer from that snapshot alone, in a thread (a long game's history
        took tens of milliseconds), while the table goes on."""
        table = self.peek(table_id)
        self._check_invite(table, player or "", {"invite": invite})
        hands, scores = _finished(table.game)
        base = {"table": table.id, "preset": table.rules.preset,
                "direction": table.rules.direction, "scoring": table.rules.auction_scoring,
                "seats": [seat_label(w, self.names) for w in table.seats]}

        def build() -> Message:
            out = []
            for hand, score in zip(hands, scores, strict=True):
                n = hand.n
                tricks = [{"leader": hand.trick_leaders[i], "winner": w,
                           "cards": [card_name(c) for c in hand.played[n * i:n * i + n]]}
                          for i, w in enumerate(hand.trick_winners)]
                out.append({
                    "dealer": hand.dealer,
                    "cards": [[card_name(c) for c in cards_of(m)] for m in hand.dealt],
                    "calls": [action_name(a) for a in hand.calls],
                    "auction": [{"seat": (hand.first + i) % n, "call": action_name(a)}
                                for i, a in enumerate(hand.calls)],
                    "taker": hand.taker if hand.taker >= 0 else None,
                    "contract": hand.contract_name() or None,
                    # the card a classic "take" takes (said "take ♠", as at the table)
                    "retourne": card_name(hand.retourne) if hand.retourne >= 0 else None,
                    "tricks": tricks, "outcome": score.outcome,
                    "scored": list(score.scored)})
            return base | {"hands": out}

        return build

    def finished_record(self, table_id: Any, player: str | None = None,
                        invite: Any = None) -> Message:
        """The table's record (RECORD.md) with its finished hands only: every card of a
        finished hand is public; the hand in progress is not. A private table's record
        is for its players and those with its invite."""
        return self.record_job(table_id, player, invite)()

    def record_job(self, table_id: Any, player: str | None = None,
                   invite: Any = None) -> Callable[[], Message]:
        """:meth:`finished_record` in two steps, as :meth:`history_job`."""
        from rebelote.record import hands_to_record

        table = self.peek(table_id)
        self._check_invite(table, player or "", {"invite": invite})
        game = table.game
        if game is None:
            raise ServiceError("not_started", "the game has not started")
        hands, _scores = _finished(game)
        players = [seat_label(who, self.names) for who in table.seats]
        return lambda: hands_to_record(game.rules, players, hands)

    def stats(self, player: str) -> Message:
        """A player's record: games and wins, hands played, contracts taken and made,
        average card points per hand (from the summary tables: one row)."""
        self.summaries.settle()
        return self.summaries.stats(player)

    def ratings(self) -> dict[str, Message]:
        """The best ratings (openskill, Plackett-Luce, game after game as they finish),
        best first; bots are rated too, one rating per level."""
        self.summaries.settle()
        return dict(self.summaries.ratings())

    def rating(self, player: str) -> Message | None:
        self.summaries.settle()
        return self.summaries.rating(player)

    def listed(self, table: Table) -> Message | None:
        """The table's entry in the lobby, if the lobby lists it: public, not finished,
        with a player at it."""
        if (table.game is not None and table.game.is_over) or not any(
                "player" in w for w in table.seats):
            return None
        return self.lobby_entry(table)

    def public_tables(self) -> list[Message]:
        """The lobby: public tables not finished, with a player at them, with their rules,
        players, free seats and status."""
        entries = (self.listed(t) for t in self.tables.values())
        return [e for e in entries if e is not None]

    def my_entry(self, table: Table, player: str) -> Message | None:
        """The table in ``player``'s "my tables" (with his seat, and a private table's
        invite), if he sits there and the game is not over."""
        seat = table.seat_of(player)
        if seat is None or (table.game is not None and table.game.is_over):
            return None
        entry = self.lobby_entry(table, private=True)
        assert entry is not None
        entry["seat"] = seat
        if table.options.get("private"):
            entry["invite"] = table.options.get("invite")
        return entry

    def my_tables(self, player: str) -> list[Message]:
        """The unfinished tables where ``player`` sits (to resume one after closing the
        tab), private ones included, with the invite of a private one."""
        entries = (self.my_entry(t, player) for t in self.tables.values())
        return [e for e in entries if e is not None]

    def lobby_message(self, player: str) -> Message:
        return {"type": "lobby", "tables": self.public_tables(),
                "mine": self.my_tables(player)}

    def _lobby_news(self) -> list[tuple[str, Message]]:
        """The lobby, again, to everyone looking at it."""
        return [(p, self.lobby_message(p)) for p in sorted(self.lobby_watchers)]

