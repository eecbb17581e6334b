#!/usr/bin/env python3
"""Measure the stand-in server alone, so a client benchmark can show the server is not its bottleneck.

    python3 Tests/Support/bench_server.py --root /tmp/fx/api-data [--latency-ms 20]
        [--threads 16] [--sprites] [--gzip] [--limit N]

Starts pokeapi_server.py on the root (its start-up time is reported, not timed
in the figures), then N client threads, each with its own keep-alive
http.client connection, fetch every document once (and with --sprites every
sprite path named in the documents once). Prints requests/s and MB/s of bodies.
The client threads share one Python interpreter with its GIL, so on a small
machine the figures are a lower bound on what the server can do.
"""

import argparse
import http.client
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The ten kinds pokesync mirrors (Sources.md, Kinds): the four the apps are built on,
# then the six reference kinds.
KINDS = ("pokemon", "pokemon-species", "pokedex", "evolution-chain",
         "type", "ability", "move", "stat", "version", "language")
SPRITE_URL = re.compile(rb'"https://raw\.githubusercontent\.com(/PokeAPI/sprites/master/sprites/[^"]+)"')


def document_paths(root):
    paths = []
    for kind in KINDS:
        folder = os.path.join(root, "api", "v2", kind)
        ids = sorted(int(name) for name in os.listdir(folder) if name.isdigit())
        paths += [f"/api/v2/{kind}/{ident}/" for ident in ids]
    return paths


def sprite_paths(root):
    """Every distinct sprite path named in the pokemon documents."""
    found = set()
    folder = os.path.join(root, "api", "v2", "pokemon")
    for name in os.listdir(folder):
        path = os.path.join(folder, name, "index.json")
        if name.isdigit() and os.path.isfile(path):
            with open(path, "rb") as handle:
                found.update(match.decode() for match in SPRITE_URL.findall(handle.read()))
    return sorted(found)


def start_server(root, latency_ms, folder):
    port_file = os.path.join(folder, "port")
    command = [sys.executable, os.path.join(HERE, "pokeapi_server.py"), "--root", root, "--quiet",
               "--port", "0", "--port-file", port_file, "--latency-ms", str(latency_ms)]
    started = time.monotonic()
    process = subprocess.Popen(command)
    while not os.path.exists(port_file):
        if process.poll() is not None:
            sys.exit(f"bench_server.py: the server exited with status {process.returncode}")
        if time.monotonic() - started > 120:
            process.terminate()
            sys.exit("bench_server.py: the server did not start within 120 s")
        time.sleep(0.05)
    with open(port_file, encoding="utf-8") as handle:
        port = int(handle.read())
    return process, port, time.monotonic() - started


def run_clients(port, paths, threads, use_gzip):
    """Fetch every path once with `threads` keep-alive connections; return (seconds, bytes, errors)."""
    work = queue.SimpleQueue()
    for path in paths:
        work.put(path)
    totals = {"bytes": 0, "errors": 0}
    lock = threading.Lock()
    headers = {"Accept-Encoding": "gzip"} if use_gzip else {}

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        received, errors = 0, 0
        while True:
            try:
                path = work.get_nowait()
            except queue.Empty:
                break
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            received += len(body)
            errors += response.status != 200
        connection.close()
        with lock:
            totals["bytes"] += received
            totals["errors"] += errors

    workers = [threading.Thread(target=client) for _ in range(threads)]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.monotonic() - started, totals["bytes"], totals["errors"]


def server_stats(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/_stats")
    stats = json.loads(connection.getresponse().read())
    connection.close()
    return stats


def main():
    parser = argparse.ArgumentParser(description="Measure the PokeAPI stand-in server alone.")
    parser.add_argument("--root", required=True, help="api-data folder to serve")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="server latency per request")
    parser.add_argument("--threads", type=int, default=16, help="client threads (connections)")
    parser.add_argument("--sprites", action="store_true", help="also fetch every sprite path once")
    parser.add_argument("--gzip", action="store_true", help="send Accept-Encoding: gzip")
    parser.add_argument("--limit", type=int, default=0, help="fetch only the first N paths")
    arguments = parser.parse_args()

    paths = document_paths(arguments.root)
    if arguments.sprites:
        paths += sprite_paths(arguments.root)
    if arguments.limit:
        paths = paths[:arguments.limit]
    with tempfile.TemporaryDirectory(prefix="bench-server-") as folder:
        process, port, startup = start_server(arguments.root, arguments.latency_ms, folder)
        try:
            seconds, received, errors = run_clients(port, paths, arguments.threads, arguments.gzip)
            stats = server_stats(port)
        finally:
            process.terminate()
            process.wait()
    print(f"root {arguments.root}: server ready in {startup:.1f} s")
    print(f"{len(paths)} requests, {arguments.threads} threads, latency {arguments.latency_ms:g} ms, "
          f"gzip {'on' if arguments.gzip else 'off'}: {seconds:.2f} s")
    print(f"{len(paths) / seconds:,.0f} requests/s, {received / seconds / 1e6:,.1f} MB/s "
          f"({received / 1e6:,.1f} MB received), {errors} non-200 answers, "
          f"server counted {stats['requests']} requests")


if __name__ == "__main__":
    main()
