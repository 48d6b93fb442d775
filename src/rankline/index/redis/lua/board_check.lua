-- mode: read
-- include: now_ms
-- KEYS: version, changes in flight. Returns the counter ('' when missing) and how many
-- changes are in flight (``board_versions``).
return {redis.call('GET', KEYS[1]) or '', redis.call('ZCOUNT', KEYS[2], '(' .. now_ms, '+inf')}
