"""The bulk load path: many first submissions written straight into SQL.

What ``GroupCommitWriter`` would have stored for players who submit to an empty board for
the first time (one score event each, ``applied``; one standing per leaderboard the
submission lands on, at revision 1; each period recorded once), but written in big
transactions without the writer's per-row reads: COPY on PostgreSQL, one ``executemany``
per chunk with ``synchronous=OFF`` on SQLite, SQLAlchemy's ``executemany`` elsewhere.

It exists to make benchmark data quickly (only the benchmark and its tests use it). It does
not check for existing events or standings, so load only new players into a board (a
repeated player or match id fails on the unique keys). The ranking index is built from these
rows afterwards, as at any start (``rankline serve``) or by ``rankline rebuild``. Standings a
user brings (``rankline import``) go through the group commit instead
(``rankline.writing.importing``), which finds what is stored already and so can be run again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from sqlalchemy import insert, select, text, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.boards import Board, Target
from rankline.store import schema as t
from rankline.store.errors import mapped_errors
from rankline.store.hot import EVENT_COLUMNS
from rankline.store.sql import SqlStore
from rankline.types import Micros, PlayerId, Score

BulkRow = tuple[PlayerId, Score, Micros] | tuple[PlayerId, Score, Micros, Score]
"""One first submission: player, score and its ``at`` (and its subscore, on a board with
one)."""
Progress = Callable[[int], None]

_STANDING_COLUMNS = (
    "board_id",
    "window",
    "period",
    "scope",
    "player_id",
    "score",
    "achieved_at",
    "revision",
    "subscore",
)
_PeriodKey = tuple[str, str, str]
_INDEXES = sorted((*t.score_events.indexes, *t.standings.indexes), key=lambda i: str(i.name))
_DAY = 86_400_000_000


async def load_first_scores(
    store: SqlStore,
    board: Board,
    chunks: Iterable[Sequence[BulkRow]],
    *,
    match_id: str,
    now: Micros,
    progress: Progress | None = None,
    drop_indexes: bool = False,
) -> int:
    """Write each chunk of rows in one transaction; return how many rows were written.

    Every event gets ``match_id``; it is unique per (board, player), so one id serves a
    load of distinct players. ``now`` is the events' ``received_at`` and decides, with the
    board's grace, which periods are already closed (no standing there, as the writer).

    ``drop_indexes`` drops the secondary indexes of the event and standing tables for the
    load and builds them again afterwards (sorting once beats millions of random B-tree
    inserts, twice as fast here). Only for a database nothing else uses meanwhile: reads
    would scan without them. Primary keys and unique constraints stay, as does their check.
    """
    if drop_indexes:
        await _drop_indexes(store)
    try:
        return await _load(store, board, chunks, match_id, now, progress)
    finally:
        if drop_indexes:
            await _create_indexes(store)


async def _drop_indexes(store: SqlStore) -> None:
    async with mapped_errors(), store.engine.begin() as conn:
        for index in _INDEXES:
            await conn.run_sync(partial(index.drop, checkfirst=True))


async def _create_indexes(store: SqlStore) -> None:
    async with mapped_errors(), store.engine.begin() as conn:
        if store.dialect == "postgresql":
            await conn.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))
        for index in _INDEXES:
            await conn.run_sync(partial(index.create, checkfirst=True))


async def _load(
    store: SqlStore,
    board: Board,
    chunks: Iterable[Sequence[BulkRow]],
    match_id: str,
    now: Micros,
    progress: Progress | None,
) -> int:
    periods: dict[_PeriodKey, tuple[Micros | None, Micros | None]] = {}
    by_day: dict[int, list[Target]] = {}
    written = 0
    for chunk in chunks:
        events: list[tuple[Any, ...]] = []
        standings: list[tuple[Any, ...]] = []
        for row in chunk:
            player, score, at = row[0], row[1], row[2]
            subscore = row[3] if len(row) == 4 else None
            if board.seasons or board.calendar.zones or board.calendar.crons:
                targets = board.targets(at, {}, now)
            else:  # every period is whole UTC days: one day's submissions share targets
                day = at // _DAY
                targets = by_day.get(day) or by_day.setdefault(day, board.targets(at, {}, now))
            for target in targets:
                if target.closed:
                    continue
                lb = target.leaderboard
                standings.append(
                    (lb.board, lb.window, lb.period, lb.scope, player, score, at, 1, subscore)
                )
                periods.setdefault(
                    (lb.board, lb.window, lb.period),
                    (target.period.starts_at, target.period.ends_at),
                )
            applied = _applied(board, targets)
            events.append(
                (board.id, player, match_id, score, at, now, applied, "{}", "{}", subscore)
            )
        await _write(store, events, standings)
        written += len(events)
        if progress is not None:
            progress(written)
    await _add_periods(store, periods)
    return written


def _applied(board: Board, targets: list[Target]) -> bool:
    """The event's ``applied``, as the writer decides it for a first entry: whether the
    primary leaderboard took it, or any did when the board has no primary one then."""
    primary = [x for x in targets if x.leaderboard.window == board.primary_window]
    return not primary[0].closed if primary else any(not x.closed for x in targets)


async def _write(
    store: SqlStore, events: list[tuple[Any, ...]], standings: list[tuple[Any, ...]]
) -> None:
    if store.dialect == "sqlite":
        async with mapped_errors(), store.engine.connect() as conn:
            await _sqlite_executemany(conn, events, standings)
        return
    async with mapped_errors(), store.engine.begin() as conn:
        if store.dialect == "postgresql":
            await _copy(conn, events, standings)
        else:
            await _core_executemany(conn, events, standings)


async def _copy(
    conn: AsyncConnection, events: list[tuple[Any, ...]], standings: list[tuple[Any, ...]]
) -> None:
    """COPY through asyncpg's connection, inside the SQLAlchemy transaction."""
    await conn.execute(select(1))  # opens the transaction the COPY then joins
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    await driver.copy_records_to_table(
        t.score_events.name, records=events, columns=list(EVENT_COLUMNS)
    )
    await driver.copy_records_to_table(
        t.standings.name, records=standings, columns=list(_STANDING_COLUMNS)
    )


