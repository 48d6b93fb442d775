"""Bulk reads of the standings, for (re)building a ranking index.

A build reads every live standing once, so the cost per row decides its rate: row by row through
SQLAlchemy's async result is many times slower than this module (docs/performance.md, "Figures
behind the code's shape"). It reads one leaderboard at a time, in the order of the standings' rank
index (so SQL sorts nothing), only the columns the index needs (no row repeats its leaderboard's
names), in chunks of ``CHUNK`` rows, through the driver's own connection where it is aiosqlite (its
``fetchmany`` runs in aiosqlite's thread) or asyncpg (a cursor), which skips SQLAlchemy's work per
row (half of the time on PostgreSQL), or else a server-side cursor. Banned players are left out, as
everywhere the index is concerned.

On PostgreSQL ``scan_rows`` reads the table rather than the rank index, and sorts: a scan
of the rank index visits the heap in rank order, one page per row, and once the heap
outgrows shared_buffers each of those is a read (10M standings, 888 MB of heap against
128 MB of shared_buffers: 40 s of PostgreSQL's CPU, against 8 s for a sequential scan and
a sort, which spills to disk past ``work_mem``; a small leaderboard gets a bitmap scan).
The rows come in the same order; the first only once the sort is done (~6 s at 10M).
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Dialect, LargeBinary, Select, String, bindparam, cast, func, select
from sqlalchemy.sql.compiler import SQLCompiler

from rankline.errors import StoreUnavailable
from rankline.metrics import BACKEND_ERRORS
from rankline.ordering import Keys, encode_rows
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import (
    BoardId,
    LeaderboardId,
    Micros,
    Order,
    PlayerId,
    Score,
    SortKey,
    Standing,
)

CHUNK = 20_000
_s = t.standings
_LEADERBOARD = (_s.c.window, _s.c.period, _s.c.scope)

Row = tuple[PlayerId, Score, Micros, int, Score | None]
"""(player, score, achieved_at, revision, subscore or None): a plain tuple, as a rebuild reads
millions of them; read it unpacked into named variables."""


async def leaderboard_ids(
    store: SqlStore, board_id: BoardId, periods: Collection[tuple[str, str]] | None = None
) -> list[LeaderboardId]:
    """The board's leaderboards that have standings, in (window, period, scope) order;
    only those of these (window, period) pairs when ``periods`` is given."""
    found = await (_skip_scan(store, board_id) if _raw(store) else _distinct(store, board_id))
    wanted = None if periods is None else set(periods)
    return [
        LeaderboardId(board_id, w, p, s) for w, p, s in found if wanted is None or (w, p) in wanted
    ]


async def scan_keys(
    store: SqlStore,
    leaderboard: LeaderboardId,
    keys: Keys,
    chunk: int = CHUNK,
    *,
    exact: bool = False,
) -> AsyncIterator[tuple[list[SortKey], list[bytes]]]:
    """The leaderboard's sort keys and their players' ids (as bytes), a chunk at a time:
    in rank order when ``exact``, otherwise in the rank index's order (see ``_ranked``),
    which costs SQL no sort (except on a board with a subscore)."""
    raw = _raw(store)
    # On SQLite the id comes as its bytes, as keys hold them, with no str made per row.
    player: Any = cast(_s.c.player_id, LargeBinary) if raw else _s.c.player_id
    order, sub_order = keys.order, keys.sub_order
    if sub_order is not None:
        columns = (player, _s.c.score, _s.c.subscore, _s.c.achieved_at)
        query = _ranked(leaderboard, order, *columns, exact=exact, sub_order=sub_order)
        async for rows in _stream(store, query, chunk):
            if not raw:
                rows = [(p.encode(), s, sub, a) for p, s, sub, a in rows]
            yield keys.encode_rows(rows), [row[0] for row in rows]
        return
    query = _ranked(leaderboard, order, player, _s.c.score, _s.c.achieved_at, exact=exact)
    async for rows in _stream(store, query, chunk):
        if not raw:
            rows = [(p.encode(), s, a) for p, s, a in rows]
        yield encode_rows(rows, order), [row[0] for row in rows]


async def scan_rows(
    store: SqlStore, leaderboard: LeaderboardId, order: Order = "asc", chunk: int = CHUNK
) -> AsyncIterator[list[Row]]:
    """The leaderboard's standings as (player, score, achieved_at, revision, subscore), a
    chunk at a time, in the rank index's order for ``order`` (see ``_ranked``)."""
    columns = (_s.c.player_id, _s.c.score, _s.c.achieved_at, _s.c.revision, _s.c.subscore)
    query = _ranked(leaderboard, order, *columns)
    async for rows in _stream(store, query, chunk, sort=True):
        yield rows


