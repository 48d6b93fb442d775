"""Lua scripts of the Redis index. Each runs atomically on one leaderboard's keys
(KEYS[1] = entries sorted set, KEYS[2] = heads hash) in one round trip."""

from __future__ import annotations

# ARGV: (player, head or "" to remove, revision) triples. A change applies when its
# revision is newer than the one held (0: always). Returns how many applied.
APPLY = """
local n = 0
for i = 1, #ARGV, 3 do
  local player, head, rev = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  local cur = redis.call('HGET', KEYS[2], player)
  local newer = true
  if cur and rev > 0 then
    local held = tonumber(string.sub(cur, 17))
    if held and held >= rev then newer = false end
  end
  if newer then
    if cur then redis.call('ZREM', KEYS[1], string.sub(cur, 1, 16) .. player) end
    if head == '' then
      redis.call('HDEL', KEYS[2], player)
    else
      redis.call('ZADD', KEYS[1], 0, head .. player)
      redis.call('HSET', KEYS[2], player, head .. ARGV[i + 2])
    end
    n = n + 1
  end
end
return n
"""

# ARGV: exact keys to remove (repairs). The player's hash entry goes only if it points at
# that key. Returns how many members were removed.
DISCARD = """
local n = 0
for i = 1, #ARGV do
  local key = ARGV[i]
  n = n + redis.call('ZREM', KEYS[1], key)
  local player = string.sub(key, 17)
  local cur = redis.call('HGET', KEYS[2], player)
  if cur and string.sub(cur, 1, 16) == string.sub(key, 1, 16) then
    redis.call('HDEL', KEYS[2], player)
  end
end
return n
"""

# ARGV: player, k. Returns nil, or {offset, key, total, better, first, keys...}: the
# player's 0-based offset, the count of strictly better scores, and up to k keys each side.
AROUND = """
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if not cur then return false end
local head = string.sub(cur, 1, 16)
local key = head .. ARGV[1]
local offset = redis.call('ZRANK', KEYS[1], key)
if not offset then return false end
local total = redis.call('ZCARD', KEYS[1])
local better = redis.call('ZLEXCOUNT', KEYS[1], '-', '(' .. string.sub(head, 1, 8))
local k = tonumber(ARGV[2])
local out = {offset, key, total, better}
if k >= 0 then
  local first = math.max(0, offset - k)
  out[5] = first
  local keys = redis.call('ZRANGE', KEYS[1], first, offset + k)
  for i = 1, #keys do out[5 + i] = keys[i] end
end
return out
"""

# ARGV: players. Returns {offset, key, offset, key, ...} for those with an entry.
POSITIONS = """
local found = redis.call('HMGET', KEYS[2], unpack(ARGV))
local out = {}
for i = 1, #ARGV do
  local cur = found[i]
  if cur then
    local key = string.sub(cur, 1, 16) .. ARGV[i]
    local offset = redis.call('ZRANK', KEYS[1], key)
    if offset then
      out[#out + 1] = offset
      out[#out + 1] = key
    end
  end
end
return out
"""

# ARGV: start, stop (exclusive). Returns {total, keys...}.
PAGE = """
local out = {redis.call('ZCARD', KEYS[1])}
local start, stop = tonumber(ARGV[1]), tonumber(ARGV[2])
if stop > start then
  local keys = redis.call('ZRANGE', KEYS[1], start, stop - 1)
  for i = 1, #keys do out[1 + i] = keys[i] end
end
return out
"""
