"""The group commit's hot statements, written once per dialect as plain SQL.

A batch of a thousand submissions reads and writes a thousand rows of each table. Built as
SQLAlchemy expressions, each ``IN (...)`` list was compiled anew for every batch, which cost
more than the database's own work. Here every statement is a fixed text that takes the whole
batch in one JSON parameter, read with ``json_each`` on SQLite and ``json_array_elements`` on
PostgreSQL (one round trip per statement; asyncpg's array parameters cost more to encode than
the statement takes to run). SQLite inserts with ``executemany``, which binds rows in C.
Other dialects use the portable SQLAlchemy Core statements in ``rankline.store.sql``.

The text runs through ``AsyncConnection.exec_driver_sql`` in the batch's transaction, so
driver errors are mapped as everywhere else in the store (a duplicate event, for one, is an
``IntegrityError`` and so a ``WriteConflict``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import msgspec
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.errors import WriteConflict
from rankline.store import schema as t
from rankline.types import (
    BoardId,
    LeaderboardId,
    MatchId,
    PlayerId,
    ScoreEvent,
    StandingRow,
)

EventKey = tuple[BoardId, PlayerId, MatchId]
StandingKey = tuple[LeaderboardId, PlayerId]
_json = msgspec.json.Encoder()
_T = TypeVar("_T")

_E, _S, _B, _D = t.score_events.name, t.standings.name, t.bans.name, t.boards.name
EVENT_COLUMNS = (
    "board_id",
    "player_id",
    "match_id",
    "score",
    "at",
    "received_at",
    "applied",
    "scopes",
    "metadata",
    "subscore",
)
"""An event row's columns, in the order rows are written and ``stored_event`` reads."""
_EVENT_COLUMNS = ", ".join(f'"{column}"' for column in EVENT_COLUMNS)
_STORED_EVENT = ", ".join(f'e."{column}"' for column in EVENT_COLUMNS)
_STANDING_COLUMNS = (
    '"board_id", "window", "period", "scope", "player_id", "score", "achieved_at", "revision", '
    '"subscore"'
)
_UPSERT_TAIL = f"""
ON CONFLICT ("board_id", "window", "period", "scope", "player_id") DO UPDATE
SET "score" = excluded."score", "achieved_at" = excluded."achieved_at",
    "revision" = excluded."revision", "subscore" = excluded."subscore"
WHERE "{_S}"."revision" = excluded."revision" - 1"""
"""A standing changes only from the revision the batch read: a concurrent writer that got
there first leaves the row untouched, the count falls short, and the batch is retried."""


def stored_event(row: Sequence[Any]) -> ScoreEvent:
    """A stored event from its ``EVENT_COLUMNS``, scopes and metadata decoded."""
    board, player, match_id, score, at, received_at, applied, scopes, metadata, subscore = row
    return ScoreEvent(
        board,
        player,
        match_id,
        score,
        at,
        received_at,
        bool(applied),
        msgspec.json.decode(scopes),
        msgspec.json.decode(metadata),
        subscore,
    )


def _text(value: Any) -> str:
    return _json.encode(value).decode()


def _event_rows(events: Sequence[ScoreEvent]) -> list[tuple[Any, ...]]:
    """The events as rows, by (board, player): the order of the player index, where on a
    big table each lands on a leaf of its own, and in order the B-tree descents share their
    upper pages. The sort is stable, so one player's events of a batch keep their ids in
    arrival order (history lists them by id)."""
    return sorted(map(_event_row, events), key=_board_player)


def _board_player(row: tuple[Any, ...]) -> tuple[str, str]:
    return row[0], row[1]


def _event_row(ev: ScoreEvent) -> tuple[Any, ...]:
    return (
        ev.board,
        ev.player,
        ev.match_id,
        ev.score,
        ev.at,
        ev.received_at,
        ev.applied,
        _text(ev.scopes) if ev.scopes else "{}",
        _text(ev.metadata) if ev.metadata else "{}",
        ev.subscore,
    )


