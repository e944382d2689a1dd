#!/usr/bin/env python3
"""Purchase load through a load balancer, and a check that no acknowledged purchase is lost.

usage: purchase-load.py BASE_URL SECONDS [ACCOUNTS] [CHECK_URL]

Registers ACCOUNTS accounts (default 12; registrations are throttled per client address), then
for SECONDS each account buys the paid products of the catalog again and again through the
sandbox store (a new signed transaction each time; the first purchase of a product is 201, later
ones 200 alreadyOwned). Every 200/201 answer is an acknowledged purchase. Afterwards each
account's entitlements are read through CHECK_URL (default BASE_URL) and every acknowledged
product must be there. Prints one JSON line: purchases attempted, acknowledged, failed (any
other answer or a connection error), lost (acknowledged but not entitled: must be 0), and the
longest run of consecutive failures in seconds. Standard library only.
"""
import json, sys, threading, time, urllib.error, urllib.request


def call(base, method, path, body=None, token=None, timeout=10):
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None
    except Exception:
        return 0, None


def main(base, seconds, accounts=12, check=None):
    api, check = base + "/api/v1", (check or base) + "/api/v1"
    stamp = int(time.time() * 1000)
    tokens = []
    for i in range(accounts):
        creds = {"email": f"load{stamp}-{i}@example.com", "password": "purchase load password"}
        s, _ = call(api, "POST", "/accounts", creds)
        s2, session = call(api, "POST", "/sessions", creds)
        if s != 201 or s2 != 200:
            sys.exit(f"cannot make account {i}: register {s}, login {s2}")
        tokens.append(session["token"])
    _, catalog = call(api, "GET", "/catalog")
    paid = [p["productId"] for p in catalog["products"] if not p["free"]]
    lock = threading.Lock()
    stats = {"attempted": 0, "acknowledged": 0, "failed": 0}
    acked = [set() for _ in tokens]
    failures = []  # times of failed attempts
    end = time.time() + seconds

    def worker(i):
        n = 0
        while time.time() < end:
            product = paid[n % len(paid)]
            n += 1
            s, t = call(api, "POST", "/sandbox/transactions", {"productId": product}, tokens[i])
            ok = False
            if s == 201:
                s, _ = call(api, "POST", "/purchases", {"signedTransaction": t["signedTransaction"]}, tokens[i])
                ok = s in (200, 201)
            with lock:
                stats["attempted"] += 1
                if ok:
                    stats["acknowledged"] += 1
                    acked[i].add(product)
                else:
                    stats["failed"] += 1
                    failures.append(time.time())

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(tokens))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lost = 0
    for i, token in enumerate(tokens):
        s, body = call(check, "GET", "/entitlements", token=token)
        owned = {e["productId"] for e in (body or {}).get("entitlements", []) if e["status"] == "active"}
        lost += len(acked[i] - owned)
    gap = 0.0
    if failures:
        failures.sort()
        start = prev = failures[0]
        for f in failures[1:]:
            if f - prev > 1.0:
                gap, start = max(gap, prev - start), f
            prev = f
        gap = max(gap, prev - start)
    print(json.dumps({**stats, "lost": lost, "products": len(paid), "accounts": len(tokens),
                      "longest_failure_run_s": round(gap, 2)}))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], float(sys.argv[2]), *([int(sys.argv[3])] if len(sys.argv) > 3 else []),
         *(sys.argv[4:5]))
