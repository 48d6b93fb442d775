-- mode: write
-- include: now_ms bump_version
-- KEYS: version, changes in flight. ARGV: the change's id. Records the change as done;
-- returns the version it moved to.
redis.call('ZREM', KEYS[2], ARGV[1])
return bump()
