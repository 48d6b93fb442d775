"""What a ranking index is: a reader, a writer, and the lifecycle of a shared one.

A ranking index keeps, per leaderboard, the players ordered by their byte sort key
(``rankline.ordering``); it knows nothing about boards, policies or time. It is a projection
of the SQL standings, rebuildable at any time.

- ``IndexReader``: the reads every answer is made of. The live index, the SQL standings
  (``index.sql``, the degraded path) and the archive (``index.archive``) all implement it, so
  a read runs unchanged on whichever the gateway (``rankline.index.gateway``) picks.
- ``IndexWriter``: the changes the write path, bans and rebuilds make.
- ``RankingIndex``: the base class of the real backends (``index.memory``, ``index.redis``):
  both halves, told each board's key shapes (``BoardShapes``) at construction.
- ``SharedIndex``: the lifecycle of an index that several processes share (built marker,
  rebuild lock, repairs, registries), a seam of its own that only ``index.redis``
  implements; the embedded in-process index has none. ``BoardVersions``: the board
  definitions' version such an index's server keeps for every process.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from rankline.ordering import plain_heads
from rankline.types import (
    BoardId,
    IndexChange,
    LeaderboardId,
    Micros,
    Movement,
    PlayerId,
    Position,
    SortKey,
)

IndexRow = tuple[PlayerId, SortKey, int]
"""A standing as an index loads it: (player, key, revision)."""
UNKNOWN = Movement(None, None)


class IndexReader(Protocol):
    """Every read an answer is made of, each in O(log N) on a live index."""

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        """The player's position, total and count of strictly better scores, or None."""
        ...

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        """Positions of the ranked players among ``players``, in rank order."""
        ...

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        """The leaderboard's total and the keys from ``start`` to ``stop``, read together."""
        ...

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        """The player's position, the first position returned, and up to k keys each side."""
        ...

    async def total(self, leaderboard: LeaderboardId) -> int: ...

    async def after(
        self, leaderboard: LeaderboardId, key: SortKey, limit: int
    ) -> tuple[int, int, list[SortKey]]:
        """A seek (a cursor's next page): the total, the position of the first key
        returned, and up to ``limit`` keys that sort strictly after ``key``, whether or
        not ``key`` is still held."""
        ...

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        """The total and, for each of ``bounds`` (a key or a prefix of one: the 8-byte
        score prefix, the 16-byte head), how many keys sort strictly before it."""
        ...

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        """The player's movement as the index recorded it at their changes (both None where
        nothing is known: read ``Movement``)."""
        ...

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        """For each value prefix (``Keys.value_prefix``: the score, and the subscore on a
        board with one; ``Keys.prefix`` bytes), how many distinct values held sort strictly
        before it: a dense rank less one. Only leaderboards of boards that keep
        dense ranks answer it (``BoardShapes.dense_of``)."""
        ...

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        """(stamp, total), read together. The stamp is an opaque number that changes
        whenever the first ``TOP_WINDOW`` entries may have changed: a change whose old or new
        offset is below ``TOP_WINDOW``, a load, discard or drop of the leaderboard, or the
        loss of the index. It never comes back to an earlier value, also across processes
        sharing the index, so a cache of the top keyed by the stamp is never stale: read the
        stamp first, then the page, and cache the page under that stamp. A negative stamp
        says the answer must not be cached."""
        ...

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        """An opaque number that changes with every change of the leaderboard (apply,
        load, discard, drop, loss of the index), in O(1). Like ``top_stamp`` it never comes
        back to an earlier value, also across processes: answers computed after reading a
        stamp stay valid while the stamp reads the same (``rankline.reading.cache.HotReads``)."""
        ...

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        """Every leaderboard of a board that holds at least one entry."""
        ...


class IndexWriter(Protocol):
    """The changes made to an index."""

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        """Apply changes in order. Each is an upsert (or removal) of one player's key."""
        ...


class BoardVersions(Protocol):
    """A version of the board definitions that every process reads, moved by every change
    (``index.board_versions`` in Redis; see ``rankline.registry``)."""

    async def check(self) -> tuple[bytes, bool]:
        """The current version, and whether a change is in flight."""
        ...

    async def begin(self, change: str) -> bytes:
        """Record a change as in flight; the version it moved to."""
        ...

    async def end(self, change: str) -> bytes:
        """Record a change as done; the version it moved to."""
        ...


class LeaderboardState(NamedTuple):
    """What a shared index knows of one leaderboard's integrity (``SharedIndex.state``)."""

    built: bool
    entries: int
    meta_count: int
    """The count kept in the layout hash (-1: none)."""
    stamp_count: int
    """The count kept in the stamps (-1: none)."""
    mark: bytes | None
    """The damage mark (``token:until``), or None."""

    @property
    def intact(self) -> bool:
        counts = (max(self.meta_count, 0), max(self.stamp_count, 0))
        return self.mark is None and counts == (self.entries, self.entries)


