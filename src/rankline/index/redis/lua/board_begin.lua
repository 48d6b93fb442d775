-- mode: write
-- include: now_ms bump_version
-- KEYS: version, changes in flight. ARGV: the change's id and how long it may stay in
-- flight (ms). Records the change as in flight; returns the version it moved to.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now_ms)
redis.call('ZADD', KEYS[2], now_ms + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return bump()
