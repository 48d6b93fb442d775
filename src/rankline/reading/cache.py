"""The read caches: the top of each leaderboard as ready-to-send bytes, and hot reads.

``TopCache`` keeps, per leaderboard, the first entries already encoded as JSON (rank, player,
score, time, display name), under the index's *top stamp* (``IndexReader.top_stamp``). The
stamp changes whenever a write lands among the first ``TOP_WINDOW`` entries, in whichever
process made it, so a top read costs one stamp read and a byte join while the top is quiet,
and is never stale: the stamp is read before the page it labels, and a page is served only
under the stamp it was read under. Indexes that cannot vouch for their top (the degraded SQL
path, the archive) answer a stamp never seen before, so their reads are never cached.

``HotReads`` lets concurrent and repeated reads of one thing (a celebrity's rank and
neighbours) share one computation for a short TTL, while the leaderboard's *change stamp*
says nothing moved: 1,000 readers of one hot player cost a couple of index reads, and a
reader never gets an answer older than an acknowledged write (``as_of`` shows its age).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, TypeVarTuple

from rankline.index.base import IndexReader
from rankline.types import TOP_WINDOW, LeaderboardId, SortKey

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
Render = Callable[[Sequence[SortKey], int, int], Awaitable[list[bytes]]]
"""Encodes keys read from an offset as JSON entries, ranked from offset + 1 on, on a
leaderboard of the given total."""
Context = Callable[[int], Hashable]
"""What else the rendered entries depend on, given the leaderboard's total (a board's tiers
and, for tiers by percentage, the total): entries held under another context are read
again."""


def _no_context(total: int) -> Hashable:
    return None


_FIRST_FILL = 100
"""Entries read on a first miss; a deeper request reads as deep as it needs."""


@dataclass(slots=True)
class _Top:
    stamp: int
    made: float
    total: int
    entries: list[bytes]
    digest: str
    """A hash of all the entries: with the offset and limit, it names a page's contents."""
    context: Hashable = None
    keys: Sequence[SortKey] = ()
    """The entries' keys (a page's last one is its cursor)."""
    pages: dict[tuple[int, int], tuple[bytes, Sequence[SortKey]]] = field(default_factory=dict)
    """Pages served from these entries, by (offset, stop): joined, with their keys. The
    same page is asked for again and again (top-10, top-100), and joining it cost more
    than the rest of the cache's work."""
    room: int = 0
    """Bytes the pages may still take: as much as the entries, all told."""

    def covers(self, stop: int) -> bool:
        # A leaderboard held whole (shorter than the window) has nothing more to show:
        # any new entry would land inside the window and change the stamp.
        return stop <= len(self.entries) or len(self.entries) == self.total

    def page(self, offset: int, stop: int) -> tuple[bytes, Sequence[SortKey]]:
        """The entries ranked ``offset + 1`` to ``stop``, joined, and their keys."""
        found = self.pages.get((offset, stop))
        if found is None:
            found = b",".join(self.entries[offset:stop]), self.keys[offset:stop]
            if len(found[0]) > self.room:
                self.pages.clear()  # whatever was asked for before is held no longer
                self.room = sum(map(len, self.entries))
            if len(found[0]) <= self.room:
                self.room -= len(found[0])
                self.pages[offset, stop] = found
        return found


