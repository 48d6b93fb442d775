-- mode: snippet
-- Redis's clock in ms, as ``now_ms`` (and its TIME reply as ``t``).
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
