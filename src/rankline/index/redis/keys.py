"""Every Redis key rankline uses, named once.

All keys of one leaderboard share one hash tag (``{...}``), so its scripts touch a single
Redis Cluster slot. The tag holds board, window, period and scope joined by ``|``, a
character no identifier may contain. The read scripts also name the index's built marker
(``META_BUILT``, untagged), so that the first read after a flush notices it: on a Redis
Cluster each slot would need a copy of that marker.

A leaderboard is a sorted set of its ordering keys (``entries``), the map player → key head
spread over small hashes (``bucket``), a little layout hash (``meta``) and its change and
top stamps (``stamp``). Which bucket holds a player is decided by linear hashing on the
first 32 bits of SHA-1 of the player id: with level ``l`` and split pointer ``s`` (kept in
``meta``) there are ``2**l + s`` buckets, and a player whose hash is ``h`` lives in
``h mod 2**l``, or in ``h mod 2**(l+1)`` when that first bucket was already split. Buckets
split one at a time as the leaderboard grows, so each stays a small listpack-encoded hash.
While a rebuild fills an empty leaderboard on the fast path (``RedisIndex.fill``), ``meta``
also holds ``f``, the fill's claim (``token:stamp``); a claim left behind by a process
that died makes the next fill start that leaderboard again.
"""

from __future__ import annotations

import functools
import hashlib

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from rankline.index import sharding
from rankline.types import BoardId, LeaderboardId

PREFIX = "rl"
SEP = "|"
LAYOUT = "2"
"""Version of the per-leaderboard key layout; an index built with another is rebuilt."""
META_BUILT = f"{PREFIX}:meta:built"
"""Set once the index has been built from the durable store; absent after a Redis flush."""


def node_marker(n: int) -> str:
    """The ``n``-th candidate name of a Redis Cluster node's copy of the built marker (each
    primary holds the first one whose slot it serves: ``index.redis.cluster``)."""
    return f"{META_BUILT}:{{n{n}}}"


META_LAYOUT = f"{PREFIX}:meta:layout"
"""``LAYOUT`` of the keys the index was built with (absent: layout 1, or a flushed index)."""
META_REBUILD_LOCK = f"{PREFIX}:meta:rebuild-lock"
FEED_CHANNEL = f"{PREFIX}:feed:changed"
"""Pub/sub channel: the tags of the leaderboards a committed write batch changed."""
LAYOUT_1_PATTERNS = (f"{PREFIX}:{{*}}:z", f"{PREFIX}:{{*}}:h")
"""SCAN patterns of layout 1's per-leaderboard keys (one sorted set, one big hash)."""


def tag(leaderboard: LeaderboardId) -> str:
    """The leaderboard's hash tag. A shard's (``index.sharding``) ends with a salt,
    ``#n``: the smallest ``n`` that puts shard ``i`` of ``S`` in the ``i``-th of ``S`` even
    parts of the Redis Cluster slot space, so a cluster with evenly split slots keeps the
    shards on different primaries. Any other leaderboard's tag is its fields joined."""
    joined = SEP.join(leaderboard)
    if sharding.MARK not in leaderboard.scope:
        return joined
    found = sharding.parse(leaderboard)
    assert found is not None
    return _salted(joined, found[1], found[2])


@functools.lru_cache(maxsize=16_384)
def _salted(joined: str, number: int, shards: int) -> str:
    low = number * REDIS_CLUSTER_HASH_SLOTS // shards
    high = (number + 1) * REDIS_CLUSTER_HASH_SLOTS // shards
    salt = 0
    while not low <= key_slot(f"{joined}{sharding.MARK}{salt}".encode()) < high:
        salt += 1  # about S tries on average (CRC16 spreads evenly)
    return f"{joined}{sharding.MARK}{salt}"


def from_tag(value: str) -> LeaderboardId:
    board, window, period, scope = value.split(SEP, 3)
    if scope.count(sharding.MARK) == 2:  # a shard's tag: drop the salt
        scope = scope.rpartition(sharding.MARK)[0]
    return LeaderboardId(board, window, period, scope)


def entries(leaderboard: LeaderboardId) -> str:
    """Sorted set: every member at score 0, ordered by its bytes (the ordering key)."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:r"


def meta(leaderboard: LeaderboardId) -> str:
    """Hash: ``l`` and ``s``, the linear-hashing level and split pointer of the buckets
    (absent: 0 and 0, one bucket), ``x``, the Unix time in ms at which every key of the
    leaderboard expires, when ``expire_in`` set one, and ``n``, the count of entries (see
    ``scripts``: it must equal the sorted set's size)."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:m"


def stamp(leaderboard: LeaderboardId) -> str:
    """Hash: ``c``, the change stamp, and ``t``, the top stamp, counts of microseconds (see
    ``RankingIndex.change_stamp`` and ``top_stamp``); ``n``, the count of entries again, and
    ``d``, the damage mark (``token:until``: a repair is due or running)."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:t"


def distinct(leaderboard: LeaderboardId) -> str:
    """Sorted set, on a board with dense ranks: the distinct value prefixes of the entries
    (8-byte scores, or 16-byte (score, subscore) on a board with a subscore), every member
    at score 0 (a dense rank is a ZLEXCOUNT here). Changed by the same scripts as the
    entries; dropped, expired and repaired with them."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:d"


def moves(leaderboard: LeaderboardId) -> str:
    """Hash, on a leaderboard that is not a shard: player id → ``previous:best``, the
    player's movement (ranks in decimal, empty when not known), written by the APPLY script
    with each change; dropped, expired and repaired with the entries."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:v"


def bucket_prefix(leaderboard: LeaderboardId) -> str:
    """Bucket ``n`` is this followed by ``n`` in decimal: a hash player id → the 16-byte
    head of the player's key followed by the standing's revision in decimal, plus a
    sentinel field ``""`` (so every bucket of a non-empty leaderboard exists). Scripts build
    these names themselves (they depend on the layout in ``meta``); they share the hash tag."""
    return f"{PREFIX}:{{{tag(leaderboard)}}}:b"


def bucket_hash(player: bytes) -> int:
    """The 32-bit hash that places a player in a bucket (the scripts compute the same)."""
    return int.from_bytes(hashlib.sha1(player).digest()[:4], "big")


def bucket_number(hashed: int, level: int, split: int) -> int:
    number = hashed & ((1 << level) - 1)
    if number < split:
        number = hashed & ((2 << level) - 1)
    return number


def registry(board: BoardId) -> str:
    """Set of the tags of a board's leaderboards."""
    return f"{PREFIX}:board:{{{board}}}:leaderboards"


BOARDS_VERSION = f"{PREFIX}:{{boards}}:version"
"""Counter moved by every board definition change (``index/board_versions.py``)."""
BOARDS_CHANGING = f"{PREFIX}:{{boards}}:changing"
"""Sorted set: board definition changes in flight, each scored by its expiry (Unix ms)."""
