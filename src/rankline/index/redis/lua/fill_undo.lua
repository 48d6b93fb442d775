-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamp. ARGV: bucket prefix, then keys a broken fill may have left
-- as half entries, then H: each is removed from the sorted set unless its player's bucket entry
-- points at it. Returns how many were removed.
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
