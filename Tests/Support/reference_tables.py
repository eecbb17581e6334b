#!/usr/bin/env python3
"""The device database's reference tables (DeviceDatabase.md, Reference tables: type*,
ability*, move*, stat*, version*, language*), computed from an api-data folder.

Written from the article alone (stdlib only), independent of the Swift builder, so that a
test can check the builder's tables against the JSON; make_device_db.py and
make_update_test_db.py use it to fill the same tables.

    reference_tables.py check --source DIR --db PATH [--languages en,fr]
        compares every reference table of PATH (its listed columns) with the rows the
        JSON gives; prints "ok N rows" or the differences, exit status 1.
"""
import argparse
import json
import os
import sqlite3
import sys

# Table -> (listed columns, key column count), in the article's order.
TABLES = [
    ("type", ["id", "name", "generation"], 1),
    ("type_name", ["type_id", "language", "name"], 2),
    ("type_efficacy", ["attacking_type_id", "defending_type_id", "factor"], 2),
    ("ability", ["id", "name", "generation", "is_main_series"], 1),
    ("ability_name", ["ability_id", "language", "name"], 2),
    ("ability_text", ["ability_id", "language", "short_effect", "flavor_text"], 2),
    ("move", ["id", "name", "type_id", "damage_class", "power", "accuracy", "pp", "priority", "generation"], 1),
    ("move_name", ["move_id", "language", "name"], 2),
    ("move_text", ["move_id", "language", "short_effect", "flavor_text"], 2),
    ("stat", ["id", "name", "is_battle_only"], 1),
    ("stat_name", ["stat_id", "language", "name"], 2),
    ("version", ["id", "name", "version_group"], 1),
    ("version_name", ["version_id", "language", "name"], 2),
    ("language", ["id", "name", "iso639", "iso3166", "official"], 1),
    ("language_name", ["language_id", "in_language", "name"], 2),
]
# The column holding the language code in each localized table.
LANGUAGE_COLUMN = {table: columns[1] for table, columns, keys in TABLES if keys == 2 and table != "type_efficacy"}

KINDS = ("type", "ability", "move", "stat", "version", "language")


def create_sql():
    """Plain tables with the article's columns and keys (how a test database holds them)."""
    statements = []
    for table, columns, keys in TABLES:
        statements.append('CREATE TABLE "%s"(%s, PRIMARY KEY(%s))' % (
            table, ", ".join('"%s"' % c for c in columns), ", ".join(columns[:keys])))
    return ";\n".join(statements) + ";\n"


def is_cjk(ch):
    code = ord(ch)
    return (0x3000 <= code <= 0x303F or 0x3040 <= code <= 0x309F or 0x30A0 <= code <= 0x30FF
            or 0x31F0 <= code <= 0x31FF or 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF
            or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x2FA1F)


# Unicode's White_Space property (Python's str.isspace differs: it takes U+001C-U+001F too).
WHITE_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B))
               + "\u2028\u2029\u202f\u205f\u3000")


def clean(text):
    """The flavor text cleaning (DeviceDatabase.md, Flavor texts): U+00AD followed by a line break is removed; a line
    break or form feed between two CJK characters is removed; any other is a space;
    runs of spaces become one; trimmed of Unicode White_Space (U+3000 included)."""
    for brk in ("\r\n", "\n", "\r"):
        text = text.replace("\u00ad" + brk, "")
    text = text.replace("\r\n", "\n")
    out = []
    for index, ch in enumerate(text):
        if ch in "\n\r\f":
            before = text[index - 1] if index > 0 else ""
            after = text[index + 1] if index + 1 < len(text) else ""
            if before and after and is_cjk(before) and is_cjk(after):
                continue
            ch = " "
        out.append(ch)
    text = "".join(out)
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(WHITE_SPACE)


def url_id(url):
    return int(url.rstrip("/").rsplit("/", 1)[1])


def name_of(ref):
    return ref["name"] if ref else None


def documents(root, kind):
    folder = os.path.join(root, "api", "v2", kind)
    if not os.path.isdir(folder):
        return
    for ident in sorted(int(n) for n in os.listdir(folder) if n.isdigit()):
        with open(os.path.join(folder, str(ident), "index.json"), encoding="utf-8") as handle:
            yield json.load(handle)


