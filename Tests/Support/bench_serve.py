#!/usr/bin/env python3
"""make bench: `pokesync serve` against nginx serving the same documents, side by side.

One mirror of the whole 2026-08-08 API (`full --kinds all`: every endpoint, 15,464
documents with the encounters and meta) is served by
`pokesync serve` (release build, its default two workers) and, as files of an
`export --format api-data` of it, by nginx (Debian's nginx-light, one worker,
sendfile, keep-alive). wrk (Debian's wrk) sends the same list of document requests to
both: a few hundred pokemon, species, moves, items, abilities and types, fixed by a seed, 64
keep-alive connections, two threads. Cases, each measured --repeat times (default 3) in
turn (each turn in the other order) so the servers share the machine's state, printed as the median with the
spread:
  1. with Accept-Encoding: gzip: serve against nginx's gzip_static (.gz files made ahead,
     level 6) and, as a reference, against nginx compressing each response (gzip on, level 1);
  2. without it: serve against nginx's plain files.
Beside them, a second serve with `--access-log FILE` (a file on disk, not /dev/shm; emptied
after each run), measured in the same turns: what the access log costs (target: at most 15%
of the requests a second).
Then a whole-API crawl from serve (`pokesync full --kinds all`, 16 connections), and
serve's peak RSS (VmHWM) over all of it. Targets (Benchmarks.md): serve at least half
of nginx's requests/s in both cases, p99 under 10 ms with gzip and at most twice
nginx's without, peak RSS under 100 MB.
Before that serve with the log stops, its metrics address against idle, trickling and
unread clients while a health check probes it (bench_attacks.metrics_attacks).
Then the clients that cost others (bench_attacks.py: lockout, starvation, exhaustion),
against serve and against nginx with Debian's default configuration, side by side: a
probe's latency from 127.0.0.2, its statuses, peak RSS and the kernel's send-queue bytes.
Targets (Benchmarks.md): the probe answered within 1 s, never a 503, serve under 150 MB. serve's figures are with a warm cache
(a warm-up run first, for both servers); the bodies are compressed once, at first request.
Last, a fresh start (--fresh-start-only runs it alone; --compare BINARY alternates another
build with it in each turn): serve started anew, crawled whole (`full --kinds all`), then wrk
with gzip for 8 s at once and 8 s again, then 8 s without gzip, each beside nginx's
gzip_static with as many workers (worker_processes auto), both servers' CPU a request from
/proc. Targets (Benchmarks.md): serve's CPU a request at most 0.7x nginx's, its rate at least
1.2x nginx's (1.5x without gzip) with a p99 at most nginx's, peak RSS under 100 MB.
With --busy N, each turn is measured again beside N `yes > /dev/null` (CPU-bound work on
the same cores), and each ratio to nginx is set against the quiet one of its turn (target:
the rate's at least 0.9x of it, the p99's at most 1.1x), the two alternated in each turn,
and a floor is measured warm, quiet and busy: nginx answering one byte for every path,
no file, no gzip.
Needs the whole 2026-08-08 snapshot (bench_data.py: --api-data or the fixtures), nginx and wrk
(apt-get install nginx-light wrk). Work files go to /dev/shm when it exists.
"""
import argparse, gzip, urllib.request, os, random, re, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import process_cpu, work_folders  # noqa: E402
import bench_data  # noqa: E402  (one place the bench's data comes from)
from bench_attacks import attacks, describe, metrics_attacks, rss_mb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, what):
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            sys.exit(f"{what} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} did not start")


def nginx_or_skip(what):
    """nginx's path, when nginx and wrk are both here; else None, once it has said that the
    bench `what` is skipped (not a failure of pokesync: the rest of `make bench` runs)."""
    missing = [tool for tool in ["nginx", "wrk"] if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}")]
    if missing:
        print(f"== {what}: skipped, {' and '.join(missing)} missing (apt-get install nginx-light wrk)")
        return None
    return shutil.which("nginx") or "/usr/sbin/nginx"


def nginx_work_folders(name):
    """work_folders(name), with the work folder open to nginx's workers and its nginx-tmp."""
    work, cache = work_folders(name)
    os.chmod(work, 0o755)  # nginx's workers run as another user when started by root
    os.makedirs(os.path.join(work, "nginx-tmp"))
    return work, cache


