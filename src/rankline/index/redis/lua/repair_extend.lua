-- mode: write
-- KEYS: entries, meta, stamps. ARGV: token, lease (ms). Extends this repair's lease;
-- returns 0 when the repair is no longer this one's.
local held = redis.call('HGET', KEYS[3], 'd')
if not held or string.sub(held, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[3], 'd', ARGV[1] .. ':' .. string.format('%.0f', now + ARGV[2]))
return 1
