"""The ranking index on Redis and Redis Cluster: keys, Lua scripts, channel and fills."""