async def count_rows(store: SqlStore, leaderboard: LeaderboardId) -> int:
    """How many rows ``scan_rows`` would give (an index-only count)."""
    query = _ranked(leaderboard, "asc", func.count()).order_by(None)
    async with mapped_errors(), store.engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


def _raw(store: SqlStore) -> bool:
    """Whether player ids can come as the bytes keys hold (SQLite's CAST AS BLOB gives
    exactly their UTF-8; PostgreSQL's cast to bytea would parse escapes)."""
    return store.dialect == "sqlite"


def _ranked(
    leaderboard: LeaderboardId,
    order: Order,
    *columns: Any,
    exact: bool = False,
    sub_order: Order | None = None,
) -> Select[Any]:
    """The leaderboard's unbanned standings in the rank index's order, read backwards on
    a desc board: that is rank order with the ties of each score reversed. Rank order
    exactly would make SQLite sort every group of ties (~1 s per million rows); ``sorted``
    restores it in linear time (it reverses descending runs). With ``sub_order`` (a board
    with a subscore, which the rank index leaves out), ``exact`` orders by the subscore
    after the score; otherwise the order does not matter to the caller."""
    ranked: list[Any] = [_s.c.score, _s.c.achieved_at, _s.c.player_id]
    if sub_order is not None and exact:
        subscore = _s.c.subscore.desc() if sub_order == "desc" else _s.c.subscore
        score = _s.c.score.desc() if order == "desc" else _s.c.score
        ranked = [score, subscore, _s.c.achieved_at, _s.c.player_id]
    elif order == "desc":
        ranked = [_s.c.score.desc(), *ranked[1:]] if exact else [c.desc() for c in ranked]
    return (
        select(*columns)
        .where(
            _s.c.board_id == leaderboard.board,
            _s.c.window == leaderboard.window,
            _s.c.period == leaderboard.period,
            _s.c.scope == leaderboard.scope,
            # NOT IN reads the bans once; a correlated NOT EXISTS probes them per row.
            _s.c.player_id.not_in(select(t.bans.c.player_id)),
        )
        .order_by(*ranked)
    )


_SORT = "SET LOCAL enable_indexscan = off"
"""PostgreSQL: read the heap in its own order (a sequential or bitmap scan) and sort,
rather than visit it through the rank index (see the module's docstring)."""


async def _stream(
    store: SqlStore, query: Select[Any], chunk: int, *, sort: bool = False
) -> AsyncIterator[list[Any]]:
    """The rows of ``query``, ``chunk`` at a time; ``sort``: on PostgreSQL, made by a sort
    of a heap scan rather than an index scan (``_SORT``)."""
    sort = sort and store.dialect == "postgresql"
    if store.dialect == "sqlite":
        async with _driver(store) as (driver, dialect):
            cursor = await driver.execute(*_positional(query, dialect))
            try:
                while rows := await cursor.fetchmany(chunk):
                    yield rows
            finally:
                await cursor.close()
    elif store.dialect == "postgresql" and store.engine.driver == "asyncpg":
        async with _driver(store) as (driver, dialect), driver.transaction():
            if sort:
                await driver.execute(_SORT)
            cursor = await driver.cursor(*_positional_args(query, dialect))
            while rows := await cursor.fetch(chunk):
                yield rows
    else:
        async with mapped_errors(), store.engine.connect() as conn:
            if sort:  # in the transaction the stream runs in (SQLAlchemy begins it here)
                await conn.exec_driver_sql(_SORT)
            result = await conn.stream(query.execution_options(yield_per=chunk))
            async for rows in result.partitions(chunk):
                yield list(rows)


