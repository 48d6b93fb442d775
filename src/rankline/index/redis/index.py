"""The Redis ranking index: per leaderboard, one byte-ordered sorted set and a player map
spread over small hashes (``rankline.index.redis.keys`` draws the layout).

Every member of the sorted set sits at score 0, so Redis orders members by their bytes,
which are the ordering key (``rankline.ordering``): 64-bit scores stay exact, ties resolve
by time then player id. The player map holds, per player, the 16-byte head of their key and
the standing's revision, so an update finds the member to replace, and refuses an older
revision, in the same script. It is split into buckets of a few dozen players by linear
hashing: each bucket stays a listpack-encoded hash, about 30 bytes a player instead of ~80
in one big hash, and the buckets split one at a time as the leaderboard grows.

A bulk ``load`` sorts each batch by key (inserting in key order costs the sorted set about
a third of random order) and sends it in scripts of 2,000 entries, the next prepared while
Redis runs the last: per entry one HGET from the bucket computed here (and an HSET for a
new or newer standing: a batch spreads over so many buckets that multi-field writes would
group nothing), per script a few multi-member ZADDs; the newer revision wins. ``reserve``
sizes the buckets of an empty leaderboard up front, so that a load of known size moves no
entry between buckets.

A rebuild goes through ``fill``, which takes an empty leaderboard much faster (Redis time
per entry ~3x lower) and falls back to ``load`` when it must; that fast path lives in
``rankline.index.redis.fill``, and what both modules share (key names, error mapping) in
``rankline.index.redis.common``.

Integrity (``rankline.index.redis.scripts`` explains the counts, the damage mark and the bucket
sentinels): every read checks, in its own round trip, that the leaderboard's keys agree and
that the index is built; otherwise it raises ``IndexDamaged`` (that leaderboard: the caller
reads SQL and has it repaired: ``lifecycle.RedisLifecycle``) or ``IndexUnavailable`` (the
index was lost). The built marker, the rebuild lock and the repairs are the lifecycle's.

redis-py errors never leave these modules: they become ``IndexUnavailable``
(``common.mapped``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from itertools import islice
from operator import itemgetter
from typing import Any

from redis import asyncio as aioredis
from redis.commands.core import AsyncScript

from rankline.errors import IndexDamaged, IndexUnavailable
from rankline.index.base import PLAIN, UNKNOWN, BoardShapes, IndexRow, RankingIndex
from rankline.index.redis import keys as k
from rankline.index.redis import scripts
from rankline.index.redis.common import ARG_CHUNK, Names, mapped
from rankline.index.redis.fill import Filler
from rankline.index.redis.link import RedisLink
from rankline.index.redis.pipelining import raise_first, run_scripts
from rankline.types import (
    BoardId,
    IndexChange,
    LeaderboardId,
    Movement,
    PlayerId,
    Position,
    SortKey,
)

_LOAD_BATCH = 50_000
"""Entries ``load`` sorts and groups at a time."""
_LOAD_SCRIPT = 2_000
"""Entries per LOAD script: each holds Redis for a few ms."""
_GROW_SPLITS = 4096
_GROW_MOVED = 4096
"""Limits of one GROW call: splitting empty buckets is cheap, moving entries is not."""
_BUCKET_CHUNK = 4096
"""Buckets per EXPIRE_BUCKETS call, or per UNLINK when dropping."""
_LOST = "the index was lost (Redis restarted or flushed)"


_NO_LAYOUT = (0, 0)


def _guess(layout: tuple[int, int], player: PlayerId) -> tuple[int, int]:
    """The bucket ``layout`` puts ``player`` in, and its bucket hash: what the read scripts
    try first (a wrong guess costs them one more HGET)."""
    hashed = k.bucket_hash(player.encode())
    return k.bucket_number(hashed, *layout), hashed


def _checked(leaderboard: LeaderboardId, code: int) -> None:
    """Raise for a read's DAMAGED or LOST answer."""
    if code == scripts.DAMAGED:
        raise IndexDamaged(leaderboard)
    if code == scripts.LOST:
        raise IndexUnavailable(_LOST)


