"""The ingestion log in SQL: records per partition, partition heads with the applied
position and the owner's lease, and the live consumers.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_OPTIONS: dict[str, Any] = {"mysql_charset": "utf8mb4", "mysql_engine": "InnoDB"}


def _ident(length: int) -> sa.types.TypeEngine[str]:
    return (
        sa.String(length)
        .with_variant(sa.String(length, collation="C"), "postgresql")
        .with_variant(mysql.VARCHAR(length, charset="ascii", collation="ascii_bin"), "mysql")
    )


def upgrade() -> None:
    op.create_table(
        "rl_log",
        sa.Column("log_name", _ident(64), nullable=False),
        sa.Column("part", sa.Integer, nullable=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("board_id", _ident(64), nullable=False),
        sa.Column("dedup_key", _ident(255), nullable=False),
        sa.Column("appended_at", sa.BigInteger, nullable=False),
        sa.Column(
            "payload", sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql"), nullable=False
        ),
        sa.PrimaryKeyConstraint("log_name", "part", "seq"),
        **_OPTIONS,
    )
    op.create_index("ix_rl_log_dedup", "rl_log", ["log_name", "part", "dedup_key"])
    op.create_table(
        "rl_log_partitions",
        sa.Column("log_name", _ident(64), nullable=False),
        sa.Column("part", sa.Integer, nullable=False),
        sa.Column("next_seq", sa.BigInteger, nullable=False),
        sa.Column("committed", sa.BigInteger, nullable=False),
        sa.Column("owner", _ident(128), nullable=True),
        sa.Column("lease_until", sa.BigInteger, nullable=False),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("log_name", "part"),
        **_OPTIONS,
    )
    op.create_table(
        "rl_log_members",
        sa.Column("log_name", _ident(64), nullable=False),
        sa.Column("owner", _ident(128), nullable=False),
        sa.Column("seen_until", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("log_name", "owner"),
        **_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_log_members")
    op.drop_table("rl_log_partitions")
    op.drop_index("ix_rl_log_dedup", table_name="rl_log")
    op.drop_table("rl_log")
