#!/usr/bin/env python3
"""make bench: pokesync against the stand-in serving the full PokeAPI snapshots.

Measures, in one run so the figures can be read side by side as ratios:
  1. the stand-in alone (so it is shown not to be the bottleneck),
  2. `full` of the 2026-08-08 snapshot (2,956 documents) at 20 ms latency, concurrency 16,
  3. a no-change `sync` (deploy unchanged) and a no-change `sync --revalidate`,
  4. the store with both snapshots held against one alone,
  5. `full --sprites all` (2,956 documents + 52,286 sprites) at 20 ms, concurrency 32.
Needs ../shared/fixtures/pokeapi-*.tar.gz. Work files go to /dev/shm when it exists.
"""
import argparse, json, os, shutil, subprocess, sys, tarfile, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = sys.executable


def extract(archive, into):
    target = os.path.join(into, os.path.basename(archive).replace(".tar.gz", ""))
    if not os.path.isdir(os.path.join(target, "api-data")):
        os.makedirs(target, exist_ok=True)
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
    return os.path.join(target, "api-data")


class Server:
    def __init__(self, root, work, latency_ms=0, extra=()):
        self.files = tempfile.mkdtemp(dir=work)
        port_file, pid_file = os.path.join(self.files, "port"), os.path.join(self.files, "pid")
        self.process = subprocess.Popen([PYTHON, os.path.join(HERE, "pokeapi_server.py"), "--root", root, "--port", "0",
                                         "--port-file", port_file, "--pid-file", pid_file, "--quiet",
                                         "--latency-ms", str(latency_ms), *extra])
        deadline = time.time() + 120
        while not (os.path.exists(port_file) and os.path.exists(pid_file)):
            if self.process.poll() is not None or time.time() > deadline:
                sys.exit("the stand-in did not start")
            time.sleep(0.05)
        self.port = int(open(port_file).read())
        self.base = f"http://127.0.0.1:{self.port}"

    def stats(self):
        return json.load(urllib.request.urlopen(self.base + "/_stats"))

    def reset(self):
        urllib.request.urlopen(urllib.request.Request(self.base + "/_stats/reset", method="POST")).read()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def run_measured(command):
    start = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        # stderr to a file, so a chatty child cannot block on a full pipe while stdout is read.
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
        out = process.stdout.read()
        # Reaped with wait4 for this child's own rusage (peak RSS, CPU).
        _, status, usage = os.wait4(process.pid, 0)
        errors.seek(0)
        err = errors.read()
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(command)} failed ({code}):\n{err.decode()[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "stdout": out.decode(), "stderr": err.decode()}


def du_mb(path):
    out = subprocess.run(["du", "-sk", path], capture_output=True, text=True).stdout.split()
    return int(out[0]) / 1024 if out else 0.0


def size_mb(path):
    return os.path.getsize(path) / 1e6 if os.path.exists(path) else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--fixtures", default=os.path.join(ROOT, "..", "shared", "fixtures"))
    parser.add_argument("--skip-sprites", action="store_true", help="leave out the 52,286-sprite run")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    base_work = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="pokesync-bench-", dir=base_work)
    cache = os.path.join(base_work or tempfile.gettempdir(), "pokesync-bench-fixtures")
    os.makedirs(cache, exist_ok=True)
    try:
        new = extract(os.path.join(args.fixtures, "pokeapi-2026-08-08.tar.gz"), cache)
        old = extract(os.path.join(args.fixtures, "pokeapi-2025-12-02.tar.gz"), cache)
        report = {}

        print("== the stand-in alone (16 keep-alive client threads, gzip)", flush=True)
        for latency in (0, 20):
            out = subprocess.run([PYTHON, os.path.join(HERE, "bench_server.py"), "--root", new, "--latency-ms",
                                  str(latency), "--threads", "16", "--gzip"], capture_output=True, text=True).stdout
            print(f"   latency {latency} ms: " + out.strip().replace("\n", "\n   "), flush=True)

        server = Server(new, work, latency_ms=20)
        documents = 2956
        floor = documents * 0.020 / 16
        mirror = os.path.join(work, "Mirror")
        source = ["--source", server.base + "/api/v2", "--mirror", mirror]
        print(f"\n== full, 2026-08-08, {documents} documents, 20 ms latency, concurrency 16 (floor {floor:.2f} s)", flush=True)
        server.reset()
        full = run_measured([binary, "full", *source, "--sprites", "none", "--concurrency", "16", "--rate", "100000"])
        stats = server.stats()
        full_bytes = stats["body_bytes"]
        store = size_mb(os.path.join(mirror, "store.sqlite"))
        print(f"   wall {full['wall']:.2f} s = {full['wall'] / floor:.2f}x the floor (target < 2x); "
              f"{stats['requests'] / full['wall']:.0f} requests/s; CPU {full['cpu']:.2f} s; "
              f"peak RSS {full['rss_mb']:.0f} MB (target < 150); store {store:.1f} MB (target < 30); "
              f"{full_bytes / 1e6:.1f} MB of bodies on the wire", flush=True)

        for label, extra in (("no-change sync (deploy unchanged)", []), ("no-change sync --revalidate", ["--revalidate"])):
            server.reset()
            sync = run_measured([binary, "sync", *source, "--sprites", "none", "--concurrency", "16", "--rate", "100000", *extra])
            stats = server.stats()
            print(f"== {label}: wall {sync['wall']:.2f} s = {100 * sync['wall'] / full['wall']:.1f}% of full (target < 20%); "
                  f"{stats['requests']} requests; body bytes {stats['body_bytes'] / 1e3:.0f} kB = "
                  f"{100 * stats['body_bytes'] / full_bytes:.2f}% of full (target < 2%)", flush=True)
        server.stop()

        print("\n== store with both snapshots (full 2025-12-02, then sync to 2026-08-08, from folders)", flush=True)
        both = os.path.join(work, "Both")
        first = run_measured([binary, "full", "--source", old, "--mirror", both, "--sprites", "none"])
        one = size_mb(os.path.join(both, "store.sqlite"))
        second = run_measured([binary, "sync", "--source", new, "--mirror", both, "--sprites", "none"])
        two = size_mb(os.path.join(both, "store.sqlite"))
        print(f"   one version {one:.1f} MB, both {two:.1f} MB ({two / one:.2f}x); full {first['wall']:.1f} s, "
              f"sync + diff {second['wall']:.1f} s (CPU {second['cpu']:.1f} s)", flush=True)
        print("   " + second["stdout"].strip().split("\n")[-1][:300], flush=True)

        if not args.skip_sprites:
            sprites = 52286
            floor = (documents + sprites) * 0.020 / 32
            server = Server(new, work, latency_ms=20)
            mirror = os.path.join(work, "Sprites")
            print(f"\n== full --sprites all, {documents} + {sprites} requests, 20 ms latency, concurrency 32 (floor {floor:.1f} s)", flush=True)
            run = run_measured([binary, "full", "--source", server.base + "/api/v2", "--mirror", mirror,
                                "--sprite-source", server.base + "/PokeAPI/sprites/master/", "--sprites", "all",
                                "--concurrency", "32", "--rate", "100000"])
            stats = server.stats()
            print(f"   wall {run['wall']:.1f} s = {run['wall'] / floor:.2f}x the floor (target < 2x); "
                  f"{stats['requests'] / run['wall']:.0f} requests/s; CPU {run['cpu']:.1f} s; peak RSS {run['rss_mb']:.0f} MB "
                  f"(target < 150); disk: mirror {du_mb(mirror):.0f} MB (objects {du_mb(os.path.join(mirror, 'objects')):.0f} MB, "
                  f"store {size_mb(os.path.join(mirror, 'store.sqlite')):.1f} MB; the sprite tree is hard links)", flush=True)
            server.reset()
            sync = run_measured([binary, "sync", "--source", server.base + "/api/v2", "--mirror", mirror,
                                 "--sprite-source", server.base + "/PokeAPI/sprites/master/", "--sprites", "all",
                                 "--concurrency", "32", "--rate", "100000"])
            stats = server.stats()
            print(f"== no-change sync with every sprite revalidated: wall {sync['wall']:.1f} s = "
                  f"{100 * sync['wall'] / run['wall']:.0f}% of that full; {stats['requests']} requests, "
                  f"body bytes {stats['body_bytes'] / 1e3:.0f} kB", flush=True)
            server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
