"""Operator tasks over a shared index: rebuild it from SQL, and verify it against SQL.

Both stream: SQL rows come in rank order, a chunk at a time (``rankline.store.scan``), the
index is read a page at a time, and the two sorted streams are merged, so neither side is
ever held in memory whole.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from rankline.boards import Board
from rankline.indexing import IndexKeeper
from rankline.ordering import decode, player_of
from rankline.store import scan
from rankline.store.sql import SqlStore
from rankline.types import IndexChange, LeaderboardId, RankingIndex, SortKey

Progress = Callable[[int, int], None]
_PAGE = 10_000


@dataclass
class Difference:
    leaderboard: LeaderboardId
    kind: str  # "missing" (in SQL, not in the index) or "extra" (in the index, not in SQL)
    player: str
    score: int
    achieved_at: int


@dataclass
class Report:
    leaderboards: int = 0
    entries: int = 0
    differences: list[Difference] = field(default_factory=list)
    count: int = 0


async def _sql_keys(store: SqlStore, board: Board, lb: LeaderboardId) -> AsyncIterator[SortKey]:
    async for keys, _ in scan.scan_keys(store, lb, board.order, _PAGE, exact=True):
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
    load what is missing."""
    report = Report()
    total = await store.count_standings()
    now = keeper._clock.now()
    index = keeper.index
    for board in boards:
        wanted = set(await keeper.fallback.leaderboards(board.id))
        wanted |= set(await index.leaderboards(board.id))
        for lb in sorted(wanted):
            if keeper.expired(board, lb, now):
                continue
            report.leaderboards += 1
            sql, idx = _sql_keys(store, board, lb), _index_keys(index, lb)
            a, b = await _next(sql), await _next(idx)
            missing: list[IndexChange] = []
            extra: list[SortKey] = []
            while a is not None or b is not None:
                if a is not None and (b is None or a < b):
                    _note(report, board, lb, "missing", a, limit)
                    missing.append(IndexChange(lb, player_of(a), a))
                    a = await _next(sql)
                    report.entries += 1
                elif b is not None and (a is None or b < a):
                    _note(report, board, lb, "extra", b, limit)
                    extra.append(b)
                    b = await _next(idx)
                else:
                    a, b = await _next(sql), await _next(idx)
                    report.entries += 1
                if progress is not None and report.entries % _PAGE == 0:
                    progress(report.entries, total)
            if fix and extra:
                await index.discard(lb, extra)
            if fix and missing:
                await index.apply(missing)
    if progress is not None:
        progress(report.entries, total)
    return report


def _note(
    report: Report, board: Board, lb: LeaderboardId, kind: str, key: SortKey, limit: int
) -> None:
    report.count += 1
    if len(report.differences) < limit:
        score, at, player = decode(key, board.order)
        report.differences.append(Difference(lb, kind, player, score, at))


async def rebuild(
    keeper: IndexKeeper, store: SqlStore, boards: list[Board], *, progress: Progress | None = None
) -> Report:
    """Load every live standing into the index (guarded by revision), remove what SQL does
    not have, and mark the index built."""
    index: object = keeper.index
    await keeper.load_all(keepalive=None)
    report = await verify(keeper, store, boards, fix=True, progress=progress)
    mark = getattr(index, "mark_built", None)
    if mark is not None:
        await mark()
    return report
