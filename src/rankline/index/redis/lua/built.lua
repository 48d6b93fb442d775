-- mode: snippet
-- The index's built marker, which the read scripts check: their KEYS[4] on a single Redis
-- (``built.cluster.lua`` on a Redis Cluster).
local BUILT = KEYS[4]
