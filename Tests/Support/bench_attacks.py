#!/usr/bin/env python3
"""The clients that cost others (Serving.md, "What clients cannot do to it"), for bench_serve.py.

Each attack runs against one server for a bounded time, from 127.0.0.1, while a probe
from 127.0.0.2 asks for a document every 0.1 s on a new connection (the root, documents
fetched twice before the attack, small documents not asked for before) and records its
latency and status. Meanwhile the server's resident memory and the kernel's send-queue
bytes of its sockets (`ss -tn`, Send-Q) are sampled every 0.25 s.

  lockout     300 connections with a 2 kB receive buffer pipeline 16 GETs each of distinct
              large documents (among the 600 largest, every other one with gzip), then read nothing;
  starvation  100 such connections, 40 GETs each;
  exhaustion  1,030 keep-alive connections from one address, each asking for a 404 every
              8 s (a closed one reconnects at most once a second).
And against serve's metrics address (`metrics_attacks`), the probe asking `/healthz`: 300
connections that send nothing, 100 heads trickled a byte every 2 s, 50 connections
pipelining 200 `/metrics` each and reading nothing.
"""
import os, resource, selectors, socket, statistics, subprocess, threading, time

PROBE_SOURCE = "127.0.0.2"


def raise_open_files(wanted=8192):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def rss_mb(pids):
    """Resident memory of `pids` together, MB (a process gone counts 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def send_queue_bytes(port):
    """The Send-Q bytes of every TCP socket whose local port is `port` (the server's side)."""
    try:
        output = subprocess.run(["ss", "-tnH", "state", "established", f"( sport = :{port} )"],
                                capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return 0
    total = 0
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            total += int(parts[1])  # with a state filter, ss leaves the State column out
    return total


def one_request(port, path, timeout=10.0):
    """(seconds, status) of one GET on a new connection from PROBE_SOURCE; status 0 when
    nothing came back in time."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(PROBE_SOURCE, 0)) as sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".encode())
            head = b""
            while b"\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                head += chunk
            status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    except (OSError, ValueError, IndexError):
        status = 0
    return time.monotonic() - started, status


class Sampler(threading.Thread):
    """Samples memory and the send queue until stopped; keeps the peaks."""

    def __init__(self, pids, port):
        super().__init__(daemon=True)
        self.pids, self.port = pids, port
        self.peak_rss = rss_mb(pids)
        self.peak_send_queue = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            self.peak_rss = max(self.peak_rss, rss_mb(self.pids))
            self.peak_send_queue = max(self.peak_send_queue, send_queue_bytes(self.port))
            self.done.wait(0.25)


def non_readers(port, count, requests, paths, deadline):
    """`count` connections that pipeline `requests` GETs each and read nothing until `deadline`."""
    sockets = []
    for index in range(count):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        try:
            sock.settimeout(5)
            sock.connect(("127.0.0.1", port))
            text = "".join(f"GET {paths[(index * requests + number) % len(paths)]} HTTP/1.1\r\nHost: bench\r\n"
                           + ("Accept-Encoding: gzip\r\n" if number % 2 else "") + "\r\n" for number in range(requests))
            sock.sendall(text.encode())
        except OSError:
            pass
        sockets.append(sock)
    while time.monotonic() < deadline:
        time.sleep(0.1)
    for sock in sockets:
        sock.close()


def keep_alive_flood(port, count, period, deadline):
    """`count` keep-alive connections each asking for a 404 every `period` seconds, reading
    the answers; a connection the server closes reconnects, at most once a second."""
    selector = selectors.DefaultSelector()
    slots = [{"sock": None, "next": time.monotonic() + index * period / count, "opened": 0.0} for index in range(count)]
    request = b"GET /api/v2/nope/ HTTP/1.1\r\nHost: bench\r\n\r\n"

    def drop(slot):
        if slot["sock"] is not None:
            try:
                selector.unregister(slot["sock"])
            except (KeyError, ValueError):
                pass
            slot["sock"].close()
            slot["sock"] = None

    while time.monotonic() < deadline:
        now = time.monotonic()
        for slot in slots:
            if slot["sock"] is None and now - slot["opened"] >= 1.0:
                slot["opened"] = now
                sock = socket.socket()
                sock.setblocking(False)
                try:
                    sock.connect(("127.0.0.1", port))
                except BlockingIOError:
                    pass
                except OSError:
                    sock.close()
                    continue
                slot["sock"] = sock
                selector.register(sock, selectors.EVENT_READ, slot)
            if slot["sock"] is not None and now >= slot["next"]:
                slot["next"] = now + period
                try:
                    slot["sock"].send(request)
                except OSError:
                    drop(slot)
        for key, _ in selector.select(timeout=0.05):
            try:
                if not key.fileobj.recv(65536):
                    drop(key.data)
            except OSError:
                drop(key.data)
    for slot in slots:
        drop(slot)
    selector.close()


def run_attack(name, port, pids, probe_paths, attack, seconds):
    """Runs `attack(deadline)` in a thread for `seconds` while probing and sampling."""
    sampler = Sampler(pids, port)
    sampler.start()
    deadline = time.monotonic() + seconds
    attacker = threading.Thread(target=attack, args=(deadline,), daemon=True)
    attacker.start()
    time.sleep(0.5)  # the attack's connections in place
    latencies, statuses, index = [], {}, 0
    while time.monotonic() < deadline - 0.2:
        took, status = one_request(port, probe_paths[index % len(probe_paths)])
        index += 1
        latencies.append(took)
        statuses[status] = statuses.get(status, 0) + 1
        time.sleep(0.1)
    attacker.join(timeout=60)
    sampler.done.set()
    sampler.join()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {"name": name, "median": statistics.median(latencies), "p99": p99, "max": latencies[-1],
            "statuses": statuses, "rss": sampler.peak_rss, "send_queue": sampler.peak_send_queue, "probes": len(latencies)}


def attacks(port, pids, large_paths, cached_paths, fresh_paths, seconds=10):
    """The three attacks, one after the other, against the server on `port`."""
    raise_open_files()
    for path in cached_paths * 2:  # fetched twice before: what a cache keeps
        one_request(port, path)
    probes = [cached_paths[index % len(cached_paths)] if index % 2 == 0 else fresh_paths[index % len(fresh_paths)]
              for index in range(2 * max(len(cached_paths), len(fresh_paths)))]
    results = [run_attack("lockout (300 x 16 unread)", port, pids, probes,
                          lambda deadline: non_readers(port, 300, 16, large_paths, deadline), seconds)]
    time.sleep(2)
    results.append(run_attack("starvation (100 x 40 unread)", port, pids, probes,
                              lambda deadline: non_readers(port, 100, 40, large_paths[::-1], deadline), seconds))
    time.sleep(2)
    results.append(run_attack("exhaustion (1,030 keep-alive)", port, pids, probes,
                              lambda deadline: keep_alive_flood(port, 1030, 8.0, deadline), seconds + 5))
    return results


def silent(port, count, deadline):
    """`count` connections that send nothing until `deadline`."""
    sockets = []
    for _ in range(count):
        try:
            sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    while time.monotonic() < deadline:
        time.sleep(0.1)
    for sock in sockets:
        sock.close()


def tricklers(port, count, deadline, period=2.0):
    """`count` connections that send a head a byte every `period` seconds until `deadline`."""
    sockets = []
    for _ in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.send(b"G")
            sockets.append(sock)
        except OSError:
            break
    while time.monotonic() < deadline:
        time.sleep(min(period, max(0.0, deadline - time.monotonic())))
        for sock in sockets:
            try:
                sock.send(b"E")
            except OSError:
                pass
    for sock in sockets:
        sock.close()


def metrics_attacks(port, pids, seconds=8):
    """The clients that cost others, against serve's metrics address (one worker, at most
    64 connections), while the probe asks `/healthz`: 300 connections that send nothing,
    100 heads trickled a byte every 2 s, and 50 connections pipelining 200 `/metrics` each
    and reading nothing."""
    raise_open_files()
    probes = ["/healthz"]
    results = [run_attack("metrics: 300 silent", port, pids, probes, lambda deadline: silent(port, 300, deadline), seconds)]
    time.sleep(2)
    results.append(run_attack("metrics: 100 trickled heads", port, pids, probes,
                              lambda deadline: tricklers(port, 100, deadline), seconds))
    time.sleep(2)
    results.append(run_attack("metrics: 50 x 200 /metrics unread", port, pids, probes,
                              lambda deadline: non_readers(port, 50, 200, ["/metrics"], deadline), seconds))
    return results


def describe(result):
    statuses = ", ".join(f"{status or 'none'}: {count}" for status, count in sorted(result["statuses"].items()))
    return (f"probe median {result['median'] * 1000:,.1f} ms, p99 {result['p99'] * 1000:,.0f} ms, "
            f"max {result['max'] * 1000:,.0f} ms ({statuses}); peak RSS {result['rss']:.0f} MB; "
            f"Send-Q {result['send_queue'] / 1e6:.1f} MB")
