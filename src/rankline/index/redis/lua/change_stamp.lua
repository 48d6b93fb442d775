-- mode: read
-- include: prelude checked
-- cluster-flags: no-writes,allow-cross-slot-keys
-- KEYS: entries, meta, stamps, built marker. Returns the change stamp, or DAMAGED or LOST.
local total = state()
if total < 0 then return total end
return read_stamp(KEYS[3], 'c')
