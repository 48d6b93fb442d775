-- mode: read
-- include: bucket_of
-- KEYS: entries, meta. ARGV: bucket prefix, then keys of the sorted set, then H. Returns the keys
-- whose player's map entry (under the layout in meta) does not point at them.
local m = redis.call('HMGET', KEYS[2], 'l', 's')
local level, split = tonumber(m[1]) or 0, tonumber(m[2]) or 0
local out, H = {}, tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1 do
  local key = ARGV[i]
  local player = string.sub(key, H + 1)
  local h = tonumber(string.sub(redis.sha1hex(player), 1, 8), 16)
  local cur = redis.call('HGET', ARGV[1] .. bucket_of(h, level, split), player)
  if not cur or string.sub(cur, 1, H) ~= string.sub(key, 1, H) then out[#out + 1] = key end
end
return out
