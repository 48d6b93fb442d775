-- GET a page of 100 at offset n/2, deep in the leaderboard.
function request()
   return wrk.format("GET", base .. "/top?limit=100&offset=" .. math.floor(n / 2))
end
