-- mode: read
-- include: prelude checked
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. Returns {top stamp, total}; the total is
-- DAMAGED or LOST instead when the leaderboard cannot vouch for its top.
local total = state()
if total < 0 then return {0, total} end
return {read_stamp(KEYS[3], 't'), total}
