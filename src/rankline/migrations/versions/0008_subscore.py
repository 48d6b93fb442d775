"""Subscores: the second number that orders equal scores on boards that declare one.

Score events, standings and archived standings each get a nullable ``subscore``: null on
every board without one, so existing rows need no rewrite.

Revision ID: 0008s
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008s"
down_revision = "0007t"
branch_labels = None
depends_on = None

_TABLES = ("rl_score_events", "rl_standings", "rl_archive")


def upgrade() -> None:
    for table in _TABLES:
        op.add_column(table, sa.Column("subscore", sa.BigInteger, nullable=True))


def downgrade() -> None:
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("subscore")
