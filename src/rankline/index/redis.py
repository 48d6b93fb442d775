"""The Redis ranking index: per leaderboard, one byte-ordered sorted set and a player map
spread over small hashes (``rankline.index.keys`` draws the layout).

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
per entry ~3x lower): it claims it, reserves its size, sends the keys as they come (in rank
order, so each lands next to the last) and holds the player-map fields grouped by bucket,
to write them with one HSET per bucket. Any other process's change to the leaderboard
breaks the claim, and the fill falls back to ``load`` for what it had not finished
(``scripts.FILL_BEGIN``); a claim a dead process left makes the next fill start afresh.

Layout versions: ``keys.LAYOUT`` is stored beside the built marker. An index built with
another layout (layout 1: one sorted set ``:z`` and one big hash ``:h`` per leaderboard)
counts as not built, so the service rebuilds it as after a flush; the process that takes
the rebuild lock first deletes the old layout's keys. Workers of two layouts must not share
one Redis (stop the old ones first).

redis-py errors never leave this module: they become ``IndexUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import struct
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

from redis import asyncio as aioredis
from redis.asyncio.lock import Lock
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import LockError, RedisError

from rankline.errors import IndexUnavailable
from rankline.index import keys as k
from rankline.index import scripts
from rankline.index.pipelining import GroupedReads, raise_first, run_scripts
from rankline.metrics import BACKEND_ERRORS
from rankline.ordering import HEAD_BYTES
from rankline.types import BoardId, IndexChange, LeaderboardId, PlayerId, Position, SortKey

_LOCK_SECONDS = 30
_ARG_CHUNK = 1000
"""Changes, players or keys per script call on the write and read paths."""
_LOAD_BATCH = 50_000
"""Entries ``load`` sorts and groups at a time."""
_LOAD_SCRIPT = 2_000
"""Entries per LOAD script: each holds Redis for a few ms."""
_FILL_KEYS = 3_000
"""Keys per FILL_KEYS script."""
_FILL_HELD = 2_000_000
"""Player-map fields a fill holds (about 35 bytes each) before writing them grouped by
bucket: the more it holds, the more fields each HSET writes (2M: ~10 per bucket at 10M
entries, against one per HSET when written as they come)."""
_FILL_BUCKET_BYTES = 128_000
"""Bytes of records per FILL_BUCKETS script (about 4,000 fields)."""
_FILL_PIPELINE = 16
"""FILL_BUCKETS scripts per round trip."""
_GROW_SPLITS = 4096
_GROW_MOVED = 4096
"""Limits of one GROW call: splitting empty buckets is cheap, moving entries is not."""
_BUCKET_CHUNK = 4096
"""Buckets per EXPIRE_BUCKETS call, or per UNLINK when dropping."""

_Entry = tuple[PlayerId, SortKey, int]


class _Names(NamedTuple):
    entries: str
    meta: str
    stamp: str
    buckets: str

    @classmethod
    def of(cls, leaderboard: LeaderboardId) -> _Names:
        return cls(
            k.entries(leaderboard),
            k.meta(leaderboard),
            k.stamp(leaderboard),
            k.bucket_prefix(leaderboard),
        )

    @property
    def writes(self) -> list[str]:
        return [self.entries, self.meta, self.stamp]

    @property
    def reads(self) -> list[str]:
        return [self.entries, self.meta]


@asynccontextmanager
async def _mapped() -> AsyncIterator[None]:
    try:
        yield
    except (RedisError, OSError) as exc:
        BACKEND_ERRORS.labels("redis").inc()
        raise IndexUnavailable(f"the Redis index is unavailable ({type(exc).__name__})") from exc


def _triples(changes: Iterable[tuple[PlayerId, SortKey | None, int]]) -> list[bytes | int | str]:
    args: list[bytes | int | str] = []
    for player, key, revision in changes:
        args += [player, b"" if key is None else key[:HEAD_BYTES], revision]
    return args


def _load_args(prefix: str, level: int, split: int, entries: list[_Entry]) -> list[Any]:
    """ARGV of one LOAD script (see ``scripts.LOAD``) for entries in key order; the key's
    tail is the player id."""
    numbers = [
        k.bucket_number(k.bucket_hash(key[HEAD_BYTES:]), level, split) for _, key, _ in entries
    ]
    return [
        level,
        split,
        prefix,
        b"\xff".join([key for _, key, _ in entries]),
        " ".join([str(revision) for _, _, revision in entries]),
        " ".join(map(str, numbers)),
    ]


async def _unless_stale(task: asyncio.Task[Any], part: list[_Entry]) -> list[_Entry]:
    """The entries to send again: those of a LOAD script that found the layout changed."""
    return part if int(await task) < 0 else []


_HASH32 = struct.Struct(">I").unpack_from


class _Broken(Exception):
    """A fill script found that another process changed the leaderboard (or its layout or
    expiry) since the fill's last script: it wrote nothing."""


