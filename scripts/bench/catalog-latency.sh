#!/usr/bin/env bash
# GET /api/v1/catalog latency under wrk -c50, against nginx serving the same JSON as a static file.
#
# usage: scripts/bench/catalog-latency.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        DURATION (10s), CONNS (50), PORTS ("18491 18492"), KEEP=1 keeps the scratch folder,
#        RECORD=0 leaves docs/benchmarks.md as it is (the script writes its row there at the end)
#
# Publishes the sample catalog (Tiles/*.mbtiles must exist: run scripts/run.sh once, or it builds
# them), registers an account with a device and a purchase, then runs wrk -t2 for (a) anonymous
# GET /api/v1/catalog, (b) the same with a bearer token and ?device= (status per product: three
# queries), (c) nginx serving (a)'s bytes. Prints req/s, p50, p99 and the ratios. 127.0.0.1 only.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DURATION=${DURATION:-10s}; CONNS=${CONNS:-50}
read -r NGINX_PORT TM_PORT _ <<<"${PORTS:-18491 18492}" || true
WORK=$(mktemp -d "${TMPDIR:-/tmp}/catalog-latency.XXXXXX"); chmod 755 "$WORK"
PIDS=()
cleanup() { local rc=$?; set +e; for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  [[ ${KEEP:-0} == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"; exit $rc; }
trap cleanup EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
die() { echo "error: $*" >&2; exit 1; }
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
NGINX=$(command -v nginx || echo /usr/sbin/nginx); [[ -x $NGINX ]] || die "nginx not found (apt-get install nginx-light)"
if [[ -z ${TRAILMAP:-} ]]; then
  (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP=$ROOT/.build-bench/release/trailmap
fi
mkdir -p "$WORK/tiles" "$WORK/static/api/v1"
bundles=$(python3 -c 'import json, sys; print(" ".join(p["bundle"][:-8] for p in json.load(open(sys.argv[1]))["products"]))' "$ROOT/Catalog/products.json")
for b in $bundles; do
  [[ -f $ROOT/Tiles/$b.mbtiles ]] || die "Tiles/$b.mbtiles missing: run scripts/run.sh once"
  ln -s "$ROOT/Tiles/$b.mbtiles" "$WORK/tiles/$b.mbtiles"
done
"$TRAILMAP" catalog publish --products "$ROOT/Catalog/products.json" --tiles "$WORK/tiles" --catalog "$WORK/catalog.sqlite" --quiet
"$TRAILMAP" store sandbox init "$WORK/sandbox" >/dev/null
"$TRAILMAP" serve --tiles "$WORK/tiles" --port "$TM_PORT" --catalog "$WORK/catalog.sqlite" --store-sandbox "$WORK/sandbox" \
  --log-level error --quiet & PIDS+=($!)
B=http://127.0.0.1:$TM_PORT/api/v1
for _ in $(seq 100); do curl -sf "$B/openapi.json" >/dev/null && break; sleep 0.1; done
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
curl -sf -XPOST "$B/accounts" -H 'Content-Type: application/json' -d '{"email":"bench@example.com","password":"bench password"}' >/dev/null
TOKEN=$(curl -sf -XPOST "$B/sessions" -H 'Content-Type: application/json' -d '{"email":"bench@example.com","password":"bench password"}' | json '["token"]')
AUTH=(-H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json')
DEVICE=$(curl -sf -XPOST "$B/devices" "${AUTH[@]}" -d '{"name":"bench"}' | json '["deviceId"]')
JWS=$(curl -sf -XPOST "$B/sandbox/transactions" "${AUTH[@]}" -d '{"productId":"com.trailmap.region.colorado"}' | json '["signedTransaction"]')
curl -sf -XPOST "$B/purchases" "${AUTH[@]}" -d "{\"signedTransaction\":\"$JWS\"}" >/dev/null
curl -sf "$B/catalog" -o "$WORK/static/api/v1/catalog"
cat >"$WORK/nginx.conf" <<CONF
$([[ $EUID -eq 0 ]] && echo "user root root;")
worker_processes auto; pid $WORK/nginx.pid; error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; root $WORK/static; default_type application/json; } }
CONF
"$NGINX" -c "$WORK/nginx.conf" -g 'daemon off;' & PIDS+=($!)
sleep 0.5
cat >"$WORK/auth.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA
measure() { # LABEL URL [wrk args]
  local label=$1 url=$2; shift 2
  timeout 120 wrk -t2 -c"$CONNS" -d"$DURATION" --latency "$@" "$url" >"$WORK/$label.txt"
  python3 - "$WORK/$label.txt" "$label" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", v)
    return float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[m.group(2)] if m else float("nan")
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
p50 = ms(re.search(r"50%\s+(\S+)", text).group(1)); p99 = ms(re.search(r"99%\s+(\S+)", text).group(1))
errs = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
print(f"{sys.argv[2]:<28} {rps:>10.0f} req/s   p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   non-2xx {errs.group(1) if errs else 0}")
open(sys.argv[1] + ".sum", "w").write(f"{rps} {p99}\n")
PY
}
echo "GET /api/v1/catalog, wrk -t2 -c$CONNS -d$DURATION ($(wc -c <"$WORK/static/api/v1/catalog") B of JSON)"
measure anonymous "$B/catalog"
measure signed-in "$B/catalog?device=$DEVICE" -s "$WORK/auth.lua"
measure nginx-static "http://127.0.0.1:$NGINX_PORT/api/v1/catalog"
read -r a_rps a_p99 <"$WORK/anonymous.txt.sum"; read -r s_rps s_p99 <"$WORK/signed-in.txt.sum"; read -r n_rps n_p99 <"$WORK/nginx-static.txt.sum"
python3 -c "print(f'ratios vs nginx static: anonymous {$a_rps/$n_rps:.2f}x req/s, p99 {$a_p99/$n_p99:.1f}x; signed-in {$s_rps/$n_rps:.2f}x req/s, p99 {$s_p99/$n_p99:.1f}x')"
# The row of docs/benchmarks.md (RECORD=0 skips it).
python3 "$ROOT/scripts/bench/record-figures.py" catalog-latency.sh "$(python3 -c "
print(f'GET /api/v1/catalog, wrk -t2 -c$CONNS -d$DURATION: anonymous {$a_rps:,.0f} req/s ({$a_rps/$n_rps:.2f}x nginx static, '
      f'p99 {$a_p99:.1f} ms), signed in with a device {$s_rps:,.0f} req/s ({$s_rps/$n_rps:.2f}x; p99 {$s_p99:.1f} ms), nginx {$n_rps:,.0f} req/s')")"
