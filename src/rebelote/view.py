"""A seat's view of a hand: its own cards and everything public, nothing else.

Bots and clients only ever receive a :class:`SeatView`; the full
:class:`~rebelote.hand.HandState` stays with the referee. The separation is structural:
a view holds no reference to the state it was made from, only to the state's public
records that only ever grow (the calls, the cards played, the tricks' leaders and
winners, the belote said), with their lengths when the view was made.

Views are cheap: a view copies a dozen values when it is made and builds the rest
(the tricks, the calls, the announcements) the first time they are read, from those
records cut at the lengths it saw, so a bot that reads only ``legal_actions`` pays for
nothing else. A view never changes once made.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final

from rebelote.actions import Contract
from rebelote.cards import Card, CardSet, cards_of, cards_tuple
from rebelote.phases import PHASE_NAMES, PLAY
from rebelote.rules import Rules
from rebelote.tricks import side_of, team_of, teams, trick_points, trick_winner

if TYPE_CHECKING:
    from rebelote.announcements import Announcement
    from rebelote.hand import HandState



@dataclass(frozen=True, slots=True)
class PublicAnnouncement:
    """An announcement as the table knows it: its kind at once, its cards once shown."""

    seat: int
    kind: str
    points: int
    cards: CardSet | None  # None until shown at trick 2 (always known to its owner)


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick on the table: who led, the cards in play order, the winner when complete."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None = None

    def seat_of(self, index: int, players: int = 4) -> int:
        """Seat that played the ``index``-th card of the trick."""
        return (self.leader + index) % players


_TEAMS: Final = {n: teams(n) for n in (2, 3, 4)}
_NOT_SCORED: Final[tuple[int | None, tuple[int, int]]] = (None, (0, 0))
_UNSET: Final[Any] = object()
"""What a view's built-on-first-read attributes hold until read (a slot never set
raised AttributeError at each first read: 0.5-1 µs each, several per view)."""


class _Table:
    """What every view of one hand shares: the hand's constants and its growing
    public records (lists that only grow; each view keeps its own lengths)."""

    __slots__ = ("announced", "belote", "belote_at", "calls", "calls_at", "contracts",
                 "dealer", "face_up", "first_hand", "hand_number", "leaders", "played",
                 "players", "reserve", "retourne", "rules", "scored", "totals", "trick_at",
                 "tricks_at", "winners")

    def __init__(self, rules: Rules, dealer: int, first_hand: int, players: int,
                 retourne: Card, totals: tuple[int, ...], reserve: int, hand_number: int,
                 calls: list[int], played: list[Card], leaders: list[int],
                 winners: list[int], belote: list[tuple[int, str, Card]]) -> None:
        self.rules = rules
        self.dealer = dealer
        self.first_hand = first_hand
        self.players = players
        self.retourne = retourne
        self.totals = totals
        self.reserve = reserve
        self.hand_number = hand_number
        self.calls = calls
        self.played = played
        self.leaders = leaders
        self.winners = winners
        self.belote = belote
        self.face_up: dict[int, tuple[CardSet, ...]] = {}
        """Découverte: the face-up table cards after each number of cards played."""
        self.contracts: dict[int, Contract | None] = {}
        """The contract after each number of calls."""
        self.scored: tuple[int | None, tuple[int, int]] = _NOT_SCORED
        """The announcements' winner and points, once trick 1 is over."""
        self.announced: list[list[Announcement]] = []
        """The hand's list of each seat's declared announcements (filled in trick 1)."""
        # What every seat sees alike, built once for all the views at the same point
        # (a server's broadcast makes a view per listener at each action).
        self.calls_at: dict[int, tuple[int, ...]] = {}
        """The calls, by number of calls."""
        self.tricks_at: dict[int, tuple[Trick, ...]] = {}
        """The completed tricks, by number of them."""
        self.trick_at: tuple[int, Trick | None] = (-1, None)
        """The trick on the table and the number of cards played it is for: the last
        one built only (kept for every card, they lived as long as the hand, and a busy
        server's collector walked each of them)."""
        self.belote_at: dict[int, tuple[tuple[int, str, Card], ...]] = {}
        """The belote events, by number of cards played."""


def _field(name: str, doc: str) -> Any:
    """A read-only attribute stored in slot ``_name``."""
    return property(attrgetter("_" + name), doc=doc)


def _shared(name: str, doc: str) -> Any:
    """A read-only attribute of the hand's shared :class:`_Table`."""
    return property(attrgetter("_table_." + name), doc=doc)


