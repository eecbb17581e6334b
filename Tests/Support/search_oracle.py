#!/usr/bin/env python3
"""A brute-force search oracle, written from Reader.md's Search alone and independent of the
reader and of make_device_db.py: it reads the api-data JSON itself.

    search_oracle.py --source DIR [--source DIR...] [--query Q ...] [--generate [--every N]]

Prints JSON: [{"query": Q, "hits": [[id, rank], ...]}, ...] with rank 0 exact,
1 prefix, 2 substring, ordered by rank then id.

The rule: fold (NFKD, drop U+0300-U+036F, str.casefold(), U+2019 as '), split on
whitespace; every term must be a substring of one of the pokemon's strings (its name,
its species' name in each language, its types' slugs and their names in each language
of the type documents); a term's rank is the best over the
strings, the pokemon's the worst over the terms.

--generate adds a few hundred queries made from the data: prefixes of names in every
script, whole names, type pairs, mixed case, accented spellings, substrings, names
with a type, and queries that match nothing.
"""
import argparse
import json
import os
import sys
import unicodedata


def fold(text):
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not 0x300 <= ord(c) <= 0x36F).casefold().replace("\u2019", "'")


def load(root):
    base = os.path.join(root, "api", "v2")

    def read(kind, ident):
        with open(os.path.join(base, kind, str(ident), "index.json"), encoding="utf-8") as handle:
            return json.load(handle)

    def ids(kind):
        folder = os.path.join(base, kind)
        return sorted(int(n) for n in os.listdir(folder) if n.isdigit()) if os.path.isdir(folder) else []

    species_names = {}
    for sid in ids("pokemon-species"):
        species_names[sid] = [n["name"] for n in read("pokemon-species", sid)["names"]]
    type_names = {}
    for tid in ids("type"):
        document = read("type", tid)
        type_names[document["name"]] = [n["name"] for n in document["names"]]
    pokemon = {}
    for pid in ids("pokemon"):
        doc = read("pokemon", pid)
        sid = int(doc["species"]["url"].rstrip("/").split("/")[-1])
        types = [t["type"]["name"] for t in sorted(doc["types"], key=lambda t: t["slot"])]
        raw = [doc["name"]] + species_names.get(sid, []) + types
        for slug in types:
            raw += type_names.get(slug, [])
        pokemon[pid] = {"raw": raw, "strings": {fold(s) for s in raw if fold(s)}, "types": types}
    return pokemon


def rank_of(term, strings):
    best = None
    for s in strings:
        if s == term:
            return 0
        if s.startswith(term):
            best = 1
        elif term in s and best is None:
            best = 2
    return best


def search(pokemon, query):
    terms = fold(query).split()
    if not terms:
        return []
    hits = []
    for pid in sorted(pokemon):
        ranks = [rank_of(t, pokemon[pid]["strings"]) for t in terms]
        if all(r is not None for r in ranks):
            hits.append((max(ranks), pid))
    hits.sort()
    return [[pid, rank] for rank, pid in hits]


def accented(text):
    return text.replace("e", "é").replace("a", "à").replace("o", "ö")


def generate(pokemon):
    queries = set()
    types = sorted({t for p in pokemon.values() for t in p["types"]})
    for p in pokemon.values():
        for raw in p["raw"]:
            for length in (1, 2, 3, 5):
                if len(raw) > length:
                    queries.add(raw[:length])
            queries.add(raw)
            queries.add(raw.upper())
            queries.add(raw.swapcase())
            queries.add(accented(raw.lower()))
            if len(raw) > 4:
                queries.add(raw[1:4])
                queries.add(raw[-3:])
        queries.add(p["raw"][0][:4] + " " + p["types"][0])
        queries.add(p["types"][-1].upper() + "  " + p["raw"][0][-3:])
    for a in types:
        for b in types:
            queries.add(a + " " + b)
    queries.update(["e", "E", "É", "ß", "ss", "'", "’", "ピ", "ビ", "ヒ", "zzz", "fire dragon", "  ",
                    "pika chu", "PIKA", "Flabébé", "ＰＩＫＡ", "ﬁre"])
    return sorted(queries)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", required=True)
    parser.add_argument("--query", action="append", default=[])
    parser.add_argument("--generate", action="store_true")
    parser.add_argument("--every", type=int, default=1, help="keep every Nth generated query (large data)")
    args = parser.parse_args()
    pokemon = {}
    for root in args.source:
        pokemon.update(load(root))
    queries = list(args.query) + (generate(pokemon)[::args.every] if args.generate else [])
    json.dump([{"query": q, "hits": search(pokemon, q)} for q in queries], sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