class HotStatements:
    """The hot statements of one dialect; every method runs in the caller's transaction.

    Subclasses give the SQL: ``_EXISTING`` (a JSON array of event keys), ``_STANDINGS`` (a
    leaderboard's four key parts, then a JSON array of player ids), ``_BOARDS`` and
    ``_BANNED`` (a JSON array of ids) and ``_UPSERT`` (a JSON array of standing rows, or one
    row per ``executemany`` set); and how events are inserted.
    """

    _EXISTING = _STANDINGS = _BANNED = _BOARDS = _UPSERT = _INSERT_STANDINGS = ""
    _UPSERT_MANY = False

    async def begin(self, conn: AsyncConnection) -> None:
        """Prepare a new transaction for the statements below."""

    async def _rows(self, conn: AsyncConnection, sql: str, params: tuple[Any, ...]) -> list[Any]:
        return list(await conn.exec_driver_sql(sql, params))

    async def _write_many(self, conn: AsyncConnection, sql: str, params: list[Any]) -> int:
        """Run ``sql`` once per parameter set (``executemany``); the rows it changed."""
        return (await conn.exec_driver_sql(sql, params)).rowcount

    async def total_changes(self, conn: AsyncConnection) -> int:
        """Rows this connection changed since it opened (SQLite only)."""
        raise NotImplementedError

    async def existing_events(
        self, conn: AsyncConnection, keys: Sequence[EventKey]
    ) -> dict[EventKey, ScoreEvent]:
        if not keys:
            return {}
        rows = await self._rows(conn, self._EXISTING, (_text(keys),))
        return {(r[0], r[1], r[2]): stored_event(r) for r in rows}

    async def read_standings(
        self, conn: AsyncConnection, keys: Sequence[StandingKey]
    ) -> dict[StandingKey, StandingRow]:
        """One statement per leaderboard (a batch touches a few), each reading its players'
        rows by primary key."""
        by_leaderboard: dict[LeaderboardId, list[PlayerId]] = {}
        for leaderboard, player in keys:
            by_leaderboard.setdefault(leaderboard, []).append(player)
        found: dict[StandingKey, StandingRow] = {}
        for leaderboard, players in by_leaderboard.items():
            rows = await self._rows(conn, self._STANDINGS, (*leaderboard, _text(players)))
            for player, score, at, revision, subscore in rows:
                found[leaderboard, player] = (leaderboard, player, score, at, revision, subscore)
        return found

    async def board_definitions(
        self, conn: AsyncConnection, board_ids: Sequence[BoardId]
    ) -> dict[BoardId, str]:
        rows = await self._rows(conn, self._BOARDS, (_text(board_ids),))
        return {r[0]: r[1] for r in rows}

    async def banned_players(
        self, conn: AsyncConnection, players: Sequence[PlayerId]
    ) -> set[PlayerId]:
        if not players:
            return set()
        rows = await self._rows(conn, self._BANNED, (_text(players),))
        return {r[0] for r in rows}

    async def insert_events(self, conn: AsyncConnection, events: Sequence[ScoreEvent]) -> None:
        raise NotImplementedError

    async def insert_standings(self, conn: AsyncConnection, rows: Sequence[StandingRow]) -> None:
        """Insert standings that are not stored yet (a replay into emptied standings)."""
        params = [_standing_params(row) for row in rows]
        if self._UPSERT_MANY:
            await self._write_many(conn, self._INSERT_STANDINGS, params)
        else:
            await conn.exec_driver_sql(self._INSERT_STANDINGS, (_text(params),))

    async def upsert_standings(self, conn: AsyncConnection, rows: Sequence[StandingRow]) -> None:
        """Insert new standings (revision 1) and move existing ones to their next revision;
        ``WriteConflict`` when another writer changed any of them since they were read."""
        if not rows:
            return
        params = [_standing_params(row) for row in rows]
        if self._UPSERT_MANY:
            changed = await self._write_many(conn, self._UPSERT, params)
        else:
            changed = (await conn.exec_driver_sql(self._UPSERT, (_text(params),))).rowcount
        if changed != len(rows):
            raise WriteConflict("a concurrent writer changed the same standings")


def _standing_params(row: StandingRow) -> tuple[Any, ...]:
    lb, player, score, at, revision, subscore = row
    return (*lb, player, score, at, revision, subscore)