class SeatView:
    """Everything seat ``seat`` may know about the hand in progress (immutable).

    ``contract`` is the contract's kind as an int (-1 before it is known); the whole
    contract (who holds it, its level and value, its double) is ``contract_info``.
    Build one with :meth:`HandState.view` or :meth:`Game.view`; the keyword constructor
    takes every field (``FIELDS``) for tests and tools.
    """

    FIELDS: Final = (
        "seat", "rules", "dealer", "first_hand", "phase", "turn", "hand", "retourne",
        "calls", "taker", "contract", "tricks", "trick", "card_points", "announcements",
        "announcement_winner", "belote_said", "legal_actions", "table", "totals", "reserve",
        "hand_number", "master", "contract_info", "teams", "announcement_points",
        "announcement_seats",
    )

    __slots__ = (  # noqa: RUF023 - grouped by what they are
        "_table_", "_seat", "_phase", "_turn", "_hand", "_legal_actions",
        # how far the shared records went when the view was made
        "_n_calls", "_n_played",
        # built from them on first read
        "_calls", "_tricks", "_trick", "_announcements", "_belote_said", "_seats_scored",
        "_card_points",
    )

    _table_: _Table
    _seat: int
    _phase: int
    _turn: int
    _hand: CardSet
    _legal_actions: tuple[int, ...]
    _n_calls: int
    _n_played: int
    _calls: tuple[int, ...]
    _tricks: tuple[Trick, ...]
    _trick: Trick | None
    _announcements: tuple[PublicAnnouncement, ...]
    _belote_said: tuple[tuple[int, str, Card], ...]
    _seats_scored: tuple[int, ...]
    _card_points: tuple[int, int]

    seat: int = _field("seat", "The seat this view is for; -1: a spectator.")
    rules: Rules = _shared("rules", "The rules of the game.")
    dealer: int = _shared("dealer", "The dealer's seat.")
    first_hand: int = _shared("first_hand", "First hand: the seat after the dealer.")
    turn: int = _field("turn", "The seat to act; -1 when nobody is.")
    hand: CardSet = _field("hand", "This seat's cards (0 for a spectator).")
    retourne: Card = _shared("retourne", "The turned card (classic); -1 if none.")
    legal_actions: tuple[int, ...] = _field(
        "legal_actions", "What this seat may do now (empty when it is not its turn).")
    totals: tuple[int, ...] = _shared("totals", "The game's totals before this hand.")
    reserve: int = _shared("reserve", "The litige reserve carried into this hand.")
    hand_number: int = _shared("hand_number", "The hand's number in the game (1, 2, ...).")

    def __init__(self, **fields: Any) -> None:
        """A view from every field by name (see ``FIELDS``); missing ones take the
        value of a hand not started."""
        unknown = set(fields) - set(self.FIELDS)
        if unknown:
            raise TypeError(f"SeatView has no field {', '.join(sorted(unknown))}")
        for name in ("seat", "rules", "dealer", "first_hand"):
            if name not in fields:
                raise TypeError(f"SeatView needs {name!r}")
        v: dict[str, Any] = {
            "calls": (), "taker": -1, "contract": -1, "tricks": (), "trick": None,
            "card_points": (0, 0), "announcements": (), "announcement_winner": None,
            "belote_said": (), "legal_actions": (), "table": (), "totals": (0, 0),
            "reserve": 0, "hand_number": 0, "master": -1, "contract_info": None,
            "teams": (0, 1, 0, 1), "announcement_points": (0, 0), "announcement_seats": (),
            "retourne": -1, "phase": "auction", "turn": -1, "hand": 0,
        } | fields
        played = [c for t in v["tricks"] for c in t.cards]
        if v["trick"] is not None:
            played += v["trick"].cards
        table = _Table(v["rules"], v["dealer"], v["first_hand"], len(v["teams"]),
                       v["retourne"], v["totals"], v["reserve"], v["hand_number"],
                       list(v["calls"]), played, [], [], list(v["belote_said"]))
        table.face_up = {len(played): v["table"]}
        info = v["contract_info"]
        if info is None and v["contract"] >= 0:  # a contract given by its kind and taker
            info = Contract(v["taker"], v["contract"], final=v["taker"] >= 0)
        table.contracts = {len(v["calls"]): info}
        table.scored = (v["announcement_winner"], v["announcement_points"])
        table.announced = [[] for _ in v["teams"]]
        self._table_ = table
        self._phase = PHASE_NAMES.index(v["phase"])
        for name in ("seat", "turn", "hand", "card_points", "legal_actions", "calls",
                     "tricks", "trick", "announcements", "belote_said"):
            setattr(self, "_" + name, v[name])
        self._seats_scored = v["announcement_seats"]
        self._n_calls = len(v["calls"])
        self._n_played = len(played) if not v["tricks"] and v["trick"] is None else \
            max(len(played), table.players * len(v["tricks"]))

    @property
    def phase(self) -> str:
        """``auction``, ``play`` or ``over``."""
        return PHASE_NAMES[self._phase]

    @property
    def contract_info(self) -> Contract | None:
        """The contract as the table knows it: during an auction game's bidding the
        highest bid so far (``final`` False), then the contract played (``final`` True:
        bidder = taker, level and value, double 1 / 2 coinche-contra / 4
        surcoinche-recontra, who doubled); None before any bid or take, and in a voided
        hand."""
        return self._table_.contracts[self._n_calls]

    @property
    def card_points(self) -> tuple[int, int]:
        """Card points won so far by each side, the dix de der included once the last
        trick is won (raw: tout atout 'scaled' counts trump values; three players: the
        taker's side 0, the defense 1)."""
        result = self._card_points
        if result is _UNSET:
            t = self._table_
            n = t.players
            points = [0, 0]
            kind = self.contract
            last = (16 if n == 2 else 8) - 1
            for i, trick in enumerate(self.tricks):
                assert trick.winner is not None
                points[side_of(trick.winner, n, self.taker)] += trick_points(
                    trick.cards, kind, t.rules.all_trump_points, i == last)
            result = self._card_points = (points[0], points[1])
        return result

    @property
    def taker(self) -> int:
        """The taker's seat once the auction is over, else -1."""
        info = self.contract_info
        return info.bidder if info is not None and info.final else -1

    @property
    def contract(self) -> int:
        """The contract's kind: 0..3 trump suit, 4 SA, 5 TA; -1 before it is known
        (auction games: the kind of the highest bid so far)."""
        info = self.contract_info
        return info.kind if info is not None else -1

    @property
    def table(self) -> tuple[CardSet, ...]:
        """Découverte: each seat's face-up table cards (public); () otherwise."""
        return self._table_.face_up[self._n_played] if self._table_.players == 2 else ()

    @property
    def master(self) -> int:
        """The seat winning the current trick so far ('maître'); -1 with no card on it."""
        trick = self.trick
        if trick is None:
            return -1
        return trick_winner(trick.leader, trick.cards, self.contract, self._table_.players)

    @property
    def _scored(self) -> tuple[int | None, tuple[int, int]]:
        t = self._table_
        return t.scored if self._n_played >= t.players else _NOT_SCORED

    @property
    def announcement_winner(self) -> int | None:
        """The team whose announcements scored, once trick 1 is over."""
        return self._scored[0]

    @property
    def announcement_points(self) -> tuple[int, int]:
        """Announcement points that scored, per team, once trick 1 is over (only the
        comparison's winner has any)."""
        return self._scored[1]

    @property
    def _announced(self) -> list[list[Announcement]]:
        """Each seat's declared announcements as of this view: a seat declares with its
        first card, so those who had not played yet in trick 1 have none."""
        t = self._table_
        n = t.players
        if self._n_played >= n:
            return t.announced
        declared: list[list[Announcement]] = [[] for _ in range(n)]
        for k in range(self._n_played):
            s = (t.first_hand + k) % n
            declared[s] = t.announced[s]
        return declared

    # -- what is built on first read ------------------------------------------------------

    @property
    def calls(self) -> tuple[int, ...]:
        """Every call of the auction so far, in order from first hand."""
        calls = self._calls
        if calls is _UNSET:
            t, n = self._table_, self._n_calls
            built = t.calls_at.get(n)
            if built is None:
                built = t.calls_at[n] = tuple(t.calls[:n])
            calls = self._calls = built
        return calls

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The completed tricks, in order, each with its winner."""
        tricks = self._tricks
        if tricks is _UNSET:
            t = self._table_
            n = t.players
            done = self._n_played // n
            built = t.tricks_at.get(done)
            if built is None:
                # the tricks an earlier view saw kept, the ones after it added: a busy
                # server's young objects were 10 % Trick, each trick rebuilding them all
                before = t.tricks_at.get(done - 1, ()) if done else ()
                played, leaders, winners = t.played, t.leaders, t.winners
                built = t.tricks_at[done] = before + tuple(
                    Trick(leaders[i], tuple(played[n * i:n * i + n]), winners[i])
                    for i in range(len(before), done))
            tricks = self._tricks = built
        return tricks

    @property
    def trick(self) -> Trick | None:
        """The trick on the table (its cards so far), None between tricks."""
        trick = self._trick
        if trick is _UNSET:
            t, played = self._table_, self._n_played
            at, trick = t.trick_at
            if at != played:
                done = played // t.players
                start = done * t.players
                trick = None
                if played > start:
                    trick = Trick(t.leaders[done], tuple(t.played[start:played]))
                t.trick_at = (played, trick)
            self._trick = trick
        return trick

    @property
    def belote_said(self) -> tuple[tuple[int, str, Card], ...]:
        """The belote events so far: (seat, ``belote`` | ``rebelote``, the card)."""
        said = self._belote_said
        if said is _UNSET:
            t, n = self._table_, self._n_played  # each belote is said with a card
            built = t.belote_at.get(n)
            if built is None:
                played = set(t.played[:n])
                built = t.belote_at[n] = tuple(e for e in t.belote if e[2] in played)
            said = self._belote_said = built
        return said

    @property
    def announcements(self) -> tuple[PublicAnnouncement, ...]:
        """Every announcement declared: kind and points for all, the cards for their
        owner and, once trick 1 is over, for the team whose announcements scored."""
        anns = self._announcements
        if anns is _UNSET:
            winner = self._scored[0]
            out = []
            for s, declared in enumerate(self._announced):
                for a in declared:
                    visible = s == self._seat or (winner is not None and winner == team_of(s))
                    out.append(PublicAnnouncement(s, a.kind, a.points,
                                                  a.cards if visible else None))
            anns = self._announcements = tuple(out)
        return anns

    @property
    def announcement_seats(self) -> tuple[int, ...]:
        """The seats whose announcements scored, once trick 1 is over."""
        seats = self._seats_scored
        if seats is _UNSET:
            winner, points = self._scored
            seats = ()
            if winner is not None and max(points):
                seats = tuple(s for s in (winner, winner + 2) if self._announced[s])
            self._seats_scored = seats
        return seats

    @property
    def teams(self) -> tuple[int, ...]:
        """The team of each seat: ``seat & 1`` with four players; with two or three
        players each seat is its own team. (With three, ``card_points`` counts the
        taker's side 0 against the defense's 1.)"""
        return _TEAMS[self._table_.players]

    # -- helpers ------------------------------------------------------------------------

    @property
    def my_turn(self) -> bool:
        """Whether this seat is the one to act."""
        return self._turn == self._seat

    def played_cards(self) -> CardSet:
        """Every card played so far (all public)."""
        m = 0
        for c in self._table_.played[:self._n_played]:
            m |= 1 << c
        return m

    def hand_cards(self) -> list[Card]:
        """This seat's cards as a list."""
        return cards_of(self._hand)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatView):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "SeatView(" + ", ".join(f"{name}={getattr(self, name)!r}"
                                       for name in self.FIELDS) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._values(),))


