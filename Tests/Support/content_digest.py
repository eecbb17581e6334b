#!/usr/bin/env python3
"""content_digest of a device database (pokedex.sqlite), from DeviceDatabase.md's definition alone.

A second implementation, independent of the Swift one (PokedexReader's ContentDigest),
so that tests can check both agree. Python stdlib only.

Usage: content_digest.py PATH   -> prints the hex SHA-256
"""
import hashlib
import sqlite3
import sys

# DeviceDatabase.md: each table's columns in order; content_digest covers these.
TABLES = [
    ("meta", ["key", "value"]),
    ("pokemon", ["id", "name", "species_id", "height", "weight", "base_experience", "is_default", "sort_order"]),
    ("pokemon_type", ["pokemon_id", "slot", "type"]),
    ("pokemon_stat", ["pokemon_id", "stat", "base_stat", "effort"]),
    ("pokemon_ability", ["pokemon_id", "slot", "ability", "is_hidden"]),
    ("pokemon_move", ["pokemon_id", "move"]),
    ("pokemon_sprite", ["pokemon_id", "key", "url", "path"]),
    ("species", ["id", "name", "generation", "evolution_chain_id", "evolves_from_species_id", "is_baby",
                 "is_legendary", "is_mythical", "color", "habitat", "gender_rate", "capture_rate"]),
    ("species_name", ["species_id", "language", "name", "genus"]),
    ("species_flavor_text", ["species_id", "language", "version", "entry_index", "text"]),
    ("pokedex", ["id", "name", "region", "is_main_series"]),
    ("pokedex_entry", ["pokedex_id", "entry_number", "species_id"]),
    ("pokedex_description", ["pokedex_id", "language", "description"]),
    ("evolution_chain", ["id", "root_species_id", "baby_trigger_item"]),
    ("evolution_step", ["chain_id", "to_species_id", "from_species_id", "trigger", "min_level", "item",
                        "details_json"]),
    ("type", ["id", "name", "generation"]),
    ("type_name", ["type_id", "language", "name"]),
    ("type_efficacy", ["attacking_type_id", "defending_type_id", "factor"]),
    ("ability", ["id", "name", "generation", "is_main_series"]),
    ("ability_name", ["ability_id", "language", "name"]),
    ("ability_text", ["ability_id", "language", "short_effect", "flavor_text"]),
    ("move", ["id", "name", "type_id", "damage_class", "power", "accuracy", "pp", "priority", "generation"]),
    ("move_name", ["move_id", "language", "name"]),
    ("move_text", ["move_id", "language", "short_effect", "flavor_text"]),
    ("stat", ["id", "name", "is_battle_only"]),
    ("stat_name", ["stat_id", "language", "name"]),
    ("version", ["id", "name", "version_group"]),
    ("version_name", ["version_id", "language", "name"]),
    ("language", ["id", "name", "iso639", "iso3166", "official"]),
    ("language_name", ["language_id", "in_language", "name"]),
]


def encode(value):
    if value is None:
        return "null"
    if isinstance(value, bool) or isinstance(value, float) or isinstance(value, bytes):
        raise SystemExit("content_digest: a value is not an integer, text or null: %r" % (value,))
    if isinstance(value, int):
        return str(value)
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def digest(path):
    connection = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    hasher = hashlib.sha256()
    for table, columns in TABLES:
        quoted = ", ".join('"%s"' % c for c in columns)
        where = " WHERE key <> 'content_digest'" if table == "meta" else ""
        for row in connection.execute('SELECT %s FROM "%s"%s ORDER BY %s' % (quoted, table, where, quoted)):
            line = "[" + ",".join([encode(table)] + [encode(v) for v in row]) + "]\n"
            hasher.update(line.encode("utf-8"))
    connection.close()
    return hasher.hexdigest()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: content_digest.py PATH")
    print(digest(sys.argv[1]))
