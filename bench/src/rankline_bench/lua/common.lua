-- Shared by every rankline bench script: rankline_bench.wrk puts this file in front of the
-- endpoint's script. Arguments come after `--` as key=value: n (players p:0 .. p:n-1),
-- board, key (server key, for writes), token (a player token), run (makes match ids unique
-- across runs), seed, delay (milliseconds between a response and the connection's next
-- request; 0: none).

local thread_count = 0

function setup(thread)
   thread_count = thread_count + 1
   thread:set("tid", thread_count)
end

function init(args)
   local opts = {}
   for _, arg in ipairs(args) do
      local k, v = arg:match("^([%w_]+)=(.*)$")
      if k then opts[k] = v end
   end
   n = tonumber(opts.n or "1000")
   board = opts.board or "bench"
   run = opts.run or "r"
   seq = 0
   math.randomseed(tonumber(opts.seed or "1") * 7919 + (tid or 0))
   base = "/v1/boards/" .. board
   json_headers = { ["Content-Type"] = "application/json" }
   write_headers = {
      ["Content-Type"] = "application/json",
      ["Authorization"] = "Bearer " .. (opts.key or ""),
   }
   token_headers = { ["Authorization"] = "Bearer " .. (opts.token or "") }
   local pause = tonumber(opts.delay or "0")
   if pause > 0 then
      -- wrk waits whole milliseconds: round at random so the mean pause is `pause`.
      local whole, part = math.floor(pause), pause - math.floor(pause)
      delay = function()
         if math.random() < part then return whole + 1 end
         return whole
      end
   end
end

function player()
   return "p:" .. math.random(0, n - 1)
end

function match_id()
   seq = seq + 1
   return run .. "-" .. tid .. "-" .. seq
end

function score_body(with_board)
   local item = string.format('"player_id":"%s","score":%d,"match_id":"%s"',
      player(), math.random(0, 1000000000), match_id())
   if with_board then return '{"board":"' .. board .. '",' .. item .. "}" end
   return "{" .. item .. "}"
end

-- Latency percentiles as JSON: wrk's own summary has no p95. Times are microseconds.
function done(summary, latency, requests)
   local e = summary.errors
   local parts = {}
   for _, p in ipairs({ 50, 75, 90, 95, 99, 99.9 }) do
      table.insert(parts, string.format('"%s":%d', tostring(p), latency:percentile(p)))
   end
   io.write(string.format(
      '@@rankline-wrk {"requests":%d,"duration_us":%d,"bytes":%d,'
         .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
         .. '"latency_us":{"mean":%.1f,"stdev":%.1f,"max":%d,"percentiles":{%s}}}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency.mean, latency.stdev, latency.max, table.concat(parts, ",")))
end