def _triples(
    changes: Iterable[tuple[PlayerId, SortKey | None, int, bool]], head: int
) -> list[bytes | int | str]:
    """APPLY's triples; a restored entry's revision ends with ``r`` (see ``IndexChange``)."""
    args: list[bytes | int | str] = []
    for player, key, revision, restored in changes:
        args += [
            player,
            b"" if key is None else key[:head],
            f"{revision}r" if restored else revision,
        ]
    return args


def _load_args(
    prefix: str, level: int, split: int, entries: list[IndexRow], head: int
) -> list[Any]:
    """ARGV of one LOAD script (see ``lua/load.lua``) for entries in key order; the key's
    tail (after its ``head`` bytes) is the player id."""
    numbers = [k.bucket_number(k.bucket_hash(key[head:]), level, split) for _, key, _ in entries]
    return [
        level,
        split,
        prefix,
        b"\xff".join([key for _, key, _ in entries]),
        " ".join([str(revision) for _, _, revision in entries]),
        " ".join(map(str, numbers)),
        head,
    ]


async def _unless_stale(task: asyncio.Task[Any], part: list[IndexRow]) -> list[IndexRow]:
    """The entries to send again: those of a LOAD script that found the layout changed."""
    return part if int(await task) < 0 else []


class RedisIndex(RankingIndex):
    """``RankingIndex`` in Redis; shared by every worker process."""

    def __init__(self, link: RedisLink, shapes: BoardShapes = PLAIN) -> None:
        super().__init__(shapes)
        self.link = link
        self.client: aioredis.Redis = link.client
        script = link.script
        self._apply = script("apply")
        self._grow = script("grow")
        self._load = script("load")
        self._around = script("around")
        self._positions = script("positions")
        self._page = script("page")
        self._counts_before = script("counts_before")
        self._distinct_before = script("distinct_before")
        self._neighbours = script("neighbours")
        self._top_stamp = script("top_stamp")
        self._change_stamp = script("change_stamp")
        self._movement = script("movement")
        self._discard = script("discard")
        self._expire = script("expire")
        self._expire_buckets = script("expire_buckets")
        self._drop = script("drop")
        self._grouped = link.grouped
        self._layouts = link.layouts
        self._filler = Filler(self)

    async def start(self) -> None:
        await self.link.start()

    async def close(self) -> None:
        await self.link.close()

    # --- writes -------------------------------------------------------------------------------

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        grouped: dict[LeaderboardId, list[tuple[PlayerId, SortKey | None, int, bool]]] = {}
        for leaderboard, player, key, revision, restored in changes:
            grouped.setdefault(leaderboard, []).append((player, key, revision, restored))
        calls: list[tuple[Any, ...]] = []
        registry: list[tuple[Any, ...]] = []
        for leaderboard, items in grouped.items():
            names, head = Names.of(leaderboard), self.shapes.head_of(leaderboard.board)
            for player, key, *_ in items:
                if key is not None:  # the change's own key says its head: no lookup to trust
                    head = len(key) - len(player.encode())
                    break
            for start in range(0, len(items), ARG_CHUNK):
                args = [names.buckets, *_triples(items[start : start + ARG_CHUNK], head), head]
                keys = names.changes(self.dense(leaderboard))
                calls.append((self._apply, tuple(keys), tuple(args)))
            registry.append(("SADD", k.registry(leaderboard.board), k.tag(leaderboard)))
        async with mapped():
            # APPLY is revision-guarded, so sending it again after NOSCRIPT is harmless
            raise_first(await run_scripts(self.client, calls, registry))

    async def reserve(self, leaderboard: LeaderboardId, size: int) -> None:
        """Make room for ``size`` entries before loading them: on an empty leaderboard this
        only sets the layout, where growing during the load would move entries."""
        async with mapped():
            await self._grow_to(Names.of(leaderboard), size, 0)

    async def _grow_to(self, names: Names, size: int, extra: int) -> tuple[int, int]:
        """Split buckets until they fit max(size, entries held + extra); the layout."""
        while True:
            args: list[str | int] = [names.buckets, size, extra, _GROW_SPLITS, _GROW_MOVED]
            level, split, more = await self._grow(keys=names.reads, args=args)
            if not more:
                return int(level), int(split)

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        names = Names.of(leaderboard)
        iterator = iter(entries)
        async with mapped():
            while batch := sorted(islice(iterator, _LOAD_BATCH), key=itemgetter(1)):
                await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
                player, key, _ = batch[0]
                head = len(key) - len(player.encode())  # the key less its player id
                while batch:
                    level, split = await self._grow_to(names, 0, len(batch))
                    batch = await self._load_batch(
                        names, level, split, batch, head, self.dense(leaderboard)
                    )

    async def _load_batch(
        self,
        names: Names,
        level: int,
        split: int,
        batch: list[IndexRow],
        head: int,
        dense: bool,
    ) -> list[IndexRow]:
        """Send ``batch`` in LOAD scripts, the next one prepared while Redis runs the last;
        returns the entries of the scripts that found the layout changed (to retry)."""
        retry: list[IndexRow] = []
        sent: list[tuple[asyncio.Task[Any], list[IndexRow]]] = []
        try:
            for start in range(0, len(batch), _LOAD_SCRIPT):
                part = batch[start : start + _LOAD_SCRIPT]
                args = _load_args(names.buckets, level, split, part, head)
                keys = names.changes(dense)
                sent.append((asyncio.create_task(self._load(keys=keys, args=args)), part))
                await asyncio.sleep(0)  # let it pack and send before preparing the next
                if len(sent) > 1:
                    retry += await _unless_stale(*sent.pop(0))
            while sent:
                retry += await _unless_stale(*sent.pop(0))
        finally:
            for task, _ in sent:
                task.cancel()
            await asyncio.gather(*(task for task, _ in sent), return_exceptions=True)
        return retry

    def fill(
        self,
        leaderboard: LeaderboardId,
        size: int,
        chunks: AsyncIterable[list[tuple[PlayerId, SortKey, int]]],
    ) -> AsyncIterator[int]:
        """Load a leaderboard from ``chunks`` (about ``size`` entries, each player once);
        yields each chunk's length as it takes it, for progress. An empty leaderboard is
        claimed, sized up front (``reserve``) and filled by the fast path
        (``rankline.index.redis.fill``), several times faster than ``load``; a leaderboard
        that holds entries, has an expiry, or that another process changes meanwhile, is
        loaded (or from then on) with ``load``'s revision checks, so the outcome is the
        same either way. A leaderboard that keeps its distinct scores (dense ranks) is
        always loaded with ``load``, whose scripts keep them."""
        if self.dense(leaderboard):
            return super().fill(leaderboard, size, chunks)
        return self._filler.fill(leaderboard, size, chunks)

    async def discard(self, leaderboard: LeaderboardId, keys_: Sequence[SortKey]) -> None:
        names, head = Names.of(leaderboard), self.shapes.head_of(leaderboard.board)
        async with mapped():
            for start in range(0, len(keys_), ARG_CHUNK):
                args: list[Any] = [names.buckets, *keys_[start : start + ARG_CHUNK], head]
                await self._discard(keys=names.changes(self.dense(leaderboard)), args=args)

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        """Delete each leaderboard: its keys and first buckets in one script, so that a
        write arriving meanwhile starts afresh, then the remaining buckets."""
        if not leaderboards:
            return
        async with mapped():
            async with self.client.pipeline(transaction=False) as pipe:
                for leaderboard in leaderboards:
                    names = Names.of(leaderboard)
                    self._layouts.pop(names.meta, None)
                    await self._drop(
                        keys=names.every, args=[names.buckets, _BUCKET_CHUNK], client=pipe
                    )
                    pipe.srem(k.registry(leaderboard.board), k.tag(leaderboard))
                replies = await pipe.execute()
            async with self.client.pipeline(transaction=False) as pipe:
                for leaderboard, buckets in zip(leaderboards, replies[::2], strict=True):
                    prefix = k.bucket_prefix(leaderboard)
                    for start in range(_BUCKET_CHUNK, int(buckets), _BUCKET_CHUNK):
                        stop = min(int(buckets), start + _BUCKET_CHUNK)
                        pipe.unlink(*(f"{prefix}{n}" for n in range(start, stop)))
                await pipe.execute()

    async def expire_in(self, leaderboard: LeaderboardId, micros: int) -> None:
        """Let Redis drop a period's keys when its retention ends (relative, so that the
        service's clock, not Redis's, decides). The time is recorded in the layout hash, so
        buckets created later expire with the rest; setting the same time again is cheap."""
        names = Names.of(leaderboard)
        async with mapped():
            at, buckets = await self._expire(
                keys=names.every, args=[names.buckets, max(1, micros // 1000)]
            )
            async with self.client.pipeline(transaction=False) as pipe:
                for start in range(0, int(buckets), _BUCKET_CHUNK):
                    stop = min(int(buckets), start + _BUCKET_CHUNK)
                    args = [names.buckets, at, start, stop]
                    await self._expire_buckets(keys=[names.entries], args=args, client=pipe)
                await pipe.execute()

    # --- reads --------------------------------------------------------------------------------

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        found = await self._around_call(leaderboard, player, -1)
        return None if found is None else found[0]

    async def _around_call(
        self, leaderboard: LeaderboardId, player: PlayerId, k_: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        names = Names.of(leaderboard)
        layout = self._layout(names)
        guess, hashed = _guess(layout, player)
        async with mapped():
            reply = await self._grouped.call(
                self._around,
                names.checked,
                [names.buckets, player, k_, guess, hashed, self.shapes.head_of(leaderboard.board)],
            )
        if reply[1] >= 0:
            self._learn(names, layout, reply[1], reply[2])
        if reply[0] < 0:
            _checked(leaderboard, reply[0])
            return None
        position = Position(int(reply[0]), bytes(reply[3]), int(reply[4]), int(reply[5]))
        if k_ < 0:
            return position, position.offset, []
        return position, int(reply[6]), [bytes(x) for x in reply[7:]]

    def _layout(self, names: Names) -> tuple[int, int]:
        """The leaderboard's bucket layout (level, split) last seen, for the reads' guesses:
        one cache lookup per read, however many players it asks for."""
        return self._layouts.get(names.meta, _NO_LAYOUT)

    def _learn(self, names: Names, seen: tuple[int, int], level: int, split: int) -> None:
        """Remember the layout a read's script reported, when it differs from the one the
        read guessed with (which the lookup already marked as recently used)."""
        if (level, split) != seen:
            self._layouts[names.meta] = (level, split)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        unique = list(dict.fromkeys(players))
        if not unique:
            return []
        names = Names.of(leaderboard)
        layout = self._layout(names)
        args: list[Any] = []
        for player in unique:
            args += (player, *_guess(layout, player))
        head = self.shapes.head_of(leaderboard.board)
        calls = [
            (
                self._positions,
                tuple(names.checked),
                (names.buckets, *args[i : i + 3 * ARG_CHUNK], head),
            )
            for i in range(0, len(args), 3 * ARG_CHUNK)
        ]
        async with mapped():
            replies = raise_first(await self._grouped.run(calls))
        found: list[tuple[int, SortKey]] = []
        for reply in replies:
            if len(reply) == 1:
                _checked(leaderboard, reply[0])
            if reply[-2] >= 0:
                self._learn(names, layout, reply[-2], reply[-1])
                layout = (reply[-2], reply[-1])
            found += [(int(reply[i]), bytes(reply[i + 1])) for i in range(0, len(reply) - 2, 2)]
        found.sort()
        return found

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        return await self._page_call(leaderboard, start, stop, "")

    async def _page_call(
        self, leaderboard: LeaderboardId, start: int, stop: int, mode: str
    ) -> tuple[int, list[SortKey]]:
        async with mapped():
            keys = Names.of(leaderboard).checked
            reply = await self._page(keys=keys, args=[start, stop, mode])
        if int(reply[0]) < 0:
            _checked(leaderboard, int(reply[0]))
        return int(reply[0]), [bytes(x) for x in reply[1:]]

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        """The keys held, whatever the leaderboard's state (for ``verify``)."""
        return (await self._page_call(leaderboard, start, stop, "raw"))[1]

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        return await self._around_call(leaderboard, player, k)

    async def total(self, leaderboard: LeaderboardId) -> int:
        return (await self.page(leaderboard, 0, 0))[0]

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        keys = Names.of(leaderboard).checked
        return await self._counts(leaderboard, self._counts_before, keys, bounds)

    async def _counts(
        self,
        leaderboard: LeaderboardId,
        script: AsyncScript,
        keys: Sequence[str],
        bounds: Sequence[bytes],
    ) -> tuple[int, list[int]]:
        """COUNTS_BEFORE (or DISTINCT_BEFORE) on ``keys``, a chunk of bounds at a time."""
        calls = [
            (script, tuple(keys), tuple(bounds[i : i + ARG_CHUNK]))
            for i in range(0, max(1, len(bounds)), ARG_CHUNK)
        ]
        async with mapped():
            if len(calls) == 1:  # the usual case: grouped with the other small reads
                replies = [await self._grouped.call(*calls[0])]
            else:
                replies = raise_first(await self._grouped.run(calls))
        total, counts = 0, []
        for reply in replies:
            total = int(reply[0])
            if total < 0:
                _checked(leaderboard, total)
            counts += [int(x) for x in reply[1:]]
        return total, counts

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        names = Names.of(leaderboard)
        keys = [*names.writes, names.distinct]
        return (await self._counts(leaderboard, self._distinct_before, keys, prefixes))[1]

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        async with mapped():  # grouped: through redis-py, an HGET cost more than the rank
            found = await self._grouped.call(
                self._movement, [Names.of(leaderboard).moves], [player]
            )
        if found is None:
            return UNKNOWN
        record = found.encode() if isinstance(found, str) else found
        previous, _, best = record.partition(b":")
        return Movement(int(previous) if previous else None, int(best) if best else None)

    async def distinct_scores(self, leaderboard: LeaderboardId) -> list[bytes]:
        async with mapped():
            found = await self.client.zrange(Names.of(leaderboard).distinct, 0, -1)
        return [x if isinstance(x, bytes) else str(x).encode() for x in found]

    async def neighbours(
        self, leaderboard: LeaderboardId, key: bytes, before: int, after: int
    ) -> tuple[list[SortKey], list[SortKey]]:
        keys = Names.of(leaderboard).checked
        async with mapped():
            reply = await self._grouped.call(
                self._neighbours, keys, (key, max(0, before), max(0, after))
            )
        if int(reply[0]) < 0:
            _checked(leaderboard, int(reply[0]))
        found = [bytes(x) for x in reply[2:]]
        split = int(reply[1])
        return found[:split], found[split:]

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        async with mapped():
            keys = Names.of(leaderboard).checked
            stamp, total = await self._grouped.call(self._top_stamp, keys, ())
        if int(total) < 0:
            _checked(leaderboard, int(total))
        return int(stamp), int(total)

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        async with mapped():
            keys = Names.of(leaderboard).checked
            stamp = int(await self._grouped.call(self._change_stamp, keys, ()))
        if stamp < 0:
            _checked(leaderboard, stamp)
        return stamp

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with mapped():
            tags = sorted(await self.client.smembers(k.registry(board)))
            found = [k.from_tag(t.decode() if isinstance(t, bytes) else t) for t in tags]
            async with self.client.pipeline(transaction=False) as pipe:
                for leaderboard in found:
                    pipe.exists(k.entries(leaderboard))
                alive = await pipe.execute()
        return [lb for lb, exists in zip(found, alive, strict=True) if exists]
