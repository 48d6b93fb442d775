"""Sharded leaderboards: one leaderboard split by player over several of the index's own.

``ShardedIndex`` wraps a ``RankingIndex``. A board whose definition says ``"shards": S``
(``shards_of(board)``, from the board registry) keeps each of its leaderboards as ``S``
leaderboards of the index underneath (``index.sharding`` names them; on a Redis Cluster
each sits on its own slot range, so on its own primary), a player on shard
``crc32(player) mod S``. Every read keeps its exact meaning, made of per-shard reads that
are each O(log N + k) (``RankingIndex.counts_before`` and ``neighbours``) and are sent
together (``asyncio.gather``: on Redis they share one pipeline, on a cluster one round per
node):

- a player's position: their key from their shard, then on every other shard the count of
  keys before it and of strictly better scores (the 8-byte score prefix); the total is the
  shards' totals added up;
- positions of many players (friends, bulk ranks): each shard finds its players, then one
  ``counts_before`` per shard gives every found key's offset;
- top pages: a k-way merge (``heapq.merge``) of each shard's first keys, fetched in
  growing chunks until no shard can hold a key before the page's last one; deep pages:
  each shard's share of the entries before the page is found by a binary search run on
  every shard at once (a probe key's global offset is one ``counts_before`` per shard), so
  O(S log N) per round and log N rounds, never a scan of the offset; then the same merge;
- around a player: their position, then ``k`` keys before and ``k + 1`` from their key on
  every shard, merged, the ``k`` nearest kept on each side.

Stamps: a sharded leaderboard's change (top) stamp is the sum of its shards' stamps. Each
shard's stamp moves up with each of its changes and never comes back to an earlier value
(``IndexReader``), so the sum moves up with every change of any shard and never repeats
(a maximum would miss a change on a shard whose stamp is not the largest). A global top
entry is within its own shard's top window, so a change that may touch the global top
moves that shard's top stamp. A negative stamp (do not cache) stays negative.

A damaged shard is the whole leaderboard's damage: ``IndexDamaged`` names the unsharded
leaderboard, whose repair (``repair_begin``, a fill, ``repair_end``) takes every shard in
shard order (so two workers never hold parts of one repair each). Boards of one shard (the
default) go straight to the index underneath, with no added work.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Sequence,
)
from contextlib import contextmanager
from typing import Any, TypeVar

from rankline.errors import IndexDamaged
from rankline.index.base import UNKNOWN, IndexRow, RankingIndex
from rankline.index.sharding import player_shard, shard, shards_of, split_keys, unsharded
from rankline.ordering import value_bytes
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

T = TypeVar("T")
_DIRECT_UNTIL = 5_000
"""Pages starting before this offset merge the shards' keys from their first; deeper ones
find each shard's starting offset first (``_split``)."""
_FIRST_CHUNK = 16
"""Keys fetched from each shard beyond its even share of a merged page."""


@contextmanager
def _whole(leaderboard: LeaderboardId) -> Iterator[None]:
    """A damaged shard is its leaderboard's damage: the keeper repairs every shard."""
    try:
        yield
    except IndexDamaged as exc:
        if exc.leaderboard != leaderboard:
            raise IndexDamaged(leaderboard) from exc
        raise


