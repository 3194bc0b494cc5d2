"""Statistics and ratings kept up to date as hands and games finish, so that
``/api/stats`` and ``/api/ratings`` read a row or a page of rows however many games are
stored (migration 0005).

- ``player_stats``: per player (not bots), games, wins, hands, contracts taken and
  made, card points summed;
- ``ratings``: per player and per bot level (``bot:LEVEL``), openskill (Plackett-Luce)
  mu, sigma and ordinal, updated game after game in the order they finish;
- ``table_stats``: per table, how many of its hands and whether its game are counted
  (and the game's place in the finishing order): a table is counted once, whichever
  process runs it and however often it is rebuilt; the counted marker moves only from
  the value it was read at, in the same transaction as the sums.

:func:`recompute_stats` and :func:`recompute_ratings` compute the same figures from the
tables' records from scratch (the tests compare both).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    Boolean,
    Connection,
    Float,
    Integer,
    String,
    bindparam,
    func,
    insert,
    select,
    update,
)
from sqlalchemy import Table as SqlTable
from sqlalchemy.orm import Mapped, Session, mapped_column

from rebelote.server.store import Base, Store
from rebelote.tricks import team_of

if TYPE_CHECKING:
    from rebelote.server.tables import Table

log = logging.getLogger(__name__)
RATINGS_PAGE = 100
"""The rating board shows the best this many."""


class PlayerStatsRow(Base):
    __tablename__ = "player_stats"

    player: Mapped[str] = mapped_column(String(64), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    contracts_taken: Mapped[int] = mapped_column(Integer, default=0)
    contracts_made: Mapped[int] = mapped_column(Integer, default=0)
    points: Mapped[int] = mapped_column(Integer, default=0)


class RatingRow(Base):
    __tablename__ = "ratings"

    player: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float, index=True)
    games: Mapped[int] = mapped_column(Integer, default=0)


class TableStatsRow(Base):
    __tablename__ = "table_stats"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    hands_counted: Mapped[int] = mapped_column(Integer, default=0)
    game_counted: Mapped[bool] = mapped_column(Boolean, default=False)
    finished: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    """The game's place in the finishing order (ratings are updated in that order)."""


@dataclass
class Contribution:
    """What one table adds to the sums between two counts."""

    hands: dict[str, list[int]]  # player -> [hands, taken, made, points]
    game: dict[str, bool] | None  # player -> won, once the game is over
    teams: list[list[str]] | None  # the finishing order's teams, best first


def _label(who: dict[str, str]) -> str | None:
    if "player" in who:
        return who["player"]
    return f"bot:{who['bot']}" if "bot" in who else None


def contribution(table: Table, hands_from: int, with_game: bool) -> Contribution:
    """Hands ``hands_from`` onwards of ``table``'s finished hands, and its game's result
    if ``with_game`` and it is over."""
    game = table.game
    out = Contribution({}, None, None)
    if game is None:
        return out
    labels = [_label(who) for who in table.seats]
    players = [who.get("player") for who in table.seats]  # bots have ratings only
    for hand, score in list(zip(game.hands, game.scores, strict=False))[hands_from:]:
        if hand.is_void:
            continue
        for seat, player in enumerate(players):
            if player is None:
                continue
            side = team_of(seat, table.rules.players)
            sums = out.hands.setdefault(player, [0, 0, 0, 0])
            sums[0] += 1
            sums[3] += hand.outcome().card_points[side] if game.sides == 2 else (
                hand.seat_points[seat])
            if hand.taker == seat:
                sums[1] += 1
                sums[2] += score.outcome == "made"
    if with_game and game.is_over:
        out.game = {}
        for seat, player in enumerate(players):
            if player is not None:
                won = game.winner == team_of(seat, table.rules.players)
                out.game[player] = out.game.get(player, False) or won
        if game.winner is not None:
            sides: dict[int, list[str]] = {}
            for seat, player in enumerate(labels):
                sides.setdefault(team_of(seat, table.rules.players), []).append(player or "")
            order = sorted(sides, key=lambda s: (s != game.winner, -game.totals[s]))
            out.teams = [sides[s] for s in order]
    return out


def _finished_hands(table: Table) -> int:
    return 0 if table.game is None else len(table.game.scores)


def _game_over(table: Table) -> bool:
    return table.game is not None and table.game.is_over


