#!/usr/bin/env python3
"""make bench, second part: what reaches phones, on the full 2026-08-08 snapshot.

  1. `export` of the full version (default sprites, every language) beside the
     straightforward Python build of the same schema (devdb_yardstick.py), three runs
     each, medians and spreads; bundle and database sizes (gzip -9, also --languages en),
     and what each table weighs;
  2. deltas: the real upstream update (2025-12-02 -> 2026-08-08) and a small change
     (ten pokemon documents edited in the 2026 version): sizes against the full bundle,
     and installing the delta against installing the full bundle (three runs each);
  3. the reader on an installed device: cold open + first page (a new process each
     run), detail, search p50/p95/max over 1,000 queries typed letter by letter,
     1,600 details by 1 task vs 8 tasks (async reads on the connection pool), memory;
  4. the full bundle installed by a debug build of pokesync (what an app's debug build of
     PokedexReader costs: three runs), and a first install cancelled 15 ms into each
     phase (`pokedex-update-bench`, built beside pokedex-bench): the time each takes to return.
Documents come from folders (--source DIR); sprites from the stand-in at no latency.
"""
import argparse, gzip, json, os, re, shutil, sqlite3, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import PYTHON, ROOT, Server, run_measured, work_folders  # noqa: E402
import bench_data  # noqa: E402


def spread(values, unit="s", digits=2):
    """`median (min-max)` of three runs."""
    return f"{statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def gzip9(path):
    with open(path, "rb") as handle:
        return len(gzip.compress(handle.read(), 9))


