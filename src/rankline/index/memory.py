"""The in-process ranking index: one sorted list of byte keys per leaderboard.

A first-class backend for the embedded default, not a test double. ``SortedList`` gives
O(log N) insert, remove, bisect and positional access, so rank, neighbours, top pages and
competition ranks are all logarithmic.

Memory is what limits an in-process index, so an entry is one object, its sort key (~64
bytes), plus a pointer in the sorted list. The player → key map keeps no player ids of its
own: a key ends with its player's id, so ``_PlayerKeys`` files the keys themselves in a
hash table by that tail (~25 bytes per entry, where a dict of player id → key costs a str
per player and a slot, ~95). ``rankline bench --memory-only`` measures ~105 bytes per entry for
the whole index, against ~175 with the dict.

Each leaderboard also keeps two stamps from one process-wide counter: ``changed`` moves with
every change, ``top`` only with those that reach into its first ``TOP_WINDOW`` entries (and
with loads and repairs), so a cache of the top page stays valid while ``top`` stands still.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from itertools import count

from sortedcontainers import SortedList

from rankline.index.base import PLAIN, UNKNOWN, BoardShapes, RankingIndex
from rankline.index.sharding import is_shard
from rankline.ordering import HEAD_BYTES, value_bytes
from rankline.types import (
    TOP_WINDOW,
    BoardId,
    IndexChange,
    LeaderboardId,
    Movement,
    PlayerId,
    Position,
    SortKey,
)

_LOAD = 1
"""Keys per bucket, on average, past which the table grows. At one to two buckets per key,
most keys sit alone (a bucket of one key is that key: its slot costs 8 bytes), the others
share a tuple (~40 + 8 bytes per key), and a lookup compares about one tail."""

_Bucket = SortKey | tuple[SortKey, ...] | None

_THREAD_FROM = 100_000
"""Leaderboards loaded with at least this many keys are built in a thread."""

_stamps = count(1)
"""Every stamp of every leaderboard comes from this one counter, so none repeats (except 0,
which an absent leaderboard answers: it has no entries whenever it answers it)."""


def _fresh() -> int:
    return next(_stamps)


def _members(bucket: _Bucket) -> tuple[SortKey, ...]:
    if bucket is None:
        return ()
    return (bucket,) if isinstance(bucket, bytes) else bucket


def _bucket(keys: Sequence[SortKey]) -> _Bucket:
    if not keys:
        return None
    return keys[0] if len(keys) == 1 else tuple(keys)


class _PlayerKeys:
    """Each player's key, found by the player id (the key's tail), in O(1).

    A hash table by linear hashing (Litwin, 1980) over a plain list: bucket ``i`` holds the
    keys whose tail hashes to ``i`` in the lowest ``bits`` bits, or ``bits + 1`` for the
    buckets already split in this round (those below ``split``). A bucket is None, a key,
    or a tuple of keys. When there are more than ``_LOAD`` keys per bucket, the bucket at
    ``split`` splits in two by the next hash bit: the table grows one bucket at a time, and
    no insert ever rehashes everything. Tails are compared as bytes (a key's length and its
    ending); a split recomputes its keys' hashes from the keys. The table never shrinks: a
    bucket emptied by removals costs its 8-byte slot. Built in bulk, it starts with a power
    of two buckets, 1 to 2 per key, so most keys sit alone and no tuple is made for them.
    """

    __slots__ = ("_bits", "_buckets", "_head", "_split", "count")

    def __init__(
        self,
        keys: Sequence[SortKey] = (),
        hashes: Iterable[int] | None = None,
        head: int = HEAD_BYTES,
    ) -> None:
        """A map of ``keys``, at most one per player; ``hashes`` are their tails' hashes,
        when the caller has them (each is ``hash`` of the player id's bytes). ``head``:
        the length of the keys' heads (the tail after it is the player id)."""
        self._head = head
        self._bits = len(keys).bit_length()
        self._split = 0
        self._buckets: list[_Bucket] = [None] * (1 << self._bits)
        self.count = len(keys)
        if hashes is None:
            hashes = (hash(key[head:]) for key in keys)
        self._fill(keys, hashes)

    def _fill(self, keys: Iterable[SortKey], hashes: Iterable[int]) -> None:
        # ``put`` inlined, without the checks a bulk load needs not: this runs once per
        # entry of a build. Keys come in the order they were made (in memory), so filing
        # them touches only the table at random (and the rare bucket-mates).
        buckets, mask = self._buckets, (1 << self._bits) - 1
        for key, hashed in zip(keys, hashes, strict=True):
            address = hashed & mask
            bucket = buckets[address]
            if bucket is None:
                buckets[address] = key
            elif type(bucket) is bytes:
                buckets[address] = (bucket, key)
            else:
                buckets[address] = (*bucket, key)

    def _address(self, hashed: int) -> int:
        address = hashed & ((1 << self._bits) - 1)
        if address < self._split:
            address = hashed & ((2 << self._bits) - 1)
        return address

    def get(self, tail: bytes) -> SortKey | None:
        bucket = self._buckets[self._address(hash(tail))]
        size = self._head + len(tail)
        if bucket is None or isinstance(bucket, bytes):
            return bucket if bucket and len(bucket) == size and bucket.endswith(tail) else None
        for key in bucket:
            if key.endswith(tail) and len(key) == size:
                return key
        return None

    def put(self, key: SortKey) -> SortKey | None:
        """File ``key`` as its player's key; the key it replaces (kept if equal), or None."""
        tail = key[self._head :]
        address = self._address(hash(tail))
        bucket = self._buckets[address]
        if bucket is None:
            self._buckets[address] = key
        else:
            members = (bucket,) if isinstance(bucket, bytes) else bucket
            size = len(key)
            for i, old in enumerate(members):
                if old.endswith(tail) and len(old) == size:
                    if old != key:
                        self._buckets[address] = _bucket((*members[:i], key, *members[i + 1 :]))
                    return old
            self._buckets[address] = (*members, key)
        self.count += 1
        if self.count > _LOAD * len(self._buckets):
            self._grow()
        return None

    def pop(self, tail: bytes, only: SortKey | None = None) -> SortKey | None:
        """Remove the player's key (only if it is ``only``, when given); the removed key."""
        address = self._address(hash(tail))
        members = _members(self._buckets[address])
        size = self._head + len(tail)
        for i, old in enumerate(members):
            if old.endswith(tail) and len(old) == size:
                if only is not None and old != only:
                    return None
                self._buckets[address] = _bucket(members[:i] + members[i + 1 :])
                self.count -= 1
                return old
        return None

    def _grow(self) -> None:
        high = 1 << self._bits
        bucket = self._buckets[self._split]
        move: list[SortKey] = []
        if bucket is not None:
            stay: list[SortKey] = []
            for key in (bucket,) if isinstance(bucket, bytes) else bucket:
                (move if hash(key[self._head :]) & high else stay).append(key)
            self._buckets[self._split] = _bucket(stay)
        self._buckets.append(_bucket(move))
        self._split += 1
        if self._split == high:
            self._bits += 1
            self._split = 0


def _moved(
    held: int | None, before: int | None, after: int, revision: int, restored: bool
) -> int | None:
    """A player's movement record after a change that took them from rank ``before`` (None:
    no entry) to ``after``, given the record ``held`` (None: nothing known); None when
    nothing is known after it. A record is ``previous << 32 | best``, 0 for an unknown one.
    The Redis index's APPLY script follows the same rule."""
    if before is None:
        fresh = revision == 1 and not restored  # the standing's first entry, seen here
        return after if fresh else None
    best = held & _LOW if held is not None else 0
    return before << 32 | (min(best, before, after) if best else 0)


_LOW = (1 << 32) - 1


class _Leaderboard:
    __slots__ = ("changed", "distinct", "edge", "head", "keys", "moves", "players", "top")

    def __init__(
        self,
        keys: Sequence[SortKey] = (),
        hashes: Iterable[int] | None = None,
        head: int = HEAD_BYTES,
        dense: bool = False,
        moves: bool = True,
    ) -> None:
        """A leaderboard of ``keys``, at most one per player; keys in rank order (or
        nearly) sort in linear time. ``hashes`` and ``head``: see ``_PlayerKeys``. With
        ``dense``, the distinct values (each key's first ``value_bytes(head)`` bytes: the
        score, and the subscore on a board with one) are kept too; with ``moves``, each
        player's movement."""
        self.head = head
        self.moves: dict[bytes, int] | None = {} if moves else None
        """Player id (bytes) → movement record (``_moved``), for the players whose changes
        this index applied; none for a leaderboard that is a shard."""
        self.players = _PlayerKeys(keys, hashes, head)
        self.keys: SortedList[SortKey] = SortedList(keys)
        self.distinct: SortedList[bytes] | None = (
            SortedList({key[: value_bytes(head)] for key in keys}) if dense else None
        )
        """The distinct values of ``keys`` (a board with dense ranks), or None. No count is
        kept per value: the keys themselves tell in O(log N) whether a value is still held
        (``_unhold``)."""
        self.top = self.changed = _fresh()
        """``top_stamp`` and ``change_stamp``."""
        self.edge: SortKey | None = None
        """The last key of the top window, while the top stands still (None: not known)."""

    def in_top(self, key: SortKey) -> bool:
        """Whether ``key`` (present) is among the first ``TOP_WINDOW`` keys."""
        keys = self.keys
        if len(keys) <= TOP_WINDOW:
            return True
        if self.edge is None:
            self.edge = keys[TOP_WINDOW - 1]
        return key <= self.edge

    def touched_top(self) -> None:
        self.top = self.changed = _fresh()
        self.edge = None

    def set(
        self,
        tail: bytes,
        key: SortKey | None,
        revision: int | None = None,
        restored: bool = False,
    ) -> None:
        """Make ``key`` the key of the player whose id is ``tail`` (None removes them).
        ``revision``: the change's (see ``IndexChange``); None for a load, whose change
        the movement cannot account for."""
        old = self.players.pop(tail) if key is None else self.players.put(key)
        if old == key:
            return
        top = False
        before = None
        if old is not None:
            top = self.in_top(old)
            if self.moves is not None:
                before = self.keys.bisect_left(old) + 1
            self.keys.remove(old)
            self._unhold(old)
        if key is not None:
            self.keys.add(key)
            self._hold(key)
            top = top or self.in_top(key)
        moves = self.moves
        if moves is not None:
            record = None
            if key is not None and revision is not None:
                after = self.keys.bisect_left(key) + 1
                record = _moved(moves.get(tail), before, after, revision, restored)
            if record is None:
                moves.pop(tail, None)
            else:
                moves[tail] = record
        if top:
            self.touched_top()
        else:
            self.changed = _fresh()

    def _hold(self, key: SortKey) -> None:
        distinct = self.distinct
        if distinct is not None:
            prefix = key[: value_bytes(self.head)]
            at = distinct.bisect_left(prefix)
            if at == len(distinct) or distinct[at] != prefix:
                distinct.add(prefix)

    def _unhold(self, gone: SortKey) -> None:
        """Forget ``gone``'s value when no key holds it any more (after removing it)."""
        if self.distinct is None:
            return
        prefix, keys = gone[: value_bytes(self.head)], self.keys
        at = keys.bisect_left(prefix)
        if at == len(keys) or not keys[at].startswith(prefix):
            self.distinct.discard(prefix)

    def discard(self, key: SortKey) -> None:
        if key in self.keys:
            self.keys.remove(key)
            self._unhold(key)
        tail = key[self.head :]
        if self.players.pop(tail, only=key) is not None and self.moves is not None:
            self.moves.pop(tail, None)

    def position(self, player: PlayerId) -> Position | None:
        key = self.players.get(player.encode())
        if key is None:
            return None
        better = self.keys.bisect_left(key[: value_bytes(self.head)])
        return Position(self.keys.bisect_left(key), key, len(self.keys), better)


class MemoryIndex(RankingIndex):
    """``RankingIndex`` in this process's memory; one process only."""

    loads_whole = True

    def __init__(self, shapes: BoardShapes = PLAIN) -> None:
        super().__init__(shapes)
        self._boards: dict[BoardId, dict[LeaderboardId, _Leaderboard]] = {}

    def _get(self, leaderboard: LeaderboardId) -> _Leaderboard | None:
        boards = self._boards.get(leaderboard.board)
        return None if boards is None else boards.get(leaderboard)

    def _make(self, leaderboard: LeaderboardId, head: int) -> _Leaderboard:
        """The leaderboard, made for keys with ``head``-byte heads when it is new (a
        change's key says its head: the key less its player id)."""
        boards = self._boards.setdefault(leaderboard.board, {})
        found = boards.get(leaderboard)
        if found is None:
            found = boards[leaderboard] = _Leaderboard(
                head=head, dense=self.dense(leaderboard), moves=not is_shard(leaderboard)
            )
        return found

    async def apply(self, changes: Sequence[IndexChange]) -> None:
        for leaderboard, player, key, revision, restored in changes:
            if key is None:
                found = self._get(leaderboard)
                if found is not None:
                    found.set(player.encode(), None)
            else:
                tail = player.encode()
                found = self._make(leaderboard, len(key) - len(tail))
                found.set(tail, key, revision, restored)

    async def load(
        self, leaderboard: LeaderboardId, entries: Iterable[tuple[PlayerId, SortKey, int]]
    ) -> None:
        # One process writes this index, so its state is never older than the store's:
        # revisions need no tracking. A player listed twice keeps the last key.
        unique = list({player: key for player, key, _ in entries}.values())
        await self.load_keys(leaderboard, unique)

    async def load_keys(
        self,
        leaderboard: LeaderboardId,
        keys: Sequence[SortKey],
        hashes: Iterable[int] | None = None,
    ) -> None:
        """``load`` without the player ids and revisions this index does not need (each key
        ends with its player's id), at most one key per player. An absent leaderboard is
        built in one sort, which takes linear time when ``keys`` come in rank order.
        ``hashes``, if given, are ``hash(player.encode())`` of each key's player.

        A big leaderboard is built in a thread: it takes ~1 s per million entries, which
        the event loop spends answering (``/readyz``, say) instead of waiting."""
        head = self.shapes.head_of(leaderboard.board)
        if self._get(leaderboard) is None and keys:
            dense, moves = self.dense(leaderboard), not is_shard(leaderboard)
            if len(keys) < _THREAD_FROM:
                built = _Leaderboard(keys, hashes, head, dense, moves)
            else:
                built = await asyncio.to_thread(_Leaderboard, keys, hashes, head, dense, moves)
            if self._get(leaderboard) is None:
                self._boards.setdefault(leaderboard.board, {})[leaderboard] = built
                return
        found = self._get(leaderboard)
        if found is not None:  # it was there, or appeared while the thread built it
            for key in keys:
                found.set(key[found.head :], key)
            found.touched_top()

    async def position(self, leaderboard: LeaderboardId, player: PlayerId) -> Position | None:
        found = self._get(leaderboard)
        return None if found is None else found.position(player)

    async def positions(
        self, leaderboard: LeaderboardId, players: Sequence[PlayerId]
    ) -> list[tuple[int, SortKey]]:
        found = self._get(leaderboard)
        if found is None:
            return []
        get = found.players.get
        keys = sorted({k for p in players if (k := get(p.encode())) is not None})
        return [(found.keys.bisect_left(k), k) for k in keys]

    async def slice(self, leaderboard: LeaderboardId, start: int, stop: int) -> list[SortKey]:
        found = self._get(leaderboard)
        if found is None or start >= stop:
            return []
        return list(found.keys.islice(start, stop))

    async def page(
        self, leaderboard: LeaderboardId, start: int, stop: int
    ) -> tuple[int, list[SortKey]]:
        found = self._get(leaderboard)
        if found is None:
            return 0, []
        return len(found.keys), list(found.keys.islice(start, stop)) if start < stop else []

    async def around(
        self, leaderboard: LeaderboardId, player: PlayerId, k: int
    ) -> tuple[Position, int, list[SortKey]] | None:
        found = self._get(leaderboard)
        position = None if found is None else found.position(player)
        if found is None or position is None:
            return None
        first = max(0, position.offset - k)
        return position, first, list(found.keys.islice(first, position.offset + k + 1))

    async def total(self, leaderboard: LeaderboardId) -> int:
        found = self._get(leaderboard)
        return 0 if found is None else len(found.keys)

    async def counts_before(
        self, leaderboard: LeaderboardId, bounds: Sequence[bytes]
    ) -> tuple[int, list[int]]:
        found = self._get(leaderboard)
        if found is None:
            return 0, [0] * len(bounds)
        bisect = found.keys.bisect_left
        return len(found.keys), [bisect(bound) for bound in bounds]

    async def movement(self, leaderboard: LeaderboardId, player: PlayerId) -> Movement:
        found = self._get(leaderboard)
        record = None if found is None or found.moves is None else found.moves.get(player.encode())
        if record is None:
            return UNKNOWN
        return Movement(record >> 32 or None, record & _LOW or None)

    async def distinct_before(
        self, leaderboard: LeaderboardId, prefixes: Sequence[bytes]
    ) -> list[int]:
        found = self._get(leaderboard)
        if found is None or found.distinct is None:
            return [0] * len(prefixes)
        bisect = found.distinct.bisect_left
        return [bisect(prefix) for prefix in prefixes]

    async def distinct_scores(self, leaderboard: LeaderboardId) -> list[bytes]:
        found = self._get(leaderboard)
        return [] if found is None or found.distinct is None else list(found.distinct)

    async def neighbours(
        self, leaderboard: LeaderboardId, key: bytes, before: int, after: int
    ) -> tuple[list[SortKey], list[SortKey]]:
        found = self._get(leaderboard)
        if found is None:
            return [], []
        at = found.keys.bisect_left(key)
        first = max(0, at - max(0, before))
        return list(found.keys.islice(first, at)), list(found.keys.islice(at, at + max(0, after)))

    async def top_stamp(self, leaderboard: LeaderboardId) -> tuple[int, int]:
        found = self._get(leaderboard)
        return (0, 0) if found is None else (found.top, len(found.keys))

    async def change_stamp(self, leaderboard: LeaderboardId) -> int:
        found = self._get(leaderboard)
        return 0 if found is None else found.changed

    async def leaderboards(self, board: BoardId) -> list[LeaderboardId]:
        return [lb for lb, found in self._boards.get(board, {}).items() if found.keys]

    async def discard(self, leaderboard: LeaderboardId, keys: Sequence[SortKey]) -> None:
        found = self._get(leaderboard)
        if found is None:
            return
        for key in keys:
            found.discard(key)
        found.touched_top()

    async def drop(self, leaderboards: Sequence[LeaderboardId]) -> None:
        for leaderboard in leaderboards:
            boards = self._boards.get(leaderboard.board)
            if boards is not None:
                boards.pop(leaderboard, None)
                if not boards:
                    del self._boards[leaderboard.board]