def names(table, ident, entries, out):
    seen = {}
    for entry in entries:
        seen.setdefault(entry["language"]["name"], entry["name"])
    for language, name in seen.items():
        out[table].append((ident, language, name))


def texts(table, ident, document, out):
    effects, flavors = {}, {}
    for entry in document["effect_entries"]:
        if entry.get("short_effect") is not None:
            effects.setdefault(entry["language"]["name"], entry["short_effect"])
    for entry in document["flavor_text_entries"]:
        flavors[entry["language"]["name"]] = clean(entry["flavor_text"])  # the last: the newest game
    for language in set(effects) | set(flavors):
        out[table].append((ident, language, effects.get(language), flavors.get(language)))


def rows(root):
    """Every reference table's rows, every language, as the JSON says."""
    out = {table: [] for table, _, _ in TABLES}
    for t in documents(root, "type"):
        out["type"].append((t["id"], t["name"], name_of(t["generation"])))
        names("type_name", t["id"], t["names"], out)
        factors = {}
        relations = t["damage_relations"]
        for field, factor in (("double_damage_to", 200), ("half_damage_to", 50), ("no_damage_to", 0)):
            for target in relations[field]:
                factors.setdefault(url_id(target["url"]), factor)
        for defending, factor in factors.items():
            out["type_efficacy"].append((t["id"], defending, factor))
    for a in documents(root, "ability"):
        out["ability"].append((a["id"], a["name"], name_of(a["generation"]), int(a["is_main_series"])))
        names("ability_name", a["id"], a["names"], out)
        texts("ability_text", a["id"], a, out)
    for m in documents(root, "move"):
        out["move"].append((m["id"], m["name"], url_id(m["type"]["url"]) if m["type"] else None,
                            name_of(m["damage_class"]), m["power"], m["accuracy"], m["pp"], m["priority"],
                            name_of(m["generation"])))
        names("move_name", m["id"], m["names"], out)
        texts("move_text", m["id"], m, out)
    for s in documents(root, "stat"):
        out["stat"].append((s["id"], s["name"], int(s["is_battle_only"])))
        names("stat_name", s["id"], s["names"], out)
    for v in documents(root, "version"):
        out["version"].append((v["id"], v["name"], name_of(v["version_group"])))
        names("version_name", v["id"], v["names"], out)
    for lang in documents(root, "language"):
        out["language"].append((lang["id"], lang["name"], lang["iso639"], lang["iso3166"], int(lang["official"])))
        names("language_name", lang["id"], lang["names"], out)
    return out


def keep_languages(tables, languages):
    """Only these languages' rows in every localized table (`en` always kept)."""
    if languages is None:
        return tables
    wanted = {code.lower() for code in languages} | {"en"}
    kept = {}
    for table, columns, _ in TABLES:
        if table in LANGUAGE_COLUMN:
            kept[table] = [row for row in tables[table] if row[1].lower() in wanted]
        else:
            kept[table] = tables[table]
    return kept


def insert(db, tables):
    for table, columns, _ in TABLES:
        marks = ", ".join("?" for _ in columns)
        db.executemany('INSERT INTO "%s" VALUES (%s)' % (table, marks), tables[table])


def check(source, path, languages):
    expected = keep_languages(rows(source), languages)
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    problems, total = [], 0
    for table, columns, _ in TABLES:
        quoted = ", ".join('"%s"' % c for c in columns)
        got = set(db.execute('SELECT %s FROM "%s"' % (quoted, table)).fetchall())
        want = set(expected[table])
        total += len(want)
        for row in sorted(want - got, key=repr)[:5]:
            problems.append("%s: missing %r" % (table, row))
        for row in sorted(got - want, key=repr)[:5]:
            problems.append("%s: unexpected %r" % (table, row))
        if len(got) != len(db.execute('SELECT * FROM "%s"' % table).fetchall()):
            problems.append("%s: duplicate rows" % table)
    db.close()
    return problems, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check"])
    parser.add_argument("--source", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--languages")
    args = parser.parse_args()
    languages = args.languages.split(",") if args.languages else None
    problems, total = check(args.source, args.db, languages)
    if problems:
        print("\n".join(problems))
        return 1
    print("ok %d rows" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
