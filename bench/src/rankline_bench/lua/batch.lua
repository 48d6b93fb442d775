-- POST a batch of 1,000 scores (new match ids) for random players.
function request()
   local items = {}
   for i = 1, 1000 do items[i] = score_body(true) end
   local body = '{"scores":[' .. table.concat(items, ",") .. "]}"
   return wrk.format("POST", "/v1/scores/batch", write_headers, body)
end
