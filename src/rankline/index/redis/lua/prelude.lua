-- mode: snippet
-- include: constants bucket_of
-- What every script that writes starts with: the bucket hash (first 32 bits of SHA-1, as
-- ``keys.bucket_hash``), linear hashing, the stamps, the counts, dense values and movement.
local function hash32(player)
  return tonumber(string.sub(redis.sha1hex(player), 1, 8), 16)
end


-- The player's bucket (its name) under this layout, and the player's entry there or false.
local function map_entry(prefix, player, level, split)
  local bucket = prefix .. bucket_of(hash32(player), level, split)
  return bucket, redis.call('HGET', bucket, player)
end

-- level, split pointer and expiry (ms, or false) of a leaderboard's buckets
local function layout(meta)
  local m = redis.call('HMGET', meta, 'l', 's', 'x')
  return tonumber(m[1]) or 0, tonumber(m[2]) or 0, m[3]
end

-- A change: the change stamp moves; so does the top stamp, to the same value, when the
-- change may have touched the top.
local function bump(stamps, expiry, top)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local held = tonumber(redis.call('HGET', stamps, 'c') or '0') or 0
  local value = string.format('%.0f', math.max(held + 1, now))
  if top then
    redis.call('HSET', stamps, 'c', value, 't', value)
  else
    redis.call('HSET', stamps, 'c', value)
  end
  if expiry then redis.call('PEXPIREAT', stamps, expiry) end
end

-- A stamp field, or the clock for a missing one.
local function read_stamp(stamps, field)
  local stamp = redis.call('HGET', stamps, field)
  if stamp then return stamp end
  local t = redis.call('TIME')
  return string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))
end

-- Whether the counts kept beside the sorted set hold (and no repair is due), and its size.
local function intact(entries, meta, stamps)
  local total = redis.call('ZCARD', entries)
  local s = redis.call('HMGET', stamps, 'n', 'd')
  if s[2] or (tonumber(s[1]) or 0) ~= total then return false, total end
  return (tonumber(redis.call('HGET', meta, 'n')) or 0) == total, total
end

-- Record the sorted set's size as the count (after a change to an intact leaderboard).
local function recount(entries, meta, stamps)
  local total = redis.call('ZCARD', entries)
  redis.call('HSET', meta, 'n', total)
  redis.call('HSET', stamps, 'n', total)
end

-- Mark the leaderboard damaged (a repair is due), unless a repair is running.
local function damage(stamps)
  if not redis.call('HGET', stamps, 'd') then redis.call('HSET', stamps, 'd', '0:0') end
end

-- A board with dense ranks keeps its leaderboards' distinct values in a sorted set
-- (``keys.distinct``), passed as the write scripts' KEYS[5] (nil on other boards). A value is
-- a key's first H - 8 bytes (``ordering.value_bytes``, the board's ``Keys.prefix``): the
-- score, and the subscore on a board with one. No count per value is kept: the entries tell
-- in O(log N) whether a value is still held.
local function hold(distinct, key, H)
  if distinct then redis.call('ZADD', distinct, 0, string.sub(key, 1, H - 8)) end
end

-- After ``gone`` left the entries: forget its value when no entry holds it any more.
local function unhold(entries, distinct, gone, H)
  if not distinct then return end
  local p = string.sub(gone, 1, H - 8)
  local left = redis.call('ZRANGE', entries, '[' .. p, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
  if not left or string.sub(left, 1, H - 8) ~= p then redis.call('ZREM', distinct, p) end
end

-- Movement (``keys.moves``, the write scripts' KEYS[4]; nil on a shard): player ->
-- "previous:best", 1-based ranks, empty when not known. After a change that took the player
-- from rank ``before`` (false: no entry) to ``after``: a first entry of the standing
-- (revision 1, not restored) starts at its rank; an entry coming back (or whose record is
-- gone) is not known; otherwise previous is ``before`` and best the least of the held best,
-- before and after, while the held best is known. ``index.memory._moved`` is the same rule.
local function moved(moves, player, before, after, rev, restored)
  if not moves then return end
  local record = false
  if not before then
    if rev == 1 and not restored then record = ':' .. after end
  else
    local best = tonumber(string.match(redis.call('HGET', moves, player) or '', ':(%d+)$'))
    if best then best = math.min(best, before, after) end
    record = before .. ':' .. (best or '')
  end
  if record then
    redis.call('HSET', moves, player, record)
  else
    redis.call('HDEL', moves, player)
  end
end

local function hset_pairs(key, t)
  for i = 1, #t, 1000 do
    redis.call('HSET', key, unpack(t, i, math.min(i + 999, #t)))
  end
end

-- Split the next bucket: move the entries whose hash says so to its new sibling. Both
-- are written afresh, so a bucket that outgrew the listpack encoding gets it back.
local function split_next(prefix, level, split, expiry)
  local n = 2 ^ level
  local src = prefix .. split
  local all = redis.call('HGETALL', src)
  -- both start with the sentinel: every bucket of the layout exists
  local keep, move = {'', ''}, {'', ''}
  for i = 1, #all, 2 do
    if all[i] ~= '' then
      local t = keep
      if hash32(all[i]) % (n + n) ~= split then t = move end
      t[#t + 1] = all[i]
      t[#t + 1] = all[i + 1]
    end
  end
  local dst = prefix .. (split + n)
  if #move > 2 or #all == 0 then
    redis.call('DEL', src)
    hset_pairs(src, keep)
  end
  hset_pairs(dst, move)
  if expiry then
    redis.call('PEXPIREAT', src, expiry)
    redis.call('PEXPIREAT', dst, expiry)
  end
  split = split + 1
  if split == n then return level + 1, 0, #all / 2 end
  return level, split, #all / 2
end

-- Split buckets until there is one per BUCKET_LOAD of size entries, or a limit is hit.
-- Returns the new level and split pointer, and whether more splits are due.
local function grow(meta, prefix, level, split, expiry, size, max_splits, max_moved)
  local splits, moved = 0, 0
  while size > BUCKET_LOAD * (2 ^ level + split) do
    if splits >= max_splits or moved >= max_moved then break end
    local held
    level, split, held = split_next(prefix, level, split, expiry)
    splits = splits + 1
    moved = moved + held
  end
  if splits > 0 then redis.call('HSET', meta, 'l', level, 's', split) end
  return level, split, size > BUCKET_LOAD * (2 ^ level + split)
end
