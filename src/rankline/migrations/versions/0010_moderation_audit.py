"""Moderation: the audit log (``rl_audit``), the entries removed by hand (``rl_removals``)
and the matches voided (``rl_voids``).

Revision ID: 0010m
Revises: 0009lt
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, EventId, Ident

revision = "0010m"
down_revision = "0009lt"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_audit",
        sa.Column("id", EventId, primary_key=True, autoincrement=True),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("actor", sa.String(100), nullable=False),
        sa.Column("action", Ident(32), nullable=False),
        sa.Column("board_id", Ident(64), nullable=True),
        sa.Column("player_id", Ident(64), nullable=True),
        sa.Column("match_id", Ident(128), nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("detail", sa.Text, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_rl_audit_board", "rl_audit", ["board_id", "id"])
    op.create_index("ix_rl_audit_player", "rl_audit", ["player_id", "id"])
    op.create_table(
        "rl_removals",
        sa.Column("id", EventId, primary_key=True, autoincrement=True),
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=True),
        sa.Column("window", Ident(16), nullable=True),
        sa.Column("period", Ident(64), nullable=True),
        sa.Column("scope", Ident(100), nullable=True),
        sa.Column("after_event", sa.BigInteger, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_rl_removals_board", "rl_removals", ["board_id", "id"])
    op.create_table(
        "rl_voids",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "match_id"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_voids")
    op.drop_table("rl_removals")
    op.drop_table("rl_audit")
