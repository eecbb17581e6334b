#!/usr/bin/env python3
"""make bench: pokesync against the stand-in serving the full PokeAPI snapshots.

Measures, in one run so the figures can be read side by side as ratios:
  1. the stand-in alone (so it is shown not to be the bottleneck),
  2. `full` of the 2026-08-08 snapshot (4,359 documents of the ten kinds) at 20 ms latency, concurrency 16,
  3. a no-change `sync` (deploy unchanged) and a no-change `sync --revalidate`,
  4. the store with both snapshots held against one alone,
  5. `full --sprites all` (4,359 documents + 52,286 sprites) at 20 ms, concurrency 32
     (left out by --quick),
  6. the TCP connections a `full` at concurrency 16 opens, against the stand-in and against
     nginx serving the tree statically with gzip (chunked, no Content-Length: pokeapi.co's
     static form), when nginx is installed (--only-connections runs this part alone).
The stand-in gzips JSON when the client accepts it, as pokeapi.co does, from bodies
gzipped in memory at its start (--pregzip). Every timed run is made --repeat times
(default 3) and printed as the median with the spread (min-max): wall time against
the latency floor, the client's CPU (user+sys of the pokesync child, from wait4's
rusage) in total and per request, its peak RSS, and the stand-in's own CPU over the
run (from /proc/PID/stat). On a shared machine, read the load average printed first.
Data: a PokeAPI/api-data checkout (--api-data, see bench_data.py), the team's fixtures
(../shared/fixtures), or already unpacked api-data folders given with --new-data and --old-data. Work files go to /dev/shm when it exists.
"""
import argparse, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

import bench_data

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PYTHON = sys.executable


def work_folders(name):
    """A new scratch folder for one bench part and the shared cache of unpacked fixtures,
    on /dev/shm when there is one (timings to a disk varied 2x run to run)."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix=f"pokesync-bench-{name}", dir=base)
    cache = os.path.join(base or tempfile.gettempdir(), "pokesync-bench-fixtures")
    os.makedirs(cache, exist_ok=True)
    return work, cache


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid):
    """User+system CPU seconds a live process has used so far, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Server:
    def __init__(self, root, work, latency_ms=0, extra=()):
        self.files = tempfile.mkdtemp(dir=work)
        port_file, pid_file = os.path.join(self.files, "port"), os.path.join(self.files, "pid")
        self.process = subprocess.Popen([PYTHON, os.path.join(HERE, "pokeapi_server.py"), "--root", root, "--port", "0",
                                         "--port-file", port_file, "--pid-file", pid_file, "--quiet", "--pregzip",
                                         "--latency-ms", str(latency_ms), *extra])
        deadline = time.time() + 300
        while not (os.path.exists(port_file) and os.path.exists(pid_file)):
            if self.process.poll() is not None or time.time() > deadline:
                sys.exit("the stand-in did not start")
            time.sleep(0.05)
        self.port = int(open(port_file).read())
        # The server writes its own pid: the interpreter's, not a launcher shim's.
        self.pid = int(open(pid_file).read())
        self.base = f"http://127.0.0.1:{self.port}"

    def cpu(self):
        return process_cpu(self.pid)

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


def run_measured(command, server=None):
    """Run one pokesync command; its wall time, CPU and peak RSS, and the stand-in's CPU meanwhile."""
    if server is not None:
        server.reset()
        server_cpu = server.cpu()
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
    result = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
              "sys": usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024, "csw": usage.ru_nvcsw + usage.ru_nivcsw,
              "stdout": out.decode(), "stderr": err.decode()}
    if server is not None:
        result["server_cpu"] = server.cpu() - server_cpu
        stats = server.stats()
        result["requests"], result["body_bytes"] = stats["requests"], stats["body_bytes"]
        result["connections"] = stats.get("connections", 0)
    return result


