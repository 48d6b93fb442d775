"""Operator tasks over a shared index: verify it against SQL, and rebuild what differs.

Both stream: SQL rows come in rank order, a chunk at a time (``rankline.store.scan``), the
index is read a page at a time, and the two sorted streams are merged, so neither side is
ever held in memory whole. Besides the entries, a Redis index is checked for what its reads
rely on: the built marker, each leaderboard's counts and damage mark, its player map (every
entry findable), its place in the board's registry and, on a board with dense ranks, the
distinct values kept beside it (scores, or (score, subscore) pairs on a board with a subscore:
exactly those of the entries SQL holds).

``rebuild`` repairs exactly the leaderboards ``verify`` finds different (each is emptied and
filled afresh from SQL, as servers repair a damaged leaderboard), then checks each again:
what it reports fixed is what differed before and no longer does.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from rankline.boards import Board
from rankline.index.base import RankingIndex, SharedIndex
from rankline.index.keeper import IndexKeeper
from rankline.index.sql import SqlIndex
from rankline.store import scan
from rankline.store.sql import SqlStore
from rankline.types import IndexChange, LeaderboardId, Micros, SortKey

Progress = Callable[[int, int], None]
_PAGE = 10_000
_MAPPED_CHUNK = 1_000
"""Matched keys checked against the player map per call."""
_REPAIR_WAIT_SECONDS = 0.2
_INDEX = LeaderboardId("", "", "", "")
"""The leaderboard of a difference of the whole index (its built marker)."""


@dataclass
class Difference:
    leaderboard: LeaderboardId
    kind: str
    """``missing`` (in SQL, not in the index), ``extra`` (in the index, not in SQL),
    ``unmapped`` (in both, but the index's player map does not find it), ``damaged`` (the
    leaderboard's counts or damage mark), ``unregistered`` (absent from the board's list of
    leaderboards), ``distinct`` (the distinct scores of a board with dense ranks differ
    from the entries') or ``unbuilt`` (the index's built marker is missing)."""
    player: str
    score: int
    achieved_at: int
    detail: str = ""
    """For the kinds that are not about one entry: what is wrong."""


@dataclass
class Report:
    leaderboards: int = 0
    entries: int = 0
    differences: list[Difference] = field(default_factory=list)
    count: int = 0
    """Differences found."""
    fixed: int = 0
    """Differences a rebuild found and that are gone after it."""
    remaining: int = 0
    """Differences found again after a rebuild."""


async def _sql_keys(store: SqlStore, board: Board, lb: LeaderboardId) -> AsyncIterator[SortKey]:
    async for keys, _ in scan.scan_keys(store, lb, board.keys, _PAGE, exact=True):
        for key in keys:
            yield key


async def _index_keys(index: RankingIndex, lb: LeaderboardId) -> AsyncIterator[SortKey]:
    start = 0
    while True:
        keys = await index.slice(lb, start, start + _PAGE)
        for key in keys:
            yield key
        if len(keys) < _PAGE:
            return
        start += _PAGE


async def _next(stream: AsyncIterator[SortKey]) -> SortKey | None:
    try:
        return await anext(stream)
    except StopAsyncIteration:
        return None


async def _leaderboards(
    keeper: IndexKeeper, store: SqlStore, board: Board, now: Micros
) -> list[LeaderboardId]:
    wanted = set(await SqlIndex(store, lambda _: board.keys).leaderboards(board.id))
    wanted |= set(await keeper.index.leaderboards(board.id))
    return [lb for lb in sorted(wanted) if not board.expired(lb, now)]


async def _built(keeper: IndexKeeper) -> bool:
    if keeper.shared is not None:
        return await keeper.shared.is_built()
    return keeper.health.built


async def verify(
    keeper: IndexKeeper,
    store: SqlStore,
    boards: list[Board],
    *,
    fix: bool = False,
    limit: int = 100,
    progress: Progress | None = None,
) -> Report:
    """Compare every live leaderboard in the index with SQL; with ``fix``, remove extras and
    load what is missing (entries only: ``rebuild`` repairs the rest)."""
    report = Report()
    now = keeper.clock.now()
    total = await store.count_standings()
    if not await _built(keeper):
        _note_state(report, _INDEX, "unbuilt", "the index is not marked built", limit)
    for board in boards:
        for lb in await _leaderboards(keeper, store, board, now):
            await _verify_one(keeper, store, board, lb, report, fix, limit, progress, total)
    if progress is not None:
        progress(report.entries, total)
    return report


async def _verify_one(
    keeper: IndexKeeper,
    store: SqlStore,
    board: Board,
    lb: LeaderboardId,
    report: Report,
    fix: bool,
    limit: int,
    progress: Progress | None,
    total: int,
) -> int:
    """Add one leaderboard's differences to ``report``; returns how many it has."""
    index, shared = keeper.index, keeper.shared
    found = report.count
    report.leaderboards += 1
    state = None if shared is None else await shared.state(lb)
    if state is not None and not state.intact:
        marked = ", marked damaged" if state.mark is not None else ""
        counts = f"counts {state.meta_count} and {state.stamp_count}"
        detail = f"{state.entries} entries, {counts}{marked}"
        _note_state(report, lb, "damaged", detail, limit)
    sql, idx = _sql_keys(store, board, lb), _index_keys(index, lb)
    a, b = await _next(sql), await _next(idx)
    missing: list[IndexChange] = []
    extra: list[SortKey] = []
    matched: list[SortKey] = []
    distinct: list[bytes] = []
    """The distinct values (score, and subscore on a board with one: ``Keys.prefix`` bytes)
    of SQL's keys (they come in rank order)."""
    size = board.keys.prefix
    held = 0
    while a is not None or b is not None:
        if board.dense and a is not None and (not distinct or distinct[-1] != a[:size]):
            distinct.append(a[:size])
        if a is not None and (b is None or a < b):
            _note(report, board, lb, "missing", a, limit)
            missing.append(IndexChange(lb, board.keys.player_of(a), a))
            a = await _next(sql)
            report.entries += 1
        elif b is not None and (a is None or b < a):
            _note(report, board, lb, "extra", b, limit)
            extra.append(b)
            b = await _next(idx)
        else:
            if shared is not None and a is not None:
                matched.append(a)
                if len(matched) >= _MAPPED_CHUNK:
                    await _check_mapped(shared, board, lb, matched, report, limit)
            a, b = await _next(sql), await _next(idx)
            report.entries += 1
            held += 1
        if progress is not None and report.entries % _PAGE == 0:
            progress(report.entries, total)
    if matched and shared is not None:
        await _check_mapped(shared, board, lb, matched, report, limit)
    if board.dense:
        kept = await index.distinct_scores(lb)
        if kept != distinct:
            wrong = len(set(kept).symmetric_difference(distinct))
            detail = f"{len(kept)} distinct scores kept, {len(distinct)} held; {wrong} differ"
            _note_state(report, lb, "distinct", detail, limit)
    if shared is not None and (held or missing) and not await shared.registered(lb):
        _note_state(report, lb, "unregistered", "not in the board's list of leaderboards", limit)
    if fix and extra:
        await index.discard(lb, extra)
    if fix and missing:
        await index.apply(missing)
    return report.count - found


