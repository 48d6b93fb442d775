-- mode: read
-- include: checked
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. ARGV: bounds (keys or key prefixes). Returns
-- {total, count...}: per bound, how many members sort strictly before it (a ZLEXCOUNT, so
-- O(log N)); or {DAMAGED} or {LOST}. A shard's part of a sharded leaderboard's ranks.
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
