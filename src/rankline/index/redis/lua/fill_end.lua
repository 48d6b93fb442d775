-- mode: write
-- KEYS: entries, meta, stamp. ARGV: token. Removes the claim if it is this fill's.
local f = redis.call('HGET', KEYS[2], 'f')
if f and string.sub(f, 1, #ARGV[1] + 1) == ARGV[1] .. ':' then
  redis.call('HDEL', KEYS[2], 'f')
end
return 0
