-- GET one random player's rank.
function request()
   return wrk.format("GET", base .. "/players/" .. player())
end
