"""Dead letters: submissions taken asynchronously that the applier could not apply.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, EventId, Ident

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_dead_letters",
        sa.Column("id", EventId, primary_key=True, autoincrement=True),
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.Column("log_partition", sa.Integer, nullable=False),
        sa.Column("log_position", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("submission", sa.Text, nullable=False),
        sa.Column("failed_at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_dead_letters")
