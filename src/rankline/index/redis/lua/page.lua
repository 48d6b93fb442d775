-- mode: read
-- include: checked
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. ARGV: start, stop (exclusive), and "raw" to
-- skip the state check (verify reads what is there). Returns {total, keys...}, or {DAMAGED}
-- or {LOST}.
local total
if ARGV[3] == 'raw' then total = redis.call('ZCARD', KEYS[1]) else total = state() end
if total < 0 then return {total} end
local out = {total}
local start, stop = tonumber(ARGV[1]), tonumber(ARGV[2])
if stop > start then
  local keys = redis.call('ZRANGE', KEYS[1], start, stop - 1)
  for i = 1, #keys do out[1 + i] = keys[i] end
end
return out
