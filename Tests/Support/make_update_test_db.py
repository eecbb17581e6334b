#!/usr/bin/env python3
"""Builds a device database (the logical tables of DeviceDatabase.md, plain SQLite tables) from an
api-data sample, for the delta and updater tests.

Python stdlib only. This is test tooling, not the exporter: it fills every column of
the device schema from the sample's documents, bundles `front_default` sprites
only, and leaves meta.content_digest for the caller (the tests compute it with the
reader library's ContentDigest). With --sprites-out it also writes each bundled
sprite's bytes (a stand-in derived from its URL, so that the same URL gives the same
bytes across versions).

usage: make_update_test_db.py SAMPLE_DIR OUT_DB --version N --lineage L [--sprites-out DIR]
"""
import argparse
import json
import os
import sqlite3
import sys

import reference_tables

TABLES = [
    ("meta", "key TEXT PRIMARY KEY, value TEXT"),
    ("pokemon", "id INTEGER PRIMARY KEY, name TEXT UNIQUE, species_id INTEGER, height INTEGER, weight INTEGER,"
                " base_experience INTEGER, is_default INTEGER, sort_order INTEGER"),
    ("pokemon_type", "pokemon_id INTEGER, slot INTEGER, type TEXT, PRIMARY KEY (pokemon_id, slot)"),
    ("pokemon_stat", "pokemon_id INTEGER, stat TEXT, base_stat INTEGER, effort INTEGER, PRIMARY KEY (pokemon_id, stat)"),
    ("pokemon_ability", "pokemon_id INTEGER, slot INTEGER, ability TEXT, is_hidden INTEGER,"
                        " PRIMARY KEY (pokemon_id, slot)"),
    ("pokemon_move", "pokemon_id INTEGER, move TEXT, PRIMARY KEY (pokemon_id, move)"),
    ("pokemon_sprite", "pokemon_id INTEGER, key TEXT, url TEXT, path TEXT, PRIMARY KEY (pokemon_id, key)"),
    ("species", "id INTEGER PRIMARY KEY, name TEXT, generation TEXT, evolution_chain_id INTEGER,"
                " evolves_from_species_id INTEGER, is_baby INTEGER, is_legendary INTEGER, is_mythical INTEGER,"
                " color TEXT, habitat TEXT, gender_rate INTEGER, capture_rate INTEGER"),
    ("species_name", "species_id INTEGER, language TEXT, name TEXT, genus TEXT, PRIMARY KEY (species_id, language)"),
    ("species_flavor_text", "species_id INTEGER, language TEXT, version TEXT, entry_index INTEGER, text TEXT,"
                            " PRIMARY KEY (species_id, language, version)"),
    ("pokedex", "id INTEGER PRIMARY KEY, name TEXT, region TEXT, is_main_series INTEGER"),
    ("pokedex_entry", "pokedex_id INTEGER, entry_number INTEGER, species_id INTEGER,"
                      " PRIMARY KEY (pokedex_id, entry_number)"),
    ("pokedex_description", "pokedex_id INTEGER, language TEXT, description TEXT, PRIMARY KEY (pokedex_id, language)"),
    ("evolution_chain", "id INTEGER PRIMARY KEY, root_species_id INTEGER, baby_trigger_item TEXT"),
    ("evolution_step", "chain_id INTEGER, to_species_id INTEGER, from_species_id INTEGER, trigger TEXT,"
                       " min_level INTEGER, item TEXT, details_json TEXT, PRIMARY KEY (chain_id, to_species_id)"),
]
SPRITE_PREFIX = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/"


def url_id(url):
    return int(url.rstrip("/").rsplit("/", 1)[1]) if url else None


def name_of(ref):
    return ref["name"] if ref else None


def documents(sample, kind):
    folder = os.path.join(sample, "api", "v2", kind)
    ids = sorted(int(n) for n in os.listdir(folder) if n.isdigit())
    for ident in ids:
        with open(os.path.join(folder, str(ident), "index.json"), encoding="utf-8") as f:
            yield json.load(f)


def flatten_sprites(node, prefix=""):
    for key, value in sorted(node.items()):
        if isinstance(value, dict):
            yield from flatten_sprites(value, prefix + key + "/")
        elif isinstance(value, str):
            yield prefix + key, value


def clean(text):
    return reference_tables.clean(text)


def insert(db, table, row):
    db.execute(f"INSERT INTO {table} VALUES ({','.join('?' * len(row))})", row)


def add_steps(db, chain_id, link):
    for child in link["evolves_to"]:
        details = child["evolution_details"]
        first = details[0] if details else {}
        insert(db, "evolution_step", (chain_id, url_id(child["species"]["url"]), url_id(link["species"]["url"]),
                                      name_of(first.get("trigger")), first.get("min_level"),
                                      name_of(first.get("item")),
                                      json.dumps(details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)))
        add_steps(db, chain_id, child)