_new_view = object.__new__


def _rebuild(values: tuple[Any, ...]) -> SeatView:
    return SeatView(**dict(zip(SeatView.FIELDS, values, strict=True)))


def make_view(state: HandState, seat: int, totals: tuple[int, ...] = (0, 0),
              reserve: int = 0, hand_number: int = 0) -> SeatView:
    """Build ``seat``'s view of ``state`` (only what that seat may know); seat -1 is a
    spectator's view: only what is public."""
    n = state.n
    if not -1 <= seat < n or not isinstance(seat, int):
        raise ValueError(f"a seat is 0..{n - 1}, or -1 for a spectator, not {seat!r}")
    table = state.view_cache
    if not (isinstance(table, _Table) and table.totals == totals
            and table.reserve == reserve and table.hand_number == hand_number):
        table = state.view_cache = _Table(
            state.rules, state.dealer, state.first, n, state.retourne, totals, reserve,
            hand_number, state.calls, state.played, state.trick_leaders, state.trick_winners,
            state.belote_log)
        table.announced = state.announced
        _trick_one(state, table)
    if n == 2:  # découverte: the table as it stands, by cards played
        table.face_up.setdefault(len(state.played), tuple(state.table_up))
    v = _new_view(SeatView)
    v._table_ = table
    v._seat = seat
    v._phase = phase = state.phase
    v._turn = turn = state.turn
    v._hand = state.hands[seat] if seat >= 0 else 0
    v._n_played = played = len(state.played)
    v._n_calls = n_calls = len(state.calls)
    v._calls = v._tricks = v._trick = v._announcements = v._belote_said = _UNSET
    v._seats_scored = v._card_points = _UNSET
    if phase == PLAY:
        v._legal_actions = cards_tuple(state.legal_cards()) if turn == seat else ()
        if played <= n:  # trick 1: the announcements' comparison comes at its end
            _trick_one(state, table)
    else:
        v._legal_actions = tuple(state.legal_calls()) if turn == seat >= 0 else ()
    if n_calls not in table.contracts:
        table.contracts[n_calls] = state.contract_info()
    return v


def _trick_one(state: HandState, table: _Table) -> None:
    """Once trick 1 is over, keep whose announcements scored (for the later views)."""
    if state.trick_winners:
        winner = state.announcement_winner
        if winner is not None:
            table.scored = (winner, state.ann_points)

