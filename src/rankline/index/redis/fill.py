"""The Redis index's fast full load of an empty leaderboard, behind ``RedisIndex.fill``
(``rankline.index.redis.index``).

A rebuild goes through ``fill``, which takes an empty leaderboard much faster than ``load``
(Redis time per entry ~3x lower): it claims it, reserves its size, sends the keys as they
come (in rank order, so each lands next to the last) and holds the player-map fields
grouped by bucket, to write them with one HSET per bucket. Any other process's change to
the leaderboard breaks the claim, and the fill falls back to ``load`` for what it had not
finished (``lua/fill_begin.lua``); a claim a dead process left makes the next fill start
afresh.

This module does not import ``rankline.index.redis.index``: ``Filler`` is handed its
``RedisIndex`` (as ``FillTarget``), and what both share lives in ``common``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import struct
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Sequence
from operator import itemgetter
from typing import Any, Protocol

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from rankline.errors import IndexUnavailable
from rankline.index.base import BoardShapes, IndexRow
from rankline.index.redis import keys as k
from rankline.index.redis.common import ARG_CHUNK, Names, mapped
from rankline.index.redis.link import RedisLink
from rankline.ordering import HEAD_BYTES
from rankline.types import LeaderboardId, PlayerId, SortKey

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

_HASH32 = struct.Struct(">I").unpack_from


class FillTarget(Protocol):
    """What the fill uses of its ``RedisIndex``."""

    client: aioredis.Redis
    link: RedisLink
    shapes: BoardShapes

    async def _grow_to(self, names: Names, size: int, extra: int) -> tuple[int, int]: ...

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None: ...

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None: ...


class _Broken(Exception):
    """A fill script found that another process changed the leaderboard (or its layout or
    expiry) since the fill's last script: it wrote nothing."""


class Filler:
    """The fast fill path of one ``RedisIndex``: the FILL_* scripts, registered on its
    client, and ``fill``."""

    def __init__(self, index: FillTarget) -> None:
        self.index = index
        script = index.link.script
        self._fill_begin = script("fill_begin")
        self._fill_keys = script("fill_keys")
        self._fill_buckets = script("fill_buckets")
        self._fill_end = script("fill_end")
        self._fill_undo = script("fill_undo")

    @property
    def client(self) -> aioredis.Redis:
        return self.index.client

    async def fill(
        self,
        leaderboard: LeaderboardId,
        size: int,
        chunks: AsyncIterable[list[tuple[PlayerId, SortKey, int]]],
    ) -> AsyncIterator[int]:
        """``RedisIndex.fill``."""
        index = self.index
        names = Names.of(leaderboard)
        iterator = aiter(chunks)
        async with mapped():
            fill = await self._claim(leaderboard, names, size)
        if fill is not None:
            try:
                async for chunk in iterator:
                    yield len(chunk)
                    async with mapped():
                        await fill.add(chunk)
                async with mapped():
                    await fill.flush()
                    await index._grow_to(names, 0, 0)  # in case ``size`` fell short
            except _Broken:
                async with mapped():
                    pending = fill.pending()
                    await self._undo(names, [key for _, key, _ in pending], fill.head)
                    await index.load(leaderboard, pending)
            finally:
                with contextlib.suppress(IndexUnavailable, RedisError, OSError):
                    async with mapped():
                        await fill.end()
        async for chunk in iterator:
            await index.load(leaderboard, chunk)
            yield len(chunk)

    async def _claim(self, leaderboard: LeaderboardId, names: Names, size: int) -> _Fill | None:
        """A fill of the leaderboard when it is empty; drops an unfinished fill's leftovers
        (half entries) first."""
        await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
        for _ in range(2):
            fill = _Fill(self, names, 0, 0, self.index.shapes.head_of(leaderboard.board))
            state = await fill.begin()
            if state == "dirty":
                await self.index.drop([leaderboard])
                await self.client.sadd(k.registry(leaderboard.board), k.tag(leaderboard))
                continue
            if state != "ok":
                return None
            fill.level, fill.split = await self.index._grow_to(names, size, 0)
            return fill
        return None

    async def _undo(self, names: Names, keys_: Sequence[SortKey], head: int) -> None:
        for start in range(0, len(keys_), ARG_CHUNK):
            args: list[Any] = [names.buckets, *keys_[start : start + ARG_CHUNK], head]
            await self._fill_undo(keys=names.writes, args=args)


