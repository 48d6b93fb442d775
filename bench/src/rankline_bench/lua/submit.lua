-- POST one score (a new match id each time) for a random player.
function request()
   return wrk.format("POST", base .. "/scores", write_headers, score_body(false))
end
