-- mode: read
-- include: checked
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. ARGV: key, before, after. Returns {total, n,
-- keys...}: up to ``before`` members strictly before the key (the n first, in rank order)
-- and up to ``after`` members from the key on; or {DAMAGED} or {LOST}. O(log N + k): the
-- shard's part of a sharded leaderboard's neighbours and deep pages.
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
