-- mode: write
-- include: prelude
-- KEYS: entries, meta, stamp, then movement unless the leaderboard is a shard, then distinct
-- values on a board with dense ranks. ARGV: bucket prefix, then (player, head or "" to
-- remove, revision) triples, then H; a revision ending with "r" is a restored entry's. A
-- change applies when its revision is newer than the one held (0: always). A change moves the
-- change stamp, and the top stamp too when its old or new offset is inside the top window.
-- Returns how many applied.
local prefix, H = ARGV[1], tonumber(ARGV[#ARGV])
local level, split, expiry = layout(KEYS[2])
local ok, total = intact(KEYS[1], KEYS[2], KEYS[3])
local top, changed, added, n = false, false, false, 0
local function in_top(member)
  if total <= TOP_WINDOW then return true end
  return (redis.call('ZRANK', KEYS[1], member) or TOP_WINDOW) < TOP_WINDOW
end
for i = 2, #ARGV - 1, 3 do
  local player, head, given = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local restored = string.sub(given, -1) == 'r'
  if restored then given = string.sub(given, 1, -2) end
  local rev = tonumber(given)
  local bucket, cur = map_entry(prefix, player, level, split)
  if not cur and total > 0 and redis.call('EXISTS', bucket) == 0 then
    ok = false  -- a lost bucket: its players' old keys would stay in the sorted set
    damage(KEYS[3])
  end
  local newer = true
  if cur and rev > 0 then
    local held = tonumber(string.sub(cur, H + 1))
    if held and held >= rev then newer = false end
  end
  if newer and cur and string.sub(cur, 1, H) == head then
    redis.call('HSET', bucket, player, head .. given)  -- same key, newer revision
    n = n + 1
  elseif newer then
    local before = false
    if cur then
      local old = string.sub(cur, 1, H) .. player
      if KEYS[4] then before = redis.call('ZRANK', KEYS[1], old) end
      top = top or in_top(old)
      total = total - redis.call('ZREM', KEYS[1], old)
      unhold(KEYS[1], KEYS[5], old, H)
      changed = true
      if before then before = before + 1 end
    end
    if head == '' then
      if cur then redis.call('HDEL', bucket, player) end
      if KEYS[4] then redis.call('HDEL', KEYS[4], player) end
    else
      local key = head .. player
      total = total + redis.call('ZADD', KEYS[1], 0, key)
      hold(KEYS[5], key, H)
      top = top or in_top(key)
      changed = true
      if KEYS[4] then
        moved(KEYS[4], player, before, redis.call('ZRANK', KEYS[1], key) + 1, rev, restored)
      end
      if redis.call('HSET', bucket, player, head .. given) == 1 then
        added = true
        redis.call('HSETNX', bucket, '', '')
        if expiry then redis.call('PEXPIREAT', bucket, expiry) end
      end
    end
    n = n + 1
  end
end
if added then
  if expiry then redis.call('PEXPIREAT', KEYS[1], expiry) end
  grow(KEYS[2], prefix, level, split, expiry, total, GROW_SPLITS, GROW_SPLITS * BUCKET_LOAD)
end
if changed then
  if expiry then
    for j = 4, #KEYS do redis.call('PEXPIREAT', KEYS[j], expiry) end
  end
  bump(KEYS[3], expiry, top)
  if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
end
return n