async def _check_mapped(
    index: SharedIndex,
    board: Board,
    lb: LeaderboardId,
    matched: list[SortKey],
    report: Report,
    limit: int,
) -> None:
    for key in await index.unmapped(lb, matched):
        _note(report, board, lb, "unmapped", key, limit)
    matched.clear()


def _note(
    report: Report, board: Board, lb: LeaderboardId, kind: str, key: SortKey, limit: int
) -> None:
    report.count += 1
    if len(report.differences) < limit:
        score, _, at, player = board.keys.decode(key)
        report.differences.append(Difference(lb, kind, player, score, at))


def _note_state(report: Report, lb: LeaderboardId, kind: str, detail: str, limit: int) -> None:
    report.count += 1
    if len(report.differences) < limit:
        report.differences.append(Difference(lb, kind, "", 0, 0, detail))


async def rebuild(
    keeper: IndexKeeper,
    store: SqlStore,
    boards: list[Board],
    *,
    limit: int = 100,
    progress: Progress | None = None,
) -> Report:
    """Verify every live leaderboard and rebuild from SQL each one that differs (emptied
    and filled afresh, as a server repairs a damaged leaderboard), then verify it again;
    mark the index built. Safe while servers run: writes meanwhile are kept by revision.
    ``count`` is what differed, ``fixed`` what no longer does, ``differences`` what still
    does (``remaining``)."""
    after = Report()
    now = keeper.clock.now()
    found = fixed = 0
    total = await store.count_standings()
    if not await _built(keeper):
        found += 1
    for board in boards:
        for lb in await _leaderboards(keeper, store, board, now):
            before = await _verify_one(keeper, store, board, lb, Report(), False, 0, None, 0)
            if before:
                await _repair(keeper, lb)
            left = await _verify_one(keeper, store, board, lb, after, False, limit, None, 0)
            found += before
            fixed += max(0, before - left)
            if progress is not None:
                progress(after.entries, total)
    if keeper.shared is not None:
        unbuilt = not await _built(keeper)
        await keeper.shared.mark_built()
        fixed += int(unbuilt)
    after.fixed, after.remaining, after.count = fixed, after.count, found
    return after


async def reload(
    keeper: IndexKeeper,
    store: SqlStore,
    boards: list[Board],
    *,
    progress: Progress | None = None,
) -> Report:
    """Rebuild every live leaderboard of these boards in a shared index from SQL, whether it
    differs or not (each emptied and filled afresh, so the revisions it held before go with
    it), mark the index built, then verify them. After ``rankline replay``, whose standings
    may carry revisions lower than the index's, which the index would refuse."""
    now = keeper.clock.now()
    total = await store.count_standings()
    done = 0
    for board in boards:
        for lb in await _leaderboards(keeper, store, board, now):
            await _repair(keeper, lb)
            done += await scan.count_rows(store, lb)
            if progress is not None:
                progress(done, total)
    if keeper.shared is not None:
        await keeper.shared.mark_built()
    return await verify(keeper, store, boards)


async def _repair(keeper: IndexKeeper, lb: LeaderboardId) -> None:
    """Repair one leaderboard, waiting while a server repairs it (its lease bounds that)."""
    while not await keeper.repair(lb):
        await asyncio.sleep(_REPAIR_WAIT_SECONDS)
        if keeper.shared is None or await keeper.shared.intact(lb):
            return
