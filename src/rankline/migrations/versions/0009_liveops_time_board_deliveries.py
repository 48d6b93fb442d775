"""Board webhooks: the outbox of period-close events, one row per closed leaderboard.

Revision ID: 0009lt
Revises: 0006r
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0009lt"
down_revision = "0006r"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_board_deliveries",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("scope", Ident(100), nullable=False),
        sa.Column("id", Ident(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("webhook_url", sa.Text, nullable=False),
        sa.Column("delivered_at", sa.BigInteger, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.BigInteger, nullable=False),
        sa.Column("lease_owner", Ident(128), nullable=True),
        sa.Column("lease_until", sa.BigInteger, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "scope"),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_rl_board_deliveries_due",
        "rl_board_deliveries",
        ["delivered_at", "next_attempt_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_rl_board_deliveries_due", table_name="rl_board_deliveries")
    op.drop_table("rl_board_deliveries")
