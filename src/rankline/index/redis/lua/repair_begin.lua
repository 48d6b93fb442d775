-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamps, movement, distinct scores. ARGV: bucket prefix, token, lease (ms).
-- Starts a repair:
-- unless another repair's lease runs, deletes every key of the leaderboard (so that it is
-- filled afresh from the durable store) and marks it damaged with ``token:until``, which
-- keeps reads away until REPAIR_END. Returns 1, or 0 when another repair runs.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('HGET', KEYS[3], 'd')
if held then
  local token, expires = string.match(held, '^(.-):(%d+)$')
  if token ~= ARGV[2] and tonumber(expires or '0') > now then return 0 end
end
-- every bucket of the layout, and any found past it (the layout may be the lost key)
local level, split = layout(KEYS[2])
local i, count, missed = 0, 2 ^ level + split, 0
while i < count or missed < 64 do
  if redis.call('UNLINK', ARGV[1] .. i) == 0 and i >= count then missed = missed + 1 end
  i = i + 1
end
redis.call('UNLINK', KEYS[1], KEYS[2], KEYS[4], KEYS[5])
redis.call('HDEL', KEYS[3], 'n', 'f')
redis.call('HSET', KEYS[3], 'd', ARGV[2] .. ':' .. string.format('%.0f', now + ARGV[3]))
bump(KEYS[3], false, true)
return 1
