#!/usr/bin/env python3
"""make bench, the whole API: `--kinds all` of pokeapi-all-2026-08-08 and its api-data export.

Measures, in one run:
  1. `full --kinds all` (15,514 requests: the root, 49 lists, 14,112 documents, 1,351
     encounters, meta) against the stand-in at 20 ms latency, concurrency 16: wall time
     against the latency floor, client CPU, peak RSS;
  2. a no-change `sync --kinds all` (deploy unchanged): its body bytes against the full's;
  3. `export --format api-data` of that mirror (15,631 files with the schemas): wall, CPU,
     peak RSS; then `diff -r` of its api/ and schema/ against the fixture's, which must be
     empty; then the export as a static deployment (`--base-url`: the name aliases, 28,095
     files) alternated with the plain one, their ratio (target: at most 1.5x, under 15 s),
     and with `--gzip`; with --ditto, the deploy against `ditto transform` of the fixture
     (the same files, each upstream's form of ditto's value, Tests/Support/compare_transform.py);
  4. the same `full --kinds all` from the unpacked folder, and its export compared again;
  5. what each kind costs: documents, JSON bytes, bytes in the store, and its share of a
     full run's requests.
Each timed figure is the median of --repeat runs (default 3) with the spread (min-max).
Needs the whole 2026-08-08 snapshot (bench_data.py: --api-data or the fixtures; or --data DIR, an unpacked one).
"""
import argparse, os, shutil, sqlite3, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_data  # noqa: E402  (one place the bench's data comes from)
from bench import (ROOT, Server, describe, fresh, median, repeated, run_measured, size_mb,  # noqa: E402
                   spread, work_folders)


def count_files(root):
    return sum(len(files) for _, _, files in os.walk(root))


def same_tree(exported, fixture):
    """`diff -r` of api/ and schema/: (identical, first lines of the difference)."""
    lines = []
    for part in ("api", "schema"):
        result = subprocess.run(["diff", "-rq", os.path.join(exported, part), os.path.join(fixture, part)],
                                capture_output=True, text=True)
        lines += result.stdout.splitlines() + result.stderr.splitlines()
    return not lines, lines[:5]


def kind_costs(mirror):
    """Per kind: documents, canonical JSON bytes and compressed bytes in the store (latest version)."""
    database = sqlite3.connect(f"file:{os.path.join(mirror, 'store.sqlite')}?mode=ro", uri=True)
    rows = database.execute("""
        SELECT v.kind, COUNT(*), SUM(d.size), SUM(LENGTH(d.body))
        FROM version_documents v JOIN documents d ON d.hash = v.hash
        WHERE v.version = (SELECT MAX(number) FROM versions)
        GROUP BY v.kind ORDER BY SUM(d.size) DESC""").fetchall()
    database.close()
    return rows


DEPLOY_BASE = "https://pokeapi.example.org"


