#!/usr/bin/env python3
"""A file host's bad night, timed: how long a `sync` takes when the sprite and cry host
turns bad between two runs, and how many files it asked that host for.

For each --fault (404, 500, html, drip, endless, fail-70: 500 for the same 70% of the
files and the rest served, placeholder: one image for every file): a `full --sprites SET
--cries all` of the 2026-08-08 sample against a good stand-in (--sprites all: several hundred files, so
that a host failing 70% is judged by its share, not by the few files a default set has),
then the stand-in restarted on the same port with `--file-host-fault FAULT`, then a `sync`
with the default --timeout (30 s: one attempt's deadline and the silence budget are
2 minutes). Prints, per fault, the sync's exit code and wall time (median of --repeat runs,
with the spread) and the file requests the stand-in saw. Loopback only.

usage: bench_bad_host.py --binary .build/release/pokesync [--fault 500,fail-70] [--sprites all] [--repeat 3]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "Fixtures", "sample-2026-08-08")


def start_server(folder, port=0, fault=None):
    """Starts the stand-in; returns (process, port)."""
    port_file, pid_file = os.path.join(folder, "port"), os.path.join(folder, "pid")
    for path in (port_file, pid_file):
        if os.path.exists(path):
            os.remove(path)
    arguments = [sys.executable, os.path.join(HERE, "pokeapi_server.py"), "--root", SAMPLE, "--port", str(port),
                 "--port-file", port_file, "--pid-file", pid_file, "--quiet"]
    if fault:
        arguments += ["--file-host-fault", fault]
    process = subprocess.Popen(arguments)
    deadline = time.monotonic() + 60
    while not os.path.exists(port_file):
        if time.monotonic() > deadline or process.poll() is not None:
            raise SystemExit("the stand-in did not start")
        time.sleep(0.05)
    with open(port_file) as handle:
        return process, int(handle.read())


def stop(process):
    process.terminate()
    process.wait(timeout=30)


def file_requests(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stats") as response:
        stats = json.load(response)
    return sum(count for path, count in stats["by_path"].items() if path.startswith("/PokeAPI/"))


def night(binary, fault, sprites):
    """One good full, one bad sync: (exit code, seconds, file requests of the sync)."""
    work = tempfile.mkdtemp(prefix="bench-bad-host-")
    try:
        mirror = os.path.join(work, "Mirror")
        server, port = start_server(work)
        base = f"http://127.0.0.1:{port}"
        arguments = ["--source", base + "/api/v2", "--sprites", sprites, "--cries", "all",
                     "--sprite-source", base + "/PokeAPI/sprites/master/", "--cry-source", base + "/PokeAPI/cries/main/",
                     "--mirror", mirror]
        try:
            subprocess.run([binary, "full"] + arguments, check=True, stdout=subprocess.DEVNULL)
        finally:
            stop(server)
        server, _ = start_server(work, port, fault)
        try:
            started = time.monotonic()
            sync = subprocess.run([binary, "sync"] + arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = time.monotonic() - started
            return sync.returncode, seconds, file_requests(port)
        finally:
            stop(server)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--fault", default="404,500,html,drip,endless,fail-70,placeholder")
    parser.add_argument("--sprites", default="all", help="the sprite set mirrored (default all)")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    for fault in options.fault.split(","):
        runs = [night(options.binary, fault, options.sprites) for _ in range(options.repeat)]
        times = [seconds for _, seconds, _ in runs]
        print(f"{fault:8} exit {sorted({code for code, _, _ in runs})}  sync {statistics.median(times):6.1f} s "
              f"(spread {min(times):.1f}-{max(times):.1f})  file requests {[asked for _, _, asked in runs]}", flush=True)


if __name__ == "__main__":
    main()
