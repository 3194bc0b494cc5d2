"""One action per (table, seq): two server processes that both believed they owned a
table could not both write its next action (the scale-out mode's last line of defence).

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ux_actions_table_seq", "actions", ["table_id", "seq"], unique=True)


def downgrade() -> None:
    op.drop_index("ux_actions_table_seq", table_name="actions")
