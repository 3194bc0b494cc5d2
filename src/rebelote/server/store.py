"""Storage of tables and of every action at them (SQLAlchemy 2; SQLite by default).

The schema is created and upgraded by Alembic migrations (``server/migrations``); an
action is committed before the server tells anyone about it, so a restarted server
rebuilds every table exactly where it stood.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, ForeignKey, String, Text, create_engine, event, insert, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

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


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(24), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=lambda: datetime.now(UTC))


@dataclass
class StoredTable:
    """A table as stored: its settings and its actions in order."""

    id: str
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    options: dict[str, Any]
    actions: list[tuple[str, dict[str, Any]]]


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the latest schema (Alembic migrations)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    command.upgrade(config, "head")


class Store:
    """The database behind the server."""

    def __init__(self, url: str, migrate: bool = True) -> None:
        self.url = url
        if migrate:  # the scale-out mode migrates once, before its workers start
            upgrade(url)
        # A connection is tested before use: a restarted database costs no request.
        self.engine = create_engine(url, pool_pre_ping=True)
        self._writer: Connection | None = None
        self._insert = insert(ActionRow)
        if url.startswith("sqlite"):
            # Write-ahead log: a commit survives a killed process without waiting for
            # the disk on every action (it may lose the last commits on a power cut).
            @event.listens_for(self.engine, "connect")
            def _pragmas(connection: Any, _record: Any) -> None:
                cursor = connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
                cursor.close()

    def create_table(self, table_id: str, rules: dict[str, Any], seats: list[dict[str, Any]],
                     options: dict[str, Any]) -> None:
        with Session(self.engine) as session, session.begin():
            session.add(TableRow(id=table_id, rules=json.dumps(rules), seats=json.dumps(seats),
                                 options=json.dumps(options)))

    def append(self, actions: list[tuple[str, int, str, dict[str, Any]]]) -> None:
        """Commit actions (table, seq, kind, payload) in one transaction, before anyone
        hears of them."""
        now = datetime.now(UTC)
        rows = [{"table_id": table_id, "seq": seq, "kind": kind, "payload": json.dumps(payload),
                 "created_at": now} for table_id, seq, kind, payload in actions]
        if self._writer is None:  # one connection kept for the writes
            self._writer = self.engine.connect()
        with self._writer.begin():  # one Core insert: no ORM bookkeeping
            self._writer.execute(self._insert, rows)

    def add_account(self, account_id: str, name: str, password_hash: str) -> bool:
        """A new account; False if the name is taken."""
        from sqlalchemy.exc import IntegrityError

        try:
            with Session(self.engine) as session, session.begin():
                session.add(AccountRow(id=account_id, name=name, password_hash=password_hash))
        except IntegrityError:
            return False
        return True

    def account(self, name: str) -> tuple[str, str] | None:
        """(id, password hash) of the account ``name``, if any."""
        with Session(self.engine) as session:
            row = session.scalars(select(AccountRow).where(AccountRow.name == name)).first()
            return None if row is None else (row.id, row.password_hash)

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        with Session(self.engine) as session, session.begin():
            row = session.get(AccountRow, account_id)
            if row is not None:
                row.password_hash = password_hash

    def load(self, table_id: str | None = None) -> list[StoredTable]:
        """Every table (or the one ``table_id``) with its actions, to rebuild the
        server's state."""
        query = select(TableRow).order_by(TableRow.created_at)
        actions = select(ActionRow.table_id, ActionRow.kind, ActionRow.payload).order_by(
            ActionRow.table_id, ActionRow.seq)
        if table_id is not None:
            query = query.where(TableRow.id == table_id)
            actions = actions.where(ActionRow.table_id == table_id)
        by_table: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        with Session(self.engine) as session:  # two queries, however many tables
            rows = session.scalars(query).all()
            for table, kind, payload in session.execute(actions):
                by_table.setdefault(table, []).append((kind, json.loads(payload)))
        return [StoredTable(row.id, json.loads(row.rules), json.loads(row.seats),
                            json.loads(row.options), by_table.get(row.id, []))
                for row in rows]
