#!/usr/bin/env python3
"""make bench-replicas: the figures of "Growing past one machine" (PokeServe.docc).

A primary mirror of the whole 2026-08-08 API (`full --kinds all --sprites none`) is served
by `pokesync serve` with `--metrics-listen`; a replica mirror is made from it (`full
--source http://primary/api/v2`), then:
  1. idle nights: the primary unchanged, the replica runs `sync` from it (the no-change
     shortcut: the primary's X-PokeAPI-Hash is the one the replica's last version saw);
  2. ordinary nights: the primary first syncs a copy of the snapshot with 25 pokemon
     documents edited (a night of upstream commits), then the replica syncs from it.
Bytes a replica moves are what the primary's /metrics counts as sent to it
(pokesync_serve_sent_bytes_total, heads and bodies), with its request count; each night
--repeat times (default 3), printed as the median with the spread.
  3. requests a second of one replica (wrk, 64 keep-alive connections, two threads, the
     same seeded documents as bench_serve.py, with Accept-Encoding: gzip), and of two
     replicas behind nginx with the article's `upstream` recipe, all on this machine's
     cores (like for like: every process shares them);
  4. the same through nginx while one replica is killed (SIGKILL) a third of the way in:
     wrk's count of errors and non-2xx answers must be 0.
Needs the whole 2026-08-08 snapshot (bench_data.py), nginx and wrk. Work files go to
/dev/shm when it exists.
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_data  # noqa: E402
from bench_serve import (free_port, nginx_or_skip, nginx_work_folders, request_paths, spread, stop,  # noqa: E402
                         wait_for_port, write_nginx_config, wrk_script)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARTICLE = os.path.join(ROOT, "Sources", "PokeServe", "PokeServe.docc", "GrowingPastOneMachine.md")


def metrics(port):
    """The samples of a serve's /metrics, by name with labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def sent(port):
    """Bytes sent and requests answered so far."""
    samples = metrics(port)
    requests = sum(value for name, value in samples.items() if name.startswith("pokesync_serve_requests_total"))
    return samples["pokesync_serve_sent_bytes_total"], requests