class SqliteStatements(HotStatements):
    """SQLite: keys as one JSON parameter joined through ``json_each``; rows written with
    ``executemany``.

    Each statement runs in aiosqlite's thread as one call on the sqlite3 connection under
    the transaction's connection. Through SQLAlchemy's adapter a statement takes four trips
    to that thread and back (cursor, execute, fetch, close), each two thread wake-ups: most
    of a small batch's time here, ahead of SQLite's own work. Driver errors become
    SQLAlchemy's (``DBAPIError.instance``), so ``mapped_errors`` treats them as before.
    """

    _EXISTING = f"""
SELECT {_STORED_EVENT}
FROM json_each(?) AS j
JOIN "{_E}" AS e ON e."board_id" = j.value ->> 0 AND e."player_id" = j.value ->> 1
    AND e."match_id" = j.value ->> 2"""
    _STANDINGS = f"""
SELECT "player_id", "score", "achieved_at", "revision", "subscore" FROM "{_S}"
WHERE "board_id" = ? AND "window" = ? AND "period" = ? AND "scope" = ?
    AND "player_id" IN (SELECT value FROM json_each(?))"""
    _BANNED = f"""
SELECT "player_id" FROM "{_B}" WHERE "player_id" IN (SELECT value FROM json_each(?))"""
    _BOARDS = f"""
SELECT "id", "definition" FROM "{_D}" WHERE "id" IN (SELECT value FROM json_each(?))"""
    _INSERT_EVENTS = f'INSERT INTO "{_E}" ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
    _INSERT_STANDINGS = (
        f'INSERT INTO "{_S}" ({_STANDING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
    )
    _UPSERT = _INSERT_STANDINGS + _UPSERT_TAIL
    _UPSERT_MANY = True

    async def insert_events(self, conn: AsyncConnection, events: Sequence[ScoreEvent]) -> None:
        if events:
            await self._write_many(conn, self._INSERT_EVENTS, _event_rows(events))

    async def _rows(self, conn: AsyncConnection, sql: str, params: tuple[Any, ...]) -> list[Any]:
        def fetch(db: sqlite3.Connection) -> list[Any]:
            cursor = db.execute(sql, params)
            try:
                return cursor.fetchall()
            finally:
                cursor.close()

        return await in_sqlite_thread(conn, sql, fetch)

    async def _write_many(self, conn: AsyncConnection, sql: str, params: list[Any]) -> int:
        def write(db: sqlite3.Connection) -> int:
            cursor = db.executemany(sql, params)
            try:
                return cursor.rowcount
            finally:
                cursor.close()

        return await in_sqlite_thread(conn, sql, write)

    async def total_changes(self, conn: AsyncConnection) -> int:
        return await in_sqlite_thread(conn, "total_changes", lambda db: db.total_changes)


async def in_sqlite_thread(
    conn: AsyncConnection, sql: str, work: Callable[[sqlite3.Connection], _T]
) -> _T:
    """``work`` on the sqlite3 connection under ``conn``, in one call to aiosqlite's thread
    (its ``_execute``, as SQLAlchemy's own aiosqlite adapter also reaches into aiosqlite)."""
    driver: Any = (await conn.get_raw_connection()).driver_connection
    db: sqlite3.Connection = driver._conn
    try:
        return cast(_T, await driver._execute(work, db))
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, None, exc, sqlite3.Error) from exc


