-- POST 1,000 two-player matches (new match ids) between random players to the rating board:
-- the first wins, the second wins or they draw, a third each.
local outcomes = { { 1, 2 }, { 2, 1 }, { 1, 1 } }

function request()
   local items = {}
   for i = 1, 1000 do
      local a, b = player(), player()
      while b == a do b = player() end
      local places = outcomes[math.random(1, 3)]
      items[i] = string.format(
         '{"board":"%s","match_id":"%s","results":[{"player_id":"%s","place":%d},'
            .. '{"player_id":"%s","place":%d}]}',
         board, match_id(), a, places[1], b, places[2])
   end
   local body = '{"matches":[' .. table.concat(items, ",") .. "]}"
   return wrk.format("POST", "/v1/matches/batch", write_headers, body)
end
