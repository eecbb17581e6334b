#!/usr/bin/env python3
"""Yardstick for the device database builder: the straightforward build.

Reads an api-data folder (DIR/api/v2/{kind}/{id}/index.json) with json.load, and
builds the device schema (DeviceDatabase.md) naively: plain tables, one INSERT per row, no search
table, no digest. Prints the seconds it took and the file's raw and gzip -9 sizes.
Benchmark tooling only (Python stdlib), not part of pokesync.

Usage: devdb_yardstick.py API_DATA_DIR [OUT.sqlite]
"""
import gzip
import json
import os
import re
import sqlite3
import sys
import time

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE pokemon(id INTEGER PRIMARY KEY, name TEXT UNIQUE, species_id INTEGER, height INTEGER, weight INTEGER,
    base_experience INTEGER, is_default INTEGER, sort_order INTEGER);
CREATE TABLE pokemon_type(pokemon_id INTEGER, slot INTEGER, type TEXT, PRIMARY KEY(pokemon_id, slot));
CREATE TABLE pokemon_stat(pokemon_id INTEGER, stat TEXT, base_stat INTEGER, effort INTEGER, PRIMARY KEY(pokemon_id, stat));
CREATE TABLE pokemon_ability(pokemon_id INTEGER, slot INTEGER, ability TEXT, is_hidden INTEGER, PRIMARY KEY(pokemon_id, slot));
CREATE TABLE pokemon_move(pokemon_id INTEGER, move TEXT, PRIMARY KEY(pokemon_id, move));
CREATE TABLE pokemon_sprite(pokemon_id INTEGER, key TEXT, url TEXT, path TEXT, PRIMARY KEY(pokemon_id, key));
CREATE TABLE species(id INTEGER PRIMARY KEY, name TEXT, generation TEXT, evolution_chain_id INTEGER,
    evolves_from_species_id INTEGER, is_baby INTEGER, is_legendary INTEGER, is_mythical INTEGER, color TEXT,
    habitat TEXT, gender_rate INTEGER, capture_rate INTEGER);
CREATE TABLE species_name(species_id INTEGER, language TEXT, name TEXT, genus TEXT, PRIMARY KEY(species_id, language));
CREATE TABLE species_flavor_text(species_id INTEGER, language TEXT, version TEXT, entry_index INTEGER, text TEXT,
    PRIMARY KEY(species_id, language, version));
CREATE TABLE pokedex(id INTEGER PRIMARY KEY, name TEXT, region TEXT, is_main_series INTEGER);
CREATE TABLE pokedex_entry(pokedex_id INTEGER, entry_number INTEGER, species_id INTEGER, PRIMARY KEY(pokedex_id, entry_number));
CREATE TABLE pokedex_description(pokedex_id INTEGER, language TEXT, description TEXT, PRIMARY KEY(pokedex_id, language));
CREATE TABLE evolution_chain(id INTEGER PRIMARY KEY, root_species_id INTEGER, baby_trigger_item TEXT);
CREATE TABLE evolution_step(chain_id INTEGER, to_species_id INTEGER, from_species_id INTEGER, trigger TEXT,
    min_level INTEGER, item TEXT, details_json TEXT, PRIMARY KEY(chain_id, to_species_id));
