-- wrk script for serve-vs-nginx.sh: cycles through the request paths listed one per line in the
-- file given after `--` (each thread from its own offset) and prints one machine-readable line.
--   wrk -t2 -c50 -d10s -s tiles.lua http://127.0.0.1:8080 -- PATHS_FILE THREADS
local threads = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

function init(args)
  local file = args[1] or error("give the paths file after --")
  local nthreads = tonumber(args[2]) or 1
  reqs = {}
  for line in io.lines(file) do
    if #line > 0 then reqs[#reqs + 1] = wrk.format("GET", line) end
  end
  if #reqs == 0 then error("no request paths in " .. file) end
  i = math.floor(tid * #reqs / nthreads)
end

function request()
  i = i % #reqs + 1
  return reqs[i]
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "WRK requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d max_us=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, e.status))
end