class ShardedIndex(RankingIndex):
    """A ``RankingIndex`` whose leaderboards are split over ``shards_of(board)`` shards of
    ``inner``'s (see the module's doc)."""

    def __init__(
        self,
        inner: RankingIndex,
        shards_of: Callable[[BoardId], int],
        *,
        direct_until: int = _DIRECT_UNTIL,
        first_chunk: int = _FIRST_CHUNK,
    ) -> None:
        super().__init__(inner.shapes)
        self.inner = inner
        self._shards_of = shards_of
        self._direct_until = direct_until
        self._first_chunk = first_chunk
        self.loads_whole = inner.loads_whole

    def shards(self, leaderboard: LeaderboardId) -> list[LeaderboardId]:
        """The leaderboards of ``inner`` that hold ``leaderboard`` (itself when unsharded)."""
        return shards_of(leaderboard, self._shards_of(leaderboard.board))

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        await self.inner.close()

    # --- reads ------------------------------------------------------------------------------
    # Each returns the inner index's own coroutine for a board of one shard: no extra frame.

    def position(
        self, leaderboard: LeaderboardId, player: PlayerId
    ) -> Coroutine[Any, Any, Position | None]:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            return self.inner.position(leaderboard, player)
        return self._around(leaderboard, player, shards, -1)

    def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> Coroutine[Any, Any, tuple[Position, int, list[SortKey]] | None]:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            return self.inner.around(leaderboard, player, k)
        return self._around(leaderboard, player, shards, max(0, k))

    def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> Coroutine[Any, Any, list[tuple[int, SortKey]]]:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            return self.inner.positions(leaderboard, players)
        return self._positions(leaderboard, players, shards)

    def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> Coroutine[Any, Any, tuple[int, list[SortKey]]]:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            return self.inner.page(leaderboard, start, stop)
        return self._page(leaderboard, start, stop)

    def slice(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> Coroutine[Any, Any, list[SortKey]]:
        if self._shards_of(leaderboard.board) == 1:
            return self.inner.slice(leaderboard, start, stop)
        return self._slice(leaderboard, start, stop)

    def total(self, leaderboard: LeaderboardId) -> Coroutine[Any, Any, int]:
        if self._shards_of(leaderboard.board) == 1:
            return self.inner.total(leaderboard)
        return self._total(leaderboard)

    def top_stamp(self, leaderboard: LeaderboardId) -> Coroutine[Any, Any, tuple[int, int]]:
        if self._shards_of(leaderboard.board) == 1:
            return self.inner.top_stamp(leaderboard)
        return self._top_stamp(leaderboard)

    def change_stamp(self, leaderboard: LeaderboardId) -> Coroutine[Any, Any, int]:
        if self._shards_of(leaderboard.board) == 1:
            return self.inner.change_stamp(leaderboard)
        return self._change_stamp(leaderboard)

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        names = self.shards(leaderboard)
        with _whole(leaderboard):
            replies = await asyncio.gather(*(self.inner.counts_before(n, bounds) for n in names))
        return sum(t for t, _ in replies), [
            sum(c) for c in zip(*(c for _, c in replies), strict=True)
        ]

    async def neighbours(
        self, leaderboard: LeaderboardId, key: bytes, before: int, after: int
    ) -> tuple[list[SortKey], list[SortKey]]:
        names = self.shards(leaderboard)
        with _whole(leaderboard):
            replies = await asyncio.gather(
                *(self.inner.neighbours(n, key, before, after) for n in names)
            )
        below = list(heapq.merge(*(b for b, _ in replies)))
        above = list(heapq.merge(*(a for _, a in replies)))
        return (below[len(below) - before :] if before > 0 else []), above[: max(0, after)]

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        found = await self.inner.leaderboards(board)
        return list(dict.fromkeys(unsharded(lb) for lb in found))

    async def _around(
        self, leaderboard: LeaderboardId, player: PlayerId, shards: int, k: int
    ) -> Any:
        """The player's position (k < 0), or what ``around`` answers."""
        names = shards_of(leaderboard, shards)
        home = player_shard(player, shards)
        inner = self.inner
        with _whole(leaderboard):
            found = await inner.position(names[home], player)
            if found is None:
                return None
            key = found.key
            bounds = [key, key[: value_bytes(self.shapes.head_of(leaderboard.board))]]
            others = [n for i, n in enumerate(names) if i != home]
            reads: list[Coroutine[Any, Any, Any]] = [inner.counts_before(n, bounds) for n in others]
            if k >= 0:
                reads += [inner.neighbours(n, key, k, k + 1) for n in names]
            replies = await asyncio.gather(*reads)
        counts = replies[: len(others)]
        position = Position(
            found.offset + sum(c[1][0] for c in counts),
            key,
            found.total + sum(c[0] for c in counts),
            found.better + sum(c[1][1] for c in counts),
        )
        if k < 0:
            return position
        near = replies[len(others) :]
        below = list(heapq.merge(*(b for b, _ in near)))[-k:] if k > 0 else []
        above = list(heapq.merge(*(a for _, a in near)))[: k + 1]
        return position, position.offset - len(below), below + above

    async def _positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId], shards: int
    ) -> list[tuple[int, SortKey]]:
        names = shards_of(leaderboard, shards)
        groups: dict[int, list[PlayerId]] = {}
        for player in dict.fromkeys(players):
            groups.setdefault(player_shard(player, shards), []).append(player)
        if not groups:
            return []
        with _whole(leaderboard):
            found = await asyncio.gather(
                *(self.inner.positions(names[i], group) for i, group in groups.items())
            )
            keys = sorted(key for part in found for _, key in part)
            if not keys:
                return []
            counts = await asyncio.gather(*(self.inner.counts_before(n, keys) for n in names))
        offsets = [sum(column) for column in zip(*(c for _, c in counts), strict=True)]
        return list(zip(offsets, keys, strict=True))

    async def _total(self, leaderboard: LeaderboardId) -> int:
        with _whole(leaderboard):
            totals = await asyncio.gather(*(self.inner.total(n) for n in self.shards(leaderboard)))
        return sum(totals)

    async def _top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        with _whole(leaderboard):
            replies = await asyncio.gather(
                *(self.inner.top_stamp(n) for n in self.shards(leaderboard))
            )
        return _combined([s for s, _ in replies]), sum(t for _, t in replies)

    async def _change_stamp(self, leaderboard: LeaderboardId) -> int:
        with _whole(leaderboard):
            stamps = await asyncio.gather(
                *(self.inner.change_stamp(n) for n in self.shards(leaderboard))
            )
        return _combined(stamps)

    async def _page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        names = self.shards(leaderboard)
        start = max(0, start)
        with _whole(leaderboard):
            if stop <= start:
                return await self._total(leaderboard), []
            if start < self._direct_until:
                total, keys = await self._merged(names, [0] * len(names), stop)
                return total, keys[start:stop]
            lows = await self._split(names, start)
            return await self._merged(names, lows, stop - start)

    async def _slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        """The keys held, as ``verify`` reads them: from a damaged shard too (then by a
        plain merge of every shard's first ``stop`` keys)."""
        try:
            return (await self._page(leaderboard, start, stop))[1]
        except IndexDamaged:
            names = self.shards(leaderboard)
            parts = await asyncio.gather(*(self.inner.slice(n, 0, stop) for n in names))
            return list(heapq.merge(*parts))[start:stop]

    async def _merged(
        self, names: list[LeaderboardId], lows: list[int], need: int
    ) -> tuple[int, list[SortKey]]:
        """The shards' total and the first ``need`` keys of the shards' keys from ``lows``
        on, merged: each shard is read in growing chunks until none left unread could come
        before the ``need``-th key."""
        count = len(names)
        sizes = [min(need, need // count + self._first_chunk)] * count
        offsets = list(lows)
        held: list[list[SortKey]] = [[] for _ in names]
        totals = [0] * count
        more = list(range(count))
        merged: list[SortKey] = []
        while more:
            replies = await asyncio.gather(
                *(self.inner.page(names[i], offsets[i], offsets[i] + sizes[i]) for i in more)
            )
            ended: set[int] = set()
            for i, (total, keys) in zip(more, replies, strict=True):
                totals[i] = total
                held[i] += keys
                offsets[i] += len(keys)
                if len(keys) < sizes[i]:
                    ended.add(i)
                sizes[i] = min(need, sizes[i] * 2)
            merged = list(heapq.merge(*held))
            edge = merged[need - 1] if len(merged) >= need else None
            more = [
                i
                for i in more
                if i not in ended and held[i] and (edge is None or held[i][-1] < edge)
            ]
        return sum(totals), merged[:need]

    async def _split(self, names: list[LeaderboardId], start: int) -> list[int]:
        """For each shard, how many of its keys are among the leaderboard's first ``start``:
        a binary search on every shard at once. A probe (a shard's key at the middle of its
        window) is among the first ``start`` when fewer than ``start`` keys of all shards
        come before it; each round halves every window."""
        sizes = await asyncio.gather(*(self.inner.total(n) for n in names))
        everything = sum(sizes)
        low = [max(0, start - (everything - n)) for n in sizes]
        high = [min(n, start) for n in sizes]
        while active := [i for i in range(len(names)) if low[i] < high[i]]:
            middle = {i: (low[i] + high[i]) // 2 for i in active}
            probes = await asyncio.gather(
                *(self.inner.page(names[i], middle[i], middle[i] + 1) for i in active)
            )
            keys = {i: found[0] for i, (_, found) in zip(active, probes, strict=True) if found}
            for i in active:
                if i not in keys:  # the shard shrank meanwhile
                    high[i] = middle[i]
            if not keys:
                continue
            bounds = list(keys.values())
            counts = await asyncio.gather(*(self.inner.counts_before(n, bounds) for n in names))
            for j, i in enumerate(keys):
                if sum(c[j] for _, c in counts) < start:
                    low[i] = middle[i] + 1
                else:
                    high[i] = middle[i]
        return low

    # --- writes -----------------------------------------------------------------------------

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        shards_of_board = self._shards_of
        counts: dict[BoardId, int] = {}
        routed: list[IndexChange] | None = None
        for i, change in enumerate(changes):
            board = change.leaderboard.board
            shards = counts.get(board)
            if shards is None:
                shards = counts[board] = shards_of_board(board)
            if shards > 1:
                if routed is None:
                    routed = list(changes[:i])
                number = player_shard(change.player, shards)
                routed.append(
                    change._replace(leaderboard=shard(change.leaderboard, number, shards))
                )
            elif routed is not None:
                routed.append(change)
        await self.inner.apply(changes if routed is None else routed)

    async def load(self, leaderboard: LeaderboardId, entries: Iterable[IndexRow]) -> None:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            await self.inner.load(leaderboard, entries)
            return
        names = shards_of(leaderboard, shards)
        parts: list[list[IndexRow]] = [[] for _ in names]
        for entry in entries:
            parts[player_shard(entry[0], shards)].append(entry)
        await asyncio.gather(
            *(self.inner.load(n, p) for n, p in zip(names, parts, strict=True) if p)
        )

    async def fill(
        self, leaderboard: LeaderboardId, size: int, chunks: AsyncIterable[list[IndexRow]]
    ) -> AsyncIterator[int]:
        """Each chunk split over the shards, loaded on all of them at once (revision-
        checked, as ``load``)."""
        fill = (
            self.inner.fill(leaderboard, size, chunks)
            if self._shards_of(leaderboard.board) == 1
            else super().fill(leaderboard, size, chunks)  # chunk by chunk through ``load``
        )
        async for count in fill:
            yield count

    async def load_keys(
        self,
        leaderboard: LeaderboardId,
        keys: Sequence[SortKey],
        hashes: Iterable[int] | None = None,
    ) -> None:
        shards = self._shards_of(leaderboard.board)
        if shards == 1:
            await self.inner.load_keys(leaderboard, keys, hashes)
            return
        names = shards_of(leaderboard, shards)
        parts: list[list[SortKey]] = [[] for _ in names]
        hashed: list[list[int]] = [[] for _ in names]
        given = iter(hashes) if hashes is not None else None
        head = self.shapes.head_of(leaderboard.board)
        for key in keys:
            number = player_shard(key[head:], shards)
            parts[number].append(key)
            if given is not None:
                hashed[number].append(next(given))
        for name, part, hs in zip(names, parts, hashed, strict=True):
            if part:
                await self.inner.load_keys(name, part, hs if given is not None else None)

    async def discard(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> None:
        names = self.shards(leaderboard)
        if len(names) == 1:
            await self.inner.discard(leaderboard, keys)
            return
        parts = split_keys(keys, len(names), self.shapes.head_of(leaderboard.board))
        await asyncio.gather(
            *(self.inner.discard(n, p) for n, p in zip(names, parts, strict=True) if p)
        )

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        """Drop each leaderboard with every shard of it: those its board's definition names,
        and any the index holds (a deleted board's definition is gone already)."""
        if not leaderboards:
            return
        wanted = set(leaderboards)
        names: dict[LeaderboardId, None] = {}
        for board in dict.fromkeys(lb.board for lb in leaderboards):
            for held in await self.inner.leaderboards(board):
                if unsharded(held) in wanted:
                    names[held] = None
        for leaderboard in leaderboards:
            names[leaderboard] = None
            for name in self.shards(leaderboard):
                names[name] = None
        await self.inner.drop(list(names))

    async def expire_in(self, leaderboard: LeaderboardId, micros: Micros) -> None:
        names = self.shards(leaderboard)
        await asyncio.gather(*(self.inner.expire_in(n, micros) for n in names))

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        """Kept for a board of one shard only: a shard's ranks are not the leaderboard's."""
        if self._shards_of(leaderboard.board) == 1:
            return await self.inner.movement(leaderboard, player)
        return UNKNOWN

    # Dense ranks: a board that keeps them has one shard (``Board.define`` refuses more),
    # so these go straight to the index underneath.

    def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> Coroutine[Any, Any, list[int]]:
        assert self._shards_of(leaderboard.board) == 1, "dense ranks on a sharded board"
        return self.inner.distinct_before(leaderboard, prefixes)

    async def distinct_scores(self, leaderboard: LeaderboardId) -> list[bytes]:
        return await self.inner.distinct_scores(leaderboard)


def _combined(stamps: Sequence[int]) -> int:
    """The stamps of a leaderboard's shards as one (see the module's doc)."""
    negative = [s for s in stamps if s < 0]
    return min(negative) if negative else sum(stamps)


__all__ = ["ShardedIndex"]