def write_nginx_config(work, name, http, workers="1", connections=1024):
    """`work`/nginx-`name`.conf: one nginx in the foreground, its pid, error log and
    temporary files in `work`, and `http` (the http block's lines). Returns its path."""
    temporary = "\n".join(f"    {kind}_temp_path {work}/nginx-tmp;" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    path = os.path.join(work, f"nginx-{name}.conf")
    with open(path, "w") as handle:
        handle.write(f"""
worker_processes {workers};
daemon off;
pid {work}/nginx-{name}.pid;
error_log {work}/nginx-{name}.error.log;
events {{ worker_connections {connections}; }}
http {{
{temporary}
{http}
}}
""")
    return path


def wrk_script(work, paths):
    """A wrk script that asks for `paths` in turn, each connection from a random place in the
    list (the list in `work`/paths.txt). Returns its path."""
    with open(os.path.join(work, "paths.txt"), "w") as handle:
        handle.write("\n".join(paths) + "\n")
    script = os.path.join(work, "paths.lua")
    with open(script, "w") as handle:
        handle.write(f"""
local paths = {{}}
for line in io.lines("{work}/paths.txt") do paths[#paths + 1] = line end
local index = math.random(#paths)
request = function()
  index = index % #paths + 1
  return wrk.format("GET", paths[index])
end
""")
    return script


def stop(processes):
    """Ends each process still running (SIGTERM, then SIGKILL after 20 s)."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def request_paths(export, seed=23):
    """The same documents for both servers: a seeded sample of each kind's ids."""
    rng = random.Random(seed)
    paths = []
    for kind, count in [("pokemon", 150), ("pokemon-species", 100), ("move", 100), ("item", 100), ("ability", 60),
                        ("type", 21)]:
        folder = os.path.join(export, "api", "v2", kind)
        ids = sorted(int(name) for name in os.listdir(folder) if name.isdigit())
        for ident in rng.sample(ids, min(count, len(ids))):
            paths.append(f"/api/v2/{kind}/{ident}/")
    rng.shuffle(paths)
    return paths


def precompress(export, paths):
    """index.json.gz beside each requested file, for nginx's gzip_static."""
    for path in paths:
        source = os.path.join(export, path.strip("/"), "index.json")
        with open(source, "rb") as plain, gzip.open(source + ".gz", "wb", compresslevel=6) as packed:
            shutil.copyfileobj(plain, packed)


def nginx_config(work, export, port, mode):
    return write_nginx_config(work, mode, nginx_config_http(export, port, mode))


def nginx_config_http(export, port, mode):
    """The http block's lines of nginx serving the export's files on `port` (`mode`: static
    for gzip_static, dynamic for gzip on at level 1, plain)."""
    gzip_lines = {"static": "gzip_static on;", "dynamic": "gzip on; gzip_comp_level 1; gzip_types application/json;",
                  "plain": ""}[mode]
    return f"""
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 1000000;
    keepalive_timeout 65;
    default_type application/json;
    server {{
        listen 127.0.0.1:{port};
        root {export};
        index index.json;
        etag on;
        {gzip_lines}
    }}"""


def wrk(url, script, gzip_header, seconds, connections=64, cpu_of=None, cpu=None):
    """Requests a second and p99 (ms); with `cpu_of` (a pid, or a list of them: nginx's
    master and workers), the CPU seconds those processes spent per request during the run
    are appended to `cpu`."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", script]
    if gzip_header:
        command += ["-H", "Accept-Encoding: gzip"]
    pids = [] if not cpu_of else cpu_of if isinstance(cpu_of, list) else [cpu_of]
    before = sum(process_cpu(pid) for pid in pids)
    output = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    if pids:
        cpu.append((sum(process_cpu(pid) for pid in pids) - before) / int(re.search(r"(\d+) requests in", output).group(1)))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        sys.exit(f"{url}: {errors.group(1)} error responses\n{output}")
    return rate, float(p99.group(1)) * scale


def spread(values, unit="", digits=0):
    middle = statistics.median(values)
    return f"{middle:,.{digits}f}{unit} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


def nginx_default_config(work, export, port):
    """Debian's nginx.conf as shipped (worker_processes auto, 768 connections a worker,
    sendfile, keep-alive 65 s, gzip on for text/html only), serving the export."""
    return write_nginx_config(work, "default", f"""
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    types_hash_max_size 2048;
    default_type application/json;
    access_log off;
    gzip on;
    server {{
        listen 127.0.0.1:{port};
        root {export};
        index index.json;
    }}""", workers="auto", connections=768)


def process_tree(pid):
    """`pid` and its children (nginx's workers)."""
    pids = [pid]
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            pids += [int(child) for child in handle.read().split()]
    except OSError:
        pass
    return pids


def largest_documents(export, count):
    """The paths of the `count` largest documents of the export."""
    sized = []
    api = os.path.join(export, "api", "v2")
    for kind in os.listdir(api):
        folder = os.path.join(api, kind)
        if not os.path.isdir(folder):
            continue
        for ident in os.listdir(folder):
            file = os.path.join(folder, ident, "index.json")
            if ident.lstrip("-").isdigit() and os.path.exists(file):
                sized.append((os.path.getsize(file), f"/api/v2/{kind}/{ident}/"))
    return [path for _, path in sorted(sized, reverse=True)[:count]]


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fresh_start(binaries, nginx, work, mirror, export, script, seconds=8, repeat=3, crawl=True, busy=0):
    """A fresh start as an operator sees it: serve started anew, a whole-API crawl through it
    (`pokesync full --kinds all`, the clients that fill its cache with everything once), then
    wrk with gzip for `seconds` right away (the first run), once more (warmed), and once
    without gzip (identity), each beside nginx's gzip_static with as many workers as serve
    has (2 on 2 cores: worker_processes auto), A and B alternated in each turn. `binaries`:
    label -> serve binary (two to compare a build with another). Prints each one's medians
    and spreads, p99, rate and CPU a request (utime + stime from /proc, nginx's master and
    workers together) against nginx's, and serve's peak RSS. With `busy` > 0, each turn is
    measured twice, quiet and beside `busy` CPU-bound processes (`yes > /dev/null`, started
    before serve and stopped after its phases), the two in turn in the other order, and a
    floor (nginx answering one byte) warm in each; each busy ratio is also printed against
    the quiet one of its turn: under load serve should keep its quiet ratios to nginx's."""
    port = free_port()
    config = write_nginx_config(work, "fresh-static", nginx_config_http(export, port, "static"), workers="auto")
    process = subprocess.Popen([nginx, "-c", config, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    neighbours = []  # the busy processes of the turn running, stopped with it or here
    floor = None
    try:
        wait_for_port(port, process, "nginx (gzip_static, workers auto)")
        nginx_url = f"http://127.0.0.1:{port}"
        if busy:
            # The floor: nginx answering one byte for every path, no file, no gzip: nearly
            # no work a request, so its tail is mostly what the machine's scheduling adds.
            floor_port = free_port()
            http = nginx_config_http(export, floor_port, "plain").replace("etag on;", "location / { return 200 'x'; }")
            floor = subprocess.Popen([nginx, "-c", write_nginx_config(work, "fresh-floor", http, workers="auto"), "-p", work],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_for_port(floor_port, floor, "nginx (one byte, workers auto)")
            floor_url = f"http://127.0.0.1:{floor_port}"
        wrk(nginx_url, script, True, 2)  # the files in the page cache, as after any start
        results, cpu, rss = {}, {}, {}
        nginx_pids = process_tree(process.pid)
        conditions = ["quiet", "busy"] if busy else ["quiet"]
        for turn in range(repeat):
            labels = list(binaries) if turn % 2 == 0 else list(binaries)[::-1]
            # Quiet first in even turns, busy first in odd ones, so drift within a turn does not
            # land on one side of the ratios set against each other.
            order = conditions if turn % 2 == 0 else conditions[::-1]
            for label, condition in [(label, condition) for label in labels for condition in order]:
                key = (label, condition)
                for _ in range(busy if condition == "busy" else 0):
                    neighbours.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
                serve_port = free_port()
                serve = subprocess.Popen([binaries[label], "serve", "--mirror", mirror, "--listen", f"127.0.0.1:{serve_port}"],
                                         stdout=subprocess.DEVNULL)
                try:
                    wait_for_port(serve_port, serve, f"serve ({label})")
                    url = f"http://127.0.0.1:{serve_port}"
                    if crawl:
                        crawled = os.path.join(work, f"Crawled-{label}-{condition}-{turn}")
                        subprocess.run([binaries[label], "full", "--source", url + "/api/v2", "--mirror", crawled,
                                        "--sprites", "none", "--kinds", "all"],
                                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                        shutil.rmtree(crawled, ignore_errors=True)
                    # serve's first run and nginx's beside it, then both again (warmed), then without gzip.
                    for phase in ["first", "warm", "identity"]:
                        gzip_header = phase != "identity"
                        results.setdefault((key, phase, "serve"), []).append(
                            wrk(url, script, gzip_header, seconds, cpu_of=serve.pid, cpu=cpu.setdefault((key, phase, "serve"), [])))
                        results.setdefault((key, phase, "nginx"), []).append(
                            wrk(nginx_url, script, gzip_header, seconds, cpu_of=nginx_pids,
                                cpu=cpu.setdefault((key, phase, "nginx"), [])))
                        if floor and phase == "warm":
                            results.setdefault((key, phase, "floor"), []).append(wrk(floor_url, script, True, seconds))
                    rss.setdefault(key, []).append(peak_rss_mb(serve.pid))
                finally:
                    stop([serve] + neighbours)
                    neighbours = []
        names = {"first": "first 8 s after the crawl", "warm": "warm (the run after)", "identity": "identity (no gzip)"}
        for key in [(label, condition) for label in binaries for condition in conditions]:
            label, condition = key
            shown = label if condition == "quiet" else f"{label} busy"
            for phase in ["first", "warm", "identity"]:
                mine, theirs = results[(key, phase, "serve")], results[(key, phase, "nginx")]
                rate_ratio = [a[0] / b[0] for a, b in zip(mine, theirs)]
                p99_ratio = [a[1] / b[1] for a, b in zip(mine, theirs)]
                serve_cpu = [seconds * 1e6 for seconds in cpu[(key, phase, "serve")]]
                nginx_cpu = [seconds * 1e6 for seconds in cpu[(key, phase, "nginx")]]
                cpu_ratio = [a / b for a, b in zip(serve_cpu, nginx_cpu)]
                rate_target = 1.5 if phase == "identity" else 1.2
                print(f"     {shown:<13} {names[phase]:<26} "
                      f"serve {spread([r for r, _ in mine], '/s')} p99 {spread([p for _, p in mine], ' ms', 2)} "
                      f"CPU {spread(serve_cpu, ' us', 1)}; "
                      f"nginx {spread([r for r, _ in theirs], '/s')} p99 {spread([p for _, p in theirs], ' ms', 2)} "
                      f"CPU {spread(nginx_cpu, ' us', 1)}; "
                      f"rate {spread(rate_ratio, 'x', 2)} (target >= {rate_target}), p99 {spread(p99_ratio, 'x', 2)} "
                      f"(target <= 1), CPU a request {spread(cpu_ratio, 'x', 2)} (target <= 0.7)", flush=True)
                if (key, phase, "floor") in results:
                    lowest = results[(key, phase, "floor")]
                    print(f"     {shown:<13} {names[phase]:<26} the floor (nginx answering one byte): "
                          f"{spread([r for r, _ in lowest], '/s')} p99 {spread([p for _, p in lowest], ' ms', 2)}, "
                          f"{spread([a[1] / b[1] for a, b in zip(lowest, theirs)], 'x', 2)} nginx's p99", flush=True)
                if condition == "busy":
                    quiet, quiet_nginx = results[((label, "quiet"), phase, "serve")], results[((label, "quiet"), phase, "nginx")]
                    # Turn by turn: this turn's busy ratio to nginx over its quiet ratio.
                    rate_kept = [(a[0] / b[0]) / (q[0] / n[0]) for a, b, q, n in zip(mine, theirs, quiet, quiet_nginx)]
                    p99_kept = [(a[1] / b[1]) / (q[1] / n[1]) for a, b, q, n in zip(mine, theirs, quiet, quiet_nginx)]
                    print(f"     {shown:<13} {names[phase]:<26} against its quiet ratios: rate {spread(rate_kept, 'x', 2)} "
                          f"(target >= 0.9), p99 {spread(p99_kept, 'x', 2)} (target <= 1.1)", flush=True)
            print(f"     {shown:<13} serve's peak RSS {spread(rss[key], ' MB')} (target < 100)", flush=True)
    finally:
        stop([process] + neighbours + ([floor] if floor else []))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    bench_data.add_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--access-log-only", action="store_true",
                        help="only serve against serve --access-log (no nginx, crawl or attacks)")
    parser.add_argument("--fresh-start-only", action="store_true",
                        help="only the fresh start: serve started, crawled whole, then wrk with gzip 8 s (and again)")
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="with --fresh-start-only: each turn also beside N CPU-bound processes (yes > /dev/null), "
                             "each busy ratio to nginx set against the quiet one of its turn, and a floor "
                             "(nginx answering one byte) measured warm")
    parser.add_argument("--compare", metavar="BINARY",
                        help="with --fresh-start-only: another build's pokesync, alternated with BINARY in each turn")
    args = parser.parse_args()
    if (args.busy or args.compare) and not args.fresh_start_only:
        parser.error("--busy and --compare go with --fresh-start-only")
    if args.busy < 0:
        parser.error("--busy takes a number of processes, 1 or more")
    nginx = nginx_or_skip("serve against nginx")
    if not nginx:
        return
    binary = os.path.abspath(args.binary)
    work, cache = nginx_work_folders("serve-")
    processes = []
    log_folder = None
    try:
        print(f"== serve against nginx (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)", flush=True)
        data = bench_data.snapshot(args, cache, "new", whole=True)
        mirror, export = os.path.join(work, "Mirror"), os.path.join(work, "export")
        subprocess.run([binary, "full", "--source", data, "--mirror", mirror, "--sprites", "none", "--kinds", "all"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([binary, "export", "--mirror", mirror, "--format", "api-data", "--out", export],
                       check=True, stdout=subprocess.DEVNULL)
        paths = request_paths(export)
        precompress(export, paths)
        script = wrk_script(work, paths)
        if args.fresh_start_only:
            binaries = {"this": binary} | ({"compare": os.path.abspath(args.compare)} if args.compare else {})
            print(f"   fresh start: {len(paths)} documents, 64 connections, gzip, {args.repeat} turns"
                  + (f", each quiet and beside {args.busy} busy processes" if args.busy else ""), flush=True)
            fresh_start(binaries, nginx, work, mirror, export, script, repeat=args.repeat, busy=args.busy)
            return
        print(f"   {len(paths)} documents (pokemon, species, moves, items, abilities, types), 64 connections, "
              f"{args.seconds} s a run, {args.repeat} runs", flush=True)

        serve_port = free_port()
        serve = subprocess.Popen([binary, "serve", "--mirror", mirror, "--listen", f"127.0.0.1:{serve_port}"],
                                 stdout=subprocess.DEVNULL)
        processes.append(serve)
        wait_for_port(serve_port, serve, "serve")
        servers = {"serve": f"http://127.0.0.1:{serve_port}"}
        # The same serve with an access log on disk (the ordinary place), like for like.
        log_folder = tempfile.mkdtemp(prefix="pokesync-bench-access-log-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None)
        access_log = os.path.join(log_folder, "access.log")
        logged_port, logged_metrics = free_port(), free_port()
        logged = subprocess.Popen([binary, "serve", "--mirror", mirror, "--listen", f"127.0.0.1:{logged_port}",
                                   "--access-log", access_log, "--metrics-listen", f"127.0.0.1:{logged_metrics}"],
                                  stdout=subprocess.DEVNULL)
        processes.append(logged)
        wait_for_port(logged_port, logged, "serve --access-log")
        servers["serve-log"] = f"http://127.0.0.1:{logged_port}"
        for mode in ([] if args.access_log_only else ["static", "dynamic", "plain"]):
            port = free_port()
            process = subprocess.Popen([nginx, "-c", nginx_config(work, export, port, mode), "-p", work],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            processes.append(process)
            wait_for_port(port, process, f"nginx ({mode})")
            servers[f"nginx-{mode}"] = f"http://127.0.0.1:{port}"

        for server, url in servers.items():  # every server answers every path before anything is timed
            for path in paths:
                try:
                    with urllib.request.urlopen(url + path) as response:
                        response.read()
                except Exception as error:
                    sys.exit(f"{server}: {url + path}: {error}")
        cases = [("gzip", True, ["serve", "serve-log", "nginx-static", "nginx-dynamic"]),
                 ("plain", False, ["serve", "serve-log", "nginx-plain"])]
        if args.access_log_only:
            cases = [(name, gzip_header, names[:2]) for name, gzip_header, names in cases]
        pids = {"serve": serve.pid, "serve-log": logged.pid}
        cpu = {}
        results = {}
        log_lines = 0
        for name, gzip_header, names in cases:
            for server in names:  # warm-up: serve renders and compresses each body once
                wrk(servers[server], script, gzip_header, 3)
            for turn in range(args.repeat):
                # Each turn in the other order (A B, then B A...): a machine that grows busier
                # or quieter during a turn then favours no server in particular.
                for server in (names if turn % 2 == 0 else names[::-1]):
                    results.setdefault((name, server), []).append(
                        wrk(servers[server], script, gzip_header, args.seconds, cpu_of=pids.get(server),
                            cpu=cpu.setdefault((name, server), [])))
                    if server == "serve-log":
                        time.sleep(0.5)  # the writer's last lines
                        with open(access_log, "rb") as handle:
                            log_lines += sum(1 for _ in handle)
                        os.truncate(access_log, 0)  # the writer appends: it goes on at the new end
        rss = peak_rss_mb(serve.pid)

        def rates(key): return [rate for rate, _ in results[key]]
        def p99s(key): return [p99 for _, p99 in results[key]]
        labels = {"serve-log": "serve --access-log FILE", "nginx-static": "nginx gzip_static", "nginx-dynamic": "nginx gzip on (level 1)", "nginx-plain": "nginx plain files"}
        for name, _, names in cases:
            print(f"\n   {'with' if name == 'gzip' else 'without'} Accept-Encoding: gzip", flush=True)
            for server in names:
                print(f"     {labels.get(server, 'pokesync serve'):<26} {spread(rates((name, server)), '/s'):>30}   "
                      f"p99 {spread(p99s((name, server)), ' ms', 2)}", flush=True)
        for name, _, _ in cases:
            cost = 1 - statistics.median(rates((name, "serve-log"))) / statistics.median(rates((name, "serve")))
            plain_cpu = [seconds * 1e6 for seconds in cpu[(name, "serve")]]
            logged_cpu = [seconds * 1e6 for seconds in cpu[(name, "serve-log")]]
            cpu_cost = 1 - statistics.median(plain_cpu) / statistics.median(logged_cpu)
            print(f"   the access log, {'with' if name == 'gzip' else 'without'} gzip: {cost * 100:.1f}% fewer requests a second; "
                  f"CPU per request {spread(plain_cpu, ' us', 1)} without it, {spread(logged_cpu, ' us', 1)} with it: "
                  f"{cpu_cost * 100:.1f}% fewer requests a second when serve has the cores (target <= 15%: "
                  f"{'met' if max(cost, cpu_cost) <= 0.15 else 'MISSED' if min(cost, cpu_cost) > 0.15 else 'see both'})", flush=True)
        with urllib.request.urlopen(f"http://127.0.0.1:{logged_metrics}/metrics") as response:
            dropped = re.search(r"^pokesync_serve_access_log_dropped_lines_total (\S+)$", response.read().decode(), re.M).group(1)
        print(f"   access-log lines written: {log_lines:,}, dropped: {float(dropped):,.0f}", flush=True)
        if args.access_log_only:
            return
        gzip_ratio = statistics.median(rates(("gzip", "serve"))) / statistics.median(rates(("gzip", "nginx-static")))
        plain_ratio = statistics.median(rates(("plain", "serve"))) / statistics.median(rates(("plain", "nginx-plain")))
        gzip_p99 = statistics.median(p99s(("gzip", "serve")))
        plain_p99_ratio = statistics.median(p99s(("plain", "serve"))) / statistics.median(p99s(("plain", "nginx-plain")))
        verdict = lambda ok: "met" if ok else "MISSED"
        print(f"\n   serve / nginx gzip_static = {gzip_ratio:.2f} (target >= 0.5: {verdict(gzip_ratio >= 0.5)}); "
              f"p99 with gzip {gzip_p99:.2f} ms (target < 10: {verdict(gzip_p99 < 10)})", flush=True)
        print(f"   serve / nginx plain = {plain_ratio:.2f} (target >= 0.5: {verdict(plain_ratio >= 0.5)}); "
              f"p99 without gzip = {plain_p99_ratio:.2f}x nginx's (target <= 2: {verdict(plain_p99_ratio <= 2)})", flush=True)
        print(f"   serve's peak RSS after wrk {rss:.0f} MB", flush=True)
        # The metrics address against the same clients, a health check probing it.
        print(f"\n   the metrics address (one worker, 64 connections), /healthz probed from 127.0.0.2 every 0.1 s", flush=True)
        metrics_reports = metrics_attacks(logged_metrics, [logged.pid])
        for result in metrics_reports:
            print(f"     {result['name']:<34} {describe(result)}", flush=True)
        worst = max(result["max"] for result in metrics_reports)
        refused = sum(count for result in metrics_reports for status, count in result["statuses"].items() if status != 200)
        print(f"   metrics address: slowest health check {worst * 1000:.0f} ms, {refused} not 200", flush=True)
        logged.terminate()
        logged.wait(timeout=20)
        processes.remove(logged)

        # Ordinary service, continued: a whole-API crawl from serve.
        started = time.monotonic()
        subprocess.run([binary, "full", "--source", servers["serve"] + "/api/v2", "--mirror", os.path.join(work, "Crawled"),
                        "--sprites", "none", "--kinds", "all"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rss = peak_rss_mb(serve.pid)
        print(f"   a whole-API crawl from serve (full --kinds all): {time.monotonic() - started:.1f} s; "
              f"serve's peak RSS over wrk and the crawl {rss:.0f} MB (target < 100: {verdict(rss < 100)})", flush=True)

        # Clients that cost others, serve and nginx (Debian's default configuration) side by side.
        for process in processes[1:]:
            process.terminate()
            process.wait(timeout=20)
        del processes[1:]
        port = free_port()
        nginx_default = subprocess.Popen([nginx, "-c", nginx_default_config(work, export, port), "-p", work],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(nginx_default)
        wait_for_port(port, nginx_default, "nginx (default)")
        large = largest_documents(export, 600)
        cached = ["/api/v2/", "/api/v2/pokemon/25/", "/api/v2/type/1/"]
        targets = [("serve", serve_port, lambda: [serve.pid]), ("nginx", port, lambda: process_tree(nginx_default.pid))]
        print(f"\n   clients that cost others (a probe from 127.0.0.2 every 0.1 s; 600 largest documents)", flush=True)
        reports = {}
        for server, server_port, pids in targets:
            fresh = [f"/api/v2/item/{ident}/" for ident in range(200 if server == "serve" else 1, 2000)]
            reports[server] = attacks(server_port, pids(), large, cached, fresh)
        for index, result in enumerate(reports["serve"]):
            print(f"     {result['name']}", flush=True)
            for server in ["serve", "nginx"]:
                print(f"       {server:<6} {describe(reports[server][index])}", flush=True)
        worst = max(result["max"] for result in reports["serve"])
        refused = sum(count for result in reports["serve"] for status, count in result["statuses"].items() if status != 200)
        peak = max(result["rss"] for result in reports["serve"])
        print(f"   serve: slowest probe {worst * 1000:.0f} ms (target < 1000: {verdict(worst < 1)}), "
              f"{refused} probes not 200 (target 0: {verdict(refused == 0)}), "
              f"peak RSS {peak:.0f} MB (target < 150: {verdict(peak < 150)})", flush=True)
        stop(processes)
        print(f"\n   a fresh start: serve started, crawled whole, then wrk with gzip 8 s at once and again, "
              f"against nginx gzip_static (workers auto)", flush=True)
        fresh_start({"serve": binary}, nginx, work, mirror, export, script, repeat=args.repeat)
    finally:
        stop(processes)
        shutil.rmtree(work, ignore_errors=True)
        if log_folder:
            shutil.rmtree(log_folder, ignore_errors=True)


if __name__ == "__main__":
    main()