def table_weights(database):
    out = subprocess.run(["sqlite3", database, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"],
                         capture_output=True, text=True).stdout
    return [line.split("|") for line in out.strip().splitlines() if "|" in line]


# The reference tables (DeviceDatabase.md) and the builder tables behind ability_text and move_text,
# with their UNIQUE(name) indexes.
REFERENCE_TABLES = ("type", "type_name", "type_efficacy", "ability", "ability_name", "ability_text_link",
                    "ability_text_body", "move", "move_name", "move_text_link", "move_text_body", "stat",
                    "stat_name", "version", "version_name", "language", "language_name")


def reference_weights(database):
    """Raw bytes of each reference table (its pages, indexes included), and the gzip -9
    bytes they add: the database's gzip -9 size minus that of a copy without them."""
    weights = {}
    for name, size in table_weights(database):
        table = name[len("sqlite_autoindex_"):].rsplit("_", 1)[0] if name.startswith("sqlite_autoindex_") else name
        if table in REFERENCE_TABLES:
            weights[table] = weights.get(table, 0) + int(size)
    stripped = database + ".without-reference"
    shutil.copyfile(database, stripped)
    connection = sqlite3.connect(stripped)
    for table in REFERENCE_TABLES:
        connection.execute(f'DELETE FROM "{table}"')
    connection.commit()
    connection.execute("VACUUM")
    connection.close()
    added = gzip9(database) - gzip9(stripped)
    os.remove(stripped)
    return weights, added


def unpack_database(bundle, into):
    os.makedirs(into, exist_ok=True)
    subprocess.run(["tar", "xzf", bundle, "-C", into, "pokedex.sqlite"], check=True)
    return os.path.join(into, "pokedex.sqlite")


def edited_copy(source, target, count=10):
    """A hard-linked copy of an api-data tree with `count` pokemon documents changed."""
    shutil.copytree(source, target, copy_function=os.link)
    folder = os.path.join(target, "api", "v2", "pokemon")
    ids = sorted(int(name) for name in os.listdir(folder) if name.isdigit())[:count]
    for ident in ids:
        path = os.path.join(folder, str(ident), "index.json")
        with open(path) as handle:
            document = json.load(handle)
        document["base_experience"] = (document.get("base_experience") or 0) + 1
        os.unlink(path)  # break the hard link before writing
        with open(path, "w") as handle:
            json.dump(document, handle)
    return ids


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("reader_bench", help="the pokedex-bench binary")
    bench_data.add_arguments(parser)
    args = parser.parse_args()
    binary, reader = os.path.abspath(args.binary), os.path.abspath(args.reader_bench)
    work, cache = work_folders("bundles-")
    try:
        new = bench_data.snapshot(args, cache, "new")
        old = bench_data.snapshot(args, cache, "old")

        print("== export of the full 2026-08-08 version (default sprites, every language), 3 runs", flush=True)
        server = Server(new, work)
        mirror = os.path.join(work, "Mirror")
        run_measured([binary, "full", "--source", new, "--mirror", mirror, "--sprites", "default",
                      "--sprite-source", server.base + "/PokeAPI/sprites/master/", "--concurrency", "16"])
        server.stop()
        exports, yardsticks = [], []
        for run in range(3):
            exports.append(run_measured([binary, "export", "--mirror", mirror, "--out", os.path.join(work, f"out{run}")]))
            yardsticks.append(run_measured([PYTHON, os.path.join(HERE, "devdb_yardstick.py"), new,
                                            os.path.join(work, f"yardstick{run}.sqlite")]))
        export_wall = [run["wall"] for run in exports]
        yard_wall = [run["wall"] for run in yardsticks]
        print(f"   export {spread(export_wall)}, CPU {spread([r['cpu'] for r in exports])}, "
              f"peak RSS {max(r['rss_mb'] for r in exports):.0f} MB (target < 200)", flush=True)
        print(f"   yardstick (Python, one row at a time) {spread(yard_wall)}; "
              f"export / yardstick = {statistics.median(export_wall) / statistics.median(yard_wall):.2f} (target <= 0.5)", flush=True)
        bundle = os.path.join(work, "out0", "pokedex-1.tar.gz")
        database = unpack_database(bundle, os.path.join(work, "unpacked"))
        print(f"   bundle {os.path.getsize(bundle) / 1e6:.2f} MB; database {os.path.getsize(database) / 1e6:.2f} MB raw, "
              f"{gzip9(database) / 1e6:.2f} MB gzip -9 (target < 4)", flush=True)
        run_measured([binary, "export", "--mirror", mirror, "--languages", "en", "--out", os.path.join(work, "en")])
        english = unpack_database(os.path.join(work, "en", "pokedex-1.tar.gz"), os.path.join(work, "unpacked-en"))
        print(f"   --languages en: database {os.path.getsize(english) / 1e6:.2f} MB raw, {gzip9(english) / 1e6:.2f} MB gzip -9",
              flush=True)
        print("   what each table weighs: " + ", ".join(f"{name} {int(size) / 1e6:.2f} MB"
                                                       for name, size in table_weights(database)[:10]), flush=True)
        weights, added = reference_weights(database)
        print(f"   the reference tables add {added / 1e6:.2f} MB gzip -9 ({sum(weights.values()) / 1e6:.2f} MB raw): "
              + ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in sorted(weights.items(), key=lambda x: -x[1])),
              flush=True)

        print("\n== the reader on an installed device (3 runs, a new process each)", flush=True)
        device = os.path.join(work, "device")
        run_measured([binary, "install", device, "--from", os.path.join(work, "out0")])
        readings = [json.loads(run_measured([reader, device])["stdout"]) for _ in range(3)]
        def figure(key, digits=2):
            return spread([reading[key] for reading in readings], "ms", digits)
        print(f"   cold open + first page of 20: {figure('cold_ms')} (target < 10 ms); warm {figure('warm_ms', 3)}", flush=True)
        print(f"   detail of #{readings[0]['detail_pokemon']} ({readings[0]['detail_moves']} moves): {figure('detail_ms', 3)} (target < 2 ms)", flush=True)
        print(f"   search over {readings[0]['queries']} queries: p50 {figure('search_p50_ms', 3)}, p95 {figure('search_p95_ms', 3)} "
              f"(target < 1 ms), max {figure('search_max_ms')}; the first search loads the strings: {figure('first_search_ms')}", flush=True)
        print(f"   {readings[0]['concurrent_details']:,} details through `await pokedex.read`, one per read: by 1 task "
              f"{figure('concurrent_1_task_ms', 0)}, by 8 tasks {figure('concurrent_8_tasks_ms', 0)}; "
              f"1 task / 8 tasks = {spread([reading['concurrent_ratio'] for reading in readings], 'x')} "
              f"(target >= 1.6 on {readings[0]['processors']} cores; the process had "
              f"{spread([reading['concurrent_8_tasks_cpu_per_wall'] for reading in readings], 'cores')} meanwhile, "
              f"and up to {readings[0]['concurrent_most_reads_at_once']} reads ran at once)", flush=True)
        print(f"   peak RSS {spread([reading['rss_mb'] for reading in readings], 'MB', 1)} (target < 30 MB; "
              f"{spread([reading['rss_peak_before_8_tasks_mb'] for reading in readings], 'MB', 1)} before the 8 tasks); resident after "
              f"open + first page {figure('rss_after_open_mb', 1).replace('ms', 'MB')}, after the searches "
              f"{figure('rss_after_search_mb', 1).replace('ms', 'MB')} (anonymous {figure('rss_anon_after_search_mb', 1).replace('ms', 'MB')}, "
              f"file-backed {figure('rss_file_after_search_mb', 1).replace('ms', 'MB')})", flush=True)

        print("\n== deltas (--sprites none bundles, from folders)", flush=True)
        real = os.path.join(work, "Real")
        run_measured([binary, "full", "--source", old, "--mirror", real, "--sprites", "none"])
        run_measured([binary, "export", "--mirror", real, "--sprites", "none"])
        run_measured([binary, "sync", "--source", new, "--mirror", real, "--sprites", "none"])
        out = run_measured([binary, "export", "--mirror", real, "--sprites", "none"])["stdout"]
        folder = os.path.join(real, "bundles")
        full_size = os.path.getsize(os.path.join(folder, "pokedex-2.tar.gz"))
        delta_path = os.path.join(folder, "pokedex-1-2.delta.tar.gz")
        if os.path.exists(delta_path):
            print(f"   real update 2025-12-02 -> 2026-08-08: delta {os.path.getsize(delta_path) / 1e6:.2f} MB = "
                  f"{100 * os.path.getsize(delta_path) / full_size:.0f}% of the full bundle ({full_size / 1e6:.2f} MB)", flush=True)
        else:
            print(f"   real update 2025-12-02 -> 2026-08-08: no delta written, not smaller than the full bundle "
                  f"({full_size / 1e6:.2f} MB): 1,328 of 1,351 pokemon and every species changed upstream", flush=True)

        small = os.path.join(work, "Small")
        edited = os.path.join(work, "edited")
        edited_copy(new, edited)
        run_measured([binary, "full", "--source", new, "--mirror", small, "--sprites", "none"])
        run_measured([binary, "export", "--mirror", small, "--sprites", "none"])
        bundles = os.path.join(small, "bundles")
        base_device = os.path.join(work, "device-v1")
        full_installs = []
        for run in range(3):
            target = os.path.join(work, f"full-install{run}")
            full_installs.append(run_measured([binary, "install", target, "--from", bundles])["wall"])
        run_measured([binary, "install", base_device, "--from", bundles])
        run_measured([binary, "sync", "--source", edited, "--mirror", small, "--sprites", "none"])
        run_measured([binary, "export", "--mirror", small, "--sprites", "none"])
        delta = os.path.join(bundles, "pokedex-1-2.delta.tar.gz")
        full2 = os.path.getsize(os.path.join(bundles, "pokedex-2.tar.gz"))
        delta_installs = []
        for run in range(3):
            target = os.path.join(work, f"delta-install{run}")
            subprocess.run(["cp", "-a", base_device, target], check=True)
            result = run_measured([binary, "install", target, "--from", bundles])
            if "delta" not in result["stdout"]:
                sys.exit("the small change was not installed through a delta: " + result["stdout"])
            delta_installs.append(result["wall"])
        print(f"   ten pokemon changed: delta {os.path.getsize(delta) / 1e3:.1f} kB = {100 * os.path.getsize(delta) / full2:.2f}% "
              f"of the full bundle ({full2 / 1e6:.2f} MB) (target < 1%)", flush=True)
        print(f"   install: full bundle {spread(full_installs)}, delta {spread(delta_installs)} = "
              f"{100 * statistics.median(delta_installs) / statistics.median(full_installs):.0f}% (target < 10%)", flush=True)

        # An app's debug build compiles PokedexReader without the optimiser: the digest check
        # and SHA-256 must stay fast there too (22 s before the digest was written for them, target < 5 s).
        print("\n== the library in a debug build, and a cancelled update", flush=True)
        subprocess.run(["swift", "build", "--product", "pokesync"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        debug_binary = os.path.join(ROOT, ".build", "debug", "pokesync")
        full_bundles = os.path.join(work, "out0")
        debug_installs = [run_measured([debug_binary, "install", os.path.join(work, f"debug-install{run}"),
                                        "--from", full_bundles])["wall"] for run in range(3)]
        print(f"   debug-build install of the full bundle: {spread(debug_installs)} (target < 5 s)", flush=True)
        cancel_work = os.path.join(work, "cancel")
        os.makedirs(cancel_work, exist_ok=True)
        update_bench = os.path.join(os.path.dirname(reader), "pokedex-update-bench")
        latency = json.loads(run_measured([update_bench, full_bundles, cancel_work])["stdout"])
        phases = ", ".join(f"{phase} {latency[phase]['latency_ms']:.1f} ms ({latency[phase]['result']})"
                           for phase in ("downloading", "extracting", "building", "switching"))
        print(f"   a first install cancelled 15 ms into each phase returns after: {phases}; "
              f"most {latency['max_latency_ms']:.1f} ms (target <= 100 ms)", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
