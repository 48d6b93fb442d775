-- GET a random player with the 5 entries above and the 5 below.
function request()
   return wrk.format("GET", base .. "/players/" .. player() .. "/around?k=5")
end