"""


def url_id(url):
    return int(url.rstrip("/").split("/")[-1]) if url else None


def name(link):
    return link["name"] if link else None


# Unicode's White_Space (DeviceDatabase.md trims it, U+3000 included), as reference_tables.WHITE_SPACE.
WHITE_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B))
               + "\u2028\u2029\u202f\u205f\u3000")


def clean(text):
    text = re.sub("\u00ad(\r\n|\n|\r)", "", text)
    text = re.sub("[\f\n\r]", " ", text)
    return re.sub(" +", " ", text).strip(WHITE_SPACE)


def documents(root, kind):
    folder = os.path.join(root, "api", "v2", kind)
    for entry in sorted((e for e in os.listdir(folder) if e.isdigit()), key=int):
        with open(os.path.join(folder, entry, "index.json"), encoding="utf-8") as handle:
            yield json.load(handle)


def sprites(value, path, out):
    if isinstance(value, dict):
        for key, child in value.items():
            sprites(child, key if not path else path + "/" + key, out)
    elif isinstance(value, str):
        out.append((path, value))


def build(root, out):
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    run = db.execute
    for p in documents(root, "pokemon"):
        i = p["id"]
        run("INSERT INTO pokemon VALUES (?,?,?,?,?,?,?,?)", (i, p["name"], url_id(p["species"]["url"]), p["height"],
            p["weight"], p["base_experience"], int(p["is_default"]), p["order"]))
        for t in p["types"]:
            run("INSERT OR IGNORE INTO pokemon_type VALUES (?,?,?)", (i, t["slot"], t["type"]["name"]))
        for s in p["stats"]:
            run("INSERT OR IGNORE INTO pokemon_stat VALUES (?,?,?,?)", (i, s["stat"]["name"], s["base_stat"], s["effort"]))
        for a in p["abilities"]:
            run("INSERT OR IGNORE INTO pokemon_ability VALUES (?,?,?,?)", (i, a["slot"], a["ability"]["name"], int(a["is_hidden"])))
        for m in p["moves"]:
            run("INSERT OR IGNORE INTO pokemon_move VALUES (?,?)", (i, m["move"]["name"]))
        found = []
        sprites(p["sprites"], "", found)
        for key, url in found:
            run("INSERT OR IGNORE INTO pokemon_sprite VALUES (?,?,?,NULL)", (i, key, url))
    for s in documents(root, "pokemon-species"):
        i = s["id"]
        run("INSERT INTO species VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", (i, s["name"], name(s["generation"]),
            url_id((s["evolution_chain"] or {}).get("url")), url_id((s["evolves_from_species"] or {}).get("url")),
            int(s["is_baby"]), int(s["is_legendary"]), int(s["is_mythical"]), name(s["color"]), name(s["habitat"]),
            s["gender_rate"], s["capture_rate"]))
        genera = {g["language"]["name"]: g["genus"] for g in reversed(s["genera"])}
        for n in s["names"]:
            run("INSERT OR IGNORE INTO species_name VALUES (?,?,?,?)", (i, n["language"]["name"], n["name"],
                genera.get(n["language"]["name"])))
        for index, f in enumerate(s["flavor_text_entries"]):
            run("INSERT OR IGNORE INTO species_flavor_text VALUES (?,?,?,?,?)", (i, f["language"]["name"],
                f["version"]["name"], index, clean(f["flavor_text"])))
    for d in documents(root, "pokedex"):
        i = d["id"]
        run("INSERT INTO pokedex VALUES (?,?,?,?)", (i, d["name"], name(d["region"]), int(d["is_main_series"])))
        for e in d["pokemon_entries"]:
            run("INSERT OR IGNORE INTO pokedex_entry VALUES (?,?,?)", (i, e["entry_number"], url_id(e["pokemon_species"]["url"])))
        for e in d["descriptions"]:
            run("INSERT OR IGNORE INTO pokedex_description VALUES (?,?,?)", (i, e["language"]["name"], e["description"]))
    for c in documents(root, "evolution-chain"):
        i = c["id"]
        run("INSERT INTO evolution_chain VALUES (?,?,?)", (i, url_id(c["chain"]["species"]["url"]), name(c["baby_trigger_item"])))
        pending = [c["chain"]]
        while pending:
            node = pending.pop()
            for child in node["evolves_to"]:
                pending.append(child)
                details = child["evolution_details"]
                first = details[0] if details else {}
                run("INSERT OR IGNORE INTO evolution_step VALUES (?,?,?,?,?,?,?)", (i, url_id(child["species"]["url"]),
                    url_id(node["species"]["url"]), name(first.get("trigger")), first.get("min_level"),
                    name(first.get("item")), json.dumps(details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)))
    db.commit()
    db.execute("VACUUM")
    db.close()


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: devdb_yardstick.py API_DATA_DIR [OUT.sqlite]")
    out = sys.argv[2] if len(sys.argv) == 3 else "/tmp/devdb-yardstick.sqlite"
    start = time.monotonic()
    build(sys.argv[1], out)
    seconds = time.monotonic() - start
    with open(out, "rb") as handle:
        raw = handle.read()
    print("seconds %.2f  raw %d bytes  gzip-9 %d bytes  (%s)" % (seconds, len(raw), len(gzip.compress(raw, 9, mtime=0)), out))


if __name__ == "__main__":
    main()
