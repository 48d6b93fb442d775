-- mode: snippet
-- The bucket of a player's hash under a layout (level, split pointer): linear hashing.
local function bucket_of(h, level, split)
  local n = 2 ^ level
  local b = h % n
  if b < split then b = h % (n + n) end
  return b
end