class StampReads:
    """Concurrent reads of one leaderboard's top stamp share one index read that started
    after each of them arrived.

    A reader joins the read that starts next; while one is under way, the readers arriving
    meanwhile wait for the one after it. So each reader gets a stamp read after it arrived
    (never older than a write acknowledged before it asked), and under load one round trip
    serves every top request that arrived during the last one: on a sharded leaderboard
    that is a read of every shard. For a shared index (Redis); an in-process one answers
    at once and gains nothing.
    """

    def __init__(self) -> None:
        self._next: dict[tuple[IndexReader, LeaderboardId], asyncio.Future[tuple[int, int]]] = {}
        self._reading: dict[tuple[IndexReader, LeaderboardId], asyncio.Task[None]] = {}

    async def read(self, index: IndexReader, leaderboard: LeaderboardId) -> tuple[int, int]:
        key = (index, leaderboard)
        waiting = self._next.get(key)
        if waiting is None:
            waiting = self._next[key] = asyncio.get_running_loop().create_future()
            waiting.add_done_callback(_retrieved)
            if key not in self._reading:
                self._reading[key] = asyncio.ensure_future(self._run(key))
        return await asyncio.shield(waiting)

    async def _run(self, key: tuple[IndexReader, LeaderboardId]) -> None:
        index, leaderboard = key
        try:
            while (waiting := self._next.pop(key, None)) is not None:
                try:
                    found = await index.top_stamp(leaderboard)
                except Exception as exc:
                    waiting.set_exception(exc)
                except BaseException:
                    waiting.cancel()
                    raise
                else:
                    waiting.set_result(found)
        finally:
            del self._reading[key]
            left = self._next.pop(key, None)  # only when cancelled: nobody reads for them
            if left is not None:
                left.cancel()


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a failure seen: its readers may all have gone (cancelled) before it came."""
    if not future.cancelled():
        future.exception()


class TopCache:
    """The first entries of each leaderboard as JSON bytes, valid while the top stamp holds.

    Display names are joined when the entries are encoded; entries older than ``names_ttl``
    seconds are re-encoded even under an unchanged stamp, so a renamed player shows within it.
    With ``coalesce`` (a shared index), concurrent readers share stamp reads (``StampReads``).
    """

    def __init__(self, names_ttl: float, *, coalesce: bool = False) -> None:
        self._names_ttl = names_ttl
        self._held: dict[tuple[LeaderboardId, Hashable], _Top] = {}
        self._filling: dict[tuple[LeaderboardId, Hashable, int], asyncio.Task[_Top]] = {}
        self._stamps = StampReads() if coalesce else None

    def clear(self) -> None:
        self._held.clear()

    async def page(
        self,
        index: IndexReader,
        leaderboard: LeaderboardId,
        offset: int,
        limit: int,
        render: Render,
        context: Context = _no_context,
        variant: Hashable = None,
    ) -> tuple[int, bytes, str, Sequence[SortKey]]:
        """The leaderboard's total, the entries ranked ``offset + 1`` to ``offset + limit``
        joined with commas, a digest of the entries they were cut from (for ETags) and the
        page's keys. Each ``variant`` of the rendering (entries with their metadata) is
        held apart."""
        stop = offset + limit
        if stop > TOP_WINDOW:  # a deep page: read just that page, never kept
            total, keys = await index.page(leaderboard, offset, stop)
            entries = await render(keys, offset, total)
            return total, b",".join(entries), digest(entries), keys
        if self._stamps is None:
            stamp, total = await index.top_stamp(leaderboard)
        else:
            stamp, total = await self._stamps.read(index, leaderboard)
        held = self._held.get((leaderboard, variant))
        if (
            held is None
            or not self._fresh(held, stamp)
            or not held.covers(stop)
            or held.context != context(total)
        ):
            held = await self._fill(index, (leaderboard, variant), stamp, stop, render, context)
            total = held.total
        joined, cut = held.page(offset, stop)
        return total, joined, held.digest, cut

    def _fresh(self, held: _Top, stamp: int) -> bool:
        return held.stamp == stamp and time.monotonic() - held.made < self._names_ttl

    async def _fill(
        self,
        index: IndexReader,
        held_as: tuple[LeaderboardId, Hashable],
        stamp: int,
        stop: int,
        render: Render,
        context: Context,
    ) -> _Top:
        """Read and encode the top under ``stamp``; concurrent misses share one read."""
        flight = (*held_as, stamp)
        task = self._filling.get(flight)
        if task is not None:
            held = await asyncio.shield(task)
            if held.covers(stop) and held.context == context(held.total):
                return held
        task = asyncio.ensure_future(self._read(index, held_as, stamp, stop, render, context))
        self._filling[flight] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done() and self._filling.get(flight) is task:
                del self._filling[flight]

    async def _read(
        self,
        index: IndexReader,
        held_as: tuple[LeaderboardId, Hashable],
        stamp: int,
        stop: int,
        render: Render,
        context: Context,
    ) -> _Top:
        depth = min(TOP_WINDOW, max(stop, _FIRST_FILL))
        made = time.monotonic()
        total, keys = await index.page(held_as[0], 0, depth)
        entries = await render(keys, 0, total)
        held = _Top(stamp, made, total, entries, digest(entries), context(total), keys)
        if stamp >= 0:
            current = self._held.get(held_as)
            if current is None or current.stamp <= stamp:
                self._held[held_as] = held
        return held


@dataclass(slots=True)
class _Answer(Generic[T]):
    made: float
    task: asyncio.Task[T]


class HotReads:
    """Single-flight and a short TTL for repeated reads, validated by the change stamp.

    A key read once within the TTL is *warm*: its next reads first read the leaderboard's
    change stamp (``IndexReader.change_stamp``: O(1), one round trip on Redis), and share the
    answer computed under that same stamp, or one being computed under it. Because the stamp
    is read after the request arrived, and every write changes it before it is acknowledged,
    a shared answer is never older than the newest acknowledged write, in any process. A cold
    key costs nothing extra: it is computed directly.
    """

    def __init__(self, ttl: float) -> None:
        self._ttl = ttl
        self._seen: dict[Hashable, float] = {}
        self._held: dict[tuple[Hashable, int], _Answer[Any]] = {}
        self._swept = time.monotonic()

    def clear(self) -> None:
        self._seen.clear()
        self._held.clear()

    async def get(
        self,
        key: Hashable,
        index: IndexReader,
        leaderboard: LeaderboardId,
        compute: Callable[[*Ts], Awaitable[T]],
        *args: *Ts,
    ) -> T:
        """``compute(*args)``, a read of ``leaderboard`` on ``index``, shared with the other
        reads of ``key`` while the leaderboard's change stamp holds."""
        if self._ttl <= 0:
            return await compute(*args)
        now = time.monotonic()
        if now - self._swept >= self._ttl:
            self._sweep(now)
        warm = self._seen.get(key)
        self._seen[key] = now
        if warm is None or now - warm >= self._ttl:
            return await compute(*args)
        current = await index.change_stamp(leaderboard)
        found = self._held.get((key, current))
        if found is not None and self._usable(found, time.monotonic()):
            return await asyncio.shield(found.task)
        task: asyncio.Task[T] = asyncio.ensure_future(compute(*args))
        if current >= 0:  # negative stamps come from indexes that cannot vouch for answers
            self._held[key, current] = _Answer(now, task)
        try:
            return await asyncio.shield(task)
        except BaseException:
            if task.done() and self._held.get((key, current)) is not None:
                del self._held[key, current]  # failures are not kept: the next reader retries
            raise

    def _usable(self, found: _Answer[Any], now: float) -> bool:
        """Still computing, or computed without error within the TTL."""
        task = found.task
        if not task.done():
            return True
        if task.cancelled():
            return False
        return now - found.made < self._ttl and task.exception() is None

    def _sweep(self, now: float) -> None:
        """Drop expired answers and keys (at most once per TTL), so the maps stay small."""
        self._swept = now
        for key in [k for k, seen in self._seen.items() if now - seen >= self._ttl]:
            del self._seen[key]
        done = [k for k, a in self._held.items() if a.task.done() and now - a.made >= self._ttl]
        for held in done:
            del self._held[held]


def digest(entries: Sequence[bytes]) -> str:
    """A short hash naming a list of encoded entries (what a top page's ETag carries)."""
    return hashlib.blake2b(b"\n".join(entries), digest_size=12).hexdigest()


def join_entries(head: bytes, entries: bytes) -> bytes:
    """A top answer's body: the encoded head object with ``entries`` (encoded entries
    joined with commas) appended to it."""
    return b"".join((head[:-1], b',"entries":[', entries, b"]}"))
