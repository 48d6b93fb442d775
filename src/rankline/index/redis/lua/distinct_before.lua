-- mode: read
-- include: prelude
-- KEYS: entries, meta, stamps, distinct scores. ARGV: score prefixes. Returns {total,
-- count...}: per prefix, how many distinct scores sort strictly before it (dense ranks less
-- one, a ZLEXCOUNT); or {DAMAGED} when the leaderboard's counts disagree. It names no built
-- marker (a cluster node's copy is in another slot, and the distinct scores are a fourth
-- key): the read of the entries it goes with checks that.
if not intact(KEYS[1], KEYS[2], KEYS[3]) then return {DAMAGED} end
local out = {redis.call('ZCARD', KEYS[1])}
for i = 1, #ARGV do
  out[i + 1] = redis.call('ZLEXCOUNT', KEYS[4], '-', '(' .. ARGV[i])
end
return out