class Nginx:
    """nginx (one worker) serving an api-data tree with gzip, logging each request's connection number."""

    def __init__(self, root, work):
        self.files = tempfile.mkdtemp(dir=work)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = os.path.join(self.files, "access.log")
        config = os.path.join(self.files, "nginx.conf")
        with open(config, "w") as handle:
            handle.write(f"""worker_processes 1;
pid {self.files}/nginx.pid;
error_log {self.files}/error.log;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    log_format conn '$connection $connection_requests $status';
    access_log {self.log} conn;
    client_body_temp_path {self.files}/body;
    gzip on;
    gzip_types application/json;
    server {{ listen 127.0.0.1:{self.port}; root {os.path.abspath(root)}; index index.json; }}
}}
""")
        self.process = subprocess.Popen([NGINX, "-p", self.files, "-e", os.path.join(self.files, "error.log"),
                                         "-c", config, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(self.base + "/api/v2/stat/").read()
                break
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    sys.exit("nginx did not start")
                time.sleep(0.1)

    def reset(self):
        open(self.log, "w").close()  # nginx appends (O_APPEND): the log starts again at 0

    def counts(self):
        """(requests, connections) logged since the last reset."""
        with open(self.log) as handle:
            lines = [line.split() for line in handle if line.strip()]
        return len(lines), len({fields[0] for fields in lines})

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def connection_runs(binary, new, work, times, concurrency=16):
    """The TCP connections of a `full` of the ten kinds: libcurl under URLSession keeps one per
    request in flight (at most the concurrency) when its connection cache is large enough."""
    print(f"\n== connections of a full at concurrency {concurrency} (target <= {2 * concurrency}, 2x the concurrency)",
          flush=True)
    mirror = os.path.join(work, "Connections")
    server = Server(new, work, latency_ms=20)
    runs = repeated(times, lambda: run_measured([binary, "full", "--source", server.base + "/api/v2", "--mirror", mirror,
                                                 "--sprites", "none", "--concurrency", str(concurrency),
                                                 "--rate", "100000"], server), before=fresh(mirror))
    server.stop()
    for run in runs:
        run["connections"] -= 1  # the harness's own GET /_stats, made after the run
    print(f"   stand-in (gzip with Content-Length, 20 ms): {median(runs, 'requests'):.0f} requests over "
          f"{spread(runs, 'connections', digits=0)} connections", flush=True)
    if NGINX is None:
        print("   nginx: not installed (apt-get install nginx-light), left out", flush=True)
        return
    nginx = Nginx(new, work)
    counts = []
    for _ in range(times):
        fresh(mirror)()
        nginx.reset()
        run = run_measured([binary, "full", "--source", nginx.base + "/api/v2", "--mirror", mirror, "--sprites", "none",
                            "--concurrency", str(concurrency), "--rate", "100000"])
        requests, connections = nginx.counts()
        counts.append({"requests": requests, "connections": connections, "wall": run["wall"]})
        summary = run["stdout"].strip().split("\n")[-1]
    nginx.stop()
    print(f"   nginx (gzip chunked, no latency, keepalive_requests 1000): {median(counts, 'requests'):.0f} requests over "
          f"{spread(counts, 'connections', digits=0)} connections; wall {spread(counts, 'wall')} s", flush=True)
    print("   its summary line: " + summary.split("unchanged; ")[-1][:200], flush=True)


def repeated(times, make_run, before=None):
    """Run `make_run()` `times` times (calling `before()` first each time); the list of results."""
    runs = []
    for _ in range(times):
        if before is not None:
            before()
        runs.append(make_run())
    return runs


def spread(runs, key, scale=1.0, digits=2):
    """'median (min-max)' of one figure over repeated runs."""
    values = sorted(run[key] * scale for run in runs)
    return f"{statistics.median(values):.{digits}f} ({values[0]:.{digits}f}-{values[-1]:.{digits}f})"


def median(runs, key):
    return statistics.median(run[key] for run in runs)


def per_request(runs, key="cpu"):
    """The figure divided by the run's request count, in milliseconds, as one more key."""
    for run in runs:
        run[key + "_per_request_ms"] = 1000 * run[key] / max(run["requests"], 1)
    return spread(runs, key + "_per_request_ms", digits=3)


def describe(runs, floor=None):
    """One line of figures for repeated HTTP runs: wall, floor ratio, CPU, per request, RSS, stand-in CPU."""
    for run in runs:
        run["ratio"] = run["wall"] / floor if floor else 0.0
        run["rate"] = run["requests"] / run["wall"]
    line = f"wall {spread(runs, 'wall')} s"
    if floor:
        line += f" = {spread(runs, 'ratio')}x the floor"
    return (line + f"; {spread(runs, 'rate', digits=0)} requests/s; client CPU {spread(runs, 'cpu')} s "
            f"(user {median(runs, 'user'):.2f}, sys {median(runs, 'sys'):.2f}; "
            f"{median(runs, 'csw') / max(median(runs, 'requests'), 1):.0f} context switches a request), "
            f"{per_request(runs)} ms a request; peak RSS {spread(runs, 'rss_mb', digits=0)} MB; "
            f"stand-in CPU {spread(runs, 'server_cpu')} s; {median(runs, 'connections'):.0f} connections")


def du_mb(path):
    out = subprocess.run(["du", "-sk", path], capture_output=True, text=True).stdout.split()
    return int(out[0]) / 1024 if out else 0.0


def size_mb(path):
    return os.path.getsize(path) / 1e6 if os.path.exists(path) else 0.0


def count_documents(root):
    """The documents of an api-data tree: every numbered folder under api/v2/KIND/ (ten kinds)."""
    base = os.path.join(root, "api", "v2")
    return sum(1 for kind in os.listdir(base) if os.path.isdir(os.path.join(base, kind))
               for entry in os.listdir(os.path.join(base, kind)) if entry.isdigit())


def fresh(path):
    """Remove a mirror so the next `full` starts from nothing."""
    return lambda: shutil.rmtree(path, ignore_errors=True)


def sprite_runs(binary, new, work, times):
    """`full --sprites all` and a no-change sync of it, each `times` times."""
    documents = count_documents(new)
    sprites = 52286 + 431  # a pokemon's sprites, and the types' icons (--sprites all: every sprite linked)
    floor = (documents + sprites) * 0.020 / 32
    server = Server(new, work, latency_ms=20)
    mirror = os.path.join(work, "Sprites")
    command = [binary, "full", "--source", server.base + "/api/v2", "--mirror", mirror,
               "--sprite-source", server.base + "/PokeAPI/sprites/master/", "--sprites", "all",
               "--concurrency", "32", "--rate", "100000"]
    print(f"\n== full --sprites all, {documents} + {sprites} requests, 20 ms latency, concurrency 32 "
          f"(floor {floor:.1f} s; the stand-in renders each sprite on its first request)", flush=True)
    runs = repeated(times, lambda: run_measured(command, server), before=fresh(mirror))
    print(f"   {describe(runs, floor)}", flush=True)
    print(f"   targets: < 1.5x the floor, < 0.5 ms CPU a request, RSS <= 130 MB; disk: mirror "
          f"{du_mb(mirror):.0f} MB (objects {du_mb(os.path.join(mirror, 'objects')):.0f} MB, store "
          f"{size_mb(os.path.join(mirror, 'store.sqlite')):.1f} MB; the sprite tree is hard links)", flush=True)
    command[1] = "sync"
    sync = repeated(times, lambda: run_measured(command, server))
    for run in sync:
        run["share"] = 100 * run["wall"] / median(runs, "wall")
    print(f"== no-change sync with every sprite revalidated: wall {spread(sync, 'wall', digits=1)} s = "
          f"{spread(sync, 'share', digits=0)}% of that full; {sync[-1]['requests']} requests, body bytes "
          f"{sync[-1]['body_bytes'] / 1e3:.0f} kB; client CPU {spread(sync, 'cpu')} s "
          f"({per_request(sync)} ms a request)", flush=True)
    server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    bench_data.add_arguments(parser)
    parser.add_argument("--new-data", help="an unpacked 2026-08-08 api-data folder (instead of the fixture)")
    parser.add_argument("--old-data", help="an unpacked 2025-12-02 api-data folder (instead of the fixture)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement (default 3)")
    parser.add_argument("--quick", "--skip-sprites", dest="quick", action="store_true",
                        help="leave out the 52,286-sprite runs")
    parser.add_argument("--only-full", action="store_true", help="only the stand-in alone and `full` (profiling)")
    parser.add_argument("--only-sprites", action="store_true", help="only the --sprites all runs")
    parser.add_argument("--only-connections", action="store_true",
                        help="only the connection counts (stand-in and nginx)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work, cache = work_folders("")
    times = max(args.repeat, 1)
    try:
        new = args.new_data or bench_data.snapshot(args, cache, "new")
        old = args.old_data or (None if args.only_full or args.only_connections else
                                bench_data.snapshot(args, cache, "old"))
        print(f"== {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"each figure is the median of {times} runs (min-max)", flush=True)

        if args.only_sprites:
            args.quick = False
            return sprite_runs(binary, new, work, times)
        if args.only_connections:
            return connection_runs(binary, new, work, times)
        print("== the stand-in alone (16 keep-alive client threads, gzip)", flush=True)
        for latency in (0, 20):
            out = subprocess.run([PYTHON, os.path.join(HERE, "bench_server.py"), "--root", new, "--latency-ms",
                                  str(latency), "--threads", "16", "--gzip"], capture_output=True, text=True).stdout
            print(f"   latency {latency} ms: " + out.strip().replace("\n", "\n   "), flush=True)

        server = Server(new, work, latency_ms=20)
        documents = count_documents(new)
        floor = documents * 0.020 / 16
        mirror = os.path.join(work, "Mirror")
        source = ["--source", server.base + "/api/v2", "--mirror", mirror]
        print(f"\n== full, 2026-08-08, {documents} documents, 20 ms latency, concurrency 16 (floor {floor:.2f} s)", flush=True)
        full = repeated(times, lambda: run_measured([binary, "full", *source, "--sprites", "none", "--concurrency",
                                                     "16", "--rate", "100000"], server), before=fresh(mirror))
        full_bytes = full[-1]["body_bytes"]
        store = size_mb(os.path.join(mirror, "store.sqlite"))
        print(f"   {describe(full, floor)}", flush=True)
        print(f"   targets: < 1.5x the floor, < 1.2 ms CPU a request, RSS <= 60 MB; store {store:.1f} MB "
              f"(target < 30); {full_bytes / 1e6:.1f} MB of bodies on the wire", flush=True)
        if args.only_full:
            server.stop()
            return

        for label, extra in (("no-change sync (deploy unchanged)", []), ("no-change sync --revalidate", ["--revalidate"])):
            sync = repeated(times, lambda: run_measured([binary, "sync", *source, "--sprites", "none", "--concurrency",
                                                         "16", "--rate", "100000", *extra], server))
            for run in sync:
                run["share"] = 100 * run["wall"] / median(full, "wall")
            print(f"== {label}: wall {spread(sync, 'wall')} s = {spread(sync, 'share', digits=1)}% of full "
                  f"(target < 20%); {sync[-1]['requests']} requests; body bytes {sync[-1]['body_bytes'] / 1e3:.0f} kB = "
                  f"{100 * sync[-1]['body_bytes'] / full_bytes:.2f}% of full (target < 2%); "
                  f"client CPU {spread(sync, 'cpu')} s ({per_request(sync)} ms a request), "
                  f"stand-in CPU {spread(sync, 'server_cpu')} s", flush=True)
        server.stop()

        print("\n== store with both snapshots (full 2025-12-02, then sync to 2026-08-08, from folders)", flush=True)
        both = os.path.join(work, "Both")
        first = run_measured([binary, "full", "--source", old, "--mirror", both, "--sprites", "none"])
        one = size_mb(os.path.join(both, "store.sqlite"))
        second = run_measured([binary, "sync", "--source", new, "--mirror", both, "--sprites", "none"])
        two = size_mb(os.path.join(both, "store.sqlite"))
        print(f"   one version {one:.1f} MB, both {two:.1f} MB ({two / one:.2f}x); full {first['wall']:.1f} s "
              f"(CPU {first['cpu']:.1f} s), sync + diff {second['wall']:.1f} s (CPU {second['cpu']:.1f} s)", flush=True)
        print("   " + second["stdout"].strip().split("\n")[-1][:300], flush=True)

        connection_runs(binary, new, work, times)
        if not args.quick:
            sprite_runs(binary, new, work, times)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
