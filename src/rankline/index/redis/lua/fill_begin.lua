-- mode: write
-- include: filling
-- KEYS: entries, meta, stamp. ARGV: token. Returns 'ok' (claimed), 'held' (not empty, or
-- an expiry is set: load carefully) or 'dirty' (an unfinished fill's claim).
local level, split, expiry = layout(KEYS[2])
if redis.call('HEXISTS', KEYS[2], 'f') == 1 then return 'dirty' end
if expiry or redis.call('ZCARD', KEYS[1]) > 0 then return 'held' end
claim(ARGV[1])
return 'ok'
