-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamp, movement, distinct scores. ARGV: bucket prefix, ms from now.
-- Records the expiry time in meta (keys created later get it too) and sets it on these keys.
-- Returns {expiry time in ms, how many buckets still need it}: none when the recorded time was
-- within a second.
local level, split, expiry = layout(KEYS[2])
local t = redis.call('TIME')
local want = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
local buckets = 2 ^ level + split
if expiry and math.abs(tonumber(expiry) - want) <= 1000 then
  want = tonumber(expiry)
  buckets = 0
end
local at = string.format('%.0f', want)
redis.call('HSET', KEYS[2], 'x', at)
for i = 1, 5 do redis.call('PEXPIREAT', KEYS[i], at) end
return {at, buckets}
