-- mode: write
-- include: prelude
-- Bulk load. KEYS: entries, meta, stamp (movement, distinct values: as APPLY). ARGV: level and
-- split pointer the caller placed the entries with, bucket prefix, then three strings with one
-- item per entry: the keys in byte order joined by "\xff" (which follows no head and occurs in
-- no UTF-8 player id), the revisions and the bucket numbers, space-separated; then H. Each entry
-- costs one HGET (a reload of unchanged standings, what this script mostly does now that
-- ``fill`` takes empty leaderboards, costs nothing more); a new or newer one an HSET, and its
-- key joins a multi-member ZADD; where the index holds the player already, the newer revision
-- wins. Returns how many were written, or -1 (nothing written) when the layout changed since
-- the caller read it.
local level, split, expiry = layout(KEYS[2])
if level ~= tonumber(ARGV[1]) or split ~= tonumber(ARGV[2]) then return -1 end
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local prefix, blob, H = ARGV[3], ARGV[4], tonumber(ARGV[7])
local next_rev, next_bucket = string.gmatch(ARGV[5], '%d+'), string.gmatch(ARGV[6], '%d+')
local find, sub = string.find, string.sub
local batch, written, touched = {}, 0, {}
local function flush()
  if #batch > 0 then
    redis.call('ZADD', KEYS[1], unpack(batch))
    if KEYS[5] then
      local scores = {}
      for i = 2, #batch, 2 do
        scores[i - 1], scores[i] = 0, sub(batch[i], 1, H - 8)
      end
      redis.call('ZADD', KEYS[5], unpack(scores))
    end
  end
  batch = {}
end
local pos, size = 1, #blob
while pos <= size do
  local stop = find(blob, '\255', pos + H, true) or (size + 1)
  local key = sub(blob, pos, stop - 1)
  pos = stop + 1
  local player, rev = sub(key, H + 1), next_rev()
  local bucket = prefix .. next_bucket()
  local cur = redis.call('HGET', bucket, player)
  local take = not cur
  if cur then
    local held = tonumber(sub(cur, H + 1))
    if not held or tonumber(rev) == 0 or held < tonumber(rev) then
      flush()
      local old = sub(cur, 1, H) .. player
      if redis.call('ZREM', KEYS[1], old) == 1 then unhold(KEYS[1], KEYS[5], old, H) end
      if KEYS[4] then redis.call('HDEL', KEYS[4], player) end  -- a change not seen
      take = true
    end
  end
  if take then
    if not cur then redis.call('HSETNX', bucket, '', '') end
    redis.call('HSET', bucket, player, sub(key, 1, H) .. rev)
    batch[#batch + 1] = 0
    batch[#batch + 1] = key
    written = written + 1
    if #batch >= 2000 then flush() end
    if expiry then touched[bucket] = true end
  end
end
flush()
if written > 0 then
  if expiry then
    redis.call('PEXPIREAT', KEYS[1], expiry)
    for j = 4, #KEYS do redis.call('PEXPIREAT', KEYS[j], expiry) end
    for bucket in pairs(touched) do redis.call('PEXPIREAT', bucket, expiry) end
  end
  bump(KEYS[3], expiry, true)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return written
