-- mode: write
-- include: filling
-- KEYS: entries, meta, stamp. ARGV: level, split, token, bucket prefix, then pairs (bucket
-- number, records): each record is the bucket value (head and revision), "\xff", the player
-- id, "\xff" (the head may hold "\xff", so the search starts after it); then H. One
-- multi-field HSET per bucket. Returns how many fields were written, or -1.
if not claimed(ARGV[1], ARGV[2], ARGV[3]) then return -1 end
local prefix, find, sub, H = ARGV[4], string.find, string.sub, tonumber(ARGV[#ARGV])
local n = 0
for i = 5, #ARGV - 1, 2 do
  local blob, t, m, pos = ARGV[i + 1], {'', ''}, 2, 1  -- the bucket's sentinel first
  local size = #blob
  while pos <= size do
    local stop = find(blob, '\255', pos + H, true)
    local stop2 = find(blob, '\255', stop + 1, true)
    t[m + 1] = sub(blob, stop + 1, stop2 - 1)
    t[m + 2] = sub(blob, pos, stop - 1)
    m = m + 2
    pos = stop2 + 1
  end
  hset_pairs(prefix .. ARGV[i], t)
  n = n + m / 2 - 1
end
claim(ARGV[3])
return n
