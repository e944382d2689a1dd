#!/usr/bin/env python3
"""Prefetch through the real server: replay one seeded trace of map sessions against
`trailmap serve` with prefetch on and with --no-prefetch, and compare.

Reports per run: requests, overall p50/p99, p50/p99 of first-touch requests (a tile no session
had asked for before in that run: cache misses by construction without prefetch), and from
/metrics the cache hits/misses, prefetches issued/used (share used = used/issued) and the
server-side hit ratio; then the ratios on/off of first-touch p99 and overall p99.

Python 3 stdlib only. Only ever talks to 127.0.0.1; stops its own servers by PID.
  scripts/bench/prefetch-replay.py [--seed 1] [--sessions 400] [--concurrency 8]
      [--budget 4MB] [--duration 60] [--max-requests 20000]
Env TRAILMAP overrides the binary (default .build-bench/release/trailmap).
"""
import argparse
import http.client
import math
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUNDLES = ["colorado", "utah", "world"]
HOST = "127.0.0.1"


# ---------------------------------------------------------------- bundles

def load_bundles(tiles_dir):
    """name -> {"minzoom", "maxzoom", "tiles": set((z, x, y)), "ext": {z: (x0, x1, y0, y1)}}"""
    out = {}
    for name in BUNDLES:
        path = os.path.join(tiles_dir, name + ".mbtiles")
        con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        meta = dict(con.execute("SELECT name, value FROM metadata").fetchall())
        tiles = set()
        for z, col, row in con.execute("SELECT zoom_level, tile_column, tile_row FROM tiles"):
            tiles.add((z, col, (1 << z) - 1 - row))  # TMS row -> XYZ y
        con.close()
        ext = {}
        for z, x, y in tiles:
            e = ext.get(z)
            ext[z] = (x, x, y, y) if e is None else (min(e[0], x), max(e[1], x), min(e[2], y), max(e[3], y))
        zooms = sorted(ext)
        out[name] = {"minzoom": zooms[0], "maxzoom": zooms[-1], "tiles": tiles, "ext": ext,
                     "bounds": meta.get("bounds"), "meta_zooms": (meta.get("minzoom"), meta.get("maxzoom"))}
    return out


# ---------------------------------------------------------------- trace

def make_trace(bundles, seed, n_sessions, vw=4, vh=3):
    """A list of sessions; a session is a list of steps; a step is (sleep_s, [(name, z, x, y), ...])
    holding only tiles the session has not fetched before, centre first."""
    rng = random.Random(seed)
    # Regions: every tile of each bundle at a middle zoom (world: all of zoom 2-3), shuffled with
    # the seed, popularity Zipf(s=1) by rank.
    regions = []
    for name in sorted(bundles):
        b = bundles[name]
        z0 = min(b["maxzoom"], b["minzoom"] + 2)
        regions += sorted((name, z, x, y) for (z, x, y) in b["tiles"] if z == z0)
    rng.shuffle(regions)
    weights = [1.0 / (i + 1) for i in range(len(regions))]
    sessions = []
    for _ in range(n_sessions):
        name, z, x, y = rng.choices(regions, weights)[0]
        b = bundles[name]
        cx, cy = x + 0.5, y + 0.5
        vx = vy = 0.0
        fetched = set()
        steps = []
        for _ in range(rng.randint(8, 30)):
            r = rng.random()
            if r < 0.15 and z < b["maxzoom"]:
                z += 1
                cx, cy = cx * 2, cy * 2
                vx = vy = 0.0
            elif r < 0.25 and z > b["minzoom"]:
                z -= 1
                cx, cy = cx / 2, cy / 2
                vx = vy = 0.0
            else:  # pan with momentum
                vx = 0.7 * vx + rng.gauss(0, 0.6)
                vy = 0.7 * vy + rng.gauss(0, 0.6)
                cx += vx
                cy += vy
            x0, x1, y0, y1 = b["ext"][z]
            ncx = min(max(cx, x0 + 0.5), x1 + 0.5)
            ncy = min(max(cy, y0 + 0.5), y1 + 0.5)
            if ncx != cx:
                vx = -vx / 2
            if ncy != cy:
                vy = -vy / 2
            cx, cy = ncx, ncy
            want = []
            for tx in range(int(math.floor(cx - vw / 2)), int(math.floor(cx + vw / 2)) + 1):
                for ty in range(int(math.floor(cy - vh / 2)), int(math.floor(cy + vh / 2)) + 1):
                    if (z, tx, ty) in b["tiles"] and (z, tx, ty) not in fetched:
                        want.append(((tx + 0.5 - cx) ** 2 + (ty + 0.5 - cy) ** 2, tx, ty))
            want.sort()
            reqs = []
            for _, tx, ty in want:
                fetched.add((z, tx, ty))
                reqs.append((name, z, tx, ty))
            steps.append((rng.uniform(0.005, 0.030), reqs))
        sessions.append(steps)
    return sessions


