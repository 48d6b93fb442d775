"""Rating boards: matches in their serial order, their rating changes, the rating states.

Revision ID: 0006r
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0006r"
down_revision = "0008s"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_matches",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.Column("digest", Ident(64), nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("received_at", sa.BigInteger, nullable=False),
        sa.Column("results", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "seq"),
        sa.UniqueConstraint("board_id", "match_id", name="uq_rl_matches_key"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_match_ratings",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("previous", sa.Text, nullable=False),
        sa.Column("rating", sa.Text, nullable=False),
        sa.Column("provisional", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "match_id", "player_id", "window", "period"),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_rl_match_ratings_player", "rl_match_ratings", ["player_id", "board_id", "seq"]
    )
    op.create_table(
        "rl_rating_states",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "player_id"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_rating_states")
    op.drop_index("ix_rl_match_ratings_player", table_name="rl_match_ratings")
    op.drop_table("rl_match_ratings")
    op.drop_table("rl_matches")
