-- mode: read
-- include: locate
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. ARGV: bucket prefix, then (player, guessed
-- bucket, bucket hash) for each player, then H. Returns {offset, key, offset, key, ..., level,
-- split}: the players with an entry, then the layout read (-1, -1 when every guess was
-- right); or {DAMAGED} or {LOST}.
local total = state()
if total < 0 then return {total} end
local seen = {-1, -1}
local out = {}
local prefix, H = ARGV[1], tonumber(ARGV[#ARGV])
for i = 2, #ARGV - 1, 3 do
  local key, offset = locate(prefix, ARGV[i], ARGV[i + 1], ARGV[i + 2], seen, total, H)
  if key then
    out[#out + 1] = offset
    out[#out + 1] = key
  elseif offset then
    return {DAMAGED}
  end
end
out[#out + 1] = seen[1]
out[#out + 1] = seen[2]
return out