def run(binary, *arguments):
    started = time.monotonic()
    subprocess.run([binary, *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def edited_copy(snapshot, folder, night, count=25):
    """`snapshot` hard-linked into `folder`, with `count` pokemon documents edited
    (base_experience changed): what a night of upstream commits looks like."""
    shutil.copytree(snapshot, folder, copy_function=os.link)
    pokemon = os.path.join(folder, "api", "v2", "pokemon")
    ids = sorted(int(name) for name in os.listdir(pokemon) if name.isdigit())
    for ident in ids[night * count:(night + 1) * count]:
        path = os.path.join(pokemon, str(ident), "index.json")
        with open(path) as handle:
            document = json.load(handle)
        document["base_experience"] = (document.get("base_experience") or 0) + 1000 + night
        os.unlink(path)  # a hard link: the snapshot's own file stays as it was
        with open(path, "w") as handle:
            json.dump(document, handle, indent=4, sort_keys=True)
    return folder


def nginx_recipe():
    """The article's ```nginx block (the load balancer's recipe)."""
    with open(ARTICLE) as handle:
        text = handle.read()
    start = text.index("```nginx\n", text.index("## Replicas behind a load balancer")) + len("```nginx\n")
    return text[start:text.index("```", start)]


def start_nginx(nginx, work, port, replicas):
    recipe = nginx_recipe().replace("127.0.0.1:8081", f"127.0.0.1:{replicas[0]}")
    recipe = recipe.replace("127.0.0.1:8082", f"127.0.0.1:{replicas[1]}")
    recipe = re.sub(r"(?m)^(\s*)listen [^;\n]+;", f"\\1listen 127.0.0.1:{port};", recipe)
    path = write_nginx_config(work, "lb", "    access_log off;\n" + recipe)
    process = subprocess.Popen([nginx, "-c", path, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_port(port, process, "nginx (load balancer)")
    return process


def wrk(url, script, seconds, during=None):
    """Requests a second, and the failures wrk saw (socket errors and non-2xx/3xx)."""
    command = ["wrk", "-t2", "-c64", f"-d{seconds}s", "-s", script, "-H", "Accept-Encoding: gzip", url]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    if during:
        during()
    output = process.communicate()[0]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    failures = sum(int(count) for count in re.findall(r"(?:connect|read|write|timeout) (\d+)", output))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, failures + (int(bad.group(1)) if bad else 0), output


def serve(binary, mirror, port, metrics_port=None):
    command = [binary, "serve", "--mirror", mirror, "--listen", f"127.0.0.1:{port}", "--max-connections-per-address", "1024"]
    if metrics_port:
        command += ["--metrics-listen", f"127.0.0.1:{metrics_port}"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    wait_for_port(port, process, "serve")
    return process


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    bench_data.add_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--balancer-only", action="store_true",
                        help="only the requests a second and the kill (the replicas serve the primary's mirror)")
    args = parser.parse_args()
    nginx = nginx_or_skip("replicas")
    if not nginx:
        return
    binary = os.path.abspath(args.binary)
    work, cache = nginx_work_folders("replicas-")
    processes = []
    try:
        print(f"== growing past one machine (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores)", flush=True)
        data = bench_data.snapshot(args, cache, "new", whole=True)
        primary, replica = os.path.join(work, "Primary"), os.path.join(work, "Replica")
        common = ["--sprites", "none", "--kinds", "all"]
        run(binary, "full", "--source", data, "--mirror", primary, *common)
        port, metrics_port = free_port(), free_port()
        processes.append(serve(binary, primary, port, metrics_port))
        source = f"http://127.0.0.1:{port}/api/v2"

        if args.balancer_only:
            replica = primary
        before = sent(metrics_port)
        seconds = 0 if args.balancer_only else run(binary, "full", "--source", source, "--mirror", replica, *common)
        after = sent(metrics_port)
        if not args.balancer_only:
            print(f"   the replica's first copy (full from the primary): {(after[0] - before[0]) / 1e6:,.1f} MB, "
                  f"{after[1] - before[1]:,.0f} requests, {seconds:.1f} s", flush=True)

        nights = {"idle": [], "ordinary": []}
        for night in range(0 if args.balancer_only else args.repeat):
            before = sent(metrics_port)
            seconds = run(binary, "sync", "--source", source, "--mirror", replica, *common)
            after = sent(metrics_port)
            nights["idle"].append((after[0] - before[0], after[1] - before[1], seconds))
        for night in range(0 if args.balancer_only else args.repeat):
            edited = edited_copy(data, os.path.join(work, f"night-{night}"), night)
            run(binary, "sync", "--source", edited, "--mirror", primary, *common)
            before = sent(metrics_port)
            seconds = run(binary, "sync", "--source", source, "--mirror", replica, *common)
            after = sent(metrics_port)
            nights["ordinary"].append((after[0] - before[0], after[1] - before[1], seconds))
            shutil.rmtree(edited)
        for name, label in [("idle", "an idle night (primary unchanged)"),
                            ("ordinary", "an ordinary night (25 documents changed)")]:
            runs = nights[name]
            if not runs:
                continue
            print(f"   {label:<42} {spread([b / 1e3 for b, _, _ in runs], ' kB')}, "
                  f"{spread([r for _, r, _ in runs])} requests, {spread([s for _, _, s in runs], ' s', 1)}", flush=True)

        # Requests a second: one replica, then two behind nginx's upstream recipe.
        script = wrk_script(work, request_paths(data))
        replica_ports = [free_port(), free_port()]
        replicas = [serve(binary, replica, replica_port) for replica_port in replica_ports]
        processes += replicas
        lb_port = free_port()
        processes.append(start_nginx(nginx, work, lb_port, replica_ports))
        direct, balanced = f"http://127.0.0.1:{replica_ports[1]}", f"http://127.0.0.1:{lb_port}"
        for url in [direct, balanced]:
            wrk(url, script, 3)  # warm-up: bodies rendered and compressed once
        rates = {"direct": [], "balanced": []}
        for _ in range(args.repeat):
            for name, url in [("direct", direct), ("balanced", balanced)]:
                rate, failures, output = wrk(url, script, args.seconds)
                if failures:
                    sys.exit(f"{url}: {failures} failures\n{output}")
                rates[name].append(rate)
        print(f"\n   requests a second (gzip, 64 connections, wrk on the same {os.cpu_count()} cores)", flush=True)
        print(f"     one replica, direct                 {spread(rates['direct'], '/s'):>30}", flush=True)
        print(f"     two replicas behind nginx upstream  {spread(rates['balanced'], '/s'):>30}", flush=True)

        def kill_one():
            time.sleep(args.seconds / 3)
            replicas[0].send_signal(signal.SIGKILL)
        rate, failures, output = wrk(balanced, script, args.seconds, during=kill_one)
        verdict = "met" if failures == 0 else "MISSED"
        print(f"     one replica killed a third of the way in: {rate:,.0f}/s, {failures} failed requests "
              f"(target 0: {verdict})", flush=True)
        if failures:
            print(output, flush=True)
    finally:
        stop(processes)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
