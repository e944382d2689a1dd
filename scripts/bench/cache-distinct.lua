-- wrk script for cache-memory.sh: every request asks for a tile not asked before (until the
-- SIDE x SIDE block at zoom 11 is exhausted, then it starts over). Threads interleave.
--   wrk -t2 -c32 -d100s -s cache-distinct.lua http://127.0.0.1:PORT -- TILESET SIDE THREADS
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  tileset = args[1] or "cachebench"
  side = tonumber(args[2]) or 1024
  step = tonumber(args[3]) or 1
  i = tid
end

function request()
  local k = i % (side * side)
  i = i + step
  return wrk.format("GET", string.format("/tiles/%s/11/%d/%d.png", tileset, k % side, math.floor(k / side)))
end

function done(summary, latency, requests)
  io.write(string.format("WRK requests=%d errors_status=%d p50_us=%d p99_us=%d\n", summary.requests,
    summary.errors.status, latency:percentile(50), latency:percentile(99)))
end
