"""Every SQL table, named once. Alembic migrations create them; this module reads them.

Times are integer microseconds since the Unix epoch (UTC) and scores are signed 64-bit
integers, so every dialect stores both exactly.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# SQLite only auto-increments an INTEGER PRIMARY KEY; other dialects get a BIGINT.
EventId = BigInteger().with_variant(Integer(), "sqlite")

boards = Table(
    "rl_boards",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("definition", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

score_events = Table(
    "rl_score_events",
    metadata,
    Column("id", EventId, primary_key=True, autoincrement=True),
    Column("board_id", String(64), nullable=False),
    Column("player_id", String(64), nullable=False),
    Column("match_id", String(128), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("received_at", BigInteger, nullable=False),
    Column("applied", Boolean, nullable=False),
    Column("scopes", Text, nullable=False),
    Column("metadata", Text, nullable=False),
    UniqueConstraint("board_id", "player_id", "match_id", name="uq_rl_score_events_key"),
    Index("ix_rl_score_events_player", "player_id", "id"),
)

standings = Table(
    "rl_standings",
    metadata,
    Column("board_id", String(64), nullable=False),
    Column("window", String(16), nullable=False),
    Column("period", String(64), nullable=False),
    Column("scope", String(100), nullable=False),
    Column("player_id", String(64), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("achieved_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("board_id", "window", "period", "scope", "player_id"),
    Index(
        "ix_rl_standings_rank",
        "board_id",
        "window",
        "period",
        "scope",
        "score",
        "achieved_at",
        "player_id",
    ),
    Index("ix_rl_standings_player", "player_id"),
)

periods = Table(
    "rl_periods",
    metadata,
    Column("board_id", String(64), nullable=False),
    Column("window", String(16), nullable=False),
    Column("period", String(64), nullable=False),
    Column("starts_at", BigInteger, nullable=True),
    Column("ends_at", BigInteger, nullable=True),
    PrimaryKeyConstraint("board_id", "window", "period"),
)
