-- mode: read
-- include: built
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. Returns {built (0/1), entries, count in meta,
-- count in stamps, damaged flag or false}: what ``verify`` checks besides the entries.
local s = redis.call('HMGET', KEYS[3], 'n', 'd')
return {redis.call('EXISTS', BUILT), redis.call('ZCARD', KEYS[1]),
  tonumber(redis.call('HGET', KEYS[2], 'n')) or -1, tonumber(s[1]) or -1, s[2]}