class PostgresStatements(HotStatements):
    """PostgreSQL (asyncpg): the batch as one JSON parameter, read with
    ``json_array_elements``.

    Two planner traps are avoided. A prepared statement's generic plan assumes the array
    yields 100 rows and keeps the join it chose for the table's size then (a hash join over a
    sequential scan, on a new table), so each batch is planned for its own parameters. And
    on a table without statistics the rank index (whose prefix is the leaderboard) costs the
    same as the primary key, yet reads a whole leaderboard per key: the standings table is
    analyzed once it holds some rows and has never been (autovacuum may take minutes).
    The store opens its PostgreSQL connections with ``plan_cache_mode=force_custom_plan``
    (``SqlStore``), so no statement here runs on a generic plan.
    """

    _EXISTING = f"""
SELECT {_STORED_EVENT}
FROM json_array_elements($1::json) AS j(v)
JOIN "{_E}" AS e ON e."board_id" = v ->> 0 AND e."player_id" = v ->> 1
    AND e."match_id" = v ->> 2"""
    _STANDINGS_JOINED = f"""
SELECT s."board_id", s."window", s."period", s."scope", s."player_id", s."score",
    s."achieved_at", s."revision", s."subscore"
FROM json_array_elements($1::json) AS j(v)
JOIN "{_S}" AS s ON s."board_id" = v ->> 0 AND s."window" = v ->> 1 AND s."period" = v ->> 2
    AND s."scope" = v ->> 3 AND s."player_id" = v ->> 4"""
    _BANNED = f"""
SELECT "player_id" FROM "{_B}" WHERE "player_id" IN (SELECT json_array_elements_text($1::json))"""
    _BOARDS = f"""
SELECT "id", "definition" FROM "{_D}" WHERE "id" IN (SELECT json_array_elements_text($1::json))
FOR SHARE"""
    _INSERT_EVENTS = f"""
INSERT INTO "{_E}" ({_EVENT_COLUMNS})
SELECT v ->> 0, v ->> 1, v ->> 2, (v ->> 3)::int8, (v ->> 4)::int8, (v ->> 5)::int8,
    (v ->> 6)::bool, v ->> 7, v ->> 8, (v ->> 9)::int8
FROM json_array_elements($1::json) AS j(v)"""
    _INSERT_STANDINGS = f"""
INSERT INTO "{_S}" ({_STANDING_COLUMNS})
SELECT v ->> 0, v ->> 1, v ->> 2, v ->> 3, v ->> 4, (v ->> 5)::int8, (v ->> 6)::int8,
    (v ->> 7)::int8, (v ->> 8)::int8
FROM json_array_elements($1::json) AS j(v)"""
    _UPSERT = _INSERT_STANDINGS + _UPSERT_TAIL

    _STATISTICS_AT = 1000
    _STATISTICS = f"""
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema()
    AND tablename = '{_S}' AND attname = 'player_id') THEN 'present'
  WHEN (SELECT count(*) FROM (SELECT 1 FROM "{_S}" LIMIT {_STATISTICS_AT}) AS x)
    = {_STATISTICS_AT} THEN 'due'
  ELSE 'later' END"""

    def __init__(self) -> None:
        self._statistics = False

    async def begin(self, conn: AsyncConnection) -> None:
        if not self._statistics:
            state = (await conn.exec_driver_sql(self._STATISTICS)).scalar()
            if state == "due":
                await conn.exec_driver_sql(f'ANALYZE "{_S}"')
            self._statistics = state != "later"

    async def read_standings(
        self, conn: AsyncConnection, keys: Sequence[StandingKey]
    ) -> dict[StandingKey, StandingRow]:
        """All keys in one join, not one statement per leaderboard: with the leaderboard as
        constants, a leaderboard the statistics do not know yet (a new board, or period:
        every midnight on a daily board) looks empty, and the planner scans all of it for
        every key. Joined, the keys count as average values and the primary key wins."""
        if not keys:
            return {}
        flat = [(*leaderboard, player) for leaderboard, player in keys]
        found: dict[StandingKey, StandingRow] = {}
        rows = await self._rows(conn, self._STANDINGS_JOINED, (_text(flat),))
        for board, window, period, scope, player, score, at, revision, subscore in rows:
            leaderboard = LeaderboardId(board, window, period, scope)
            found[leaderboard, player] = (leaderboard, player, score, at, revision, subscore)
        return found

    async def insert_events(self, conn: AsyncConnection, events: Sequence[ScoreEvent]) -> None:
        if events:
            await conn.exec_driver_sql(self._INSERT_EVENTS, (_text(_event_rows(events)),))


def hot_statements(dialect: str) -> HotStatements | None:
    """The fast statements for a dialect, or None where the portable ones serve."""
    if dialect == "sqlite":
        return SqliteStatements()
    if dialect == "postgresql":
        return PostgresStatements()
    return None
