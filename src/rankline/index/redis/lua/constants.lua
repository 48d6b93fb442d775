-- mode: snippet
-- The constants the scripts share with Python: ``rankline.types.TOP_WINDOW`` and those of
-- ``rankline.index.redis.scripts`` (a test checks that both sides agree). DAMAGED and LOST
-- are a read's answer when the leaderboard's keys disagree, or the index is not built.
local TOP_WINDOW = 1000
local BUCKET_LOAD = 48
local GROW_SPLITS = 64
local DAMAGED, LOST = -2, -3
