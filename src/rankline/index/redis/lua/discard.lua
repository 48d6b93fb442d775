-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamp (movement, distinct values: as APPLY). ARGV: bucket prefix, then
-- exact keys to remove (repairs), then H.
-- The player's bucket entry goes only if it points at that key. Returns how many members
-- were removed.
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
