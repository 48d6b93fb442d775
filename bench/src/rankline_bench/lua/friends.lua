-- POST a random player's leaderboard among 100 random friends.
function request()
   local friends = {}
   for i = 1, 100 do friends[i] = '"' .. player() .. '"' end
   local body = '{"friends":[' .. table.concat(friends, ",") .. "]}"
   return wrk.format("POST", base .. "/players/" .. player() .. "/friends", json_headers, body)
end
