-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamps. ARGV: token. Ends this repair: the leaderboard was filled
-- from the durable store (and kept by revision-checked writes meanwhile), so its size
-- becomes the count and the damage mark goes. Returns 0 when the repair was not this one's.
local held = redis.call('HGET', KEYS[3], 'd')
if not held or string.sub(held, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
redis.call('HDEL', KEYS[3], 'd')
recount(KEYS[1], KEYS[2], KEYS[3])
local expiry = redis.call('HGET', KEYS[2], 'x')
bump(KEYS[3], expiry, true)
return 1