# ---------------------------------------------------------------- server

def free_port():
    s = socket.socket()
    s.bind((HOST, 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary, tiles, budget, prefetch, logpath):
        self.port = free_port()
        args = [binary, "serve", "--tiles", tiles, "--host", HOST, "--port", str(self.port),
                "--cache-budget", budget, "--prefetch-client-header", "X-Client",
                "--log-level", "error", "--quiet"]
        if not prefetch:
            args.append("--no-prefetch")
        self.args = args
        self.log = open(logpath, "wb")
        # cwd = the temp folder: `serve` would otherwise pick up ./Catalog/catalog.sqlite and ask
        # for tile tokens (401) on the paid Colorado/Utah bundles; the store API stays off here.
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=os.path.dirname(tiles))

    def wait_ready(self, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited with %s: %s" % (self.proc.returncode, " ".join(self.args)))
            try:
                ok = all(get(self.port, "/tiles/%s.json" % n)[0] == 200 for n in BUNDLES)
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server not ready after %ss" % timeout)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # by PID: Popen targets self.proc.pid only
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def get(port, path, headers=None):
    c = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def read_metrics(port):
    status, body = get(port, "/metrics")
    vals = {}
    for line in body.decode("utf-8", "replace").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)", line)
        if m:
            key = m.group(1) + (m.group(2) or "")
            try:
                vals[key] = float(m.group(3))
            except ValueError:
                pass
    return vals


# ---------------------------------------------------------------- replay

def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, int(math.ceil(p / 100.0 * len(xs))) - 1))
    return xs[k]


