-- The ceiling: the raw ASGI app's one 20-byte JSON answer.
function request()
   return wrk.format("GET", "/")
end
