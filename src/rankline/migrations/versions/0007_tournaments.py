"""Tournaments (definitions, joins, submission counts, results and their webhook outbox) and
cohorts.

Revision ID: 0007t
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0007t"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_tournaments",
        sa.Column("id", Ident(64), primary_key=True),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_tournament_editions",
        sa.Column("tournament_id", Ident(64), nullable=False),
        sa.Column("edition", Ident(64), nullable=False),
        sa.Column("joined", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "edition"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_tournament_players",
        sa.Column("tournament_id", Ident(64), nullable=False),
        sa.Column("edition", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("joined_at", sa.BigInteger, nullable=True),
        sa.Column("submissions", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "edition", "player_id"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_tournament_submissions",
        sa.Column("tournament_id", Ident(64), nullable=False),
        sa.Column("edition", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("match_id", Ident(128), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "edition", "player_id", "match_id"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_tournament_results",
        sa.Column("tournament_id", Ident(64), nullable=False),
        sa.Column("edition", Ident(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("webhook_url", sa.Text, nullable=True),
        sa.Column("delivered_at", sa.BigInteger, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.BigInteger, nullable=False),
        sa.Column("lease_owner", Ident(128), nullable=True),
        sa.Column("lease_until", sa.BigInteger, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "edition"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_cohort_counters",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("assigned", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "window", "period"),
        **TABLE_OPTIONS,
    )
    op.create_table(
        "rl_cohort_members",
        sa.Column("board_id", Ident(64), nullable=False),
        sa.Column("window", Ident(16), nullable=False),
        sa.Column("period", Ident(64), nullable=False),
        sa.Column("player_id", Ident(64), nullable=False),
        sa.Column("cohort", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("board_id", "window", "period", "player_id"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    for table in (
        "rl_cohort_members",
        "rl_cohort_counters",
        "rl_tournament_results",
        "rl_tournament_submissions",
        "rl_tournament_players",
        "rl_tournament_editions",
        "rl_tournaments",
    ):
        op.drop_table(table)
