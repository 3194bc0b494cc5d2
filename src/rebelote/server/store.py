"""Storage of tables and of every action at them (SQLAlchemy 2; SQLite by default).

The schema is created and upgraded by Alembic migrations (``server/migrations``); an
action is committed before the server tells anyone about it, so a restarted server
rebuilds every table exactly where it stood.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from sqlalchemy import (
    Connection,
    Float,
    ForeignKey,
    String,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from rebelote.server.wire import dumps

MIGRATIONS = Path(__file__).parent / "migrations"


class Base(DeclarativeBase):
    """Declarative base of the server's tables."""


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    rules: Mapped[str] = mapped_column(Text)  # a record's "rules" object, JSON
    seats: Mapped[str] = mapped_column(Text)  # per seat: {"player": id} or {"bot": level}
    options: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


class ActionRow(Base):
    __tablename__ = "actions"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    seq: Mapped[int]
    kind: Mapped[str] = mapped_column(String(16))  # "deal", "act", "seat"
    payload: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


ACTION_COLUMNS = ("table_id", "seq", "kind", "payload", "created_at")
"""The columns an action's insert sets."""
INSERT_ROWS = 256
"""The most rows in one SQLite insert statement (5 parameters a row: far under SQLite's
limit of 32,766 parameters a statement); a batch is inserted in chunks of powers of two,
so that the driver prepares at most nine statements, not one per batch size."""
SQLITE_ROW = "(" + ", ".join("?" * len(ACTION_COLUMNS)) + ")"

WAL_KEPT_BYTES = 32 << 20
"""SQLite's write-ahead log is cut back to this size when it starts over after a
checkpoint (``journal_size_limit``): a burst of writes does not leave a large file."""

COPY_PASSES = 3
COPY_SHORT_S = 0.005
""":meth:`Store.copy_log` copies again what was written during its last pass, at most
:data:`COPY_PASSES` times, until a pass takes less than this: each pass leaves the
pages written meanwhile to the next, the last to the checkpoint between two writes."""

WAL_STUCK_BYTES = 64 << 20
"""A log past this size has not started over since its last checkpoints (another
process writing through each of them): the next checkpoint waits a little for the
writers and readers (:data:`WAL_STUCK_WAIT_MS`) and empties it."""

WAL_STUCK_WAIT_MS = 100


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(24), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


class PlayerRow(Base):
    """Every player's display name (guests and accounts), unique by its folded key."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(96), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


class SessionRow(Base):
    """A signed-in browser: its cookie names this row, revoked at logout."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    player: Mapped[str] = mapped_column(String(32), index=True)
    revoked: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


class AbsenceRow(Base):
    """A seated player gone since ``since`` (Unix time): the stand-in timers."""

    __tablename__ = "absences"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(primary_key=True)
    since: Mapped[float] = mapped_column(Float)


class StoreError(RuntimeError):
    """The database cannot be used; the message is one sentence naming it."""


SQLITE_FILE_PREFIX: Final = "sqlite:///"


def sqlite_path(url: str) -> str | None:
    """The file of an SQLite database URL (``sqlite:///PATH``); None for any other
    database, and for SQLite in memory (``sqlite://``, ``sqlite:///``)."""
    if url.startswith(SQLITE_FILE_PREFIX) and len(url) > len(SQLITE_FILE_PREFIX):
        return url[len(SQLITE_FILE_PREFIX):]
    return None


def describe(url: str) -> str:
    """The database as a person knows it: a SQLite file's path, else the URL without
    its password."""
    if url.startswith(SQLITE_FILE_PREFIX):
        return sqlite_path(url) or "(in memory)"
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


@dataclass
class StoredTable:
    """A table as stored: its settings and its actions in order."""

    id: str
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    options: dict[str, Any]
    actions: list[tuple[str, dict[str, Any]]]
    absent: dict[int, float] = field(default_factory=dict)
    """Seats whose player was gone, since when (Unix time)."""
    error: str | None = None
    """Why the stored table cannot be read (it is quarantined), if it cannot."""


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the latest schema (Alembic migrations)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "head")


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    """Each SQLite connection: a write-ahead log (a commit survives a killed process
    without waiting for the disk on every action; it may lose the last commits on a
    power cut), and no checkpoint inside a commit (it waits for the disk: seconds on a
    busy one, with the event loop waiting): :meth:`Store.checkpoint` does it, between
    the web layer's writes; the log cut back to :data:`WAL_KEPT_BYTES` when it starts
    over."""
    cursor = connection.cursor()
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "wal_autocheckpoint=0",
                   f"journal_size_limit={WAL_KEPT_BYTES}"):
        cursor.execute(f"PRAGMA {pragma}").fetchall()  # (a pragma's row read: no open statement)
    cursor.close()


