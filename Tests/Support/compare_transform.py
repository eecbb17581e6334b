#!/usr/bin/env python3
"""Compare an api-data export with what `ditto transform` wrote from the same tree.

Usage: compare_transform.py OURS THEIRS [--except PATH]...

OURS is `pokesync export --format api-data` (its .pokesync-export marker is not a file
of the tree), THEIRS ditto's `--dest-dir`. Every file must be in both, and each of ours
must be, byte for byte, upstream's form of ditto's value: json.dumps(indent=4,
sort_keys=True), as every api-data file is (ditto itself writes orjson's two-space
indent, so its bytes are not upstream's; its values are what counts). A path given with
--except (relative, e.g. api/v2/item/roseli-berry/index.json) must be in both, its
content is not compared: a name two documents share, which ditto resolves by the order
the file system lists them in.

Prints one JSON object: {"files": N, "only_ours": [...], "only_theirs": [...],
"differing": [...]} (at most 20 of each); exits 1 when any list is not empty.
"""
import argparse
import json
import os
import sys

MARKER = ".pokesync-export"


def files(root):
    found = set()
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.relpath(os.path.join(folder, name), root)
            if path != MARKER:
                found.add(path)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ours")
    parser.add_argument("theirs")
    parser.add_argument("--except", dest="excepted", action="append", default=[])
    arguments = parser.parse_args()
    ours, theirs = files(arguments.ours), files(arguments.theirs)
    differing = []
    for path in sorted(ours & theirs):
        if path in arguments.excepted:
            continue
        with open(os.path.join(arguments.theirs, path), "rb") as handle:
            value = json.load(handle)
        with open(os.path.join(arguments.ours, path), "rb") as handle:
            mine = handle.read()
        if mine != json.dumps(value, indent=4, sort_keys=True).encode():
            differing.append(path)
    report = {"files": len(ours), "only_ours": sorted(ours - theirs)[:20],
              "only_theirs": sorted(theirs - ours)[:20], "differing": differing[:20]}
    print(json.dumps(report))
    sys.exit(1 if report["only_ours"] or report["only_theirs"] or report["differing"] else 0)


if __name__ == "__main__":
    main()
