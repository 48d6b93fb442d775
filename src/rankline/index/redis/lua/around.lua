-- mode: read
-- include: locate
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. ARGV: bucket prefix, player, k, guessed
-- bucket, bucket hash, H. Returns {offset, level, split, key, total, better, first, keys...}:
-- the player's 0-based offset (-1 and nothing after the layout when it has no entry; DAMAGED
-- or LOST, see ``_STATE``), the layout read (-1, -1 when the guess was right), the player's
-- key, the count of strictly better scores, and with k >= 0 up to k keys each side.
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
