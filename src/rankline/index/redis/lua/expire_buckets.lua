-- mode: write
-- KEYS: entries (names the slot). ARGV: bucket prefix, expiry time (ms), first, stop.
for i = tonumber(ARGV[3]), tonumber(ARGV[4]) - 1 do
  redis.call('PEXPIREAT', ARGV[1] .. i, ARGV[2])
end
return 0
