"""What the Redis index's Lua scripts (``lua/*.lua``, loaded by ``rankline.index.redis.lua``)
share with Python, and how they work. Each runs atomically on one leaderboard's keys in one
round trip. KEYS name the sorted set, the layout hash and the stamp (``rankline.index.redis.keys``);
the buckets depend on the layout in meta, so scripts build their names from the bucket
prefix passed in ARGV (same hash tag, so the same Redis Cluster slot).

Every script that writes includes ``prelude.lua``: the bucket hash (first 32 bits of SHA-1,
as ``keys.bucket_hash``), linear hashing, and the stamps. The reads of a player (AROUND,
POSITIONS) include ``locate.lua`` instead: the caller names the bucket it expects.

Every change of a leaderboard issues a new change stamp, max(previous + 1, Redis clock in
µs), and a change that may touch the first ``TOP_WINDOW`` entries copies it to the top
stamp; a missing stamp reads as the clock. So stamps grow across processes and never come
back after a flush, a restart or a drop (which deletes them), as long as Redis's clock is
not set back and no two stamps are issued within one µs (each takes a script call of
several µs).

Integrity: the entry count is kept beside the sorted set, as field ``n`` of both the layout
hash and the stamps, and the stamps' field ``d`` marks a leaderboard damaged (a repair is
due or running: ``token:until``). Every bucket of a non-empty leaderboard exists (each holds
a sentinel field ``""``), so a missing bucket is a lost one. A script that changes the sorted
set keeps the counts only when they held before it, so damage (a lost key: the sorted set,
the layout hash, the stamps, a bucket) stays visible until a repair rebuilds the leaderboard
and seals it (REPAIR_BEGIN, REPAIR_END). The reads check the counts, the flag and the
index's built marker (``keys.META_BUILT``, absent after a flush) in the same round trip and
answer ``DAMAGED`` or ``LOST`` instead of a wrong answer.

Heads: a key is its head (``ordering``: 16 bytes, or 24 on a board with a subscore) and its
player id; the player map holds each player's head and revision. Every script that splits
a key or a map entry takes the head's length ``H`` as its last ARGV.
"""

BUCKET_LOAD = 48
"""Mean entries per bucket at which the next bucket splits. Linear hashing leaves the
not-yet-split buckets up to twice as full, so they stay under Redis's default
hash-max-listpack-entries (128), the compact encoding."""
GROW_SPLITS = 64
"""At most this many splits per APPLY call, so no write holds Redis for long."""
DAMAGED = -2
"""A read's answer (in place of a total or offset) when the leaderboard's keys disagree."""
LOST = -3
"""A read's answer when the index is not built (flushed, or never built)."""
CONSTANTS = {
    "BUCKET_LOAD": BUCKET_LOAD,
    "GROW_SPLITS": GROW_SPLITS,
    "DAMAGED": DAMAGED,
    "LOST": LOST,
}
"""What ``lua/constants.lua`` declares again (with ``TOP_WINDOW``): a test checks they agree."""

__all__ = ["BUCKET_LOAD", "CONSTANTS", "DAMAGED", "GROW_SPLITS", "LOST"]
