# Replicas of `trailmap serve` behind haproxy, shared by scripts/replicas.sh (the deployment) and
# scripts/bench/replicas-load.sh (its benchmark); sourced, not run. The caller sets `bin` (the trailmap binary) and
# keeps the PIDs it gets in the `pids` array.

# start_replicas N FIRST_PORT CATALOG SANDBOX LOGDIR: N replicas on ports FIRST_PORT...; appends
# their PIDs to `pids` and their addresses to `replica_ports`.
start_replicas() {
  local n=$1 first=$2 catalog=$3 sandbox=$4 logs=$5 i p
  replica_ports=()
  for i in $(seq "$n"); do
    p=$((first + i - 1))
    "$bin" serve --tiles Tiles --host 127.0.0.1 --port "$p" --catalog "$catalog" --store-sandbox "$sandbox" \
      --log-level "${LOG_LEVEL:-notice}" >"$logs/replica-$p.log" 2>&1 &
    pids+=($!)
    replica_ports+=("$p")
  done
}

# start_haproxy PORT CFG LOG PORTS...: round robin over 127.0.0.1:PORTS with /healthz checks every
# second (down after 2 failures, up after 1 success; a failed connect is retried on another).
start_haproxy() {
  local port=$1 cfg=$2 log=$3 p
  shift 3
  {
    printf 'global\n    maxconn 4096\ndefaults\n    mode http\n    timeout connect 2s\n'
    printf '    timeout client 60s\n    timeout server 60s\n    retries 2\n    option redispatch\n'
    printf 'frontend trailmap\n    bind 127.0.0.1:%s\n    default_backend replicas\n' "$port"
    printf 'backend replicas\n    balance roundrobin\n    option httpchk GET /healthz\n    http-check expect status 200\n'
    for p in "$@"; do printf '    server r%s 127.0.0.1:%s check inter 1s fall 2 rise 1\n' "$p" "$p"; done
  } >"$cfg"
  haproxy -f "$cfg" -db >"$log" 2>&1 &
  pids+=($!)
}

# wait_up URL: until URL answers 2xx (20 s at most); non-zero otherwise.
wait_up() {
  local i
  for i in $(seq 100); do curl -sf "$1" >/dev/null && return 0; sleep 0.2; done
  return 1
}
