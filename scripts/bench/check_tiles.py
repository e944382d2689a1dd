#!/usr/bin/env python3
"""Fetches every tile path of PATHS (lines like /tiles/bench/3/1/2.png) from PORT on 127.0.0.1 over
one keep-alive connection and compares each body with STATIC/{z}/{x}/{y}.png.

usage: check_tiles.py PORT PATHS STATIC
Prints `checked=N identical=M` and the first few differences; exits 1 when any tile differs."""
import http.client
import os
import sys


def main() -> int:
    port, paths_file, static = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(paths_file) as f:
        paths = [line.strip() for line in f if line.strip()]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    identical, problems = 0, []
    for path in paths:
        rel = "/".join(path.split("/")[-3:])  # z/x/y.png
        with open(os.path.join(static, rel), "rb") as f:
            want = f.read()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
        except (OSError, http.client.HTTPException) as e:
            problems.append(f"{path}: {e!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            continue
        ctype = resp.getheader("Content-Type", "")
        if resp.status != 200:
            problems.append(f"{path}: HTTP {resp.status}")
        elif body != want:
            problems.append(f"{path}: {len(body)} bytes served, file has {len(want)}")
        elif ctype != "image/png":
            problems.append(f"{path}: Content-Type {ctype!r}")
        else:
            identical += 1
    print(f"checked={len(paths)} identical={identical}")
    for p in problems[:5]:
        print(f"  {p}")
    if len(problems) > 5:
        print(f"  ... and {len(problems) - 5} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
