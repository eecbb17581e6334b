#!/usr/bin/env python3
"""Cut the whole-API test samples (Tests/Fixtures/whole-*) from api-data's data/ folder.

Usage: cut_whole_sample.py API_DATA OUT [--ditto PATH]

API_DATA is an extracted pokeapi-all-*.tar.gz (holding api/ and schema/). OUT gets:
- api/v2/index.json and api/v2/meta/index.json: upstream's files, byte for byte;
- for every endpoint of the root: a few documents, upstream's bytes, and the list cut to
  them, in upstream's order and form (json.dumps(indent=4, sort_keys=True));
- pokemon/{id}/encounters/index.json of every pokemon kept;
- with --ditto (the `ditto` of a pokeapi-ditto 1.0.5 virtual environment): schema/v2/,
  what `ditto analyze` infers over this sample, re-dumped in upstream's form. Without it,
  no schema/ is written.

What is kept: the first two entries of every list, and a few that test a rule:
pokemon-form 385, 511 and 386 (upstream lists 511 between 385 and 386), move-ailment -1
and 0 (ids are not always positive), pokemon 10196 (encounters) and 10301 (none), the
newest pokemon of the snapshot, and items 723 and 2279 (both named roseli-berry in 2026).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

KEEP = {
    "pokemon": [10196, 10301, 10325],
    "pokemon-form": [385, 511, 386],
    "move-ailment": [-1, 0],
    # Two items named roseli-berry (2026-08-08; the 2025 snapshot has 723 only): a name
    # two documents share, for the export's name aliases.
    "item": [723, 2279],
}


def dump(value):
    """Upstream's form: what api-data's files are."""
    return json.dumps(value, indent=4, sort_keys=True).encode()


def resource_id(url):
    return int(url.rstrip("/").rsplit("/", 1)[1])


def copy(source, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(source, target)


def cut(api_data, out):
    api = os.path.join(api_data, "api", "v2")
    target = os.path.join(out, "api", "v2")
    copy(os.path.join(api, "index.json"), os.path.join(target, "index.json"))
    with open(os.path.join(api, "index.json")) as handle:
        endpoints = sorted(json.load(handle))
    for kind in endpoints:
        if kind == "meta":
            copy(os.path.join(api, "meta", "index.json"), os.path.join(target, "meta", "index.json"))
            continue
        with open(os.path.join(api, kind, "index.json")) as handle:
            listed = json.load(handle)["results"]
        wanted = {resource_id(entry["url"]) for entry in listed[:2]} | set(KEEP.get(kind, []))
        kept = [entry for entry in listed if resource_id(entry["url"]) in wanted]
        os.makedirs(os.path.join(target, kind), exist_ok=True)
        with open(os.path.join(target, kind, "index.json"), "wb") as handle:
            handle.write(dump({"count": len(kept), "next": None, "previous": None, "results": kept}))
        for entry in kept:
            ident = str(resource_id(entry["url"]))
            copy(os.path.join(api, kind, ident, "index.json"), os.path.join(target, kind, ident, "index.json"))
            encounters = os.path.join(api, kind, ident, "encounters", "index.json")
            if kind == "pokemon" and os.path.isfile(encounters):
                copy(encounters, os.path.join(target, kind, ident, "encounters", "index.json"))


def analyze(out, ditto):
    """Run `ditto analyze` on a copy of the sample and keep its schemas in upstream's form."""
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copytree(os.path.join(out, "api"), os.path.join(scratch, "api"))
        subprocess.run([ditto, "analyze", "--data-dir", scratch], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        schema = os.path.join(scratch, "schema")
        for folder, _, files in os.walk(schema):
            for name in files:
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    value = json.load(handle)
                written = os.path.join(out, "schema", os.path.relpath(path, schema))
                os.makedirs(os.path.dirname(written), exist_ok=True)
                with open(written, "wb") as handle:
                    handle.write(dump(value))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("api_data")
    parser.add_argument("out")
    parser.add_argument("--ditto", help="the ditto program of a pokeapi-ditto 1.0.5 virtual environment")
    arguments = parser.parse_args()
    if os.path.exists(arguments.out):
        sys.exit(f"{arguments.out} exists; remove it first")
    cut(arguments.api_data, arguments.out)
    if arguments.ditto:
        analyze(arguments.out, arguments.ditto)


if __name__ == "__main__":
    main()
