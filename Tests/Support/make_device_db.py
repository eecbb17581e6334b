#!/usr/bin/env python3
"""Builds a device database (pokedex.sqlite) in the logical schema of DeviceDatabase.md from an
api-data folder, for the PokedexReader tests until the real bundle builder lands.

    make_device_db.py --source Tests/Fixtures/sample-2026-08-08 --out /tmp/x/pokedex.sqlite
                      [--sprites default|none|artwork|all|KEY,KEY...] [--version 1]

Written from the articles alone (stdlib only), independent of the Swift code:
- every table of "The device database" with its key, WITHOUT ROWID;
- pokemon_search(pokemon_id, text) holding per pokemon the folded strings: its own
  name, its species' name in each language, its types (the search folding of Reader.md: NFKD, marks
  U+0300-U+036F dropped, str.casefold(), U+2019 as ');
- a sprite's path is set (sprites/... below the sprites repository's sprites/ folder)
  only for the keys --sprites bundles, NULL otherwise;
- meta holds schema_version, lineage, version, created_at, source, profile.
References the folder lacks (a pokedex's species, a chain's species) stay as ids.
"""
import argparse
import json
import os
import sqlite3
import sys
import unicodedata

import reference_tables

SPRITE_PREFIX = "https://raw.githubusercontent.com/PokeAPI/sprites/master/sprites/"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE pokemon(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, species_id INTEGER, height INTEGER,
    weight INTEGER, base_experience INTEGER, is_default INTEGER, sort_order INTEGER) WITHOUT ROWID;
