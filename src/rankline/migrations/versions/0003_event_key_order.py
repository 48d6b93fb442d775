"""Score events: the unique key (board, player, match_id) as (board, match_id, player).

The same columns, so the same uniqueness, and every look-up names all three. In the old
order each new event lands on a random leaf of the key's index (by player: a board of ten
million players has hundreds of thousands of leaves), one more page to write per event at
every commit. Match ids mostly grow over time and a match's players submit together, so in
the new order a batch's events share a few leaves at the index's end.

On SQLite the table is copied (a constraint cannot be dropped in place): minutes on a table
of tens of millions of events.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_NAME = "uq_rl_score_events_key"


def _key(columns: list[str]) -> None:
    with op.batch_alter_table("rl_score_events") as batch:
        batch.drop_constraint(_NAME, type_="unique")
        batch.create_unique_constraint(_NAME, columns)


def upgrade() -> None:
    _key(["board_id", "match_id", "player_id"])


def downgrade() -> None:
    _key(["board_id", "player_id", "match_id"])
