"""Players' names (unique by their folded key, guests included), server-side sessions
(revoked at logout), and stand-in timers (absences), so that all three survive a
restart.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from rebelote.server.names import name_key

    players = op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(96), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(32), nullable=False, index=True),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "absences",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("since", sa.Float(), nullable=False),
    )
    accounts = op.get_bind().execute(sa.text("SELECT id, name, created_at FROM accounts"))
    rows, seen = [], set()
    for account_id, name, created in accounts:
        key = name_key(name)
        if key in seen:  # an older look-alike: kept, under a key of its own
            key = f"{key}#{account_id}"
        seen.add(key)
        rows.append({"id": account_id, "nickname": name, "name_key": key,
                     "created_at": created})
    if rows:
        op.bulk_insert(players, rows)


def downgrade() -> None:
    op.drop_table("absences")
    op.drop_table("sessions")
    op.drop_table("players")