def build(sample, out, version, lineage, sprites_out, schema_version):
    db = sqlite3.connect(out)
    for name, columns in TABLES:
        db.execute(f"CREATE TABLE {name} ({columns})")
    # The search table: not in content_digest; the updater rebuilds it when it applies a delta.
    db.executescript(reference_tables.create_sql())
    reference_tables.insert(db, reference_tables.rows(sample))
    db.execute("CREATE TABLE pokemon_search(pokemon_id INTEGER NOT NULL, text TEXT NOT NULL, "
               "PRIMARY KEY(pokemon_id, text)) WITHOUT ROWID")
    for p in documents(sample, "pokemon"):
        insert(db, "pokemon", (p["id"], p["name"], url_id(p["species"]["url"]), p["height"], p["weight"],
                               p["base_experience"], int(p["is_default"]), p["order"]))
        for t in p["types"]:
            insert(db, "pokemon_type", (p["id"], t["slot"], t["type"]["name"]))
        for s in p["stats"]:
            insert(db, "pokemon_stat", (p["id"], s["stat"]["name"], s["base_stat"], s["effort"]))
        for a in p["abilities"]:
            insert(db, "pokemon_ability", (p["id"], a["slot"], a["ability"]["name"], int(a["is_hidden"])))
        for m in sorted({m["move"]["name"] for m in p["moves"]}):
            insert(db, "pokemon_move", (p["id"], m))
        for key, url in flatten_sprites(p["sprites"]):
            path = None
            if key == "front_default" and url.startswith(SPRITE_PREFIX):
                path = "sprites/" + url[len(SPRITE_PREFIX):]
                if sprites_out:
                    target = os.path.join(sprites_out, path)
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with open(target, "wb") as f:
                        f.write(b"\x89PNG stand-in for " + url.encode())
            insert(db, "pokemon_sprite", (p["id"], key, url, path))
    for s in documents(sample, "pokemon-species"):
        chain = s["evolution_chain"]
        insert(db, "species", (s["id"], s["name"], name_of(s["generation"]), url_id(chain["url"]) if chain else None,
                               url_id(s["evolves_from_species"]["url"]) if s["evolves_from_species"] else None,
                               int(s["is_baby"]), int(s["is_legendary"]), int(s["is_mythical"]),
                               name_of(s["color"]), name_of(s["habitat"]), s["gender_rate"], s["capture_rate"]))
        genera = {g["language"]["name"]: g["genus"] for g in s["genera"]}
        for n in s["names"]:
            insert(db, "species_name", (s["id"], n["language"]["name"], n["name"], genera.get(n["language"]["name"])))
        seen = set()
        for index, f in enumerate(s["flavor_text_entries"]):
            key = (f["language"]["name"], f["version"]["name"])
            if key not in seen:
                seen.add(key)
                insert(db, "species_flavor_text", (s["id"], key[0], key[1], index, clean(f["flavor_text"])))
    for d in documents(sample, "pokedex"):
        insert(db, "pokedex", (d["id"], d["name"], name_of(d["region"]), int(d["is_main_series"])))
        for e in d["pokemon_entries"]:
            insert(db, "pokedex_entry", (d["id"], e["entry_number"], url_id(e["pokemon_species"]["url"])))
        for x in d["descriptions"]:
            insert(db, "pokedex_description", (d["id"], x["language"]["name"], x["description"]))
    for c in documents(sample, "evolution-chain"):
        insert(db, "evolution_chain", (c["id"], url_id(c["chain"]["species"]["url"]), name_of(c["baby_trigger_item"])))
        add_steps(db, c["id"], c["chain"])
    meta = {"schema_version": schema_version, "lineage": lineage, "version": str(version),
            "created_at": f"2026-01-{version:02d}T00:00:00Z", "source": "test-sample",
            "profile": '{"languages":"all","sprites":"default"}', "content_digest": ""}
    for key, value in meta.items():
        insert(db, "meta", (key, value))
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("sample")
    parser.add_argument("out")
    parser.add_argument("--version", type=int, required=True)
    parser.add_argument("--lineage", required=True)
    parser.add_argument("--sprites-out")
    # The version the tables above are (the reader's DeviceSchema.version): given by the
    # caller, so that raising it does not mean editing this oracle.
    parser.add_argument("--schema-version", required=True)
    args = parser.parse_args()
    if os.path.exists(args.out):
        sys.exit(f"{args.out} exists")
    build(args.sample, args.out, args.version, args.lineage, args.sprites_out, args.schema_version)
