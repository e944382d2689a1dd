#!/usr/bin/env python3
"""Purchase load through a load balancer, and a check that no acknowledged purchase is lost.

usage: purchase-load.py BASE_URL SECONDS [ACCOUNTS] [CHECK_URL] [--notifications N]

Registers ACCOUNTS accounts (default 12; registrations are throttled per client address: at most
20 in all, notifiers included), then for SECONDS each account buys the paid products of the
catalog again and again through the sandbox store (a new signed transaction each time; the first
purchase of a product is 201, later ones 200 alreadyOwned). Every 200/201 answer is an
acknowledged purchase. Afterwards each account's entitlements are read through CHECK_URL
(default BASE_URL) and every acknowledged product must be there. Prints one JSON line: purchases
attempted, acknowledged, failed (any other answer or a connection error), lost (acknowledged but
not entitled: must be 0), and the longest run of consecutive failures in seconds.

--notifications N: meanwhile N more accounts (notifiers) each buy one product, then post App
Store server notifications about it to POST /api/v1/store/notifications, one after another for
SECONDS: REFUND and REFUND_REVERSED in turn, each signed by the sandbox store
(POST /api/v1/sandbox/notifications, not timed) with a fresh notificationUUID. The time from
sending a notification to its 2xx answer is measured; the JSON line gains "notifications":
posted, acknowledged (2xx), failed, and p50/p99/max in ms (the store wants an answer within a
second). Notifiers are not among the checked accounts (a refund revokes on purpose).
Standard library only.
"""
import argparse, json, math, sys, threading, time, urllib.error, urllib.request


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


def account(api, name):
    """A new account's session token."""
    creds = {"email": f"{name}@example.com", "password": "purchase load password"}
    s, _ = call(api, "POST", "/accounts", creds)
    s2, session = call(api, "POST", "/sessions", creds)
    if s != 201 or s2 != 200:
        sys.exit(f"cannot make account {name}: register {s}, login {s2}")
    return session["token"]


def percentile(sorted_values, q):
    """The q-quantile (0..1) of sorted values, nearest rank."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))]


def notifier(api, token, product, end, lock, times, counts):
    """Buys `product`, then posts REFUND / REFUND_REVERSED notifications about it until `end`."""
    s, t = call(api, "POST", "/sandbox/transactions", {"productId": product}, token)
    s2, bought = (call(api, "POST", "/purchases", {"signedTransaction": t["signedTransaction"]}, token)
                  if s == 201 else (s, None))
    if s2 not in (200, 201):
        with lock:
            counts["setup_failed"] += 1
        return
    kinds = ["REFUND", "REFUND_REVERSED"]
    n = 0
    while time.time() < end:
        kind = kinds[n % 2]
        n += 1
        s, signed = call(api, "POST", "/sandbox/notifications", {"notificationType": kind, "transactionId": bought["transactionId"]},
                         token)
        if s != 201:
            with lock:
                counts["failed"] += 1
            continue
        started = time.perf_counter()
        s, _ = call(api, "POST", "/store/notifications", {"signedPayload": signed["signedPayload"]})
        elapsed = time.perf_counter() - started
        with lock:
            counts["posted"] += 1
            if 200 <= s < 300:
                counts["acknowledged"] += 1
                times.append(elapsed)
            else:
                counts["failed"] += 1


def main(base, seconds, accounts=12, check=None, notifications=0):
    api, check = base + "/api/v1", (check or base) + "/api/v1"
    stamp = int(time.time() * 1000)
    tokens = [account(api, f"load{stamp}-{i}") for i in range(accounts)]
    notifier_tokens = [account(api, f"notify{stamp}-{i}") for i in range(notifications)]
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
    ack_times = []
    ack_counts = {"posted": 0, "acknowledged": 0, "failed": 0, "setup_failed": 0}
    threads += [threading.Thread(target=notifier, args=(api, t, paid[i % len(paid)], end, lock, ack_times, ack_counts))
                for i, t in enumerate(notifier_tokens)]
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
    result = {**stats, "lost": lost, "products": len(paid), "accounts": len(tokens),
              "longest_failure_run_s": round(gap, 2)}
    if notifications:
        ack_times.sort()
        ms = lambda v: None if v is None else round(v * 1000, 1)
        result["notifications"] = {**ack_counts, "p50_ms": ms(percentile(ack_times, 0.50)),
                                   "p99_ms": ms(percentile(ack_times, 0.99)), "max_ms": ms(ack_times[-1] if ack_times else None)}
    print(json.dumps(result))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].removeprefix("usage: "))
    parser.add_argument("base")
    parser.add_argument("seconds", type=float)
    parser.add_argument("accounts", type=int, nargs="?", default=12)
    parser.add_argument("check", nargs="?")
    parser.add_argument("--notifications", type=int, default=0)
    a = parser.parse_args()
    main(a.base, a.seconds, a.accounts, a.check, a.notifications)
