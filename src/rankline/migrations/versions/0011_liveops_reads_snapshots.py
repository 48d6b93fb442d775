"""Top-K snapshots by time: ``rl_snapshots``, one row per leaderboard and interval.

Revision ID: 0011lr
Revises: 0010m
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident, LogPayload

revision = "0011lr"
down_revision = "0010m"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_snapshots",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("scope", Ident(100), nullable=False),
        sa.Column("slot", sa.BigInteger, nullable=False),
        sa.Column("taken_at", sa.BigInteger, nullable=False),
        sa.Column("taken_by", Ident(128), nullable=False),
        sa.Column("total", sa.BigInteger, nullable=True),
        sa.Column("size", sa.Integer, nullable=True),
        sa.Column("entries", LogPayload, nullable=True),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "scope", "slot"),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_rl_snapshots_taken", "rl_snapshots", ["board_id", "taken_at"])


def downgrade() -> None:
    op.drop_table("rl_snapshots")
