"""Keys made at runtime: ``rl_keys``, each key's name, role, board patterns, times and the
SHA-256 of its secret (never the secret).

Revision ID: 0012k
Revises: 0011lr
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from rankline.store.schema import TABLE_OPTIONS, Ident

revision = "0012k"
down_revision = "0011lr"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rl_keys",
        sa.Column("id", Ident(32), primary_key=True),
        sa.Column("name", Ident(64), nullable=False),
        sa.Column("role", Ident(8), nullable=False),
        sa.Column("boards", sa.Text, nullable=True),
        sa.Column("secret_sha256", Ident(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=True),
        sa.Column("revoked_at", sa.BigInteger, nullable=True),
        sa.Column("revoked_by", sa.String(100), nullable=True),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("secret_sha256", name="uq_rl_keys_secret"),
        sa.UniqueConstraint("revision", name="uq_rl_keys_revision"),
        **TABLE_OPTIONS,
    )


def downgrade() -> None:
    op.drop_table("rl_keys")