def deploy_runs(binary, mirror, work, data, times, ditto):
    """The export with name aliases (`--base-url`) against the plain one, alternated in one
    run (the machine swings), then with --gzip; with `ditto`, the deploy against ditto's."""
    export = [binary, "export", "--mirror", mirror, "--format", "api-data"]
    plain_out, deploy_out = os.path.join(work, "plain"), os.path.join(work, "deploy")
    plain, deploy = [], []
    for _ in range(times):
        plain.append(run_measured(export + ["--out", plain_out]))
        deploy.append(run_measured(export + ["--out", deploy_out, "--base-url", DEPLOY_BASE]))
    for ours, theirs in zip(deploy, plain):
        ours["ratio"] = ours["wall"] / theirs["wall"]
    files = count_files(os.path.join(deploy_out, "api")) + count_files(os.path.join(deploy_out, "schema"))
    print(f"== export --base-url (name aliases, a static deployment): {files} files; wall {spread(deploy, 'wall')} s "
          f"against {spread(plain, 'wall')} s without, alternated = {spread(deploy, 'ratio')}x (target <= 1.5x, "
          f"< 15 s); CPU {spread(deploy, 'cpu')} s against {spread(plain, 'cpu')} s; peak RSS "
          f"{spread(deploy, 'rss_mb', digits=0)} MB", flush=True)
    gzip_out = os.path.join(work, "gzip")
    gzipped = repeated(times, lambda: run_measured(export + ["--out", gzip_out, "--base-url", DEPLOY_BASE, "--gzip"]))
    print(f"   with --gzip ({count_files(os.path.join(gzip_out, 'api')) + count_files(os.path.join(gzip_out, 'schema'))} "
          f"files): wall {spread(gzipped, 'wall')} s; CPU {spread(gzipped, 'cpu')} s; peak RSS "
          f"{spread(gzipped, 'rss_mb', digits=0)} MB", flush=True)
    shutil.rmtree(gzip_out, ignore_errors=True)
    shutil.rmtree(plain_out, ignore_errors=True)
    if ditto:
        theirs = os.path.join(work, "ditto")
        started = time.monotonic()
        subprocess.run([ditto, "transform", "--src-dir", data, "--dest-dir", theirs, "--base-url", DEPLOY_BASE],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        took = time.monotonic() - started
        result = subprocess.run([sys.executable, os.path.join(HERE, "compare_transform.py"), deploy_out, theirs,
                                 "--except", "api/v2/item/roseli-berry/index.json"], capture_output=True, text=True)
        print(f"   against ditto transform of the fixture ({took:.0f} s): {result.stdout.strip()} "
              f"({'the same files, each upstream form of ditto' if result.returncode == 0 else 'DIFFERENT'}; "
              f"roseli-berry, two items' name, not compared)", flush=True)
        shutil.rmtree(theirs, ignore_errors=True)
    shutil.rmtree(deploy_out, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    bench_data.add_arguments(parser)
    parser.add_argument("--data", help="an unpacked pokeapi-all-2026-08-08 api-data folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ditto", help="the ditto program of a pokeapi-ditto 1.0.5 venv: compare the deploy with "
                                        "`ditto transform` of the fixture (about a minute more)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work, cache = work_folders("whole-")
    times = max(args.repeat, 1)
    try:
        data = args.data or bench_data.snapshot(args, cache, "new", whole=True)
        print(f"\n== the whole API (--kinds all), 2026-08-08: {count_files(os.path.join(data, 'api'))} files "
              f"under api/, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        server = Server(data, work, latency_ms=20)
        mirror = os.path.join(work, "Whole")
        source = ["--source", server.base + "/api/v2", "--mirror", mirror, "--kinds", "all", "--sprites", "none",
                  "--concurrency", "16", "--rate", "100000"]
        full = repeated(times, lambda: run_measured([binary, "full", *source], server), before=fresh(mirror))
        requests = full[-1]["requests"]
        floor = requests * 0.020 / 16
        print(f"== full --kinds all, {requests} requests, 20 ms latency, concurrency 16 (floor {floor:.1f} s)", flush=True)
        print(f"   {describe(full, floor)}", flush=True)
        full_bytes = full[-1]["body_bytes"]
        print(f"   targets: < 1.5x the floor, < 150 MB peak RSS; store "
              f"{size_mb(os.path.join(mirror, 'store.sqlite')):.1f} MB; {full_bytes / 1e6:.1f} MB of bodies on the wire",
              flush=True)
        sync = repeated(times, lambda: run_measured([binary, "sync", *source], server))
        print(f"== no-change sync --kinds all: wall {spread(sync, 'wall')} s; {sync[-1]['requests']} requests; "
              f"body bytes {sync[-1]['body_bytes'] / 1e3:.0f} kB = {100 * sync[-1]['body_bytes'] / full_bytes:.2f}% "
              f"of full (target < 2%); client CPU {spread(sync, 'cpu')} s", flush=True)
        server.stop()

        out = os.path.join(work, "export")
        export = repeated(times, lambda: run_measured([binary, "export", "--mirror", mirror, "--format", "api-data",
                                                       "--out", out]))
        files = count_files(os.path.join(out, "api")) + count_files(os.path.join(out, "schema"))
        print(f"== export --format api-data of it: {files} files; wall {spread(export, 'wall')} s (target < 15 s); "
              f"CPU {spread(export, 'cpu')} s; peak RSS {spread(export, 'rss_mb', digits=0)} MB", flush=True)
        identical, lines = same_tree(out, data)
        print(f"   diff -r against the fixture's api/ and schema/: {'empty (byte for byte the same)' if identical else lines}",
              flush=True)

        deploy_runs(binary, mirror, work, data, times, args.ditto)

        folder_mirror = os.path.join(work, "Folder")
        folder = run_measured([binary, "full", "--source", data, "--mirror", folder_mirror, "--kinds", "all",
                               "--sprites", "none"])
        folder_out = os.path.join(work, "folder-export")
        run_measured([binary, "export", "--mirror", folder_mirror, "--format", "api-data", "--out", folder_out])
        identical, lines = same_tree(folder_out, data)
        print(f"== full --kinds all from the folder: {folder['wall']:.1f} s (CPU {folder['cpu']:.1f} s, peak RSS "
              f"{folder['rss_mb']:.0f} MB); its export against the fixture: "
              f"{'empty (byte for byte the same)' if identical else lines}", flush=True)

        print("== what each kind costs (2026-08-08; time: its share of the full run's requests at 20 ms, "
              "concurrency 16)", flush=True)
        wall = median(full, "wall")
        for kind, count, json_bytes, stored in kind_costs(mirror):
            print(f"   {kind:26} {count:6} documents {json_bytes / 1e6:8.1f} MB JSON {stored / 1e6:7.1f} MB stored "
                  f"~{wall * count / requests:5.1f} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
