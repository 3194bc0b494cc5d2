"""Statistics and ratings maintained as games finish (``server/summary.py``): per-player
sums, ratings, and per table what of it is counted.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_stats",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("wins", sa.Integer, nullable=False, server_default="0"),
        sa.Column("hands", sa.Integer, nullable=False, server_default="0"),
        sa.Column("contracts_taken", sa.Integer, nullable=False, server_default="0"),
        sa.Column("contracts_made", sa.Integer, nullable=False, server_default="0"),
        sa.Column("points", sa.Integer, nullable=False, server_default="0"))
    op.create_table(
        "ratings",
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_ratings_ordinal", "ratings", ["ordinal"])
    op.create_table(
        "table_stats",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("hands_counted", sa.Integer, nullable=False, server_default="0"),
        sa.Column("game_counted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("finished", sa.Integer, nullable=True))
    op.create_index("ix_table_stats_finished", "table_stats", ["finished"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_table_stats_finished", table_name="table_stats")
    op.drop_table("table_stats")
    op.drop_index("ix_ratings_ordinal", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("player_stats")
