-- mode: snippet
-- include: prelude
-- The fast full load of an empty leaderboard (``RedisIndex.fill``): FILL_BEGIN claims it,
-- FILL_KEYS adds keys to the sorted set in rank order, FILL_BUCKETS writes whole groups of
-- player-map fields per bucket later, FILL_END lets go. Until a key's bucket entry follows,
-- the key is a *half entry*: in the sorted set, unknown to the player map. Each script
-- records its claim as meta field ``f`` = "token:change stamp"; the next one runs only if
-- that still matches (no other process changed the leaderboard meanwhile), the layout is
-- the one the caller placed the entries with and no expiry is set; otherwise it writes
-- nothing and returns -1, and the caller repairs with FILL_UNDO and the careful LOAD. A
-- claim found at FILL_BEGIN is a fill that did not finish (its process died, or it is
-- still running): the caller drops the leaderboard and fills it afresh.
local function claim(token)
  bump(KEYS[3], false, true)
  redis.call('HSET', KEYS[2], 'f', token .. ':' .. redis.call('HGET', KEYS[3], 'c'))
end
local function claimed(level, split, token)
  local l, s, expiry = layout(KEYS[2])
  if expiry or l ~= tonumber(level) or s ~= tonumber(split) then return false end
  local c = redis.call('HGET', KEYS[3], 'c')
  return c and redis.call('HGET', KEYS[2], 'f') == token .. ':' .. c
end
