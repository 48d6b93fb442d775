-- mode: snippet
-- include: constants built
-- KEYS: entries, meta, stamps; BUILT names the built marker (``built.lua``). The
-- leaderboard's total, or DAMAGED when the counts kept beside the sorted set disagree with
-- it or a repair is due, or LOST when the index is not built.
local function state()
  if redis.call('EXISTS', BUILT) == 0 then return LOST end
  local total = redis.call('ZCARD', KEYS[1])
  local s = redis.call('HMGET', KEYS[3], 'n', 'd')
  if s[2] or (tonumber(s[1]) or 0) ~= total then return DAMAGED end
  if (tonumber(redis.call('HGET', KEYS[2], 'n')) or 0) ~= total then return DAMAGED end
  return total
end
