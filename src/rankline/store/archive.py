"""SQL for the period lifecycle: period states, claims and the archived final standings.

``rl_periods`` holds one row per (board, window, period) that ever had an entry, with its
``state``: ``OPEN``, then ``ARCHIVING`` once a worker claims it for archiving
(``claimed_until`` is the claim's lease), then ``ARCHIVED`` (with ``total`` and
``archived_at``). A period *closes* to writes when its end plus its grace has passed, which
is a matter of time, not of this row: a closed period is ``OPEN`` here until a worker claims
it. ``rl_archive``
holds every entry of every scope of an archived period with its final rank (1..N per scope,
no gaps), copied from ``rl_standings`` without banned players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import and_, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from rankline.ordering import Keys
from rankline.store import deliveries
from rankline.store import schema as t
from rankline.store.deliveries import CloseEvent
from rankline.store.errors import mapped_errors
from rankline.store.sql import SqlStore
from rankline.types import BoardId, Micros, PlayerId

OPEN, ARCHIVING, ARCHIVED = "open", "closed", "archived"
"""The stored states. ``ARCHIVING`` (claimed by the worker archiving it) is stored as
``"closed"``, the word earlier versions wrote: renaming the stored value would rewrite rows
that running servers of the older version still compare against."""
_INSERT_CHUNK = 2000
_READ_CHUNK = 10_000

_p = t.periods
_a = t.archive
_s = t.standings


class PeriodKey(NamedTuple):
    board: BoardId
    window: str
    period: str


class PeriodRow(NamedTuple):
    key: PeriodKey
    starts_at: Micros | None
    ends_at: Micros | None
    state: str
    claimed_until: Micros | None
    total: int | None


class PeriodState(NamedTuple):
    state: str
    total: int | None
    """Entries archived (None until archived)."""


@dataclass(frozen=True, slots=True)
class ArchivedPeriod:
    """What one archiving wrote: every entry of every scope, and the global total."""

    key: PeriodKey
    entries: int
    scopes: int
    total: int


def _is(key: PeriodKey) -> Any:
    return and_(_p.c.board_id == key.board, _p.c.window == key.window, _p.c.period == key.period)


async def due_periods(store: SqlStore, now: Micros) -> list[PeriodRow]:
    """Periods not yet archived whose end has passed (the caller adds each board's grace),
    oldest first."""
    query = (
        select(
            _p.c.board_id,
            _p.c.window,
            _p.c.period,
            _p.c.starts_at,
            _p.c.ends_at,
            _p.c.state,
            _p.c.claimed_until,
            _p.c.total,
        )
        .where(_p.c.state != ARCHIVED, _p.c.ends_at.is_not(None), _p.c.ends_at <= now)
        .order_by(_p.c.ends_at, _p.c.board_id, _p.c.window, _p.c.period)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        return [
            PeriodRow(PeriodKey(r[0], r[1], r[2]), r[3], r[4], r[5], r[6], r[7])
            for r in await conn.execute(query)
        ]


async def claim(store: SqlStore, key: PeriodKey, now: Micros, until: Micros) -> bool:
    """Make this worker the one that archives ``key``, until ``until``: true when the
    conditional update changed the row (the period is not archived and nobody else holds
    an unexpired claim on it)."""
    query = (
        update(_p)
        .where(
            _is(key),
            _p.c.state != ARCHIVED,
            or_(_p.c.claimed_until.is_(None), _p.c.claimed_until < now),
        )
        .values(state=ARCHIVING, claimed_until=until)
    )
    async with mapped_errors(), store.engine.begin() as conn:
        return (await conn.execute(query)).rowcount == 1


async def release(store: SqlStore, key: PeriodKey, until: Micros) -> None:
    """Give up a claim (after a failed archiving), so that the next step retries at once."""
    query = (
        update(_p)
        .where(_is(key), _p.c.state == ARCHIVING, _p.c.claimed_until == until)
        .values(claimed_until=None)
    )
    async with mapped_errors(), store.engine.begin() as conn:
        await conn.execute(query)


async def archive_period(
    store: SqlStore,
    key: PeriodKey,
    keys: Keys,
    now: Micros,
    claimed: Micros | None,
    event: CloseEvent | None = None,
) -> ArchivedPeriod | None:
    """Copy the period's final standings to ``rl_archive`` and mark it archived, in one
    transaction. ``claimed`` is this worker's claim (``claimed_until``); None re-archives a
    period that is already archived (after a ban, unban or erase). Idempotent: the period's
    archive rows are deleted first. None when the claim was lost to another worker. With
    ``event`` (a board webhook), the same transaction writes each scope's close event to
    the outbox (``store.deliveries``), so it exists once exactly when the archive does."""
    guard = (
        _p.c.state == ARCHIVED
        if claimed is None
        else and_(_p.c.state == ARCHIVING, _p.c.claimed_until == claimed)
    )
    async with mapped_errors(), store.engine.connect() as conn:
        if store.dialect == "mysql":
            # InnoDB's REPEATABLE READ takes gap locks on the (empty) ranges that DELETE
            # scans, and two workers inserting into each other's gap deadlock.
            conn = await conn.execution_options(isolation_level="READ COMMITTED")
        async with conn.begin():
            # Taking the period's row first makes this transaction its owner (a row lock on
            # the server databases) and checks that the claim is still this worker's.
            owned = await conn.execute(update(_p).where(_is(key), guard).values(archived_at=now))
            if owned.rowcount != 1:
                return None
            mine = and_(
                _a.c.board_id == key.board, _a.c.window == key.window, _a.c.period == key.period
            )
            if (await conn.execute(select(_a.c.rank).where(mine).limit(1))).first() is not None:
                await conn.execute(delete(_a).where(mine))  # an earlier attempt's rows
            entries, scopes, total = await _copy(store, conn, key, keys)
            if event is not None:
                await deliveries.enqueue(conn, key.board, key.window, key.period, event, now)
            await conn.execute(
                update(_p)
                .where(_is(key))
                .values(state=ARCHIVED, total=total, archived_at=now, claimed_until=None)
            )
    return ArchivedPeriod(key, entries, scopes, total)


def final_order(keys: Keys) -> list[Any]:
    """The ranking order over ``rl_standings`` columns (identifiers compare bytewise)."""
    score = _s.c.score.desc() if keys.order == "desc" else _s.c.score.asc()
    if keys.sub_order is None:
        return [score, _s.c.achieved_at, _s.c.player_id]
    subscore = _s.c.subscore.desc() if keys.sub_order == "desc" else _s.c.subscore.asc()
    return [score, subscore, _s.c.achieved_at, _s.c.player_id]


async def _copy(
    store: SqlStore, into: AsyncConnection, key: PeriodKey, keys: Keys
) -> tuple[int, int, int]:
    """Stream the standings in rank order (on a connection of their own, since a streaming
    result holds its connection) and insert them in chunks with their rank."""
    bans = t.bans
    query = (
        select(_s.c.scope, _s.c.player_id, _s.c.score, _s.c.achieved_at, _s.c.subscore)
        .where(
            _s.c.board_id == key.board,
            _s.c.window == key.window,
            _s.c.period == key.period,
            ~exists().where(bans.c.player_id == _s.c.player_id),
        )
        .order_by(_s.c.scope, *final_order(keys))
        .execution_options(yield_per=_READ_CHUNK)
    )
    entries = total = 0
    scopes: set[str] = set()
    scope: str | None = None
    rank = 0
    rows: list[dict[str, Any]] = []
    async with store.engine.connect() as source:
        result = await source.stream(query)
        async for row_scope, player, score, achieved_at, subscore in result:
            if row_scope != scope:
                scope, rank = row_scope, 0
                scopes.add(row_scope)
            rank += 1
            if row_scope == "global":
                total += 1
            rows.append(
                {
                    "board_id": key.board,
                    "window": key.window,
                    "period": key.period,
                    "scope": row_scope,
                    "rank": rank,
                    "player_id": player,
                    "score": score,
                    "achieved_at": achieved_at,
                    "subscore": subscore,
                }
            )
            if len(rows) >= _INSERT_CHUNK:
                await into.execute(insert(_a), rows)
                entries += len(rows)
                rows = []
    if rows:
        await into.execute(insert(_a), rows)
        entries += len(rows)
    return entries, len(scopes), total


async def period_states(
    store: SqlStore, board: BoardId, window: str | None = None
) -> dict[tuple[str, str], PeriodState]:
    """(window, period) → the state of a board's recorded periods."""
    query = select(_p.c.window, _p.c.period, _p.c.state, _p.c.total).where(_p.c.board_id == board)
    if window is not None:
        query = query.where(_p.c.window == window)
    async with mapped_errors(), store.engine.connect() as conn:
        rows = await conn.execute(query)
        return {(w, p): PeriodState(state, total) for w, p, state, total in rows}


async def is_archived(store: SqlStore, key: PeriodKey) -> bool:
    async with mapped_errors(), store.engine.connect() as conn:
        state = (await conn.execute(select(_p.c.state).where(_is(key)))).scalar_one_or_none()
    return state == ARCHIVED


async def archived_periods_of(store: SqlStore, player: PlayerId) -> list[PeriodKey]:
    """The archived periods where ``player`` is in the archive or has a standing: the ones
    to re-archive when the player is banned, unbanned or erased."""
    in_archive = select(_a.c.board_id, _a.c.window, _a.c.period).where(_a.c.player_id == player)
    with_standing = (
        select(_s.c.board_id, _s.c.window, _s.c.period)
        .select_from(
            _s.join(
                _p,
                and_(
                    _p.c.board_id == _s.c.board_id,
                    _p.c.window == _s.c.window,
                    _p.c.period == _s.c.period,
                ),
            )
        )
        .where(_s.c.player_id == player, _p.c.state == ARCHIVED)
    )
    found: set[PeriodKey] = set()
    async with mapped_errors(), store.engine.connect() as conn:
        for query in (in_archive, with_standing):
            found.update(PeriodKey(r[0], r[1], r[2]) for r in await conn.execute(query.distinct()))
    return sorted(found)


async def count_archive(store: SqlStore, keys: Sequence[PeriodKey] = ()) -> int:
    """Archived entries (of these periods, or all), for tests and operators."""
    query = select(func.count()).select_from(_a)
    if keys:
        query = query.where(
            or_(
                *(
                    and_(_a.c.board_id == k.board, _a.c.window == k.window, _a.c.period == k.period)
                    for k in keys
                )
            )
        )
    async with mapped_errors(), store.engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())
