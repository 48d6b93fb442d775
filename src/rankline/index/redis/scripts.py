"""Lua scripts of the Redis index. Each runs atomically on one leaderboard's keys in one
round trip. KEYS name the sorted set, the layout hash and the stamp (``rankline.index.redis.keys``);
the buckets depend on the layout in meta, so scripts build their names from the bucket
prefix passed in ARGV (same hash tag, so the same Redis Cluster slot).

Every script that writes starts with ``PRELUDE``: the bucket hash (first 32 bits of SHA-1,
as ``keys.bucket_hash``), linear hashing, and the stamps. The reads of a player (AROUND,
POSITIONS) start with ``_READ_PRELUDE`` instead: the caller names the bucket it expects.

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

from __future__ import annotations

from rankline.types import TOP_WINDOW

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

_STATE = f"""
-- KEYS: entries, meta, stamps, built marker. The leaderboard's total, or DAMAGED when the
-- counts kept beside the sorted set disagree with it or a repair is due, or LOST when the
-- index is not built.
local DAMAGED, LOST = {DAMAGED}, {LOST}
local function state()
  if redis.call('EXISTS', KEYS[4]) == 0 then return LOST end
  local total = redis.call('ZCARD', KEYS[1])
  local s = redis.call('HMGET', KEYS[3], 'n', 'd')
  if s[2] or (tonumber(s[1]) or 0) ~= total then return DAMAGED end
  if (tonumber(redis.call('HGET', KEYS[2], 'n')) or 0) ~= total then return DAMAGED end
  return total
end
"""

_BUCKET_OF = """
local function bucket_of(h, level, split)
  local n = 2 ^ level
  local b = h % n
  if b < split then b = h % (n + n) end
  return b
end
"""

PRELUDE = f"""
local TOP_WINDOW = {TOP_WINDOW}
local BUCKET_LOAD = {BUCKET_LOAD}

local function hash32(player)
  return tonumber(string.sub(redis.sha1hex(player), 1, 8), 16)
end
{_BUCKET_OF}
-- The player's bucket (its name) under this layout, and the player's entry there or false.
local function map_entry(prefix, player, level, split)
  local bucket = prefix .. bucket_of(hash32(player), level, split)
  return bucket, redis.call('HGET', bucket, player)
end

-- level, split pointer and expiry (ms, or false) of a leaderboard's buckets
local function layout(meta)
  local m = redis.call('HMGET', meta, 'l', 's', 'x')
  return tonumber(m[1]) or 0, tonumber(m[2]) or 0, m[3]
end

-- A change: the change stamp moves; so does the top stamp, to the same value, when the
-- change may have touched the top.
local function bump(stamps, expiry, top)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local held = tonumber(redis.call('HGET', stamps, 'c') or '0') or 0
  local value = string.format('%.0f', math.max(held + 1, now))
  if top then
    redis.call('HSET', stamps, 'c', value, 't', value)
  else
    redis.call('HSET', stamps, 'c', value)
  end
  if expiry then redis.call('PEXPIREAT', stamps, expiry) end
end

-- A stamp field, or the clock for a missing one.
local function read_stamp(stamps, field)
  local stamp = redis.call('HGET', stamps, field)
  if stamp then return stamp end
  local t = redis.call('TIME')
  return string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
end

-- Whether the counts kept beside the sorted set hold (and no repair is due), and its size.
local function intact(entries, meta, stamps)
  local total = redis.call('ZCARD', entries)
  local s = redis.call('HMGET', stamps, 'n', 'd')
  if s[2] or (tonumber(s[1]) or 0) ~= total then return false, total end
  return (tonumber(redis.call('HGET', meta, 'n')) or 0) == total, total
end

-- Record the sorted set's size as the count (after a change to an intact leaderboard).
local function recount(entries, meta, stamps)
  local total = redis.call('ZCARD', entries)
  redis.call('HSET', meta, 'n', total)
  redis.call('HSET', stamps, 'n', total)
