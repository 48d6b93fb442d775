-- mode: write
-- include: filling
-- KEYS: entries, meta, stamp. ARGV: level, split, token, the keys joined by "\xff" (as in
-- LOAD), H (the heads' length). Returns how many were added, or -1.
if not claimed(ARGV[1], ARGV[2], ARGV[3]) then return -1 end
local ok = intact(KEYS[1], KEYS[2], KEYS[3])
local blob, find, sub, H = ARGV[4], string.find, string.sub, tonumber(ARGV[5])
local batch, m, n, pos, size = {}, 0, 0, 1, #blob
while pos <= size do
  local stop = find(blob, '\255', pos + H, true) or (size + 1)
  batch[m + 1] = 0
  batch[m + 2] = sub(blob, pos, stop - 1)
  m = m + 2
  pos = stop + 1
  if m >= 4000 then
    n = n + redis.call('ZADD', KEYS[1], unpack(batch, 1, m))
    m = 0
  end
end
if m > 0 then n = n + redis.call('ZADD', KEYS[1], unpack(batch, 1, m)) end
claim(ARGV[3])
if ok then recount(KEYS[1], KEYS[2], KEYS[3]) end
return n
