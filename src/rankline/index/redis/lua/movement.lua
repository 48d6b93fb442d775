-- mode: read
-- KEYS: moves. ARGV: player. Returns the player's ``previous:best`` record, or nil. A script
-- (not a plain HGET) so that it goes with the grouped reads (``index.pipelining``).
return redis.call('HGET', KEYS[1], ARGV[1])
