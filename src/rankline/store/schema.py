"""Every SQL table, named once. Alembic migrations create them; this module reads them.

Times are integer microseconds since the Unix epoch (UTC) and scores are signed 64-bit
integers, so every dialect stores both exactly.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql
from sqlalchemy.types import TypeEngine

metadata = MetaData()


def Ident(length: int) -> TypeEngine[str]:
    """An ASCII identifier compared bytewise on every dialect, as the ranking order needs
    (PostgreSQL's default collation is linguistic; MariaDB's is case-insensitive)."""
    return (
        String(length)
        .with_variant(String(length, collation="C"), "postgresql")
        .with_variant(mysql.VARCHAR(length, charset="ascii", collation="ascii_bin"), "mysql")
    )


TABLE_OPTIONS: dict[str, Any] = {"mysql_charset": "utf8mb4", "mysql_engine": "InnoDB"}

# SQLite only auto-increments an INTEGER PRIMARY KEY; other dialects get a BIGINT.
EventId = BigInteger().with_variant(Integer(), "sqlite")

boards = Table(
    "rl_boards",
    metadata,
    Column("id", Ident(64), primary_key=True),
    Column("definition", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    **TABLE_OPTIONS,
)

score_events = Table(
    "rl_score_events",
    metadata,
    Column("id", EventId, primary_key=True, autoincrement=True),
    Column("board_id", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("match_id", Ident(128), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("received_at", BigInteger, nullable=False),
    Column("applied", Boolean, nullable=False),
    Column("scopes", Text, nullable=False),
    Column("metadata", Text, nullable=False),
    Column("subscore", BigInteger, nullable=True),
    UniqueConstraint("board_id", "match_id", "player_id", name="uq_rl_score_events_key"),
    Index("ix_rl_score_events_player", "player_id", "id"),
    **TABLE_OPTIONS,
)

standings = Table(
    "rl_standings",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("scope", Ident(100), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("achieved_at", BigInteger, nullable=False),
    Column("revision", BigInteger, nullable=False),
    Column("subscore", BigInteger, nullable=True),
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
    **TABLE_OPTIONS,
)

periods = Table(
    "rl_periods",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("starts_at", BigInteger, nullable=True),
    Column("ends_at", BigInteger, nullable=True),
    Column("state", Ident(16), nullable=False, server_default="open"),
    Column("claimed_until", BigInteger, nullable=True),
    Column("archived_at", BigInteger, nullable=True),
    Column("total", BigInteger, nullable=True),
    PrimaryKeyConstraint("board_id", "window", "period"),
    **TABLE_OPTIONS,
)

players = Table(
    "rl_players",
    metadata,
    Column("player_id", Ident(64), primary_key=True),
    Column("display_name", String(100), nullable=True),
    Column("avatar_url", String(500), nullable=True),
    Column("country", String(8), nullable=True),
    Column("metadata", Text, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    **TABLE_OPTIONS,
)

friends = Table(
    "rl_friends",
    metadata,
    Column("player_id", Ident(64), nullable=False),
    Column("friend_id", Ident(64), nullable=False),
    PrimaryKeyConstraint("player_id", "friend_id"),
    Index("ix_rl_friends_friend", "friend_id"),
    **TABLE_OPTIONS,
)

bans = Table(
    "rl_bans",
    metadata,
    Column("player_id", Ident(64), primary_key=True),
    Column("banned_at", BigInteger, nullable=False),
    **TABLE_OPTIONS,
)

archive = Table(
    "rl_archive",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("scope", Ident(100), nullable=False),
    Column("rank", BigInteger, nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("score", BigInteger, nullable=False),
    Column("achieved_at", BigInteger, nullable=False),
    Column("subscore", BigInteger, nullable=True),
    PrimaryKeyConstraint("board_id", "window", "period", "scope", "rank"),
    Index("ix_rl_archive_player", "board_id", "window", "period", "scope", "player_id"),
    Index("ix_rl_archive_by_player", "player_id"),
    **TABLE_OPTIONS,
)
"""Final standings of closed periods, with their final rank; readable after the live
leaderboard has expired from the index."""

# The ingestion log kept in SQL (``rankline.log.sql``): several logs may share these tables,
# told apart by ``log_name``.
LogPayload = LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql")

log_records = Table(
    "rl_log",
    metadata,
    Column("log_name", Ident(64), nullable=False),
    Column("part", Integer, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("board_id", Ident(64), nullable=False),
    Column("dedup_key", Ident(255), nullable=False),
    Column("appended_at", BigInteger, nullable=False),
    Column("payload", LogPayload, nullable=False),
    PrimaryKeyConstraint("log_name", "part", "seq"),
    Index("ix_rl_log_dedup", "log_name", "part", "dedup_key"),
    **TABLE_OPTIONS,
)
"""Records in append order per partition: every append lands at the end of the primary key."""

log_partitions = Table(
    "rl_log_partitions",
    metadata,
    Column("log_name", Ident(64), nullable=False),
    Column("part", Integer, nullable=False),
    Column("next_seq", BigInteger, nullable=False),
    Column("committed", BigInteger, nullable=False),
    Column("owner", Ident(128), nullable=True),
    Column("lease_until", BigInteger, nullable=False),
    Column("epoch", BigInteger, nullable=False),
    PrimaryKeyConstraint("log_name", "part"),
    **TABLE_OPTIONS,
)
"""Per partition: the next position to hand out (appenders take turns on this row), the
applied (committed) position, and the consumer owning it until ``lease_until``."""

log_members = Table(
    "rl_log_members",
    metadata,
    Column("log_name", Ident(64), nullable=False),
    Column("owner", Ident(128), nullable=False),
    Column("seen_until", BigInteger, nullable=False),
    PrimaryKeyConstraint("log_name", "owner"),
    **TABLE_OPTIONS,
)
"""The live consumers of each log (each one's fair share of partitions depends on them)."""

dead_letters = Table(
    "rl_dead_letters",
    metadata,
    Column("id", EventId, primary_key=True, autoincrement=True),
    Column("board_id", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("match_id", Ident(128), nullable=False),
    Column("log_partition", Integer, nullable=False),
    Column("log_position", BigInteger, nullable=False),
    Column("reason", Text, nullable=False),
    Column("submission", Text, nullable=False),
    Column("failed_at", BigInteger, nullable=False),
    **TABLE_OPTIONS,
)
"""Submissions taken asynchronously that the applier could not apply (``rankline.writing.ingest``),
with the reason: kept for an operator (``rankline dead-letters``), never retried by
themselves."""

tournaments = Table(
    "rl_tournaments",
    metadata,
    Column("id", Ident(64), primary_key=True),
    Column("definition", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    **TABLE_OPTIONS,
)
"""Tournament definitions (each ranks on the board of the same id)."""

tournament_editions = Table(
    "rl_tournament_editions",
    metadata,
    Column("tournament_id", Ident(64), nullable=False),
    Column("edition", Ident(64), nullable=False),
    Column("joined", Integer, nullable=False),
    PrimaryKeyConstraint("tournament_id", "edition"),
    **TABLE_OPTIONS,
)
"""Players joined per edition: a join is a conditional increment of this row (``joined <
max_size``), so concurrent joins on any worker never pass the capacity."""

tournament_players = Table(
    "rl_tournament_players",
    metadata,
    Column("tournament_id", Ident(64), nullable=False),
    Column("edition", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("joined_at", BigInteger, nullable=True),
    Column("submissions", Integer, nullable=False),
    PrimaryKeyConstraint("tournament_id", "edition", "player_id"),
    **TABLE_OPTIONS,
)
"""Who joined an edition, and how many submissions each player has had counted in it."""

tournament_submissions = Table(
    "rl_tournament_submissions",
    metadata,
    Column("tournament_id", Ident(64), nullable=False),
    Column("edition", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("match_id", Ident(128), nullable=False),
    PrimaryKeyConstraint("tournament_id", "edition", "player_id", "match_id"),
    **TABLE_OPTIONS,
)
"""Each submission counted against ``max_submissions`` (a retry of one is not counted again).
A voided one, or one of an edition reset since, stays: its count was given back
(``store.tournaments.uncount_match``, ``restart_counts``), and a retry is still not counted."""


def _delivery_columns() -> list[Column[Any]]:
    """The delivery state of a webhook outbox's row (``rankline.lifecycle.webhooks``): when it
    was delivered, its attempts, when it is next due, who holds its lease, its last error."""
    return [
        Column("delivered_at", BigInteger, nullable=True),
        Column("attempts", Integer, nullable=False),
        Column("next_attempt_at", BigInteger, nullable=False),
        Column("lease_owner", Ident(128), nullable=True),
        Column("lease_until", BigInteger, nullable=True),
        Column("last_error", Text, nullable=True),
    ]


tournament_results = Table(
    "rl_tournament_results",
    metadata,
    Column("tournament_id", Ident(64), nullable=False),
    Column("edition", Ident(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("webhook_url", Text, nullable=True),
    *_delivery_columns(),
    PrimaryKeyConstraint("tournament_id", "edition"),
    **TABLE_OPTIONS,
)
"""An ended edition's results (the webhook's exact body) and its delivery: the outbox."""

board_deliveries = Table(
    "rl_board_deliveries",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("scope", Ident(100), nullable=False),
    Column("id", Ident(64), nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("webhook_url", Text, nullable=False),
    *_delivery_columns(),
    PrimaryKeyConstraint("board_id", "window", "period", "scope"),
    Index("ix_rl_board_deliveries_due", "delivered_at", "next_attempt_at"),
    **TABLE_OPTIONS,
)
"""A closed leaderboard's period-close event (the webhook's exact body) and its delivery:
the outbox of board webhooks, one row per (board, window, period, scope), written in the
transaction that archives the period."""

cohort_counters = Table(
    "rl_cohort_counters",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("assigned", Integer, nullable=False),
    PrimaryKeyConstraint("board_id", "window", "period"),
    **TABLE_OPTIONS,
)
"""Players assigned to cohorts so far in a period: the n-th (from 0) is in cohort n // size + 1."""

cohort_members = Table(
    "rl_cohort_members",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("cohort", Integer, nullable=False),
    PrimaryKeyConstraint("board_id", "window", "period", "player_id"),
    **TABLE_OPTIONS,
)
"""Each player's cohort in a period, assigned once."""

matches = Table(
    "rl_matches",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("match_id", Ident(128), nullable=False),
    Column("digest", Ident(64), nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("received_at", BigInteger, nullable=False),
    Column("results", Text, nullable=False),
    PrimaryKeyConstraint("board_id", "seq"),
    UniqueConstraint("board_id", "match_id", name="uq_rl_matches_key"),
    **TABLE_OPTIONS,
)
"""Each applied match once, numbered 1, 2, … per board in the order it was applied: the order a
replay recomputes the ratings in. ``digest`` tells a retry from another payload under the
same ``match_id``; ``results`` is the match as submitted (JSON)."""

match_ratings = Table(
    "rl_match_ratings",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("match_id", Ident(128), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("at", BigInteger, nullable=False),
    Column("place", Integer, nullable=False),
    Column("previous", Text, nullable=False),
    Column("rating", Text, nullable=False),
    Column("provisional", Boolean, nullable=False),
    PrimaryKeyConstraint("board_id", "match_id", "player_id", "window", "period"),
    Index("ix_rl_match_ratings_player", "player_id", "board_id", "seq"),
    **TABLE_OPTIONS,
)
"""One player's rating before and after one match on one leaderboard period (JSON states):
the match's answer, also for a retry in any process, and the player's rating history."""

rating_states = Table(
    "rl_rating_states",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=False),
    Column("state", Text, nullable=False),
    PrimaryKeyConstraint("board_id", "window", "period", "player_id"),
    **TABLE_OPTIONS,
)
"""Each player's current rating state on each period of a rating board (JSON: the floats
round-trip exactly). Scopes share it: a country leaderboard shows the same rating."""

RATING_TABLES = (matches, match_ratings, rating_states)
"""Every table of rating boards (a board's deletion empties them)."""

audit = Table(
    "rl_audit",
    metadata,
    Column("id", EventId, primary_key=True, autoincrement=True),
    Column("at", BigInteger, nullable=False),
    Column("actor", String(100), nullable=False),
    Column("action", Ident(32), nullable=False),
    Column("board_id", Ident(64), nullable=True),
    Column("player_id", Ident(64), nullable=True),
    Column("match_id", Ident(128), nullable=True),
    Column("reason", Text, nullable=True),
    Column("detail", Text, nullable=False),
    Index("ix_rl_audit_board", "board_id", "id"),
    Index("ix_rl_audit_player", "player_id", "id"),
    **TABLE_OPTIONS,
)
"""Every change made by hand (definitions, bans, erasure, moderation): who (a key's name or
fingerprint, never the key), when, what, why (``rankline.store.audit``)."""

removals = Table(
    "rl_removals",
    metadata,
    Column("id", EventId, primary_key=True, autoincrement=True),
    Column("board_id", Ident(64), nullable=False),
    Column("player_id", Ident(64), nullable=True),
    Column("window", Ident(16), nullable=True),
    Column("period", Ident(64), nullable=True),
    Column("scope", Ident(100), nullable=True),
    Column("after_event", BigInteger, nullable=False),
    Column("at", BigInteger, nullable=False),
    Index("ix_rl_removals_board", "board_id", "id"),
    **TABLE_OPTIONS,
)
"""Entries taken off by hand: one player's (``player_id`` set) or a whole leaderboard's (a
reset), on every leaderboard of the board or those the window, period and scope name, as of
the score event ``after_event`` (the newest when it was made), so ``rankline replay`` takes
them off at the same point of the log (``rankline.store.moderation``)."""

voids = Table(
    "rl_voids",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("match_id", Ident(128), nullable=False),
    Column("at", BigInteger, nullable=False),
    PrimaryKeyConstraint("board_id", "match_id"),
    **TABLE_OPTIONS,
)
"""Matches voided by hand: their score events stay (the match id stays used) and count for
nothing (``rankline.writing.recompute``, ``rankline.writing.replay``)."""

snapshots = Table(
    "rl_snapshots",
    metadata,
    Column("board_id", Ident(64), nullable=False),
    Column("window", Ident(16), nullable=False),
    Column("period", Ident(64), nullable=False),
    Column("scope", Ident(100), nullable=False),
    Column("slot", BigInteger, nullable=False),
    Column("taken_at", BigInteger, nullable=False),
    Column("taken_by", Ident(128), nullable=False),
    Column("total", BigInteger, nullable=True),
    Column("size", Integer, nullable=True),
    Column("entries", LogPayload, nullable=True),
    PrimaryKeyConstraint("board_id", "window", "period", "scope", "slot"),
    Index("ix_rl_snapshots_taken", "board_id", "taken_at"),
    **TABLE_OPTIONS,
)
"""Top-K snapshots of live leaderboards, one per interval (``slot``: the time divided by the
board's ``every_seconds``). A worker claims a slot by inserting its row (the primary key
refuses a second), then fills ``total``, ``size`` and ``entries`` (JSON) once; rows not yet
filled are never read."""

keys = Table(
    "rl_keys",
    metadata,
    Column("id", Ident(32), primary_key=True),
    Column("name", Ident(64), nullable=False),
    Column("role", Ident(8), nullable=False),
    Column("boards", Text, nullable=True),
    Column("secret_sha256", Ident(64), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("created_by", String(100), nullable=False),
    Column("expires_at", BigInteger, nullable=True),
    Column("revoked_at", BigInteger, nullable=True),
    Column("revoked_by", String(100), nullable=True),
    Column("revision", BigInteger, nullable=False),
    UniqueConstraint("secret_sha256", name="uq_rl_keys_secret"),
    UniqueConstraint("revision", name="uq_rl_keys_revision"),
    **TABLE_OPTIONS,
)
"""Server and read keys made at runtime (``rankline.store.keys``): the SHA-256 of each
secret (hex), never the secret; ``boards`` the JSON list of board patterns a server key is
limited to (null: none). ``revision`` is unique and grows with every change (a creation or a
revocation stamps its row with the next one), so each worker asks for the rows changed since
the last revision it saw."""
