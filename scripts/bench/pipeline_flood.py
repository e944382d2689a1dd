#!/usr/bin/env python3
"""A client pipelining requests without pause, and another timing single requests beside it.

usage: pipeline_flood.py flood PORT URI SECONDS   one connection: HEAD URI pipelined from one thread
                                                  for SECONDS, answers read from another; prints
                                                  "answers BYTES" (bytes of answers read)
       pipeline_flood.py probe PORT URI COUNT     COUNT requests for URI, each on a new connection,
                                                  one after another; prints each latency in ms
Only 127.0.0.1. Both stop on their own.
"""
import socket
import sys
import threading
import time


def flood(port: int, uri: str, seconds: float) -> None:
    block = (f"HEAD {uri} HTTP/1.1\r\nHost: bench\r\n\r\n" * 2000).encode()
    s = socket.create_connection(("127.0.0.1", port))
    # A large receive buffer: the answers are read as fast as they come, so the server's
    # socket always takes them.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    got = [0]
    start = time.monotonic()

    def write() -> None:
        while time.monotonic() - start < seconds:
            try:
                s.sendall(block)
            except OSError:
                return

    def read() -> None:
        while True:
            try:
                data = s.recv(1 << 20)
            except OSError:
                return
            if not data:
                return
            got[0] += len(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    threading.Thread(target=read, daemon=True).start()
    writer.join()
    print(f"answers {got[0]}")


def probe(port: int, uri: str, count: int) -> None:
    request = f"GET {uri} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode()
    for _ in range(count):
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            c.sendall(request)
            answer = b""
            while True:
                data = c.recv(65536)
                if not data:
                    break
                answer += data
        if not answer.startswith(b"HTTP/1.1 200"):
            sys.exit(f"probe: not a 200: {answer[:80]!r}")
        print(f"{(time.monotonic() - start) * 1000:.2f}")
        time.sleep(0.05)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("flood", "probe"):
        sys.exit(__doc__)
    try:
        port, uri = int(sys.argv[2]), sys.argv[3]
        amount = float(sys.argv[4]) if sys.argv[1] == "flood" else int(sys.argv[4])
    except ValueError:
        sys.exit(f"pipeline_flood.py: PORT, SECONDS and COUNT must be numbers\n{__doc__}")
    if not (0 < port < 65536 and uri.startswith("/") and amount > 0):
        sys.exit(f"pipeline_flood.py: a port, a path starting with /, and a positive amount\n{__doc__}")
    if sys.argv[1] == "flood":
        flood(port, uri, amount)
    else:
        probe(port, uri, int(amount))
