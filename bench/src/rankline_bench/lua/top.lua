-- GET the top 100.
function request()
   return wrk.format("GET", base .. "/top?limit=100")
end