class _Fill:
    """The client half of one fast load of an empty leaderboard (``lua/fill_begin.lua``
    explains the protocol). Each chunk's keys go to the sorted set in one pipeline of
    FILL_KEYS scripts, which Redis runs while the client prepares the next chunk; the
    player-map fields wait here grouped by bucket (``_FILL_HELD`` at most) and then go in
    the background, in FILL_BUCKETS scripts (one HSET per bucket), once their keys are in.
    Raises ``_Broken`` when a script refused; ``pending`` then names the entries that may
    be half entries or missing."""

    def __init__(
        self, filler: Filler, names: Names, level: int, split: int, head: int = HEAD_BYTES
    ) -> None:
        self.filler, self.names, self.level, self.split = filler, names, level, split
        self.head = head
        """The length of the keys' heads (``ordering.head_bytes``)."""
        self.token = secrets.token_hex(8)
        self.held = 0
        self.buckets: list[bytearray] = []
        self._keys: asyncio.Task[None] | None = None
        self._writing: tuple[asyncio.Task[None], list[bytearray]] | None = None

    async def begin(self) -> str:
        reply = await self.filler._fill_begin(keys=self.names.writes, args=[self.token])
        return str(reply, "ascii")

    async def add(self, entries: list[IndexRow]) -> None:
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

    async def _send_keys(self, entries: list[IndexRow]) -> None:
        head: list[Any] = [self.level, self.split, self.token]
        async with self.filler.client.pipeline(transaction=False) as pipe:
            for start in range(0, len(entries), _FILL_KEYS):
                blob = b"\xff".join([key for _, key, _ in entries[start : start + _FILL_KEYS]])
                await self.filler._fill_keys(
                    keys=self.names.writes, args=[*head, blob, self.head], client=pipe
                )
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
                    calls.append([*args, self.head])
                    args, size = list(head), 0
        if size:
            calls.append([*args, self.head])
        for start in range(0, len(calls), _FILL_PIPELINE):
            async with self.filler.client.pipeline(transaction=False) as pipe:
                for call in calls[start : start + _FILL_PIPELINE]:
                    await self.filler._fill_buckets(keys=self.names.writes, args=call, client=pipe)
                _checked(*await pipe.execute())

    def _hold(self, entries: list[IndexRow]) -> None:
        count = 2**self.level + self.split
        if not self.buckets:
            self.buckets = [bytearray() for _ in range(count)]
        buckets, sha1, level, split = self.buckets, hashlib.sha1, self.level, self.split
        low, high = (1 << level) - 1, (2 << level) - 1
        size = self.head
        for _, key, revision in entries:
            player = key[size:]
            (hashed,) = _HASH32(sha1(player).digest())  # as keys.bucket_hash, inlined
            number = hashed & low
            if number < split:
                number = hashed & high
            buckets[number] += b"%b%d\xff%b\xff" % (key[:size], revision, player)
        self.held += len(entries)

    async def _settle(self) -> None:
        """Wait for the scripts in flight (a refused one writes nothing)."""
        tasks = [self._keys] if self._keys is not None else []
        if self._writing is not None:
            tasks.append(self._writing[0])
        self._keys = None
        await asyncio.gather(*tasks, return_exceptions=True)

    def pending(self) -> list[IndexRow]:
        """The entries held or being written: their keys may be half entries, or not sent
        at all (the ones written already are included too: repairing them changes
        nothing)."""
        found: list[IndexRow] = []
        held = self.buckets + (self._writing[1] if self._writing is not None else [])
        size = self.head
        for records in held:
            start = 0
            while start < len(records):
                stop = records.index(b"\xff", start + size)
                end = records.index(b"\xff", stop + 1)
                player = bytes(records[stop + 1 : end])
                key = bytes(records[start : start + size]) + player
                revision = int(records[start + size : stop])
                found.append((player.decode(), key, revision))
                start = end + 1
        return found

    async def end(self) -> None:
        await self.filler._fill_end(keys=self.names.writes, args=[self.token])


def _checked(*replies: Any) -> None:
    if any(int(reply) < 0 for reply in replies):
        raise _Broken