class BoardShapes(Protocol):
    """What an index needs to know of each board's keys, asked at every change and read."""

    def head_of(self, board: BoardId) -> int:
        """How long the head of the board's keys is (``ordering.head_bytes``): the player
        id follows it, and the bytes before the head's last 8 (the time) are the value that
        ``Position.better`` counts."""
        ...

    def dense_of(self, board: BoardId) -> bool:
        """Whether the index keeps, beside each leaderboard of the board, its distinct
        values, changed in the same step as the entries (dense ranks in O(log N)). A board
        keeps it from its first entry on: ``dense_rank`` cannot change once it has one."""
        ...


def _never(board: BoardId) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Shapes:
    """``BoardShapes`` from two functions; by default plain heads and no dense ranks (the
    service passes its board registry instead)."""

    head_of: Callable[[BoardId], int] = plain_heads
    dense_of: Callable[[BoardId], bool] = _never


PLAIN = Shapes()


class RankingIndex(abc.ABC):
    """A live ranking index (in-process or Redis): its reads and its writes.

    What an index that several processes share needs besides (built marker, rebuild lock,
    repairs, board versions) is a ``SharedIndex`` of its own, which only the shared backends
    implement."""

    loads_whole: bool = False
    """A leaderboard is best loaded in one piece from its keys (``load_keys``)."""

    def __init__(self, shapes: BoardShapes = PLAIN) -> None:
        self.shapes = shapes

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    def dense(self, leaderboard: LeaderboardId) -> bool:
        """Whether the index keeps the leaderboard's distinct scores (``BoardShapes.dense_of``)."""
        return self.shapes.dense_of(leaderboard.board)

    # --- reads (IndexReader) ---------------------------------------------------------------

    @abc.abstractmethod
    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        """The player's position, total and count of strictly better scores, or None."""

    @abc.abstractmethod
    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        """Positions of the ranked players among ``players``, in rank order."""

    @abc.abstractmethod
    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        """The leaderboard's total and the keys from ``start`` to ``stop``."""

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        """Keys at positions ``start`` (inclusive) to ``stop`` (exclusive), whatever the
        leaderboard's state (what ``verify`` reads)."""
        return (await self.page(leaderboard, start, stop))[1]

    @abc.abstractmethod
    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        """The player's position, the first position returned, and up to k keys each side."""

    @abc.abstractmethod
    async def total(self, leaderboard: LeaderboardId) -> int: ...

    async def after(
        self, leaderboard: LeaderboardId, key: SortKey, limit: int
    ) -> tuple[int, int, list[SortKey]]:
        """See ``IndexReader.after``: the keys come from one range read of the index's
        own order (``neighbours`` from the smallest key above ``key``), so an entry that
        stays in place is never skipped nor repeated; the position is counted after it."""
        _, keys = await self.neighbours(leaderboard, key + b"\x00", 0, limit)
        total, (first,) = await self.counts_before(leaderboard, [keys[0] if keys else key])
        return total, first, keys

    # The two reads below are what a sharded leaderboard (``index.sharded``) is made of:
    # each shard answers how many of its keys come before a key, and its keys next to one,
    # both in O(log N + k). They are not part of ``IndexReader``: the SQL standings and the
    # archive answer for the unsharded leaderboard directly, never for its shards.

    @abc.abstractmethod
    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        """The leaderboard's total and, for each of ``bounds``, how many keys sort strictly
        before it (a key or any prefix: the 8-byte score prefix counts the strictly better
        scores), read together."""

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        """See ``IndexReader.movement``. Kept beside each unsharded leaderboard, changed in
        the same step as the entry: the rank before and after each change, the best of them
        while every change since the player's first entry went through ``apply`` (a load,
        a rebuild or a repair forgets what it cannot vouch for)."""
        return UNKNOWN

    @abc.abstractmethod
    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        """See ``IndexReader.distinct_before``."""

    async def distinct_scores(self, leaderboard: LeaderboardId) -> list[bytes]:
        """The distinct score prefixes the index keeps beside the leaderboard, as it holds
        them, in order (what ``verify`` compares with the entries' own)."""
        return []

    async def count_before(self, leaderboard: LeaderboardId, bound: bytes) -> int:
        """How many keys sort strictly before ``bound``."""
        return (await self.counts_before(leaderboard, [bound]))[1][0]

    @abc.abstractmethod
    async def neighbours(
        self, leaderboard: LeaderboardId, key: bytes, before: int, after: int
    ) -> tuple[list[SortKey], list[SortKey]]:
        """Up to ``before`` keys strictly before ``key`` and up to ``after`` keys from
        ``key`` on (``key`` itself first when held), both in rank order."""

    @abc.abstractmethod
    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        """See ``IndexReader.top_stamp``."""

    @abc.abstractmethod
    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        """See ``IndexReader.change_stamp``."""

    @abc.abstractmethod
    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        """Every leaderboard of a board that holds at least one entry."""

    # --- writes (IndexWriter) --------------------------------------------------------------

    @abc.abstractmethod
    async def apply(self, changes: Sequence[IndexChange]) -> None:
        """Apply changes in order. Each is an upsert (or removal) of one player's key.

        ``revision`` guards a shared index: a change older than what it holds is ignored."""

    @abc.abstractmethod
    async def load(self, leaderboard: LeaderboardId, entries: Iterable[IndexRow]) -> None:
        """Bulk-load standings read from the durable store, as a rebuild does. Where the
        index already holds a newer revision, it keeps it."""

    async def fill(
        self, leaderboard: LeaderboardId, size: int, chunks: AsyncIterable[list[IndexRow]]
    ) -> AsyncIterator[int]:
        """Load a leaderboard from ``chunks`` (about ``size`` entries, each player once),
        yielding each chunk's length as it is taken, for progress."""
        async for chunk in chunks:
            await self.load(leaderboard, chunk)
            yield len(chunk)

    async def load_keys(
        self,
        leaderboard: LeaderboardId,
        keys: Sequence[SortKey],
        hashes: Iterable[int] | None = None,
    ) -> None:
        """Load a whole leaderboard from its keys alone (where ``loads_whole``)."""
        raise NotImplementedError(f"{type(self).__name__} loads entries, not keys")

    @abc.abstractmethod
    async def discard(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> None:
        """Remove exactly these keys (repairs); a player's entry goes only if it is that key."""

    @abc.abstractmethod
    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None: ...

    async def expire_in(self, leaderboard: LeaderboardId, micros: Micros) -> None:
        """Let the index drop a period's leaderboard by itself ``micros`` from now, when its
        retention ends; one that cannot relies on the service's sweep."""
        return None


class SharedIndex(abc.ABC):
    """The lifecycle of a ranking index that several processes share and that outlives
    them (``index.redis``): built once and marked so, rebuilt by one process at a time,
    repaired in place, its registries of leaderboards kept whole. An index one process owns
    (``index.memory``) has none: it starts empty and is built at start.

    The service hands it to whoever needs it (the keeper, maintenance) beside the
    ``RankingIndex`` it goes with; the same server's ``BoardVersions`` go to the board
    registry."""

    url: str
    """Where the shared index lives (its change feed uses the same server)."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """Raise ``IndexUnavailable`` when the index cannot be reached."""

    @abc.abstractmethod
    async def is_built(self) -> bool:
        """Whether the index holds every standing."""

    @abc.abstractmethod
    async def mark_built(self) -> None: ...

    @abc.abstractmethod
    def rebuild_lock(self) -> AbstractAsyncContextManager[bool]:
        """Try to become the one process rebuilding; yields whether this one is."""

    @abc.abstractmethod
    async def extend_rebuild_lock(self) -> None: ...

    @abc.abstractmethod
    async def register(self, leaderboards: Sequence[LeaderboardId]) -> None:
        """Make sure ``leaderboards`` are listed by ``RankingIndex.leaderboards`` (the index
        keeps a registry that could be lost)."""

    @abc.abstractmethod
    async def registered(self, leaderboard: LeaderboardId) -> bool:
        """Whether the registry lists the leaderboard (see ``register``)."""

    @abc.abstractmethod
    async def repair_begin(self, leaderboard: LeaderboardId, token: str, lease_ms: int) -> bool:
        """Claim the repair of a damaged leaderboard and empty it; False when another
        process holds the claim."""

    @abc.abstractmethod
    async def repair_extend(
        self, leaderboard: LeaderboardId, token: str, lease_ms: int
    ) -> bool: ...

    @abc.abstractmethod
    async def repair_end(self, leaderboard: LeaderboardId, token: str) -> bool: ...

    @abc.abstractmethod
    async def state(self, leaderboard: LeaderboardId) -> LeaderboardState | None:
        """The leaderboard's integrity as the index keeps it (None: nothing to inspect)."""

    async def intact(self, leaderboard: LeaderboardId) -> bool:
        """Whether the leaderboard is whole (no key lost, no repair under way)."""
        state = await self.state(leaderboard)
        return state is None or state.intact

    @abc.abstractmethod
    async def unmapped(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> list[SortKey]:
        """Those of ``keys`` (entries of the leaderboard) its player map does not point at."""


__all__ = [
    "PLAIN",
    "UNKNOWN",
    "BoardShapes",
    "BoardVersions",
    "IndexReader",
    "IndexRow",
    "IndexWriter",
    "LeaderboardState",
    "RankingIndex",
    "Shapes",
    "SharedIndex",
]