SETTLE_S = 1.0
"""The longest a finished hand waits to be counted while play goes on (a game's end is
counted at once)."""
SETTLE_TABLES = 64
"""Tables waiting that are counted without waiting longer. A count runs in the writer
thread between two batches and holds the GIL most of its time: under load, a count of
every table of a second (30 tables, 170-250 ms of the writer thread, once a second)
held the actions written after it that long, so counts were of eight tables; but a
count is a handful of statements whatever its number of tables, and at eight counts
ran a dozen times a second. Alternated pairs of ``bench.server_load 200 20 1``, 64 against 8:
3,009/2,961/2,905/3,129 against 2,921/2,797/2,886/3,066 actions a second, p99
96.5/102.8/100.6/96.6 against 99.2/113.1/107.4/99.4 ms; 256: more actions, p99 worse
(110/102 against 103/100: the longer counts delay the next write); no counting at all:
+12 %, the upper bound."""


def _table(row: type[Base]) -> SqlTable:
    """The Core table of a mapped class (for statements run on a connection)."""
    return cast(SqlTable, row.__table__)


SUM_COLUMNS = ("hands", "contracts_taken", "contracts_made", "points", "games", "wins")
"""The players' sums, in the order :meth:`Summaries._add_sums` adds them."""
UPSERT_ROWS = 100
"""Rows per upsert statement (7 parameters each: within SQLite's 999)."""


def _mark(conn: Connection) -> str:
    """The driver's parameter mark, for SQL written as the driver's own (SQLite's
    ``?``, psycopg's ``%s``)."""
    return "?" if conn.dialect.paramstyle == "qmark" else "%s"


def _upsert_sums(conn: Connection, sums: dict[str, list[int]]) -> None:
    """The players' sums added in place by the database, new players' rows made, in a
    statement of many rows (``INSERT ... ON CONFLICT DO UPDATE``: SQLite and PostgreSQL,
    the two databases served; players in name order: one lock order for every process),
    written as the driver's SQL (SQLAlchemy's own insert of many rows measured slower,
    likely compiled anew at every count). A select, an insert and an ``executemany`` of
    one update per player let the GIL go at every row, under load each time waiting for
    the busy event loop to give it back (the counts took the load row 12 % of its
    actions)."""
    mark = _mark(conn)
    row = "(" + ", ".join([mark] * (1 + len(SUM_COLUMNS))) + ")"
    head = f"INSERT INTO player_stats (player, {', '.join(SUM_COLUMNS)}) VALUES "
    tail = " ON CONFLICT (player) DO UPDATE SET " + ", ".join(
        f"{c} = player_stats.{c} + excluded.{c}" for c in SUM_COLUMNS)
    ordered = sorted(sums.items())
    for start in range(0, len(ordered), UPSERT_ROWS):
        chunk = ordered[start:start + UPSERT_ROWS]
        conn.exec_driver_sql(head + ", ".join([row] * len(chunk)) + tail,
                             tuple(v for p, sums_of in chunk for v in (p, *sums_of)))


MARKER_ROWS = 100
"""Tables per statement moving the counted markers (6 parameters each)."""


def _move_markers(conn: Connection,
                  moves: list[tuple[str, int, bool, int, bool, int | None]]) -> int:
    """Each table's counted marker moved from (hands, game) to (new hands, new game,
    its finishing place if its game was counted now), only where it still is at the
    value given, by one ``UPDATE ... FROM (VALUES ...)`` per :data:`MARKER_ROWS` tables
    (SQLite from 3.33, PostgreSQL; the values' columns are ``column1``... in both):
    the markers moved, in all."""
    mark = _mark(conn)
    row = (f"({mark}, CAST({mark} AS INTEGER), CAST({mark} AS BOOLEAN), "
           f"CAST({mark} AS INTEGER), CAST({mark} AS BOOLEAN), CAST({mark} AS INTEGER))")
    moved = 0
    for start in range(0, len(moves), MARKER_ROWS):
        chunk = moves[start:start + MARKER_ROWS]
        moved += conn.exec_driver_sql(
            "UPDATE table_stats SET hands_counted = v.column4, game_counted = v.column5, "
            "finished = coalesce(v.column6, table_stats.finished) "
            f"FROM (VALUES {', '.join([row] * len(chunk))}) AS v "
            "WHERE table_stats.table_id = v.column1 AND table_stats.hands_counted = "
            "v.column2 AND table_stats.game_counted = v.column3",
            tuple(value for move in chunk for value in move)).rowcount
    return moved