def _insert_sql(table: str, columns: Sequence[str]) -> str:
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    return f'INSERT INTO "{table}" ({names}) VALUES ({marks})'


async def _sqlite_executemany(
    conn: AsyncConnection, events: list[tuple[Any, ...]], standings: list[tuple[Any, ...]]
) -> None:
    """One transaction, one executemany per table, on the driver's connection: SQLite
    allows ``synchronous=OFF`` only outside a transaction, and only this load runs with
    it (a crash mid-load may lose the load, never what the writer acknowledged)."""
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    before = (await (await driver.execute("PRAGMA synchronous")).fetchone())[0]
    await driver.execute("PRAGMA synchronous=OFF")
    try:
        await driver.executemany(_insert_sql(t.score_events.name, EVENT_COLUMNS), events)
        await driver.executemany(_insert_sql(t.standings.name, _STANDING_COLUMNS), standings)
        await driver.commit()
    except BaseException:
        await driver.rollback()
        raise
    finally:
        await driver.execute(f"PRAGMA synchronous={int(before)}")


async def _core_executemany(
    conn: AsyncConnection, events: list[tuple[Any, ...]], standings: list[tuple[Any, ...]]
) -> None:
    await conn.execute(
        insert(t.score_events), [dict(zip(EVENT_COLUMNS, e, strict=True)) for e in events]
    )
    await conn.execute(
        insert(t.standings), [dict(zip(_STANDING_COLUMNS, s, strict=True)) for s in standings]
    )


async def _add_periods(
    store: SqlStore, periods: dict[_PeriodKey, tuple[Micros | None, Micros | None]]
) -> None:
    """Record the periods the load touched, as the writer does at their first standing."""
    if not periods:
        return
    p = t.periods
    async with mapped_errors(), store.engine.begin() as conn:
        known = await conn.execute(
            select(p.c.board_id, p.c.window, p.c.period).where(
                tuple_(p.c.board_id, p.c.window, p.c.period).in_(list(periods))
            )
        )
        for row in known:
            periods.pop((row[0], row[1], row[2]), None)
        if periods:
            await conn.execute(
                insert(p),
                [
                    {"board_id": b, "window": w, "period": n, "starts_at": s, "ends_at": e}
                    for (b, w, n), (s, e) in sorted(periods.items())
                ],
            )
