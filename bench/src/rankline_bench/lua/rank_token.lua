-- GET one random player's rank, as a player calling with a token (verified, then kept).
function request()
   return wrk.format("GET", base .. "/players/" .. player(), token_headers)
end
