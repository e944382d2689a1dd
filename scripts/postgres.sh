#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and trying out `--catalog postgres://...`:
#   scripts/postgres.sh start DIR PORT   creates (once) and starts a cluster in DIR on 127.0.0.1:PORT
#                                        (and a Unix socket in DIR), trust authentication, waits
#                                        up to 2 minutes for it to accept connections, and
#                                        prints the URL to use (user trailmap, database trailmap)
#   scripts/postgres.sh stop DIR [MODE]  stops it (DIR stays; delete it to throw the data away);
#                                        MODE is pg_ctl's: fast (the default: clients are
#                                        disconnected, a clean shutdown) or immediate (every
#                                        process quits at once, as in a crash: the next start
#                                        recovers from the WAL)
# Uses Debian's `postgresql` binaries (initdb, pg_ctl); no system service is involved. As root,
# the server runs as the user `postgres` (PostgreSQL refuses to run as root), which must exist.
set -euo pipefail
usage() { echo "usage: $0 start DIR PORT | stop DIR [fast|immediate]" >&2; exit 2; }
(($# >= 2)) || usage
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] && PATH="$bin:$PATH"
command -v initdb >/dev/null && command -v pg_ctl >/dev/null || {
  echo "initdb and pg_ctl not found: install PostgreSQL (scripts/install-deps.sh postgresql)" >&2; exit 1; }
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case $cmd in
  start)
    (($# == 3)) || usage
    port=$3
    [[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || { echo "bad port: $port" >&2; exit 2; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" -eq 0 ]; then
      chown postgres "$dir"
      runuser -u postgres -- test -w "$dir" || {
        echo "the postgres user cannot reach $dir: its parent folders must be searchable by others (chmod o+x)" >&2; exit 1; }
    fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner initdb -D "$dir/data" -U trailmap --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner pg_ctl -D "$dir/data" -l "$dir/server.log" -w -t 120 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start \
      </dev/null >"$dir/pg_ctl.log" 2>&1 || { cat "$dir/pg_ctl.log"; tail -20 "$dir/server.log"; exit 1; } >&2
    # (the server inherits none of the caller's descriptors: a caller reading our output gets its end)
    as_owner psql -h "$dir" -p "$port" -U trailmap -d postgres -Atqc \
      "SELECT 1 FROM pg_database WHERE datname = 'trailmap'" | grep -q 1 ||
      as_owner psql -h "$dir" -p "$port" -U trailmap -d postgres -qc "CREATE DATABASE trailmap"
    echo "postgres://trailmap@127.0.0.1:$port/trailmap"
    ;;
  stop)
    mode=${3:-fast}
    [[ $mode == fast || $mode == immediate ]] || { echo "bad stop mode: $mode (fast or immediate)" >&2; exit 2; }
    [ -f "$dir/data/postmaster.pid" ] || { echo "no server running in $dir" >&2; exit 0; }
    as_owner pg_ctl -D "$dir/data" -m "$mode" -w stop >/dev/null
    ;;
  *) usage ;;
esac