class _Fill:
    """The client half of one fast load of an empty leaderboard (``scripts.FILL_BEGIN``
    explains the protocol). Each chunk's keys go to the sorted set in one pipeline of
    FILL_KEYS scripts, which Redis runs while the client prepares the next chunk; the
    player-map fields wait here grouped by bucket (``_FILL_HELD`` at most) and then go in
    the background, in FILL_BUCKETS scripts (one HSET per bucket), once their keys are in.
    Raises ``_Broken`` when a script refused; ``pending`` then names the entries that may
    be half entries or missing."""

    def __init__(self, index: RedisIndex, names: _Names, level: int, split: int) -> None:
        self.index, self.names, self.level, self.split = index, names, level, split
        self.token = secrets.token_hex(8)
        self.held = 0
        self.buckets: list[bytearray] = []
        self._keys: asyncio.Task[None] | None = None
        self._writing: tuple[asyncio.Task[None], list[bytearray]] | None = None

    async def begin(self) -> str:
        return str(await self.index._fill_begin(keys=self.names.writes, args=[self.token]), "ascii")

    async def add(self, entries: list[_Entry]) -> None:
        """Hold the entries' fields (first, so that ``pending`` covers every entry sent),
        send their keys in rank order, then wait for the previous chunk's."""
        entries.sort(key=itemgetter(1))
        self._hold(entries)
        try:
            previous, self._keys = self._keys, asyncio.create_task(self._send_keys(entries))
            await asyncio.sleep(0)  # let it pack and send
            if previous is not None:
                await previous
            if self.held >= _FILL_HELD:
                await self._write_held()
        except BaseException:
            await self._settle()
            raise

    async def flush(self) -> None:
        """Write everything held, and wait until every script has answered."""
        try:
            await self._write_held()
            if self._writing is not None:
                await self._writing[0]
        except BaseException:
            await self._settle()
            raise
        self._writing = None

    async def _send_keys(self, entries: list[_Entry]) -> None:
        head: list[Any] = [self.level, self.split, self.token]
        async with self.index.client.pipeline(transaction=False) as pipe:
            for start in range(0, len(entries), _FILL_KEYS):
                blob = b"\xff".join([key for _, key, _ in entries[start : start + _FILL_KEYS]])
                await self.index._fill_keys(keys=self.names.writes, args=[*head, blob], client=pipe)
            _checked(*await pipe.execute())

    async def _write_held(self) -> None:
        """Start writing the held fields, once their keys are in (and the last write is
        done: it holds a buffer too)."""
        if self._keys is not None:
            await self._keys
            self._keys = None
        if self._writing is not None:
            await self._writing[0]
            self._writing = None
        if self.held:
            records, self.buckets, self.held = self.buckets, [], 0
            self._writing = (asyncio.create_task(self._write(records)), records)

    async def _write(self, buckets: list[bytearray]) -> None:
        head: list[Any] = [self.level, self.split, self.token, self.names.buckets]
        args, size, calls = list(head), 0, []
        for number, records in enumerate(buckets):
            if records:
                args += [number, bytes(records)]
                size += len(records)
                if size >= _FILL_BUCKET_BYTES:
                    calls.append(args)
                    args, size = list(head), 0
        if size:
            calls.append(args)
        for start in range(0, len(calls), _FILL_PIPELINE):
            async with self.index.client.pipeline(transaction=False) as pipe:
                for call in calls[start : start + _FILL_PIPELINE]:
                    await self.index._fill_buckets(keys=self.names.writes, args=call, client=pipe)
                _checked(*await pipe.execute())

    def _hold(self, entries: list[_Entry]) -> None:
        count = 2**self.level + self.split
        if not self.buckets:
            self.buckets = [bytearray() for _ in range(count)]
        buckets, sha1, level, split = self.buckets, hashlib.sha1, self.level, self.split
        low, high = (1 << level) - 1, (2 << level) - 1
        for _, key, revision in entries:
            player = key[HEAD_BYTES:]
            (hashed,) = _HASH32(sha1(player).digest())  # as keys.bucket_hash, inlined
            number = hashed & low
            if number < split:
                number = hashed & high
            buckets[number] += b"%b%d\xff%b\xff" % (key[:HEAD_BYTES], revision, player)
        self.held += len(entries)

    async def _settle(self) -> None:
        """Wait for the scripts in flight (a refused one writes nothing)."""
        tasks = [self._keys] if self._keys is not None else []
        if self._writing is not None:
            tasks.append(self._writing[0])
        self._keys = None
        await asyncio.gather(*tasks, return_exceptions=True)

    def pending(self) -> list[_Entry]:
        """The entries held or being written: their keys may be half entries, or not sent
        at all (the ones written already are included too: repairing them changes
        nothing)."""
        found: list[_Entry] = []
        held = self.buckets + (self._writing[1] if self._writing is not None else [])
        for records in held:
            start = 0
            while start < len(records):
                stop = records.index(b"\xff", start + HEAD_BYTES)
                end = records.index(b"\xff", stop + 1)
                player = bytes(records[stop + 1 : end])
                key = bytes(records[start : start + HEAD_BYTES]) + player
                revision = int(records[start + HEAD_BYTES : stop])
                found.append((player.decode(), key, revision))
                start = end + 1
        return found

    async def end(self) -> None:
        await self.index._fill_end(keys=self.names.writes, args=[self.token])


