#!/usr/bin/env python3
"""How soon an idle `pokesync serve` names a version `sync` published (Serving.md,
"Version switching"): from the commit, as a reader of the store polling every 2 ms sees
it, to `/healthz` (on `--metrics-listen`) naming that version, with no other request.
Each turn syncs from the next source in turn (`--allow-shrink`, so that going back to an
older source publishes too).

    bench_health_delay.py POKESYNC MIRROR SOURCE[,SOURCE...] TURNS [KINDS]

MIRROR must hold a published version (`pokesync full --mirror MIRROR --source ...`).
Loopback only; Python 3 standard library only.
"""
import json
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request


def main():
    binary, mirror, sources, turns = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
    kinds = sys.argv[5] if len(sys.argv) > 5 else "all"
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    serve = subprocess.Popen([binary, "serve", "--mirror", mirror, "--listen", "127.0.0.1:0",
                              "--metrics-listen", f"127.0.0.1:{port}"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    serve.stdout.readline()
    store = sqlite3.connect(f"file:{mirror}/store.sqlite?mode=ro", uri=True)

    def latest():
        return store.execute("select max(number) from versions").fetchone()[0]

    def health():
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
                return json.load(answer).get("version")
        except OSError:
            return None

    delays = []
    try:
        for turn in range(turns):
            before = latest()
            sync = subprocess.Popen([binary, "sync", "--mirror", mirror, "--source", sources[turn % len(sources)],
                                     "--sprites", "none", "--kinds", kinds, "--allow-shrink"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while latest() == before and sync.poll() is None:
                time.sleep(0.002)
            number = latest()
            if number == before:
                print("turn %d: nothing published" % turn)
                continue
            committed = time.time()
            while health() != number:
                time.sleep(0.005)
            delays.append(time.time() - committed)
            load = open("/proc/loadavg").read().split()[0]
            print("version %d: /healthz named it %.3f s after the commit (load %s)" % (number, delays[-1], load), flush=True)
            sync.wait()
    finally:
        serve.terminate()
        serve.wait()
    print("delays (s):", " ".join("%.3f" % delay for delay in sorted(delays)))


if __name__ == "__main__":
    main()