def replay(port, trace, concurrency, duration, max_requests):
    lock = threading.Lock()
    seen = set()
    lat_all, lat_first = [], []
    errors = {}
    samples = {}
    nxt = [0]
    count = [0]
    deadline = time.monotonic() + duration
    stop = threading.Event()

    def worker():
        while not stop.is_set():
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= len(trace):
                return
            hdr = {"X-Client": "session-%d" % i}
            conn = http.client.HTTPConnection(HOST, port, timeout=15)
            try:
                for sleep_s, reqs in trace[i]:
                    for name, z, x, y in reqs:
                        if stop.is_set() or time.monotonic() > deadline:
                            stop.set()
                            return
                        key = (name, z, x, y)
                        with lock:
                            if count[0] >= max_requests:
                                stop.set()
                                return
                            count[0] += 1
                            first = key not in seen
                            seen.add(key)
                        path = "/tiles/%s/%d/%d/%d.png" % key
                        t0 = time.perf_counter()
                        try:
                            conn.request("GET", path, headers=hdr)
                            r = conn.getresponse()
                            body = r.read()
                            status = r.status
                            if status != 200 and status not in samples:
                                samples[status] = "%s -> %s" % (path, body[:160].decode("utf-8", "replace"))
                        except (OSError, http.client.HTTPException) as e:
                            status = type(e).__name__
                            conn.close()
                            conn = http.client.HTTPConnection(HOST, port, timeout=15)
                        dt = time.perf_counter() - t0
                        with lock:
                            if status == 200:
                                lat_all.append(dt)
                                if first:
                                    lat_first.append(dt)
                            else:
                                errors[status] = errors.get(status, 0) + 1
                    time.sleep(sleep_s)
            finally:
                conn.close()

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"elapsed": time.monotonic() - t0, "lat_all": lat_all, "lat_first": lat_first,
            "errors": errors, "samples": samples, "sessions": min(nxt[0], len(trace)), "distinct": len(seen)}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sessions", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--budget", default="4MB")
    ap.add_argument("--duration", type=float, default=60.0, help="cap per run, seconds (<= 60)")
    ap.add_argument("--max-requests", type=int, default=20000)
    ap.add_argument("--order", default="on,off", help="run order, e.g. off,on")
    a = ap.parse_args()
    a.duration = min(a.duration, 60.0)
    binary = os.environ.get("TRAILMAP", os.path.join(REPO, ".build-bench/release/trailmap"))
    if not os.access(binary, os.X_OK):
        sys.exit("no trailmap binary at %s (set TRAILMAP)" % binary)

    tmp = tempfile.mkdtemp(prefix="prefetch-replay-")
    servers = []

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        tiles = os.path.join(tmp, "tiles")
        os.mkdir(tiles)
        for n in BUNDLES:
            shutil.copy2(os.path.join(REPO, "Tiles", n + ".mbtiles"), tiles)
        bundles = load_bundles(tiles)
        total_bytes = 0
        for n in BUNDLES:
            con = sqlite3.connect(os.path.join(tiles, n + ".mbtiles"))
            total_bytes += con.execute("SELECT sum(length(tile_data)) FROM tiles").fetchone()[0]
            con.close()
        trace = make_trace(bundles, a.seed, a.sessions)
        nreq = sum(len(r) for s in trace for _, r in s)
        distinct = len({t for s in trace for _, r in s for t in r})
        print("trace: seed %d, %d sessions, %d steps, %d requests, %d distinct tiles "
              "(bundles: %d tiles, %.1f MB of tile data); budget %s, %d concurrent sessions, "
              "cap %.0f s / %d requests per run"
              % (a.seed, len(trace), sum(len(s) for s in trace), nreq, distinct,
                 sum(len(b["tiles"]) for b in bundles.values()), total_bytes / 1e6,
                 a.budget, a.concurrency, a.duration, a.max_requests))
        print("binary: %s" % binary)
        results = {}
        for mode in a.order.split(","):
            on = mode.strip() == "on"
            srv = Server(binary, tiles, a.budget, on, os.path.join(tmp, "server-%s.log" % mode))
            servers.append(srv)
            srv.wait_ready()
            res = replay(srv.port, trace, a.concurrency, a.duration, a.max_requests)
            time.sleep(0.3)  # let queued prefetches settle before reading the counters
            res["metrics"] = read_metrics(srv.port)
            srv.stop()
            res["rc"] = srv.proc.returncode
            results[mode.strip()] = res
            print("run prefetch %-3s: port %d, %.1f s, %d sessions, pid %d stopped (rc %s)"
                  % (mode, srv.port, res["elapsed"], res["sessions"], srv.proc.pid, res["rc"]))
        report(results)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        for s in servers:
            try:
                s.stop()
            except Exception:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def report(results):
    def ms(v):
        return "%.2f" % (v * 1000) if v == v else "-"

    def m(res, name):
        return res["metrics"].get(name, float("nan"))

    rows = []
    for mode, res in results.items():
        la, lf = res["lat_all"], res["lat_first"]
        hits = m(res, "trailmap_cache_hits_total")
        miss = m(res, "trailmap_cache_misses_total")
        iss = m(res, "trailmap_cache_prefetches_issued_total")
        used = m(res, "trailmap_cache_prefetches_used_total")
        rows.append((mode, {
            "requests (200)": "%d" % len(la),
            "errors": ",".join("%s:%d" % kv for kv in res["errors"].items()) or "0",
            "req/s": "%.0f" % (len(la) / res["elapsed"]),
            "p50 ms": ms(pct(la, 50)),
            "p99 ms": ms(pct(la, 99)),
            "first-touch requests": "%d" % len(lf),
            "first-touch p50 ms": ms(pct(lf, 50)),
            "first-touch p99 ms": ms(pct(lf, 99)),
            "cache hits": "%d" % hits,
            "cache misses": "%d" % miss,
            "hit ratio": "%.1f%%" % (100 * hits / (hits + miss)) if hits + miss else "-",
            "prefetches issued": "%d" % iss,
            "prefetches used": "%d" % used,
            "used / issued": "%.1f%%" % (100 * used / iss) if iss else "-",
            "tile evictions": "%d" % m(res, 'trailmap_cache_evictions_total{kind="tile",reason="capacity"}'),
            "bundles opened": "%d" % m(res, "trailmap_bundles_opened_total"),
        }))
    keys = list(rows[0][1])
    w = max(len(k) for k in keys)
    print()
    print("%-*s  " % (w, "") + "  ".join("%14s" % ("prefetch " + mode) for mode, _ in rows))
    for k in keys:
        print("%-*s  " % (w, k) + "  ".join("%14s" % r[k] for _, r in rows))
    for mode, res in results.items():
        for st, smp in res["samples"].items():
            print("prefetch %s: first %s answer: %s" % (mode, st, smp.replace("\n", " ")))
    if "on" in results and "off" in results:
        on, off = results["on"], results["off"]
        for label, key, p in (("first-touch p99", "lat_first", 99), ("first-touch p50", "lat_first", 50),
                              ("overall p99", "lat_all", 99), ("overall p50", "lat_all", 50)):
            a, b = pct(on[key], p), pct(off[key], p)
            print("%s on/off: %.2f (%s ms vs %s ms)" % (label, a / b, ms(a), ms(b)))


if __name__ == "__main__":
    sys.exit(main())
