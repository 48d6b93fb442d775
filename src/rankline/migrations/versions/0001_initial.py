"""Initial schema: boards, score events, standings, periods.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_event_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "rl_boards",
        sa.Column("id", Ident(64), primary_key=True),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_score_events",
        sa.Column("id", _event_id, primary_key=True, autoincrement=True),
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.Column("score", sa.BigInteger, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("received_at", sa.BigInteger, nullable=False),
        sa.Column("applied", sa.Boolean, nullable=False),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("metadata", sa.Text, nullable=False),
        sa.UniqueConstraint("board_id", "player_id", "match_id", name="uq_rl_score_events_key"),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_rl_score_events_player", "rl_score_events", ["player_id", "id"])
    op.create_table(
        "rl_standings",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("scope", Ident(100), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("score", sa.BigInteger, nullable=False),
        sa.Column("achieved_at", sa.BigInteger, nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "scope", "player_id"),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_rl_standings_rank",
        "rl_standings",
        ["board_id", "window", "period", "scope", "score", "achieved_at", "player_id"],
    )
    op.create_index("ix_rl_standings_player", "rl_standings", ["player_id"])
    op.create_table(
        "rl_periods",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("starts_at", sa.BigInteger, nullable=True),
        sa.Column("ends_at", sa.BigInteger, nullable=True),
        sa.PrimaryKeyConstraint("board_id", "window", "period"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_periods")
    op.drop_index("ix_rl_standings_player", "rl_standings")
    op.drop_index("ix_rl_standings_rank", "rl_standings")
    op.drop_table("rl_standings")
    op.drop_index("ix_rl_score_events_player", "rl_score_events")
    op.drop_table("rl_score_events")
    op.drop_table("rl_boards")
