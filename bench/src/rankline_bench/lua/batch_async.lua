-- POST a batch of 1,000 scores (new match ids) for random players with
-- `Prefer: respond-async`: answered 202 once the ingestion log holds them.
local async_headers = nil

function request()
   if async_headers == nil then
      async_headers = {}
      for k, v in pairs(write_headers) do async_headers[k] = v end
      async_headers["Prefer"] = "respond-async"
   end
   local items = {}
   for i = 1, 1000 do items[i] = score_body(true) end
   local body = '{"scores":[' .. table.concat(items, ",") .. "]}"
   return wrk.format("POST", "/v1/scores/batch", async_headers, body)
end