@asynccontextmanager
async def _driver(store: SqlStore) -> AsyncIterator[tuple[Any, Dialect]]:
    """The driver's own connection under a pooled SQLAlchemy one: its rows come as they
    are (tuples, or asyncpg's records), with none of SQLAlchemy's processing per row."""
    errors = _driver_errors(store)
    async with mapped_errors(), store.engine.connect() as conn:
        driver = (await conn.get_raw_connection()).driver_connection
        try:
            yield driver, conn.dialect
        except errors as exc:
            BACKEND_ERRORS.labels("sql").inc()
            raise StoreUnavailable(f"the durable store is unavailable ({exc})") from exc


def _driver_errors(store: SqlStore) -> tuple[type[BaseException], ...]:
    """What the driver under ``_driver`` raises when the database fails (asyncpg comes
    with the postgres extra: it is imported for a PostgreSQL store only)."""
    if store.dialect != "postgresql":
        return (sqlite3.Error,)
    import asyncpg

    return (sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError)


def _positional_args(query: Select[Any], dialect: Dialect) -> list[Any]:
    sql, params = _positional(query, dialect)
    return [sql, *params]


def _positional(
    query: Select[Any] | SQLCompiler, dialect: Dialect, **values: Any
) -> tuple[str, list[Any]]:
    """The SQL text and positional parameters the driver takes, with ``values`` bound."""
    compiled = query if isinstance(query, SQLCompiler) else query.compile(dialect=dialect)
    params = compiled.construct_params(values)
    return str(compiled), [params[name] for name in compiled.positiontup or ()]


async def _distinct(store: SqlStore, board_id: BoardId) -> list[tuple[str, str, str]]:
    query = (
        select(*_LEADERBOARD).where(_s.c.board_id == board_id).distinct().order_by(*_LEADERBOARD)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        return [(w, p, s) for w, p, s in await conn.execute(query)]


async def _skip_scan(store: SqlStore, board_id: BoardId) -> list[tuple[str, str, str]]:
    """DISTINCT reads every row of the board; this seeks the rank index once or a few
    times per leaderboard: the next scope of the same period, else the first of the next
    period of the same window, else the first of the next window."""
    board = _s.c.board_id == board_id
    window, period, scope = (
        bindparam(name, type_=String) for name in ("window", "period", "scope")
    )
    same_window = (board, _s.c.window == window)
    seeks = [
        select(*_LEADERBOARD).where(*same_window, _s.c.period == period, _s.c.scope > scope),
        select(*_LEADERBOARD).where(*same_window, _s.c.period > period),
        select(*_LEADERBOARD).where(board, _s.c.window > window),
    ]
    found: list[tuple[str, str, str]] = []
    last = {"window": "", "period": "", "scope": ""}
    async with _driver(store) as (driver, dialect):
        compiled = [
            seek.order_by(*_LEADERBOARD).limit(1).compile(dialect=dialect) for seek in seeks
        ]
        while True:
            for query in compiled:
                cursor = await driver.execute(*_positional(query, dialect, **last))
                row = await cursor.fetchone()
                await cursor.close()
                if row is not None:
                    break
            else:
                return found
            found.append((row[0], row[1], row[2]))
            last = {"window": row[0], "period": row[1], "scope": row[2]}


async def stream_standings(
    store: SqlStore, board_id: BoardId, leaderboards: Sequence[tuple[str, str]] | None = None
) -> AsyncIterator[Standing]:
    """Every standing of a board (of these (window, period) pairs only, when given), one
    leaderboard after the other, streamed in chunks; banned players' standings are left
    out."""
    for leaderboard in await leaderboard_ids(store, board_id, leaderboards):
        async for rows in scan_rows(store, leaderboard):
            for player, score, at, revision, subscore in rows:
                yield Standing(leaderboard, player, score, at, revision, subscore)