def _checked(*replies: Any) -> None:
    if any(int(reply) < 0 for reply in replies):
        raise _Broken


class RedisIndex:
    """``RankingIndex`` in Redis; shared by every worker process."""

    shared = True

    def __init__(self, url: str, *, client: aioredis.Redis | None = None) -> None:
        self.url = url
        self.client: aioredis.Redis = client or aioredis.Redis.from_url(
            url,
            decode_responses=False,
            health_check_interval=10,
            socket_timeout=5,
            # After Redis restarts, every pooled connection fails its next command once
            # ("Connection closed by server"); reconnect and retry that once instead of
            # reporting the index unavailable (which made a recovered index flap back to
            # degraded). Every command here is idempotent (updates are revision-guarded).
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        )
        register = self.client.register_script
        self._apply = register(scripts.APPLY)
        self._grow = register(scripts.GROW)
        self._load = register(scripts.LOAD)
        self._fill_begin = register(scripts.FILL_BEGIN)
        self._fill_keys = register(scripts.FILL_KEYS)
        self._fill_buckets = register(scripts.FILL_BUCKETS)
        self._fill_end = register(scripts.FILL_END)
        self._fill_undo = register(scripts.FILL_UNDO)
        self._around = register(scripts.AROUND)
        self._positions = register(scripts.POSITIONS)
        self._page = register(scripts.PAGE)
        self._top_stamp = register(scripts.TOP_STAMP)
        self._change_stamp = register(scripts.CHANGE_STAMP)
        self._discard = register(scripts.DISCARD)
        self._expire = register(scripts.EXPIRE)
        self._expire_buckets = register(scripts.EXPIRE_BUCKETS)
        self._drop = register(scripts.DROP)
        self._grouped = GroupedReads(self.client)
        self._lock: Lock | None = None

    async def start(self) -> None:
        async with _mapped():
            await self.client.ping()

    async def close(self) -> None:
        await self.client.aclose()

    async def ping(self) -> None:
        async with _mapped():
            await self.client.ping()

    # --- built marker, layout and the rebuild lock ------------------------------------------

    async def is_built(self) -> bool:
        """Built, and with this code's key layout."""
        async with _mapped():
            built, layout = await self.client.mget(k.META_BUILT, k.META_LAYOUT)
        return built is not None and layout == k.LAYOUT.encode()

    async def mark_built(self) -> None:
        async with _mapped():
            await self._retire_old_layout()
            await self.client.set(k.META_BUILT, str(time.time()))

    async def _retire_old_layout(self) -> None:
        """Delete the keys of an older layout (their names differ from this one's, so this
        is safe at any time) and record the current layout."""
        if await self.client.get(k.META_LAYOUT) == k.LAYOUT.encode():
            return
        for pattern in k.LAYOUT_1_PATTERNS:
            batch: list[bytes] = []
            async for name in self.client.scan_iter(match=pattern, count=1000):
                batch.append(name)
                if len(batch) >= 1000:
                    await self.client.unlink(*batch)
                    batch = []
            if batch:
                await self.client.unlink(*batch)
        await self.client.set(k.META_LAYOUT, k.LAYOUT)

    @asynccontextmanager
    async def rebuild_lock(self) -> AsyncIterator[bool]:
        """Try to become the one process rebuilding; yields whether this one is."""
        lock = self.client.lock(k.META_REBUILD_LOCK, timeout=_LOCK_SECONDS)
        async with _mapped():
            mine = bool(await lock.acquire(blocking=False))
            if mine:
                await self._retire_old_layout()
        self._lock = lock if mine else None
        try:
            yield mine
        finally:
            self._lock = None
            if mine:
                with contextlib.suppress(LockError, RedisError, OSError):
                    await lock.release()

    async def extend_rebuild_lock(self) -> None:
        if self._lock is not None:
            async with _mapped():
                await self._lock.extend(_LOCK_SECONDS, replace_ttl=True)

    # --- writes -------------------------------------------------------------------------------

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        grouped: dict[LeaderboardId, list[tuple[PlayerId, SortKey | None, int]]] = {}
        for leaderboard, player, key, revision in changes:
            grouped.setdefault(leaderboard, []).append((player, key, revision))
        calls: list[tuple[Any, ...]] = []
        registry: list[tuple[Any, ...]] = []
        for leaderboard, items in grouped.items():
            names = _Names.of(leaderboard)
            for start in range(0, len(items), _ARG_CHUNK):
                args = [names.buckets, *_triples(items[start : start + _ARG_CHUNK])]
                calls.append((self._apply, tuple(names.writes), tuple(args)))
            registry.append(("SADD", k.registry(leaderboard.board), k.tag(leaderboard)))
        async with _mapped():
            # APPLY is revision-guarded, so sending it again after NOSCRIPT is harmless
            raise_first(await run_scripts(self.client, calls, registry))

    async def reserve(self, leaderboard: LeaderboardId, size: int) -> None:
        """Make room for ``size`` entries before loading them: on an empty leaderboard this
        only sets the layout, where growing during the load would move entries."""
        async with _mapped():
            await self._grow_to(_Names.of(leaderboard), size, 0)

    async def _grow_to(self, names: _Names, size: int, extra: int) -> tuple[int, int]:
        """Split buckets until they fit max(size, entries held + extra); the layout."""
        while True:
            args: list[str | int] = [names.buckets, size, extra, _GROW_SPLITS, _GROW_MOVED]
            level, split, more = await self._grow(keys=names.reads, args=args)
            if not more:
                return int(level), int(split)

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        names = _Names.of(leaderboard)
        iterator = iter(entries)
        async with _mapped():
            while batch := sorted(islice(iterator, _LOAD_BATCH), key=itemgetter(1)):
                await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
                while batch:
                    level, split = await self._grow_to(names, 0, len(batch))
                    batch = await self._load_batch(names, level, split, batch)

    async def _load_batch(
        self, names: _Names, level: int, split: int, batch: list[_Entry]
    ) -> list[_Entry]:
        """Send ``batch`` in LOAD scripts, the next one prepared while Redis runs the last;
        returns the entries of the scripts that found the layout changed (to retry)."""
        retry: list[_Entry] = []
        sent: list[tuple[asyncio.Task[Any], list[_Entry]]] = []
        try:
            for start in range(0, len(batch), _LOAD_SCRIPT):
                part = batch[start : start + _LOAD_SCRIPT]
                args = _load_args(names.buckets, level, split, part)
                sent.append((asyncio.create_task(self._load(keys=names.writes, args=args)), part))
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

    async def fill(
        self,
        leaderboard: LeaderboardId,
        size: int,
        chunks: AsyncIterable[list[tuple[PlayerId, SortKey, int]]],
    ) -> AsyncIterator[int]:
        """Load a leaderboard from ``chunks`` (about ``size`` entries, each player once);
        yields each chunk's length as it takes it, for progress. An empty leaderboard is
        claimed, sized up front (``reserve``) and filled by the fast path (see ``_Fill``),
        several times faster than ``load``; a leaderboard that holds entries, has an
        expiry, or that another process changes meanwhile, is loaded (or from then on)
        with ``load``'s revision checks, so the outcome is the same either way."""
        names = _Names.of(leaderboard)
        iterator = aiter(chunks)
        async with _mapped():
            fill = await self._claim(leaderboard, names, size)
        if fill is not None:
            try:
                async for chunk in iterator:
                    yield len(chunk)
                    async with _mapped():
                        await fill.add(chunk)
                async with _mapped():
                    await fill.flush()
                    await self._grow_to(names, 0, 0)  # in case ``size`` fell short
            except _Broken:
                async with _mapped():
                    pending = fill.pending()
                    await self._undo(names, [key for _, key, _ in pending])
                    await self.load(leaderboard, pending)
            finally:
                with contextlib.suppress(IndexUnavailable, RedisError, OSError):
                    async with _mapped():
                        await fill.end()
        async for chunk in iterator:
            await self.load(leaderboard, chunk)
            yield len(chunk)

    async def _claim(self, leaderboard: LeaderboardId, names: _Names, size: int) -> _Fill | None:
        """A fill of the leaderboard when it is empty; drops an unfinished fill's leftovers
        (half entries) first."""
        await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
        for _ in range(2):
            fill = _Fill(self, names, 0, 0)
            state = await fill.begin()
            if state == "dirty":
                await self.drop([leaderboard])
                await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
                continue
            if state != "ok":
                return None
            fill.level, fill.split = await self._grow_to(names, size, 0)
            return fill
        return None

    async def _undo(self, names: _Names, keys_: Sequence[SortKey]) -> None:
        for start in range(0, len(keys_), _ARG_CHUNK):
            args: list[str | bytes] = [names.buckets, *keys_[start : start + _ARG_CHUNK]]
            await self._fill_undo(keys=names.writes, args=args)

    async def discard(self, leaderboard: LeaderboardId, keys_: Sequence[SortKey]) -> None:
        names = _Names.of(leaderboard)
        async with _mapped():
            for start in range(0, len(keys_), _ARG_CHUNK):
                args: list[str | bytes] = [names.buckets, *keys_[start : start + _ARG_CHUNK]]
                await self._discard(keys=names.writes, args=args)

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        """Delete each leaderboard: its keys and first buckets in one script, so that a
        write arriving meanwhile starts afresh, then the remaining buckets."""
        if not leaderboards:
            return
        async with _mapped():
            async with self.client.pipeline(transaction=False) as pipe:
                for leaderboard in leaderboards:
                    names = _Names.of(leaderboard)
                    await self._drop(
                        keys=names.writes, args=[names.buckets, _BUCKET_CHUNK], client=pipe
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
        names = _Names.of(leaderboard)
        async with _mapped():
            at, buckets = await self._expire(
                keys=names.writes, args=[names.buckets, max(1, micros // 1000)]
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
        names = _Names.of(leaderboard)
        async with _mapped():
            reply = await self._grouped.call(self._around, names.reads, [names.buckets, player, k_])
        if not reply:
            return None
        position = Position(int(reply[0]), bytes(reply[1]), int(reply[2]), int(reply[3]))
        if k_ < 0:
            return position, position.offset, []
        return position, int(reply[4]), [bytes(x) for x in reply[5:]]

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        unique = list(dict.fromkeys(players))
        if not unique:
            return []
        names = _Names.of(leaderboard)
        found: list[tuple[int, SortKey]] = []
        calls = [
            (self._positions, tuple(names.reads), (names.buckets, *unique[i : i + _ARG_CHUNK]))
            for i in range(0, len(unique), _ARG_CHUNK)
        ]
        async with _mapped():
            replies = raise_first(await run_scripts(self.client, calls))
        for reply in replies:
            found += [(int(reply[i]), bytes(reply[i + 1])) for i in range(0, len(reply), 2)]
        found.sort()
        return found

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        async with _mapped():
            reply = await self._page(keys=[k.entries(leaderboard)], args=[start, stop])
        return int(reply[0]), [bytes(x) for x in reply[1:]]

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        return (await self.page(leaderboard, start, stop))[1]

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        return await self._around_call(leaderboard, player, k)

    async def total(self, leaderboard: LeaderboardId) -> int:
        async with _mapped():
            return int(await self.client.zcard(k.entries(leaderboard)))

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        async with _mapped():
            keys = [k.stamp(leaderboard), k.entries(leaderboard)]
            stamp, total = await self._grouped.call(self._top_stamp, keys, ())
        return int(stamp), int(total)

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        async with _mapped():
            return int(await self._grouped.call(self._change_stamp, [k.stamp(leaderboard)], ()))

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        async with _mapped():
            tags = sorted(await self.client.smembers(k.registry(board)))
            found = [k.from_tag(t.decode() if isinstance(t, bytes) else t) for t in tags]
            async with self.client.pipeline(transaction=False) as pipe:
                for leaderboard in found:
                    pipe.exists(k.entries(leaderboard))
                alive = await pipe.execute()
        return [lb for lb, exists in zip(found, alive, strict=True) if exists]
