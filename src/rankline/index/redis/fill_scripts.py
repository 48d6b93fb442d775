"""Lua scripts of the Redis index's fast full load (``rankline.index.redis.fill``).

They share ``scripts.PRELUDE`` (bucket hash, layout, stamps) with the other scripts of the
index; see ``rankline.index.redis.scripts`` for the key layout and the stamps.
"""

from __future__ import annotations

from rankline.index.redis.scripts import PRELUDE

# The fast full load of an empty leaderboard (``RedisIndex.fill``): FILL_BEGIN claims it,
# FILL_KEYS adds keys to the sorted set in rank order, FILL_BUCKETS writes whole groups of
# player-map fields per bucket later, FILL_END lets go. Until a key's bucket entry follows,
# the key is a *half entry*: in the sorted set, unknown to the player map. Each script
# records its claim as meta field ``f`` = "token:change stamp"; the next one runs only if
# that still matches (no other process changed the leaderboard meanwhile), the layout is
# the one the caller placed the entries with and no expiry is set; otherwise it writes
# nothing and returns -1, and the caller repairs with FILL_UNDO and the careful LOAD. A
# claim found at FILL_BEGIN is a fill that did not finish (its process died, or it is
# still running): the caller drops the leaderboard and fills it afresh.
_FILLING = """
local function claim(token)
  bump(KEYS[3], false, true)
  redis.call('HSET', KEYS[2], 'f', token .. ':' .. redis.call('HGET', KEYS[3], 'c'))
end
local function claimed(level, split, token)
  local l, s, expiry = layout(KEYS[2])
  if expiry or l ~= tonumber(level) or s ~= tonumber(split) then return false end
  local c = redis.call('HGET', KEYS[3], 'c')
  return c and redis.call('HGET', KEYS[2], 'f') == token .. ':' .. c
end
"""

# KEYS: entries, meta, stamp. ARGV: token. Returns 'ok' (claimed), 'held' (not empty, or
# an expiry is set: load carefully) or 'dirty' (an unfinished fill's claim).
FILL_BEGIN = (
    PRELUDE
    + _FILLING
    + """
local level, split, expiry = layout(KEYS[2])
if redis.call('HEXISTS', KEYS[2], 'f') == 1 then return 'dirty' end
if expiry or redis.call('ZCARD', KEYS[1]) > 0 then return 'held' end
claim(ARGV[1])
return 'ok'
"""
)

# KEYS: entries, meta, stamp. ARGV: level, split, token, the keys joined by "\xff" (as in
# LOAD), H (the heads' length). Returns how many were added, or -1.
FILL_KEYS = (
    PRELUDE
    + _FILLING
    + """
if not claimed(ARGV[1], ARGV[2], ARGV[3]) then return -1 end
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local blob, find, sub, H = ARGV[4], string.find, string.sub, tonumber(ARGV[5])
local batch, m, n, pos, size = {}, 0, 0, 1, #blob
while pos <= size do
  local stop = find(blob, '\\255', pos + H, true) or (size + 1)
  batch[m + 1] = 0
  batch[m + 2] = sub(blob, pos, stop - 1)
  m = m + 2
  pos = stop + 1
  if m >= 4000 then
    n = n + redis.call('ZADD', KEYS[1], unpack(batch, 1, m))
    m = 0
  end
end
if m > 0 then n = n + redis.call('ZADD', KEYS[1], unpack(batch, 1, m)) end
claim(ARGV[3])
if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
return n
"""
)

# KEYS: entries, meta, stamp. ARGV: level, split, token, bucket prefix, then pairs (bucket
# number, records): each record is the bucket value (head and revision), "\xff", the player
# id, "\xff" (the head may hold "\xff", so the search starts after it); then H. One
# multi-field HSET per bucket. Returns how many fields were written, or -1.
FILL_BUCKETS = (
    PRELUDE
    + _FILLING
    + """
if not claimed(ARGV[1], ARGV[2], ARGV[3]) then return -1 end
local prefix, find, sub, H = ARGV[4], string.find, string.sub, tonumber(ARGV[#ARGV])
local n = 0
for i = 5, #ARGV - 1, 2 do
  local blob, t, m, pos = ARGV[i + 1], {'', ''}, 2, 1  -- the bucket's sentinel first
  local size = #blob
  while pos <= size do
    local stop = find(blob, '\\255', pos + H, true)
    local stop2 = find(blob, '\\255', stop + 1, true)
    t[m + 1] = sub(blob, stop + 1, stop2 - 1)
    t[m + 2] = sub(blob, pos, stop - 1)
    m = m + 2
    pos = stop2 + 1
  end
  hset_pairs(prefix .. ARGV[i], t)
  n = n + m / 2 - 1
end
claim(ARGV[3])
return n
"""
)

# KEYS: entries, meta, stamp. ARGV: token. Removes the claim if it is this fill's.
FILL_END = """
local f = redis.call('HGET', KEYS[2], 'f')
if f and string.sub(f, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
  redis.call('HDEL', KEYS[2], 'f')
end
return 0
"""

# KEYS: entries, meta, stamp. ARGV: bucket prefix, then keys a broken fill may have left
# as half entries, then H: each is removed from the sorted set unless its player's bucket entry
# points at it. Returns how many were removed.
FILL_UNDO = (
    PRELUDE
    + """
local level, split, expiry = layout(KEYS[2])
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local n, H = 0, tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1 do
  local key = ARGV[i]
  local _, cur = map_entry(ARGV[1], string.sub(key, H + 1), level, split)
  if not cur or string.sub(cur, 1, H) ~= string.sub(key, 1, H) then
    n = n + redis.call('ZREM', KEYS[1], key)
  end
end
if n > 0 then
  bump(KEYS[3], expiry, true)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return n
"""
)
