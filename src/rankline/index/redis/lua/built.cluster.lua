-- mode: snippet
-- On a Redis Cluster a script declares keys of one slot only, and the node's copy of the
-- built marker is in a slot of its own: the read scripts take its name as their last ARGV
-- (``cluster.ClusterRouter`` puts it there) and run with ``allow-cross-slot-keys``.
local BUILT = ARGV[#ARGV]
ARGV[#ARGV] = nil
