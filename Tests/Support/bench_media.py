#!/usr/bin/env python3
"""make bench-media: the whole API with every file it links, pokeapi-all-2026-08-08.

Measures, in one run:
  1. `full --kinds all --sprites all --cries all` (the root, 49 lists, every document and
     encounters, 54,267 sprites and 2,000 cries: about 71,800 requests) against the
     stand-in at 20 ms latency, concurrency 32: wall time against the latency floor
     (requests x 20 ms / 32), client CPU, peak RSS (targets: < 1.5x, < 150 MB);
  2. a no-change `sync` of it: its body bytes against the full's (target < 2%);
  3. `verify` of the mirror against reading its files once (every regular file of the
     mirror folder, each inode once: the trees are hard links into objects/), taken
     in turn A/B in one run (target: verify < 2x).
Each timed figure is the median of --repeat runs (default 3) with the spread (min-max).
--mirror DIR keeps the mirror in DIR; --verify-only then times part 3 alone on it (no
crawl), and --baseline BINARY adds another build's verify, alternated with this one's.
The stand-in renders each sprite and cry on its first request (small, deterministic
files), so the bytes are the stand-in's, not upstream's.
Needs the whole 2026-08-08 snapshot (bench_data.py: --api-data or the fixtures; or --data DIR, an unpacked one).
"""
import argparse, os, re, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_data  # noqa: E402  (one place the bench's data comes from)
from bench import (Server, describe, du_mb, fresh, run_measured, repeated,  # noqa: E402
                   size_mb, spread, work_folders)

SPRITES = re.compile(rb'"https://raw\.githubusercontent\.com/PokeAPI/sprites/master/sprites/([^"]+)"')
CRIES = re.compile(rb'"https://raw\.githubusercontent\.com/PokeAPI/cries/main/cries/([^"]+)"')


def linked_files(data):
    """Distinct sprite and cry paths every document of the api-data tree links."""
    sprites, cries = set(), set()
    for folder, _, files in os.walk(os.path.join(data, "api", "v2")):
        for name in files:
            with open(os.path.join(folder, name), "rb") as handle:
                text = handle.read()
            sprites.update(SPRITES.findall(text))
            cries.update(CRIES.findall(text))
    return len(sprites), len(cries)


def read_once(root):
    """Reads every regular file below `root` once per inode; (seconds, bytes)."""
    start, total, seen = time.monotonic(), 0, set()
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if (info.st_dev, info.st_ino) in seen or not os.path.isfile(path):
                continue
            seen.add((info.st_dev, info.st_ino))
            with open(path, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    total += len(chunk)
    return time.monotonic() - start, total


def verify_part(binary, baseline, mirror, times):
    """Part 3: verify against reading the files once, in turn; a baseline build's verify too."""
    reads, verifies, baselines = [], [], []
    for _ in range(times):
        seconds, total = read_once(mirror)
        reads.append({"wall": seconds, "bytes": total})
        verifies.append(run_measured([binary, "verify", mirror]))
        if baseline:
            baselines.append(run_measured([baseline, "verify", mirror]))
    for runs in (verifies, baselines):
        for read, verify in zip(reads, runs):
            verify["ratio"] = verify["wall"] / read["wall"]
    print(f"== verify of the mirror: wall {spread(verifies, 'wall')} s, CPU {spread(verifies, 'cpu')} s, peak RSS "
          f"{spread(verifies, 'rss_mb', digits=0)} MB; reading its files once ({reads[-1]['bytes'] / 1e6:.0f} MB, "
          f"each inode once): {spread(reads, 'wall')} s; verify = {spread(verifies, 'ratio')}x (target < 2x)",
          flush=True)
    if baselines:
        print(f"   baseline {baseline}: wall {spread(baselines, 'wall')} s, CPU {spread(baselines, 'cpu')} s; "
              f"= {spread(baselines, 'ratio')}x reading once", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    bench_data.add_arguments(parser)
    parser.add_argument("--data", help="an unpacked pokeapi-all-2026-08-08 api-data folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mirror", help="build the mirror in (and keep) this folder; with --verify-only, "
                                         "the mirror an earlier run kept there")
    parser.add_argument("--verify-only", action="store_true", help="only part 3, on the --mirror folder")
    parser.add_argument("--baseline", help="another pokesync build whose verify is timed alternately too")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work, cache = work_folders("media-")
    times = max(args.repeat, 1)
    mirror = os.path.abspath(args.mirror) if args.mirror else os.path.join(work, "Media")
    try:
        if args.verify_only:
            if not os.path.exists(os.path.join(mirror, "store.sqlite")):
                sys.exit(f"--verify-only: no mirror at {mirror} (run once with --mirror {mirror} first)")
            print(f"\n== verify only, mirror {mirror}; load average "
                  f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
            verify_part(binary, args.baseline and os.path.abspath(args.baseline), mirror, times)
            return
        data = args.data or bench_data.snapshot(args, cache, "new", whole=True)
        sprites, cries = linked_files(data)
        print(f"\n== the whole API with its linked files, 2026-08-08: {sprites} sprites, {cries} cries; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        server = Server(data, work, latency_ms=20)
        command = [binary, "full", "--source", server.base + "/api/v2", "--mirror", mirror, "--kinds", "all",
                   "--sprite-source", server.base + "/PokeAPI/sprites/master/", "--sprites", "all",
                   "--cry-source", server.base + "/PokeAPI/cries/main/", "--cries", "all",
                   "--concurrency", "32", "--rate", "100000"]
        full = repeated(times, lambda: run_measured(command, server), before=fresh(mirror))
        requests = full[-1]["requests"]
        floor = requests * 0.020 / 32
        print(f"== full --kinds all --sprites all --cries all, {requests} requests, 20 ms latency, concurrency 32 "
              f"(floor {floor:.1f} s)", flush=True)
        print(f"   {describe(full, floor)}", flush=True)
        full_bytes = full[-1]["body_bytes"]
        print(f"   targets: < 1.5x the floor, < 150 MB peak RSS; mirror {du_mb(mirror):.0f} MB (objects "
              f"{du_mb(os.path.join(mirror, 'objects')):.0f} MB, store {size_mb(os.path.join(mirror, 'store.sqlite')):.1f} MB); "
              f"{full_bytes / 1e6:.1f} MB of bodies on the wire", flush=True)
        command[1] = "sync"
        sync = repeated(times, lambda: run_measured(command, server))
        print(f"== no-change sync: wall {spread(sync, 'wall')} s; {sync[-1]['requests']} requests; body bytes "
              f"{sync[-1]['body_bytes'] / 1e3:.0f} kB = {100 * sync[-1]['body_bytes'] / full_bytes:.2f}% of full "
              f"(target < 2%); client CPU {spread(sync, 'cpu')} s; peak RSS {spread(sync, 'rss_mb', digits=0)} MB",
              flush=True)
        server.stop()

        verify_part(binary, args.baseline and os.path.abspath(args.baseline), mirror, times)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the mirror too, unless --mirror put it elsewhere


if __name__ == "__main__":
    main()
