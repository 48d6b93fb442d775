-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamp, movement, distinct scores. ARGV: bucket prefix, n. Deletes the
-- leaderboard's keys and its first n buckets; returns how many buckets it had (the caller deletes
-- the rest).
local level, split = layout(KEYS[2])
local buckets = 2 ^ level + split
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
for i = 0, math.min(buckets, tonumber(ARGV[2])) - 1 do
  redis.call('UNLINK', ARGV[1] .. i)
end
return buckets