def check_database(url: str) -> None:
    """Migrate the database at ``url`` and check that it can be read (StoreError, one
    sentence naming it, if not)."""
    Store(url, migrate=True).engine.dispose()


class Store:
    """The database behind the server."""

    def __init__(self, url: str, migrate: bool = True) -> None:
        self.url = url
        try:
            file = sqlite_path(url)
            if file is not None:
                path = Path(file)
                if not path.parent.is_dir():
                    raise OSError(f"the folder {path.parent} does not exist")
                if path.exists() and not os.access(path, os.R_OK | os.W_OK):
                    raise OSError("it cannot be read and written")
            if migrate:  # the scale-out mode migrates once, before its workers start
                upgrade(url)
            # A connection is tested before use: a restarted database costs no request.
            self.engine = create_engine(url, pool_pre_ping=True)
            if url.startswith("sqlite"):
                event.listen(self.engine, "connect", _sqlite_pragmas)
            with self.engine.connect() as probe:
                probe.execute(text("SELECT count(*) FROM tables")).scalar()
        except Exception as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise StoreError(f"the database {describe(url)} cannot be used: {reason}") from None
        self._writer: Connection | None = None
        self._insert_sql, self._insert_order = self._compiled_insert()
        self._many_rows: str | None = None
        """SQLite, its parameters in :data:`ACTION_COLUMNS`' order: the insert's head,
        for statements of many rows (:meth:`_insert_rows`)."""
        if url.startswith("sqlite") and self._insert_order == ACTION_COLUMNS:
            self._many_rows = self._insert_sql.partition(" VALUES ")[0] + " VALUES "
        stamp = ActionRow.__table__.c.created_at.type.bind_processor(self.engine.dialect)
        self._stamp: Callable[[datetime], Any] = stamp or (lambda moment: moment)

    def _insert_rows(self, writer: Connection, head: str, rows: list[Any]) -> None:
        """SQLite: the rows in as few statements as possible, each of many rows. The
        driver lets the GIL go around each statement's step: a row at a time, the writer
        thread then waited for the busy event loop to hand the GIL back once per row
        (148 rows, 52 ms a batch under load, for a fraction of that of CPU)."""
        start = 0
        while start < len(rows):  # chunks of powers of two: few statements to prepare
            size = min(INSERT_ROWS, 1 << ((len(rows) - start).bit_length() - 1))
            chunk = rows[start:start + size]
            writer.exec_driver_sql(head + ",".join([SQLITE_ROW] * size),
                                   tuple(value for row in chunk for value in row))
            start += size

    def _compiled_insert(self) -> tuple[str, tuple[str, ...] | None]:
        """The actions' insert in the database's own SQL, compiled once, and the order
        of its parameters (None: by name). Executed by the driver itself: SQLAlchemy's
        statement execution cost the writer thread as much as the driver's insert
        under load (its cache key, parameters and type processing, row by row)."""
        compiled = (insert(ActionRow).inline()  # no RETURNING
                    .values({name: bindparam(name) for name in ACTION_COLUMNS})
                    .compile(dialect=self.engine.dialect))
        if not self.engine.dialect.positional:
            return str(compiled), None
        return str(compiled), tuple(compiled.positiontup or ())

    @property
    def _sqlite_file(self) -> bool:
        """Whether the database is an SQLite file (it has a write-ahead log)."""
        return sqlite_path(self.url) is not None

    def copy_log(self) -> None:
        """Copy the pages of the write-ahead log into the SQLite file while writes go on
        (in a thread other than the writer's; nothing for other databases): the
        :meth:`checkpoint` that follows, between two writes, has only the pages written
        meanwhile left to copy (46 ms a second under load, median, when it copied all:
        the writes waited for it)."""
        if not self._sqlite_file:
            return
        with self.engine.connect() as connection:
            for _ in range(COPY_PASSES):
                started = time.perf_counter()
                connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                if time.perf_counter() - started < COPY_SHORT_S:
                    break

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the SQLite file; nothing for other databases.

        Call it between writes, in the thread that writes (the web layer's writer, every
        second): the log starts over at the next write only if the checkpoint copied all
        of it, and one running beside a stream of commits never did (the log grew by
        every commit, 262 MB in a minute of the fault soak, until the disk was full). A
        log that grew past :data:`WAL_STUCK_BYTES` all the same (another process's
        writes) is emptied by a checkpoint that waits for them, at most
        :data:`WAL_STUCK_WAIT_MS`. It waits for the disk: never on the event loop."""
        if not self._sqlite_file:
            return
        with self.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            try:
                size = os.path.getsize(f"{sqlite_path(self.url)}-wal")
            except OSError:
                return
            if size > WAL_STUCK_BYTES:
                wait = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
                connection.exec_driver_sql(f"PRAGMA busy_timeout={WAL_STUCK_WAIT_MS}")
                try:
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                finally:
                    connection.exec_driver_sql(f"PRAGMA busy_timeout={int(wait or 0)}")

    def create_table(self, table_id: str, rules: dict[str, Any], seats: list[dict[str, Any]],
                     options: dict[str, Any]) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(TableRow(id=table_id, rules=json.dumps(rules), seats=json.dumps(seats),
                                 options=json.dumps(options)))

    def append(self, actions: list[tuple[str, int, str, dict[str, Any]]]) -> None:
        """Commit actions (table, seq, kind, payload) in one transaction, before anyone
        hears of them."""
        now = self._stamp(datetime.now(UTC))
        # orjson: 0.2 µs a small payload, json 1.9, time the writer holds the loop's GIL
        rows: list[Any] = [(table_id, seq, kind, dumps(payload), now)
                           for table_id, seq, kind, payload in actions]
        if self._insert_order is None:  # parameters by name
            rows = [dict(zip(ACTION_COLUMNS, row, strict=True)) for row in rows]
        elif self._insert_order != ACTION_COLUMNS:  # in the database's order
            where = [ACTION_COLUMNS.index(name) for name in self._insert_order]
            rows = [tuple(row[i] for i in where) for row in rows]
        if self._writer is None:  # one connection kept for the writes
            self._writer = self.engine.connect()
        try:
            with self._writer.begin():  # one insert by the driver: no ORM bookkeeping
                if self._many_rows is not None:
                    self._insert_rows(self._writer, self._many_rows, rows)
                else:
                    self._writer.exec_driver_sql(self._insert_sql, rows)
        except Exception:
            writer, self._writer = self._writer, None  # a fresh connection next time
            with contextlib.suppress(Exception):
                writer.close()
            raise

    def add_account(self, account_id: str, name: str, password_hash: str,
                    key: str | None = None) -> bool:
        """A new account and its player name (unique by its folded ``key``); False if
        the name is taken."""
        from sqlalchemy.exc import IntegrityError

        try:
            with Session(self.engine) as session, session.begin():
                session.add(PlayerRow(id=account_id, nickname=name, name_key=key or name))
                session.flush()
                session.add(AccountRow(id=account_id, name=name, password_hash=password_hash))
        except IntegrityError:
            return False
        return True

    def guest_to_account(self, player: str, name: str, password_hash: str,
                         key: str) -> bool | None:
        """The guest ``player`` made an account under ``name`` (unique by its folded
        ``key``), keeping its id, so its tables, history and rating stay its own: True;
        False if the name is another player's; None if ``player`` is no guest (an
        account already, or unknown)."""
        from sqlalchemy.exc import IntegrityError

        try:
            with Session(self.engine) as session, session.begin():
                row = session.get(PlayerRow, player)
                if row is None or session.get(AccountRow, player) is not None:
                    return None
                row.nickname, row.name_key = name, key
                session.flush()
                session.add(AccountRow(id=player, name=name, password_hash=password_hash))
        except IntegrityError:
            return False
        return True

    def account(self, name: str, key: str | None = None) -> tuple[str, str] | None:
        """(id, password hash) of the account ``name`` (or of the folded name ``key``),
        if any."""
        with Session(self.engine) as session:
            if key is not None:
                player = session.scalars(select(PlayerRow).where(
                    PlayerRow.name_key == key)).first()
                row = None if player is None else session.get(AccountRow, player.id)
            else:
                row = session.scalars(select(AccountRow).where(AccountRow.name == name)).first()
            return None if row is None else (row.id, row.password_hash)

    def account_name(self, account_id: str) -> str | None:
        with Session(self.engine) as session:
            row = session.get(AccountRow, account_id)
            return None if row is None else row.name

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(AccountRow, account_id)
            if row is not None:
                row.password_hash = password_hash

    def load(self, table_id: str | None = None,
             ids: Collection[str] | None = None) -> list[StoredTable]:
        """Every table (or the one ``table_id``, or those of ``ids``: a takeover loads
        a dead process's tables together) with its actions, to rebuild the server's
        state, in three queries however many tables. A table whose rows cannot be read
        comes with its ``error``."""
        wanted = None if table_id is None and ids is None else (
            [table_id] if table_id is not None else sorted(set(ids or ())))
        if wanted == []:
            return []
        out = []
        query = select(TableRow).order_by(TableRow.created_at)
        if wanted is not None:
            query = query.where(TableRow.id.in_(wanted))
        with Session(self.engine) as session:
            absences: dict[str, dict[int, float]] = {}
            absent_query = select(AbsenceRow)
            if wanted is not None:
                absent_query = absent_query.where(AbsenceRow.table_id.in_(wanted))
            for absence in session.scalars(absent_query):
                absences.setdefault(absence.table_id, {})[absence.seat] = absence.since
            # Three queries however many tables: absences, tables, every action.
            every = select(ActionRow.table_id, ActionRow.seq, ActionRow.kind,
                           ActionRow.payload).order_by(ActionRow.table_id, ActionRow.seq)
            if wanted is not None:
                every = every.where(ActionRow.table_id.in_(wanted))
            tables = session.scalars(query).all()
            by_table: dict[str, list[Any]] = {}
            for action in session.execute(every):
                by_table.setdefault(action.table_id, []).append(action)
            for row in tables:
                try:
                    actions = []
                    for n, a in enumerate(by_table.get(row.id, [])):
                        if a.seq != n:
                            raise ValueError(f"action {n} is missing")
                        payload = json.loads(a.payload)
                        if not isinstance(payload, dict):
                            raise ValueError(f"action {n} is not an object")
                        actions.append((a.kind, payload))
                    stored = StoredTable(row.id, json.loads(row.rules), json.loads(row.seats),
                                         json.loads(row.options), actions,
                                         absences.get(row.id, {}))
                except ValueError as exc:
                    stored = StoredTable(row.id, {}, [], {}, [], error=str(exc))
                out.append(stored)
        return out

    # -- players, sessions, absences ----------------------------------------------------

    def names(self) -> dict[str, str]:
        """Every player's display name."""
        with Session(self.engine) as session:
            return {r.id: r.nickname for r in session.scalars(select(PlayerRow))}

    def add_player(self, player: str, nickname: str, key: str) -> bool:
        """A new player's name; False if another player holds a name of that key."""
        from sqlalchemy.exc import IntegrityError

        try:
            with Session(self.engine) as session, session.begin():
                session.add(PlayerRow(id=player, nickname=nickname, name_key=key))
        except IntegrityError:
            return False
        return True

    def add_session(self, token: str, player: str) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(SessionRow(id=token, player=player))

    def session_players(self, tokens: Collection[str]) -> dict[str, str]:
        """The players signed in by each of ``tokens`` (revoked and unknown ones left
        out), in one query per 500 tokens."""
        wanted = sorted(set(tokens))
        out: dict[str, str] = {}
        with Session(self.engine) as session:
            for start in range(0, len(wanted), 500):
                query = select(SessionRow.id, SessionRow.player).where(
                    SessionRow.id.in_(wanted[start:start + 500]),
                    SessionRow.revoked.is_(False))
                out.update({token: player for token, player in session.execute(query)})
        return out

    def revoke_sessions(self, token: str | None = None, player: str | None = None,
                        keep: str | None = None) -> None:
        """Revoke one session, or every session of ``player`` but ``keep``."""
        query = update(SessionRow).values(revoked=True)
        query = (query.where(SessionRow.id == token) if token is not None
                 else query.where(SessionRow.player == player))
        if keep is not None:
            query = query.where(SessionRow.id != keep)
        with Session(self.engine) as session, session.begin():
            session.execute(query)

    def close_account(self, account_id: str) -> None:
        """The account closed: its password and every session gone in one transaction.
        The player's name stays on its games and stays taken (nobody else can pass for
        it)."""
        with Session(self.engine) as session, session.begin():
            session.execute(delete(AccountRow).where(AccountRow.id == account_id))
            session.execute(update(SessionRow).values(revoked=True)
                            .where(SessionRow.player == account_id))

    def clear_absences(self, seats: list[tuple[str, int]]) -> None:
        """Clear the stand-in timers of many (table, seat) in one transaction (a
        takeover: the players already back at the tables it adopted)."""
        self.set_absences(dict.fromkeys(seats))

    def set_absences(self, absences: dict[tuple[str, int], float | None]) -> None:
        """Store (None: clear) many stand-in timers, (table, seat) -> since, in one
        transaction (a thousand players reconnecting wrote them one transaction each,
        and the group commit waited behind them)."""
        if not absences:
            return
        with Session(self.engine) as session, session.begin():
            session.execute(delete(AbsenceRow).where(
                tuple_(AbsenceRow.table_id, AbsenceRow.seat).in_(list(absences))))
            session.add_all([AbsenceRow(table_id=t, seat=seat, since=since)
                             for (t, seat), since in absences.items() if since is not None])

    def set_absence(self, table_id: str, seat: int, since: float | None) -> None:
        """Store (or, with None, clear) since when a seat's player is gone."""
        self.set_absences({(table_id, seat): since})