end

-- Mark the leaderboard damaged (a repair is due), unless a repair is running.
local function damage(stamps)
  if not redis.call('HGET', stamps, 'd') then redis.call('HSET', stamps, 'd', '0:0') end
end

-- A board with dense ranks keeps its leaderboards' distinct values in a sorted set
-- (``keys.distinct``), passed as the write scripts' KEYS[5] (nil on other boards). A value is
-- a key's first H - 8 bytes (``ordering.value_bytes``, the board's ``Keys.prefix``): the
-- score, and the subscore on a board with one. No count per value is kept: the entries tell
-- in O(log N) whether a value is still held.
local function hold(distinct, key, H)
  if distinct then redis.call('ZADD', distinct, 0, string.sub(key, 1, H - 8)) end
end

-- After ``gone`` left the entries: forget its value when no entry holds it any more.
local function unhold(entries, distinct, gone, H)
  if not distinct then return end
  local p = string.sub(gone, 1, H - 8)
  local left = redis.call('ZRANGE', entries, '[' .. p, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
  if not left or string.sub(left, 1, H - 8) ~= p then redis.call('ZREM', distinct, p) end
end

-- Movement (``keys.moves``, the write scripts' KEYS[4]; nil on a shard): player ->
-- "previous:best", 1-based ranks, empty when not known. After a change that took the player
-- from rank ``before`` (false: no entry) to ``after``: a first entry of the standing
-- (revision 1, not restored) starts at its rank; an entry coming back (or whose record is
-- gone) is not known; otherwise previous is ``before`` and best the least of the held best,
-- before and after, while the held best is known. ``index.memory._moved`` is the same rule.
local function moved(moves, player, before, after, rev, restored)
  if not moves then return end
  local record = false
  if not before then
    if rev == 1 and not restored then record = ':' .. after end
  else
    local best = tonumber(string.match(redis.call('HGET', moves, player) or '', ':(%d+)$'))
    if best then best = math.min(best, before, after) end
    record = before .. ':' .. (best or '')
  end
  if record then
    redis.call('HSET', moves, player, record)
  else
    redis.call('HDEL', moves, player)
  end
end

local function hset_pairs(key, t)
  for i = 1, #t, 1000 do
    redis.call('HSET', key, unpack(t, i, math.min(i + 999, #t)))
  end
end

-- Split the next bucket: move the entries whose hash says so to its new sibling. Both
-- are written afresh, so a bucket that outgrew the listpack encoding gets it back.
local function split_next(prefix, level, split, expiry)
  local n = 2 ^ level
  local src = prefix .. split
  local all = redis.call('HGETALL', src)
  -- both start with the sentinel: every bucket of the layout exists
  local keep, move = {{'', ''}}, {{'', ''}}
  for i = 1, #all, 2 do
    if all[i] ~= '' then
      local t = keep
      if hash32(all[i]) % (n + n) ~= split then t = move end
      t[#t + 1] = all[i]
      t[#t + 1] = all[i + 1]
    end
  end
  local dst = prefix .. (split + n)
  if #move > 2 or #all == 0 then
    redis.call('DEL', src)
    hset_pairs(src, keep)
  end
  hset_pairs(dst, move)
  if expiry then
    redis.call('PEXPIREAT', src, expiry)
    redis.call('PEXPIREAT', dst, expiry)
  end
  split = split + 1
  if split == n then return level + 1, 0, #all / 2 end
  return level, split, #all / 2
end

-- Split buckets until there is one per BUCKET_LOAD of size entries, or a limit is hit.
-- Returns the new level and split pointer, and whether more splits are due.
local function grow(meta, prefix, level, split, expiry, size, max_splits, max_moved)
  local splits, moved = 0, 0
  while size > BUCKET_LOAD * (2 ^ level + split) do
    if splits >= max_splits or moved >= max_moved then break end
    local held
    level, split, held = split_next(prefix, level, split, expiry)
    splits = splits + 1
    moved = moved + held
  end
  if splits > 0 then redis.call('HSET', meta, 'l', level, 's', split) end
  return level, split, size > BUCKET_LOAD * (2 ^ level + split)
end
"""

# KEYS: entries, meta, stamp, then movement unless the leaderboard is a shard, then distinct
# values on a board with dense ranks. ARGV: bucket prefix, then (player, head or "" to
# remove, revision) triples, then H; a revision ending with "r" is a restored entry's. A
# change applies when its revision is newer than the one held (0: always). A change moves the
# change stamp, and the top stamp too when its old or new offset is inside the top window.
# Returns how many applied.
APPLY = (
    PRELUDE
    + f"""
local prefix, H = ARGV[1], tonumber(ARGV[#ARGV])
local level, split, expiry = layout(KEYS[2])
local ok, total = intact(KEYS[1], KEYS[2], KEYS[3])
local top, changed, added, n = false, false, false, 0
local function in_top(member)
  if total <= TOP_WINDOW then return true end
  return (redis.call('ZRANK', KEYS[1], member) or TOP_WINDOW) < TOP_WINDOW
end
for i = 2, #ARGV - 1, 3 do
  local player, head, given = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local restored = string.sub(given, -1) == 'r'
  if restored then given = string.sub(given, 1, -2) end
  local rev = tonumber(given)
  local bucket, cur = map_entry(prefix, player, level, split)
  if not cur and total > 0 and redis.call('EXISTS', bucket) == 0 then
    ok = false  -- a lost bucket: its players' old keys would stay in the sorted set
    damage(KEYS[3])
  end
  local newer = true
  if cur and rev > 0 then
    local held = tonumber(string.sub(cur, H + 1))
    if held and held >= rev then newer = false end
  end
  if newer and cur and string.sub(cur, 1, H) == head then
    redis.call('HSET', bucket, player, head .. given)  -- same key, newer revision
    n = n + 1
  elseif newer then
    local before = false
    if cur then
      local old = string.sub(cur, 1, H) .. player
      if KEYS[4] then before = redis.call('ZRANK', KEYS[1], old) end
      top = top or in_top(old)
      total = total - redis.call('ZREM', KEYS[1], old)
      unhold(KEYS[1], KEYS[5], old, H)
      changed = true
      if before then before = before + 1 end
    end
    if head == '' then
      if cur then redis.call('HDEL', bucket, player) end
      if KEYS[4] then redis.call('HDEL', KEYS[4], player) end
    else
      local key = head .. player
      total = total + redis.call('ZADD', KEYS[1], 0, key)
      hold(KEYS[5], key, H)
      top = top or in_top(key)
      changed = true
      if KEYS[4] then
        moved(KEYS[4], player, before, redis.call('ZRANK', KEYS[1], key) + 1, rev, restored)
      end
      if redis.call('HSET', bucket, player, head .. given) == 1 then
        added = true
        redis.call('HSETNX', bucket, '', '')
        if expiry then redis.call('PEXPIREAT', bucket, expiry) end
      end
    end
    n = n + 1
  end
end
if added then
  if expiry then redis.call('PEXPIREAT', KEYS[1], expiry) end
  grow(KEYS[2], prefix, level, split, expiry, total, {GROW_SPLITS}, {GROW_SPLITS} * BUCKET_LOAD)
end
if changed then
  if expiry then
    for j = 4, #KEYS do redis.call('PEXPIREAT', KEYS[j], expiry) end
  end
  bump(KEYS[3], expiry, top)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return n
"""
)

# KEYS: entries, meta. ARGV: bucket prefix, at least this many entries, plus this many
# more than the leaderboard holds, max splits, max entries moved. Returns {level, split,
# 1 if more splits are due}.
GROW = (
    PRELUDE
    + """
local level, split, expiry = layout(KEYS[2])
local size = math.max(tonumber(ARGV[2]), redis.call('ZCARD', KEYS[1]) + tonumber(ARGV[3]))
local more
level, split, more = grow(KEYS[2], ARGV[1], level, split, expiry, size,
  tonumber(ARGV[4]), tonumber(ARGV[5]))
return {level, split, more and 1 or 0}
"""
)

# Bulk load. KEYS: entries, meta, stamp (movement, distinct values: as APPLY). ARGV: level and
# split pointer the caller placed the entries with, bucket prefix, then three strings with one
# item per entry: the keys in byte order joined by "\xff" (which follows no head and occurs in
# no UTF-8 player id), the revisions and the bucket numbers, space-separated; then H. Each entry
# costs one HGET (a reload of unchanged standings, what this script mostly does now that
# ``fill`` takes empty leaderboards, costs nothing more); a new or newer one an HSET, and its
# key joins a multi-member ZADD; where the index holds the player already, the newer revision
# wins. Returns how many were written, or -1 (nothing written) when the layout changed since
# the caller read it.
LOAD = (
    PRELUDE
    + """
local level, split, expiry = layout(KEYS[2])
if level ~= tonumber(ARGV[1]) or split ~= tonumber(ARGV[2]) then return -1 end
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local prefix, blob, H = ARGV[3], ARGV[4], tonumber(ARGV[7])
local next_rev, next_bucket = string.gmatch(ARGV[5], '%d+'), string.gmatch(ARGV[6], '%d+')
local find, sub = string.find, string.sub
local batch, written, touched = {}, 0, {}
local function flush()
  if #batch > 0 then
    redis.call('ZADD', KEYS[1], unpack(batch))
    if KEYS[5] then
      local scores = {}
      for i = 2, #batch, 2 do
        scores[i - 1], scores[i] = 0, sub(batch[i], 1, H - 8)
      end
      redis.call('ZADD', KEYS[5], unpack(scores))
    end
  end
  batch = {}
end
local pos, size = 1, #blob
while pos <= size do
  local stop = find(blob, '\\255', pos + H, true) or (size + 1)
  local key = sub(blob, pos, stop - 1)
  pos = stop + 1
  local player, rev = sub(key, H + 1), next_rev()
  local bucket = prefix .. next_bucket()
  local cur = redis.call('HGET', bucket, player)
  local take = not cur
  if cur then
    local held = tonumber(sub(cur, H + 1))
    if not held or tonumber(rev) == 0 or held < tonumber(rev) then
      flush()
      local old = sub(cur, 1, H) .. player
      if redis.call('ZREM', KEYS[1], old) == 1 then unhold(KEYS[1], KEYS[5], old, H) end
      if KEYS[4] then redis.call('HDEL', KEYS[4], player) end  -- a change not seen
      take = true
    end
  end
  if take then
    if not cur then redis.call('HSETNX', bucket, '', '') end
    redis.call('HSET', bucket, player, sub(key, 1, H) .. rev)
    batch[#batch + 1] = 0
    batch[#batch + 1] = key
    written = written + 1
    if #batch >= 2000 then flush() end
    if expiry then touched[bucket] = true end
  end
end
flush()
if written > 0 then
  if expiry then
    redis.call('PEXPIREAT', KEYS[1], expiry)
    for j = 4, #KEYS do redis.call('PEXPIREAT', KEYS[j], expiry) end
    for bucket in pairs(touched) do redis.call('PEXPIREAT', bucket, expiry) end
  end
  bump(KEYS[3], expiry, true)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return written
"""
)

# KEYS: entries, meta, stamp (movement, distinct values: as APPLY). ARGV: bucket prefix, then
# exact keys to remove (repairs), then H.
# The player's bucket entry goes only if it points at that key. Returns how many members
# were removed.
DISCARD = (
    PRELUDE
    + """
local level, split, expiry = layout(KEYS[2])
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local n, H = 0, tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1 do
  local key = ARGV[i]
  if redis.call('ZREM', KEYS[1], key) == 1 then
    n = n + 1
    unhold(KEYS[1], KEYS[5], key, H)
  end
  local player = string.sub(key, H + 1)
  local bucket, cur = map_entry(ARGV[1], player, level, split)
  if cur and string.sub(cur, 1, H) == string.sub(key, 1, H) then
    redis.call('HDEL', bucket, player)
    if KEYS[4] then redis.call('HDEL', KEYS[4], player) end
  end
end
if n > 0 then
  bump(KEYS[3], expiry, true)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return n
"""
)

# The reads take the player's bucket from the caller: its guess from the last layout it saw,
# with the player's bucket hash. A player's map entry is in one bucket, so an entry found in
# the guessed bucket is the player's whatever layout the guess came from (unless it is a
# leftover: see locate); only a miss reads the layout, and hands it back for the next
# guesses. Every read first checks the leaderboard's state (``_STATE``).
_READ_PRELUDE = (
    _BUCKET_OF
    + _STATE
    + """
-- The player's key and 0-based offset, or false (and true when the player's bucket is
-- lost: the leaderboard has entries but the bucket is gone). The layout, once read, is
-- kept in seen (level, split; -1, -1 until then). An entry in the guessed bucket whose key
-- the sorted set lacks is a leftover (a drop that did not finish leaves buckets behind):
-- then, as on a miss, the layout says where to look. H: the length of the keys' heads.
local function locate(prefix, player, guess, hash, seen, total, H)
  local cur = redis.call('HGET', prefix .. guess, player)
  if cur then
    local key = string.sub(cur, 1, H) .. player
    local offset = redis.call('ZRANK', KEYS[1], key)
    if offset then return key, offset end
  end
  if seen[1] < 0 then
    local m = redis.call('HMGET', KEYS[2], 'l', 's')
    seen[1], seen[2] = tonumber(m[1]) or 0, tonumber(m[2]) or 0
  end
  local bucket = bucket_of(tonumber(hash), seen[1], seen[2])
  if bucket ~= tonumber(guess) then
    cur = redis.call('HGET', prefix .. bucket, player)
  end
  if not cur then
    return false, total > 0 and redis.call('EXISTS', prefix .. bucket) == 0
  end
  local key = string.sub(cur, 1, H) .. player
  local offset = redis.call('ZRANK', KEYS[1], key)
  if not offset then return false, false end
  return key, offset
end
"""
)

# KEYS: entries, meta, stamps, built marker. ARGV: bucket prefix, player, k, guessed
# bucket, bucket hash, H. Returns {offset, level, split, key, total, better, first, keys...}:
# the player's 0-based offset (-1 and nothing after the layout when it has no entry; DAMAGED
# or LOST, see ``_STATE``), the layout read (-1, -1 when the guess was right), the player's
# key, the count of strictly better scores, and with k >= 0 up to k keys each side.
AROUND = (
    _READ_PRELUDE
    + """
local total = state()
if total < 0 then return {total, -1, -1} end
local seen = {-1, -1}
local H = tonumber(ARGV[6])
local key, offset = locate(ARGV[1], ARGV[2], ARGV[4], ARGV[5], seen, total, H)
local out = {-1, seen[1], seen[2]}
if not key then
  if offset then out[1] = DAMAGED end
  return out
end
out[1], out[4], out[5] = offset, key, total
local k = tonumber(ARGV[3])
local previous = false
if k >= 0 then
  local first = math.max(0, offset - k)
  out[7] = first
  local keys = redis.call('ZRANGE', KEYS[1], first, offset + k)
  for i = 1, #keys do out[7 + i] = keys[i] end
  if first < offset then previous = keys[offset - first] end
end
if offset > 0 and not previous then
  previous = redis.call('ZRANGE', KEYS[1], offset - 1, offset - 1)[1]
end
-- Better values: all those before the player unless the one just before ties with it
-- (the same value bytes: the score, and the subscore when there is one, H - 8 in all);
-- then a count by prefix. A range by rank walks spans only, the count compares keys twice
-- down the skiplist.
local score = string.sub(key, 1, H - 8)
if offset > 0 and (not previous or string.sub(previous, 1, H - 8) == score) then
  out[6] = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. score)
else
  out[6] = offset
end
return out
"""
)

# KEYS: entries, meta, stamps, built marker. ARGV: bucket prefix, then (player, guessed
# bucket, bucket hash) for each player, then H. Returns {offset, key, offset, key, ..., level,
# split}: the players with an entry, then the layout read (-1, -1 when every guess was
# right); or {DAMAGED} or {LOST}.
POSITIONS = (
    _READ_PRELUDE
    + """
local total = state()
if total < 0 then return {total} end
local seen = {-1, -1}
local out = {}
local prefix, H = ARGV[1], tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1, 3 do
  local key, offset = locate(prefix, ARGV[i], ARGV[i + 1], ARGV[i + 2], seen, total, H)
  if key then
    out[#out + 1] = offset
    out[#out + 1] = key
  elseif offset then
    return {DAMAGED}
  end
end
out[#out + 1] = seen[1]
out[#out + 1] = seen[2]
return out
"""
)

# KEYS: entries, meta, stamps, built marker. ARGV: start, stop (exclusive), and "raw" to
# skip the state check (verify reads what is there). Returns {total, keys...}, or {DAMAGED}
# or {LOST}.
PAGE = (
    _STATE
    + """
local total
if ARGV[3] == 'raw' then total = redis.call('ZCARD', KEYS[1]) else total = state() end
if total < 0 then return {total} end
local out = {total}
local start, stop = tonumber(ARGV[1]), tonumber(ARGV[2])
if stop > start then
  local keys = redis.call('ZRANGE', KEYS[1], start, stop - 1)
  for i = 1, #keys do out[1 + i] = keys[i] end
end
return out
"""
)

# KEYS: entries, meta, stamps, built marker. ARGV: bounds (keys or key prefixes). Returns
# {total, count...}: per bound, how many members sort strictly before it (a ZLEXCOUNT, so
# O(log N)); or {DAMAGED} or {LOST}. A shard's part of a sharded leaderboard's ranks.
COUNTS_BEFORE = (
    _STATE
    + """
local total = state()
if total < 0 then return {total} end
local out = {total}
for i = 1, #ARGV do
  if ARGV[i] == '' then
    out[i + 1] = 0
  else
    out[i + 1] = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. ARGV[i])
  end
end
return out
"""
)

# KEYS: entries, meta, stamps, distinct scores. ARGV: score prefixes. Returns {total,
# count...}: per prefix, how many distinct scores sort strictly before it (dense ranks less
# one, a ZLEXCOUNT); or {DAMAGED} when the leaderboard's counts disagree. It names no built
# marker (a cluster node's copy is in another slot, and the distinct scores are a fourth
# key): the read of the entries it goes with checks that.
DISTINCT_BEFORE = (
    PRELUDE
    + f"""
if not intact(KEYS[1], KEYS[2], KEYS[3]) then return {{{DAMAGED}}} end
local out = {{redis.call('ZCARD', KEYS[1])}}
for i = 1, #ARGV do
  out[i + 1] = redis.call('ZLEXCOUNT', KEYS[4], '-', '(' .. ARGV[i])
end
return out
"""
)

# KEYS: entries, meta, stamps, built marker. ARGV: key, before, after. Returns {total, n,
# keys...}: up to ``before`` members strictly before the key (the n first, in rank order)
# and up to ``after`` members from the key on; or {DAMAGED} or {LOST}. O(log N + k): the
# shard's part of a sharded leaderboard's neighbours and deep pages.
NEIGHBOURS = (
    _STATE
    + """
local total = state()
if total < 0 then return {total} end
local key, before, after = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {total, 0}
if before > 0 then
  local found = redis.call('ZRANGE', KEYS[1], '(' .. key, '-', 'BYLEX', 'REV', 'LIMIT', 0, before)
  out[2] = #found
  for i = #found, 1, -1 do out[#out + 1] = found[i] end
end
if after > 0 then
  local found = redis.call('ZRANGE', KEYS[1], '[' .. key, '+', 'BYLEX', 'LIMIT', 0, after)
  for i = 1, #found do out[#out + 1] = found[i] end
end
return out
"""
)

# KEYS: entries, meta, stamps, built marker. Returns {top stamp, total}; the total is
# DAMAGED or LOST instead when the leaderboard cannot vouch for its top.
TOP_STAMP = (
    PRELUDE
    + _STATE
    + """
local total = state()
if total < 0 then return {0, total} end
return {read_stamp(KEYS[3], 't'), total}
"""
)

# KEYS: moves. ARGV: player. Returns the player's ``previous:best`` record, or nil. A script
# (not a plain HGET) so that it goes with the grouped reads (``index.pipelining``).
MOVEMENT = "return redis.call('HGET', KEYS[1], ARGV[1])"

# KEYS: entries, meta, stamps, built marker. Returns the change stamp, or DAMAGED or LOST.
CHANGE_STAMP = (
    PRELUDE
    + _STATE
    + """
local total = state()
if total < 0 then return total end
return read_stamp(KEYS[3], 'c')
"""
)

# KEYS: entries, meta, stamps, built marker. Returns {built (0/1), entries, count in meta,
# count in stamps, damaged flag or false}: what ``verify`` checks besides the entries.
STATE = """
local s = redis.call('HMGET', KEYS[3], 'n', 'd')
return {redis.call('EXISTS', KEYS[4]), redis.call('ZCARD', KEYS[1]),
  tonumber(redis.call('HGET', KEYS[2], 'n')) or -1, tonumber(s[1]) or -1, s[2]}
"""

# KEYS: entries, meta. ARGV: bucket prefix, then keys of the sorted set, then H. Returns the keys
# whose player's map entry (under the layout in meta) does not point at them.
UNMAPPED = (
    _BUCKET_OF
    + """
local m = redis.call('HMGET', KEYS[2], 'l', 's')
local level, split = tonumber(m[1]) or 0, tonumber(m[2]) or 0
local out, H = {}, tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1 do
  local key = ARGV[i]
  local player = string.sub(key, H + 1)
  local h = tonumber(string.sub(redis.sha1hex(player), 1, 8), 16)
  local cur = redis.call('HGET', ARGV[1] .. bucket_of(h, level, split), player)
  if not cur or string.sub(cur, 1, H) ~= string.sub(key, 1, H) then out[#out + 1] = key end
end
return out
"""
)

# KEYS: entries, meta, stamp, movement, distinct scores. ARGV: bucket prefix, ms from now.
# Records the expiry time in meta (keys created later get it too) and sets it on these keys.
# Returns {expiry time in ms, how many buckets still need it}: none when the recorded time was
# within a second.
EXPIRE = (
    PRELUDE
    + """
local level, split, expiry = layout(KEYS[2])
local t = redis.call('TIME')
local want = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
local buckets = 2 ^ level + split
if expiry and math.abs(tonumber(expiry) - want) <= 1000 then
  want = tonumber(expiry)
  buckets = 0
end
local at = string.format('%.0f', want)
redis.call('HSET', KEYS[2], 'x', at)
for i = 1, 5 do redis.call('PEXPIREAT', KEYS[i], at) end
return {at, buckets}
"""
)

# KEYS: entries (names the slot). ARGV: bucket prefix, expiry time (ms), first, stop.
EXPIRE_BUCKETS = """
for i = tonumber(ARGV[3]), tonumber(ARGV[4]) - 1 do
  redis.call('PEXPIREAT', ARGV[1] .. i, ARGV[2])
end
return 0
"""

# KEYS: entries, meta, stamp, movement, distinct scores. ARGV: bucket prefix, n. Deletes the
# leaderboard's keys and its first n buckets; returns how many buckets it had (the caller deletes
# the rest).
DROP = (
    PRELUDE
    + """
local level, split = layout(KEYS[2])
local buckets = 2 ^ level + split
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
for i = 0, math.min(buckets, tonumber(ARGV[2])) - 1 do
  redis.call('UNLINK', ARGV[1] .. i)
end
return buckets
"""
)

# KEYS: entries, meta, stamps, movement, distinct scores. ARGV: bucket prefix, token, lease (ms).
# Starts a repair:
# unless another repair's lease runs, deletes every key of the leaderboard (so that it is
# filled afresh from the durable store) and marks it damaged with ``token:until``, which
# keeps reads away until REPAIR_END. Returns 1, or 0 when another repair runs.
REPAIR_BEGIN = (
    PRELUDE
    + """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('HGET', KEYS[3], 'd')
if held then
  local token, expires = string.match(held, '^(.-):(%d+)$')
  if token ~= ARGV[2] and tonumber(expires or '0') > now then return 0 end
end
-- every bucket of the layout, and any found past it (the layout may be the lost key)
local level, split = layout(KEYS[2])
local i, count, missed = 0, 2 ^ level + split, 0
while i < count or missed < 64 do
  if redis.call('UNLINK', ARGV[1] .. i) == 0 and i >= count then missed = missed + 1 end
  i = i + 1
end
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[4], KEYS[5])
redis.call('HDEL', KEYS[3], 'n', 'f')
redis.call('HSET', KEYS[3], 'd', ARGV[2] .. ':' .. string.format('%.0f', now + ARGV[3]))
bump(KEYS[3], false, true)
return 1
"""
)

# KEYS: entries, meta, stamps. ARGV: token, lease (ms). Extends this repair's lease;
# returns 0 when the repair is no longer this one's.
REPAIR_EXTEND = """
local held = redis.call('HGET', KEYS[3], 'd')
if not held or string.sub(held, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[3], 'd', ARGV[1] .. ':' .. string.format('%.0f', now + ARGV[2]))
return 1
"""

# KEYS: entries, meta, stamps. ARGV: token. Ends this repair: the leaderboard was filled
# from the durable store (and kept by revision-checked writes meanwhile), so its size
# becomes the count and the damage mark goes. Returns 0 when the repair was not this one's.
REPAIR_END = (
    PRELUDE
    + """
local held = redis.call('HGET', KEYS[3], 'd')
if not held or string.sub(held, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
redis.call('HDEL', KEYS[3], 'd')
recount(KEYS[1], KEYS[2], KEYS[3])
local expiry = redis.call('HGET', KEYS[2], 'x')
bump(KEYS[3], expiry, true)
return 1
"""
)

CHECKED_READS = frozenset(
    {
        AROUND,
        POSITIONS,
        PAGE,
        TOP_STAMP,
        CHANGE_STAMP,
        STATE,
        COUNTS_BEFORE,
        NEIGHBOURS,
    }
)
"""The read scripts, called with ``Names.checked``: their ``KEYS[4]`` is the built marker
(on a Redis Cluster, the node's copy: ``index.redis_cluster``). A new read script that
checks the marker belongs here."""

UNCHECKED_READS = frozenset({UNMAPPED, DISTINCT_BEFORE, MOVEMENT})
"""The scripts that only read but check no built marker. A Redis Cluster sends the scripts
of both sets as reads (over its lean channel, without waiting for replicas); a new script
that only reads belongs in one of them."""
