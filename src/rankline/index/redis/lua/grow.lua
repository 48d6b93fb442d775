-- mode: write
-- include: prelude
-- KEYS: entries, meta. ARGV: bucket prefix, at least this many entries, plus this many
-- more than the leaderboard holds, max splits, max entries moved. Returns {level, split,
-- 1 if more splits are due}.
local level, split, expiry = layout(KEYS[2])
local size = math.max(tonumber(ARGV[2]), redis.call('ZCARD', KEYS[1]) + tonumber(ARGV[3]))
local more
level, split, more = grow(KEYS[2], ARGV[1], level, split, expiry, size,
  tonumber(ARGV[4]), tonumber(ARGV[5]))
return {level, split, more and 1 or 0}
