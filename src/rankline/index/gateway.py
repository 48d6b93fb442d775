"""The one way to the ranking index: the live index, SQL when it cannot answer, the archive
for periods past retention.

Every part that reads or changes the index goes through ``IndexGateway``, and this module is
the only place an ``IndexUnavailable`` is caught. A read is a function of an
``IndexReader``; the gateway runs it on the live index while the index is usable, and
otherwise (or when the read fails with ``IndexUnavailable``) on the SQL standings, telling
the keeper what it found (a damaged leaderboard is repaired; anything else degrades the
whole index). A read of a board whose periods may be past retention is routed per
leaderboard (``index.archive.ArchiveRouter``). The answer comes back with its flags:
``degraded`` (SQL answered) and ``archived`` (the archive answered).

    answer, flags = await gateway.read(lambda index: index.position(leaderboard, player))
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple, TypeVar, TypeVarTuple

from rankline.boards import Board
from rankline.errors import IndexUnavailable
from rankline.index.archive import ArchiveIndex, ArchiveRouter
from rankline.index.base import BoardVersions, IndexReader
from rankline.index.keeper import IndexHealth, IndexKeeper
from rankline.index.sql import SqlIndex
from rankline.ordering import Keys
from rankline.store.sql import SqlStore
from rankline.types import BoardId, Clock, IndexChange, LeaderboardId

log = logging.getLogger("rankline.index")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class Flags(NamedTuple):
    """How an answer was made, when not by the live index."""

    degraded: bool = False
    archived: bool = False


LIVE = Flags()


class IndexGateway:
    """Reads and changes of the ranking index, with the fallbacks every caller needs."""

    def __init__(
        self,
        keeper: IndexKeeper,
        store: SqlStore,
        keys_of: Callable[[BoardId], Keys],
        clock: Clock,
    ) -> None:
        self.index = keeper.index
        self._keeper = keeper
        self._health = keeper.health
        self._standings = SqlIndex(store, keys_of)
        self._archive = ArchiveIndex(store, keys_of)
        self._clock = clock

    async def read(
        self,
        op: Callable[[IndexReader, *Ts], Awaitable[T]],
        board: Board | None = None,
        *args: *Ts,
    ) -> tuple[T, Flags]:
        """``op(index, *args)`` on the live index, or on SQL (degraded) when the index cannot
        answer.

        With ``board``, each leaderboard ``op`` reads is routed by its period: the live
        index (or SQL) until its retention ends, then the archive. Without it, the caller
        knows every leaderboard it reads is live."""
        if self._health.usable:
            try:
                if board is None:
                    return await op(self.index, *args), LIVE
                return await self._routed(board, self.index, op, args, degraded=False)
            except IndexUnavailable as exc:
                self._keeper.failed(exc)
        if board is None:
            return await op(self._standings, *args), Flags(degraded=True)
        return await self._routed(board, self._standings, op, args, degraded=True)

    async def _routed(
        self,
        board: Board,
        index: IndexReader,
        op: Callable[[IndexReader, *Ts], Awaitable[T]],
        args: tuple[*Ts],
        *,
        degraded: bool,
    ) -> tuple[T, Flags]:
        now = self._clock.now()
        router = ArchiveRouter(
            index, self._archive, self._standings, lambda lb: board.expired(lb, now)
        )
        answer = await op(router, *args)
        return answer, Flags(degraded, router.archived)

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        """Apply changes the durable store already holds. When the index cannot take them,
        the keeper reloads their leaderboards once it is back; the caller goes on."""
        if not changes:
            return
        try:
            await self.index.apply(changes)
        except IndexUnavailable as exc:
            self._keeper.missed(changes, exc)

    async def leaderboards(self, board_id: BoardId) -> list[LeaderboardId]:
        """The board's live leaderboards in the index (none while it cannot answer)."""
        with self.degrading():
            return await self.index.leaderboards(board_id)
        return []

    @contextmanager
    def degrading(self) -> Iterator[None]:
        """Work on the index that may fail: a failure degrades the index (reads go to SQL
        and the keeper brings it back) and ends the work quietly."""
        try:
            yield
        except IndexUnavailable as exc:
            self._health.degrade(exc.detail)


class CheckedVersions:
    """The board versions of a shared index, read only while the index is usable: a version
    that cannot be read is none (the registry then reloads from SQL)."""

    def __init__(self, versions: BoardVersions, health: IndexHealth) -> None:
        self._versions = versions
        self._health = health

    async def check(self) -> tuple[bytes, bool] | None:
        """The current version and whether a change is in flight; None when unknown."""
        if not self._health.usable:
            return None
        try:
            return await self._versions.check()
        except IndexUnavailable:
            return None

    async def begin(self, change: str) -> bytes:
        """Record a change as in flight (IndexUnavailable: then nothing may change)."""
        return await self._versions.begin(change)

    async def end(self, change: str) -> bytes | None:
        """Record a change as done; None when the index could not be told (the change
        then stays in flight until it expires, and every worker reloads until then)."""
        try:
            return await self._versions.end(change)
        except IndexUnavailable as exc:
            log.warning("could not mark a board change done: %s", exc.detail)
            return None


__all__ = ["LIVE", "CheckedVersions", "Flags", "IndexGateway"]