class Counted(Exception):
    """A table of a count was counted by another process meanwhile (the count is made
    again one table at a time)."""


class Summaries:
    """The summary tables of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._counted: dict[str, tuple[int, bool]] = {}
        """What the summary tables hold of each table seen here (read once)."""
        self._waiting: dict[str, Table] = {}
        """Tables with actions written since they were last counted (:meth:`later`)."""
        self._settled = time.monotonic()
        """Since when the first of the tables waiting has waited."""
        self._waiting_lock = threading.Lock()
        self._counting = threading.Lock()
        """One count at a time in this process (the writer thread, a statistics
        reader's :meth:`settle`)."""

    def prime(self) -> None:
        """Read every table's counted marker at once (before a whole store is loaded)."""
        with Session(self.store.engine) as session:
            for row in session.scalars(select(TableStatsRow)):
                self._counted[row.table_id] = (row.hands_counted, row.game_counted)

    def forget(self, table_id: str) -> None:
        self._counted.pop(table_id, None)
        self.drop(table_id)

    def later(self, tables: Iterable[Table]) -> None:
        """Count what these tables finished, soon: gathered with the other tables
        written meanwhile and counted together once :data:`SETTLE_TABLES` wait or the
        first has waited :data:`SETTLE_S` (at once when one of them ended its game).
        Counted after every write, the summaries took twice the writer thread's time
        of the actions themselves under load (a transaction, a read and an update per
        table for a hand or two each); counting is from each table's marker, so what
        waits is never lost: a restart counts what a crash left waiting."""
        with self._waiting_lock:
            ended = False
            if not self._waiting:
                self._settled = time.monotonic()  # the first one waits from now
            for table in tables:
                now = (_finished_hands(table), _game_over(table))
                if self._counted.get(table.id) == now:
                    continue  # nothing finished since its last count
                self._waiting[table.id] = table
                ended = ended or (now[1] and not self._counted.get(table.id, (0, False))[1])
            if (not ended and len(self._waiting) < SETTLE_TABLES
                    and time.monotonic() - self._settled < SETTLE_S):
                return
        self.settle()

    def waiting(self) -> bool:
        """Whether tables wait to be counted (:meth:`later`), or are being counted."""
        return bool(self._waiting) or self._counting.locked()

    def settle(self) -> None:
        """Count every table waiting now (before statistics are read, at a stop)."""
        with self._counting:
            with self._waiting_lock:
                due, self._waiting = list(self._waiting.values()), {}
                self._settled = time.monotonic()
            if due:
                self._update_all(due)

    def drop(self, table_id: str) -> None:
        """No longer wait to count this table (its state was undone: it is counted
        from its marker at its next write)."""
        with self._waiting_lock:
            self._waiting.pop(table_id, None)

    def update(self, tables: Iterable[Table]) -> None:
        """Count what the given tables finished since they were last counted, all in one
        transaction (one per table cost the writer thread three times the time of
        storing the actions, under load). Should that fail, the tables are counted one
        at a time, so that one that cannot be does not hold back the others; a failure
        is logged and tried again at the table's next update (the actions themselves
        are already stored)."""
        with self._counting:
            self._update_all(tables)

    def _update_all(self, tables: Iterable[Table]) -> None:
        due = []
        for table in tables:
            now = (_finished_hands(table), _game_over(table))
            if self._counted.get(table.id) != now:
                due.append((table, now))
        if not due:
            return
        due.sort(key=lambda item: item[0].id)  # rows locked in one order by every process
        try:
            self._update(due)
            return
        except Exception:
            for table, _now in due:
                self._counted.pop(table.id, None)
        for item in due:
            for attempt in range(3):  # two processes may race for a finishing place
                try:
                    self._update([item])
                    break
                except Exception:
                    self._counted.pop(item[0].id, None)
                    if attempt == 2:
                        log.exception("statistics of table %s not updated (tried again "
                                      "later)", item[0].id, extra={"table_id": item[0].id})

    def _update(self, due: list[tuple[Table, tuple[int, bool]]]) -> None:
        """One transaction: each table's counted marker moved from the value it had (a
        table another process counted meanwhile is left to it) with its sums.

        A few statements for the whole count, whatever its number of tables: the
        markers known here are not read again (the update moves a marker only from the
        value assumed, and its row count tells a stale one: :class:`Counted`, after
        which the count is made again from the database's markers), and they are moved
        by one statement (:func:`_move_markers`). The driver lets the GIL go around each
        statement's step and, under load, the writer thread then waits for the busy event
        loop to hand it back: a select of the markers and an ``executemany`` of one
        update per table took 25 of a count's 30 ms, and the next batch of actions waited
        for the count (``bench.server_load``)."""
        stats = _table(TableStatsRow)
        counted: dict[str, tuple[int, bool]] = {}
        with self.store.engine.begin() as conn:
            rows: dict[str, tuple[int, bool]] = {}  # the markers, as known here
            unknown = []
            for table, _now in due:
                known = self._counted.get(table.id)
                if known is None:
                    unknown.append(table.id)
                else:
                    rows[table.id] = known
            assumed = set(rows)  # (not read here: another process may have moved them)
            if unknown:
                rows.update({r.table_id: (r.hands_counted, bool(r.game_counted))
                             for r in conn.execute(
                                 select(stats.c.table_id, stats.c.hands_counted,
                                        stats.c.game_counted)
                                 .where(stats.c.table_id.in_(unknown)))})
            missing = [table.id for table, _now in due if table.id not in rows]
            if missing:
                conn.execute(insert(stats), [
                    {"table_id": table_id, "hands_counted": 0, "game_counted": False,
                     "finished": None} for table_id in missing])
                rows.update(dict.fromkeys(missing, (0, False)))
            adds: list[Contribution] = []
            moves: list[tuple[str, int, bool, int, bool, int | None]] = []
            last_finished: int | None = None
            for table, now in due:
                hands, counted_game = rows[table.id]
                if (hands, counted_game) == now or hands > now[0]:
                    counted[table.id] = (hands, counted_game)
                    continue
                add = contribution(table, hands, with_game=not counted_game)
                finished = None
                if add.game is not None:
                    if last_finished is None:
                        last_finished = conn.scalar(select(func.max(stats.c.finished))) or 0
                    finished = last_finished = last_finished + 1
                moves.append((table.id, hands, counted_game, now[0], now[1] or counted_game,
                              finished))
                adds.append(add)
                counted[table.id] = now
            if moves and _move_markers(conn, moves) != len(moves):
                if len(moves) > 1 or moves[0][0] in assumed:  # which one, or from when,
                    # the row count does not say: counted again from the database's markers
                    raise Counted("a table was counted by another process meanwhile")
                adds = []  # the one table read now: another process's sums are its own
                counted.pop(moves[0][0])
            self._add_sums(conn, adds)
        self._counted.update(counted)

    @staticmethod
    def _add_sums(conn: Connection, adds: list[Contribution]) -> None:
        """The players' sums (added in place by the database) and the ratings, game
        after game in the order counted."""
        from openskill.models import PlackettLuce

        sums: dict[str, list[int]] = {}  # hands, taken, made, points, games, wins
        for add in adds:
            for player, h in add.hands.items():
                total = sums.setdefault(player, [0] * 6)
                for i in range(4):
                    total[i] += h[i]
            for player, won in (add.game or {}).items():
                total = sums.setdefault(player, [0] * 6)
                total[4] += 1
                total[5] += won
        if sums:
            _upsert_sums(conn, sums)
        games = [add.teams for add in adds if add.teams is not None]
        if not games:
            return
        model = PlackettLuce()
        ratings = _table(RatingRow)
        names = sorted({n for teams in games for team in teams for n in team})
        found = {r.player: [r.mu, r.sigma, r.ordinal, r.games] for r in conn.execute(
            select(ratings.c.player, ratings.c.mu, ratings.c.sigma, ratings.c.ordinal,
                   ratings.c.games).where(ratings.c.player.in_(names))
            .order_by(ratings.c.player).with_for_update())}
        rows: dict[str, list[Any]] = dict(found)  # mu, sigma, ordinal, games
        for teams in games:
            rated = [[model.create_rating([rows[n][0], rows[n][1]], name=n)
                      if n in rows else model.rating(name=n) for n in team]
                     for team in teams]
            for team in model.rate(rated, ranks=list(range(1, len(rated) + 1))):
                for r in team:
                    assert r.name is not None
                    games_before = rows[r.name][3] if r.name in rows else 0
                    rows[r.name] = [r.mu, r.sigma, r.ordinal(), games_before + 1]
        unrated = sorted(rows.keys() - found.keys())
        if unrated:
            conn.execute(insert(ratings), [
                {"player": n, "mu": rows[n][0], "sigma": rows[n][1], "ordinal": rows[n][2],
                 "games": rows[n][3]} for n in unrated])
        if found:
            conn.execute(
                update(ratings).where(ratings.c.player == bindparam("b_player"))
                .values(mu=bindparam("b_mu"), sigma=bindparam("b_sigma"),
                        ordinal=bindparam("b_ordinal"), games=bindparam("b_games")),
                [{"b_player": n, "b_mu": rows[n][0], "b_sigma": rows[n][1],
                  "b_ordinal": rows[n][2], "b_games": rows[n][3]} for n in sorted(found)])

    # -- reading --------------------------------------------------------------------------

    def stats(self, player: str) -> dict[str, Any]:
        """A player's record (one row read)."""
        with Session(self.store.engine) as session:
            row = session.get(PlayerStatsRow, player)
        return stats_message(player, row.games if row else 0, row.wins if row else 0,
                             row.hands if row else 0, row.contracts_taken if row else 0,
                             row.contracts_made if row else 0, row.points if row else 0)

    def rating(self, player: str) -> dict[str, float] | None:
        with Session(self.store.engine) as session:
            row = session.get(RatingRow, player)
        return None if row is None else _rating_message(row.mu, row.sigma, row.ordinal)

    def ratings(self, limit: int = RATINGS_PAGE) -> dict[str, dict[str, float]]:
        """The best ``limit`` ratings, best first (one indexed query)."""
        with Session(self.store.engine) as session:
            rows = session.scalars(select(RatingRow).order_by(RatingRow.ordinal.desc())
                                   .limit(limit)).all()
        return {r.player: _rating_message(r.mu, r.sigma, r.ordinal) for r in rows}

    def finishing_order(self) -> list[str]:
        """Table ids of the counted games in the order they finished."""
        with Session(self.store.engine) as session:
            return list(session.scalars(select(TableStatsRow.table_id)
                                        .where(TableStatsRow.finished.is_not(None))
                                        .order_by(TableStatsRow.finished)))


def stats_message(player: str, games: int, wins: int, hands: int, taken: int, made: int,
                  points: int) -> dict[str, Any]:
    return {"player": player, "games": games, "wins": wins,
            "win_rate": round(wins / games, 3) if games else None, "hands": hands,
            "contracts_taken": taken, "contracts_made": made,
            "average_points": round(points / hands, 1) if hands else None}


def _rating_message(mu: float, sigma: float, ordinal: float) -> dict[str, float]:
    return {"mu": round(mu, 2), "sigma": round(sigma, 2), "ordinal": round(ordinal, 2)}


# -- from scratch (the reference the tests hold the summaries to) -------------------------

def recompute_stats(tables: Iterable[Table], player: str) -> dict[str, Any]:
    """A player's record computed from every table's record."""
    games = wins = hands = taken = made = points = 0
    for table in tables:
        seat = table.seat_of(player)
        game = table.game
        if seat is None or game is None:
            continue
        side = team_of(seat, table.rules.players)
        for hand, score in zip(game.hands, game.scores, strict=False):
            if hand.is_void:
                continue
            hands += 1
            points += hand.outcome().card_points[side] if game.sides == 2 else (
                hand.seat_points[seat])
            if hand.taker == seat:
                taken += 1
                made += score.outcome == "made"
        if game.is_over:
            games += 1
            wins += game.winner == side
    return stats_message(player, games, wins, hands, taken, made, points)


def recompute_ratings(tables: Iterable[Table]) -> dict[str, dict[str, float]]:
    """Ratings from every finished game of ``tables``, in the order given."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating: dict[str, Any] = {}
    for table in tables:
        game = table.game
        if game is None or not game.is_over or game.winner is None:
            continue
        names = [_label(who) or "" for who in table.seats]
        sides: dict[int, list[str]] = {}
        for seat, name in enumerate(names):
            sides.setdefault(team_of(seat, table.rules.players), []).append(name)
        order = sorted(sides, key=lambda s: (s != game.winner, -game.totals[s]))
        # A copy per seat: two bots of one level at a table are one rating, updated
        # once (openskill updates a rating object in place).
        teams = [[model.create_rating([rating[n].mu, rating[n].sigma], name=n)
                  if n in rating else model.rating(name=n) for n in sides[s]]
                 for s in order]
        for team in model.rate(teams, ranks=list(range(1, len(teams) + 1))):
            for r in team:
                assert r.name is not None
                rating[r.name] = r
    return {n: _rating_message(r.mu, r.sigma, r.ordinal()) for n, r in rating.items()}
