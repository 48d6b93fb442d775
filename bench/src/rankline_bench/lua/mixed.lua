-- 10 reads to 1 write: rank, around k=5 and top-100 in turn, then one score.
local step = 0
function request()
   step = step + 1
   local r = step % 11
   if r == 0 then
      return wrk.format("POST", base .. "/scores", write_headers, score_body(false))
   elseif r % 3 == 1 then
      return wrk.format("GET", base .. "/players/" .. player())
   elseif r % 3 == 2 then
      return wrk.format("GET", base .. "/players/" .. player() .. "/around?k=5")
   end
   return wrk.format("GET", base .. "/top?limit=100")
end
