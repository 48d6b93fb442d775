"""Players (profiles, friend lists, bans), period states and archived final standings.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_players",
        sa.Column("player_id", Ident(64), primary_key=True),
        sa.Column("display_name", sa.String(100), nullable=True),
        sa.Column("avatar_url", sa.String(500), nullable=True),
        sa.Column("country", sa.String(8), nullable=True),
        sa.Column("metadata", sa.Text, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_friends",
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("friend_id", Ident(64), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "friend_id"),
        **TABLE_OPTIONS,
    )
    op.create_index("ix_rl_friends_friend", "rl_friends", ["friend_id"])
    op.create_table(
        "rl_bans",
        sa.Column("player_id", Ident(64), primary_key=True),
        sa.Column("banned_at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_archive",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("scope", Ident(100), nullable=False),
        sa.Column("rank", sa.BigInteger, nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("score", sa.BigInteger, nullable=False),
        sa.Column("achieved_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "scope", "rank"),
        **TABLE_OPTIONS,
    )
    op.create_index(
        "ix_rl_archive_player",
        "rl_archive",
        ["board_id", "window", "period", "scope", "player_id"],
    )
    op.create_index("ix_rl_archive_by_player", "rl_archive", ["player_id"])
    with op.batch_alter_table("rl_periods") as batch:
        batch.add_column(sa.Column("state", Ident(16), nullable=False, server_default="open"))
        batch.add_column(sa.Column("claimed_until", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("archived_at", sa.BigInteger, nullable=True))
        batch.add_column(sa.Column("total", sa.BigInteger, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rl_periods") as batch:
        for column in ("total", "archived_at", "claimed_until", "state"):
            batch.drop_column(column)
    op.drop_index("ix_rl_archive_by_player", "rl_archive")
    op.drop_index("ix_rl_archive_player", "rl_archive")
    op.drop_table("rl_archive")
    op.drop_table("rl_bans")
    op.drop_index("ix_rl_friends_friend", "rl_friends")
    op.drop_table("rl_friends")
    op.drop_table("rl_players")
