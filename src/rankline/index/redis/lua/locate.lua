-- mode: snippet
-- include: bucket_of checked
-- The reads of a player (AROUND, POSITIONS) take the player's bucket from the caller: its
-- guess from the last layout it saw, with the player's bucket hash. A player's map entry is
-- in one bucket, so an entry found in the guessed bucket is the player's whatever layout the
-- guess came from (unless it is a leftover: see locate); only a miss reads the layout, and
-- hands it back for the next guesses. Every read first checks the leaderboard's state.
-- The player's key and 0-based offset, or false (and true when the player's bucket is
-- lost: the leaderboard has entries but the bucket is gone). The layout, once read, is
-- kept in seen (level, split; -1, -1 until then). An entry in the guessed bucket whose key
-- the sorted set lacks is a leftover (a drop that did not finish leaves buckets behind):
-- then, as on a miss, the layout says where to look. H: the length of the keys' heads.
local function locate(prefix, player, guess, hash, seen, total, H)
  local cur = redis.call('HGET', prefix .. guess, player)
  if cur then
    local key = string.sub(cur, 1, H) .. player
    local offset = redis.call('ZRANK', KEYS[1], key)
    if offset then return key, offset end
  end
  if seen[1] < 0 then
    local m = redis.call('HMGET', KEYS[2], 'l', 's')
    seen[1], seen[2] = tonumber(m[1]) or 0, tonumber(m[2]) or 0
  end
  local bucket = bucket_of(tonumber(hash), seen[1], seen[2])
  if bucket ~= tonumber(guess) then
    cur = redis.call('HGET', prefix .. bucket, player)
  end
  if not cur then
    return false, total > 0 and redis.call('EXISTS', prefix .. bucket) == 0
  end
  local key = string.sub(cur, 1, H) .. player
  local offset = redis.call('ZRANK', KEYS[1], key)
  if not offset then return false, false end
  return key, offset
end
