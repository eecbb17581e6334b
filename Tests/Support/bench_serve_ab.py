#!/usr/bin/env python3
"""serve against serve: two builds of pokesync (before and after a change), both warm,
serving the same whole-API mirror at the same time, measured in turns alternated A B / B A.

    python3 Tests/Support/bench_serve_ab.py BEFORE AFTER [--turns 12] [--seconds 8]

BEFORE and AFTER are release binaries (`swift build -c release` in two trees). Each turn
runs wrk (gzip, 64 connections, the requests of bench_serve.py) against one of them and
reports the rate, p99, serve's CPU per request (from /proc) and wrk's (from getrusage):
a ratio taken in one run, like for like, as Benchmarks.md asks of a comparison. Data as
bench_serve.py finds it (bench_data.py: the team's fixtures or an api-data checkout).
"""
import argparse
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_data  # noqa: E402
import bench_serve as bs  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--seconds", type=int, default=8)
    bench_data.add_arguments(parser)
    options = parser.parse_args()
    binaries = {"before": os.path.abspath(options.before), "after": os.path.abspath(options.after)}
    work, cache = bs.nginx_work_folders("ab-")
    data = bench_data.snapshot(options, cache, "new", whole=True)
    mirror, export = os.path.join(work, "Mirror"), os.path.join(work, "export")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([binaries["after"], "full", "--source", data, "--mirror", mirror, "--sprites", "none", "--kinds", "all"],
                   check=True, **quiet)
    subprocess.run([binaries["after"], "export", "--mirror", mirror, "--format", "api-data", "--out", export], check=True, **quiet)
    paths = bs.request_paths(export)
    script = bs.wrk_script(work, paths)
    servers, urls = {}, {}
    try:
        for label, binary in binaries.items():
            port = bs.free_port()
            servers[label] = subprocess.Popen([binary, "serve", "--mirror", mirror, "--listen", f"127.0.0.1:{port}"],
                                              stdout=subprocess.DEVNULL)
            bs.wait_for_port(port, servers[label], label)
            urls[label] = f"http://127.0.0.1:{port}"
        for label in binaries:
            bs.wrk(urls[label], script, True, 3)  # warm-up: every body rendered and compressed
        results = {label: {"rate": [], "p99": [], "server": [], "client": []} for label in binaries}
        print(f"load average {os.getloadavg()[0]:.2f}; {len(paths)} documents, {options.turns} turns of {options.seconds} s",
              flush=True)
        for turn in range(options.turns):
            order = list(binaries) if turn % 2 == 0 else list(binaries)[::-1]
            for label in order:
                start = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = []
                rate, p99 = bs.wrk(urls[label], script, True, options.seconds, cpu_of=servers[label].pid, cpu=cpu)
                end = resource.getrusage(resource.RUSAGE_CHILDREN)
                client = (end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime) / (rate * options.seconds)
                for key, value in (("rate", rate), ("p99", p99), ("server", cpu[0] * 1e6), ("client", client * 1e6)):
                    results[label][key].append(value)
                print(f"  turn {turn} {label:<6} {rate:,.0f}/s p99 {p99:.2f} ms serve {cpu[0] * 1e6:.1f} us/req "
                      f"wrk {client * 1e6:.1f} us/req", flush=True)
        for label, r in results.items():
            print(f"{label:<6} rate {bs.spread(r['rate'], '/s')}  p99 {bs.spread(r['p99'], ' ms', 2)}  "
                  f"serve CPU {bs.spread(r['server'], ' us/req', 1)}  wrk CPU {bs.spread(r['client'], ' us/req', 1)}")
        ratios = [round(a / b, 3) for a, b in zip(results["after"]["rate"], results["before"]["rate"])]
        print("after/before rate per turn:", ratios)
    finally:
        for server in servers.values():
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