CREATE TABLE pokemon_type(pokemon_id INTEGER, slot INTEGER, type TEXT, PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
CREATE TABLE pokemon_stat(pokemon_id INTEGER, stat TEXT, base_stat INTEGER, effort INTEGER,
    PRIMARY KEY(pokemon_id, stat)) WITHOUT ROWID;
CREATE TABLE pokemon_ability(pokemon_id INTEGER, slot INTEGER, ability TEXT, is_hidden INTEGER,
    PRIMARY KEY(pokemon_id, slot)) WITHOUT ROWID;
CREATE TABLE pokemon_move(pokemon_id INTEGER, move TEXT, PRIMARY KEY(pokemon_id, move)) WITHOUT ROWID;
CREATE TABLE pokemon_sprite(pokemon_id INTEGER, key TEXT, url TEXT, path TEXT, PRIMARY KEY(pokemon_id, key)) WITHOUT ROWID;
CREATE TABLE species(id INTEGER PRIMARY KEY, name TEXT, generation TEXT, evolution_chain_id INTEGER,
    evolves_from_species_id INTEGER, is_baby INTEGER, is_legendary INTEGER, is_mythical INTEGER, color TEXT,
    habitat TEXT, gender_rate INTEGER, capture_rate INTEGER) WITHOUT ROWID;
CREATE TABLE species_name(species_id INTEGER, language TEXT, name TEXT, genus TEXT,
    PRIMARY KEY(species_id, language)) WITHOUT ROWID;
CREATE TABLE species_flavor_text(species_id INTEGER, language TEXT, version TEXT, entry_index INTEGER, text TEXT,
    PRIMARY KEY(species_id, language, version)) WITHOUT ROWID;
CREATE TABLE pokedex(id INTEGER PRIMARY KEY, name TEXT, region TEXT, is_main_series INTEGER) WITHOUT ROWID;
CREATE TABLE pokedex_entry(pokedex_id INTEGER, entry_number INTEGER, species_id INTEGER,
    PRIMARY KEY(pokedex_id, entry_number)) WITHOUT ROWID;
CREATE TABLE pokedex_description(pokedex_id INTEGER, language TEXT, description TEXT,
    PRIMARY KEY(pokedex_id, language)) WITHOUT ROWID;
CREATE TABLE evolution_chain(id INTEGER PRIMARY KEY, root_species_id INTEGER, baby_trigger_item TEXT) WITHOUT ROWID;
CREATE TABLE evolution_step(chain_id INTEGER, to_species_id INTEGER, from_species_id INTEGER, trigger TEXT,
    min_level INTEGER, item TEXT, details_json TEXT, PRIMARY KEY(chain_id, to_species_id)) WITHOUT ROWID;
CREATE TABLE pokemon_search(pokemon_id INTEGER, text TEXT, PRIMARY KEY(pokemon_id, text)) WITHOUT ROWID;
"""

PRESETS = {
    "none": set(),
    "default": {"front_default"},
    "artwork": {"other/official-artwork/front_default"},
}


def fold(text):
    """The search folding (Reader.md, Search)."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in decomposed if not 0x300 <= ord(c) <= 0x36F)
    return kept.casefold().replace("\u2019", "'")


def clean_flavor(text):
    """The flavor text cleaning of DeviceDatabase.md (the CJK rule included): reference_tables.clean."""
    return reference_tables.clean(text)


def url_id(url):
    return int(url.rstrip("/").split("/")[-1])


def name_of(ref):
    return ref["name"] if ref else None


def documents(root, kind):
    folder = os.path.join(root, "api", "v2", kind)
    if not os.path.isdir(folder):
        return
    for entry in sorted(os.listdir(folder), key=lambda n: (len(n), n)):
        path = os.path.join(folder, entry, "index.json")
        if entry.isdigit() and os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                yield json.load(handle)


def flatten_sprites(node, prefix=""):
    for key, value in node.items():
        if isinstance(value, dict):
            yield from flatten_sprites(value, prefix + key + "/")
        elif isinstance(value, str):
            yield prefix + key, value


def add_pokemon(db, doc, bundled, bundle_all):
    pid = doc["id"]
    db.execute("INSERT INTO pokemon VALUES (?,?,?,?,?,?,?,?)",
               (pid, doc["name"], url_id(doc["species"]["url"]), doc["height"], doc["weight"],
                doc["base_experience"], int(bool(doc["is_default"])), doc["order"]))
    for t in doc["types"]:
        db.execute("INSERT INTO pokemon_type VALUES (?,?,?)", (pid, t["slot"], t["type"]["name"]))
    for s in doc["stats"]:
        db.execute("INSERT INTO pokemon_stat VALUES (?,?,?,?)", (pid, s["stat"]["name"], s["base_stat"], s["effort"]))
    for a in doc["abilities"]:
        db.execute("INSERT INTO pokemon_ability VALUES (?,?,?,?)",
                   (pid, a["slot"], a["ability"]["name"], int(bool(a["is_hidden"]))))
    for m in {m["move"]["name"] for m in doc["moves"]}:
        db.execute("INSERT INTO pokemon_move VALUES (?,?)", (pid, m))
    for key, url in flatten_sprites(doc["sprites"]):
        path = None
        if (bundle_all or key in bundled) and url.startswith(SPRITE_PREFIX):
            path = "sprites/" + url[len(SPRITE_PREFIX):]
        db.execute("INSERT INTO pokemon_sprite VALUES (?,?,?,?)", (pid, key, url, path))


def add_species(db, doc):
    sid = doc["id"]
    chain = doc.get("evolution_chain")
    parent = doc.get("evolves_from_species")
    db.execute("INSERT INTO species VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
               (sid, doc["name"], name_of(doc["generation"]), url_id(chain["url"]) if chain else None,
                url_id(parent["url"]) if parent else None, int(doc["is_baby"]), int(doc["is_legendary"]),
                int(doc["is_mythical"]), name_of(doc["color"]), name_of(doc["habitat"]), doc["gender_rate"],
                doc["capture_rate"]))
    names = {}
    for n in doc["names"]:
        names.setdefault(n["language"]["name"], [None, None])[0] = n["name"]
    for g in doc["genera"]:
        names.setdefault(g["language"]["name"], [None, None])[1] = g["genus"]
    for language, (name, genus) in names.items():
        db.execute("INSERT INTO species_name VALUES (?,?,?,?)", (sid, language, name, genus))
    seen = set()
    for index, entry in enumerate(doc["flavor_text_entries"]):
        key = (entry["language"]["name"], entry["version"]["name"])
        if key in seen:
            continue
        seen.add(key)
        db.execute("INSERT INTO species_flavor_text VALUES (?,?,?,?,?)",
                   (sid, key[0], key[1], index, clean_flavor(entry["flavor_text"])))


def add_pokedex(db, doc):
    did = doc["id"]
    db.execute("INSERT INTO pokedex VALUES (?,?,?,?)",
               (did, doc["name"], name_of(doc["region"]), int(doc["is_main_series"])))
    for e in doc["pokemon_entries"]:
        db.execute("INSERT INTO pokedex_entry VALUES (?,?,?)",
                   (did, e["entry_number"], url_id(e["pokemon_species"]["url"])))
    for d in doc["descriptions"]:
        db.execute("INSERT OR IGNORE INTO pokedex_description VALUES (?,?,?)",
                   (did, d["language"]["name"], d["description"]))


def add_chain(db, doc):
    cid = doc["id"]
    root = doc["chain"]
    db.execute("INSERT INTO evolution_chain VALUES (?,?,?)",
               (cid, url_id(root["species"]["url"]), name_of(doc["baby_trigger_item"])))

    def walk(link):
        parent = url_id(link["species"]["url"])
        for child in link["evolves_to"]:
            details = child["evolution_details"]
            first = details[0] if details else {}
            db.execute("INSERT INTO evolution_step VALUES (?,?,?,?,?,?,?)",
                       (cid, url_id(child["species"]["url"]), parent, name_of(first.get("trigger")),
                        first.get("min_level"), name_of(first.get("item")),
                        json.dumps(details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)))
            walk(child)

    walk(root)


def fill_search(db):
    strings = {}
    for pid, name in db.execute("SELECT id, name FROM pokemon"):
        strings.setdefault(pid, set()).add(fold(name))
    for pid, name in db.execute(
            "SELECT p.id, n.name FROM pokemon p JOIN species_name n ON n.species_id = p.species_id"
            " WHERE n.name IS NOT NULL"):
        strings[pid].add(fold(name))
    for pid, type_name in db.execute("SELECT pokemon_id, type FROM pokemon_type"):
        strings[pid].add(fold(type_name))
    rows = [(pid, text) for pid, texts in strings.items() for text in texts if text]
    db.executemany("INSERT INTO pokemon_search VALUES (?,?)", rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, action="append", help="api-data folder (repeatable)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--sprites", default="default")
    parser.add_argument("--version", type=int, default=1)
    # The version the schema above is (the reader's DeviceSchema.version), given by the
    # caller so that raising it does not mean editing this oracle.
    parser.add_argument("--schema-version", required=True)
    args = parser.parse_args()

    bundle_all = args.sprites == "all"
    bundled = PRESETS.get(args.sprites, set(args.sprites.split(",")))
    if os.path.exists(args.out):
        os.remove(args.out)
    db = sqlite3.connect(args.out)
    db.executescript(SCHEMA + reference_tables.create_sql())
    with db:
        for root in args.source:
            for doc in documents(root, "pokemon"):
                add_pokemon(db, doc, bundled, bundle_all)
            for doc in documents(root, "pokemon-species"):
                add_species(db, doc)
            for doc in documents(root, "pokedex"):
                add_pokedex(db, doc)
            for doc in documents(root, "evolution-chain"):
                add_chain(db, doc)
            reference_tables.insert(db, reference_tables.rows(root))
        fill_search(db)
        profile = json.dumps({"sprites": args.sprites, "languages": "all"}, separators=(",", ":"))
        meta = {"schema_version": args.schema_version, "lineage": "test-lineage", "version": str(args.version),
                "created_at": "2026-08-08T00:00:00Z", "source": "make_device_db.py", "profile": profile}
        db.executemany("INSERT INTO meta VALUES (?,?)", sorted(meta.items()))
    db.execute("VACUUM")
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
