#!/usr/bin/env python3
"""Cut the small test samples in Tests/Fixtures from the unpacked PokeAPI snapshots.

Usage:
    python3 Tests/Support/cut_sample.py [--old /tmp/fx/old/api-data]
        [--new /tmp/fx/api-data] [--out Tests/Fixtures]

Documents are copied byte for byte, with one exception: a pokedex's
`pokemon_entries` is trimmed to the entries whose species is in the sample, and
that document is re-serialized (json.dumps(indent=4), no trailing newline,
non-ASCII escaped only if upstream escaped it). Each kind's index.json is rewritten too, so that it lists
exactly the sample's resources in id order, with the same pretty-printing.

The sample is reference-closed: every pokemon's species, every species'
evolution chain, every pokedex entry's species and every evolution step's
species are in it (the bundle exporter refuses a version with a dangling
reference). The choice of ids is fixed below and explained in
Tests/Fixtures/README.md.
"""

import argparse
import json
import os
import shutil
import sys

KINDS = ("pokemon", "pokemon-species", "pokedex", "evolution-chain",
         "type", "ability", "move", "stat", "version", "language")

# Reference kinds copied whole: every type, stat, version and language of the snapshot.
ALL_OF = ("type", "stat", "version", "language")
# Moves: a sample pokemon's moves are hundreds of 30 KB documents (pikachu alone learns
# 109, 4 MB), so the samples hold only the moves the sample pokemon learn by level-up
# in the newest version group their document lists (chosen on the 2026 snapshot, the
# same ids in both samples), plus thunderbolt (85), which the reader tests name.
# A pokemon's other moves dangle, as its items and encounter links do.
EXTRA_MOVES = [85]

# Pokemon in both samples: small documents, pikachu, and forms with ids >= 10001;
# then eevee (eight evolutions), the "fire dragon" answers (reshiram, turtonator,
# gouging-fire, charizard-mega-x) and flabebe (searched as "flabébé").
COMMON_POKEMON = [25, 789, 790, 808, 824, 840, 999, 10158, 10199, 10213,
                  133, 643, 776, 1020, 10034, 669]
# In the 2025 sample only: the crafted removal (it still exists upstream in 2026).
REMOVED_POKEMON = [10263]
# In the 2026 sample only: added upstream between the snapshots.
ADDED_POKEMON = [10312]
COMMON_POKEDEXES = [17, 20]
ADDED_POKEDEXES = [35]

SAMPLES = {
    "sample-2025-12-02": ("old", COMMON_POKEMON + REMOVED_POKEMON, COMMON_POKEDEXES),
    "sample-2026-08-08": ("new", COMMON_POKEMON + ADDED_POKEMON, COMMON_POKEDEXES + ADDED_POKEDEXES),
}


def resource_id(url):
    """The numeric id at the end of "/api/v2/{kind}/{id}/"."""
    return int(url.rstrip("/").rsplit("/", 1)[1])


def document_path(root, kind, ident):
    return os.path.join(root, "api", "v2", kind, str(ident), "index.json")


def load(root, kind, ident):
    with open(document_path(root, kind, ident), "rb") as handle:
        return json.loads(handle.read())


def chain_species(node):
    """Every species id named by an evolution chain's node and its descendants."""
    found = {resource_id(node["species"]["url"])}
    for child in node.get("evolves_to", []):
        found |= chain_species(child)
    return found


def closure(root, pokemon_ids, pokedex_ids, move_ids):
    """The ids of every kind: the pokemon, their species, those species' chains, and
    every species those chains name, until nothing new appears (a chain species'
    own chain is the same chain, so this ends after one round in practice)."""
    species = set()
    for ident in pokemon_ids:
        species.add(resource_id(load(root, "pokemon", ident)["species"]["url"]))
    chains = set()
    pending = set(species)
    while pending:
        new_chains = set()
        for ident in pending:
            chain = load(root, "pokemon-species", ident).get("evolution_chain")
            if chain and resource_id(chain["url"]) not in chains:
                new_chains.add(resource_id(chain["url"]))
        chains |= new_chains
        named = set()
        for ident in new_chains:
            named |= chain_species(load(root, "evolution-chain", ident)["chain"])
        pending = named - species
        species |= pending
    ids = {
        "pokemon": sorted(pokemon_ids),
        "pokemon-species": sorted(species),
        "pokedex": sorted(pokedex_ids),
        "evolution-chain": sorted(chains),
        "ability": sorted(abilities(root, pokemon_ids)),
        "move": sorted(move_ids),
    }
    for kind in ALL_OF:
        ids[kind] = all_listed(root, kind)
    return ids


def level_up_moves(root, pokemon_ids):
    """The moves each pokemon learns by level-up in the newest version group it lists."""
    found = set(EXTRA_MOVES)
    for ident in pokemon_ids:
        for entry in load(root, "pokemon", ident)["moves"]:
            details = entry["version_group_details"]
            if details and details[-1]["move_learn_method"]["name"] == "level-up":
                found.add(resource_id(entry["move"]["url"]))
    return found


def abilities(root, pokemon_ids):
    return {resource_id(entry["ability"]["url"])
            for ident in pokemon_ids for entry in load(root, "pokemon", ident)["abilities"]}


def all_listed(root, kind):
    with open(os.path.join(root, "api", "v2", kind, "index.json"), "rb") as handle:
        return sorted(resource_id(entry["url"]) for entry in json.loads(handle.read())["results"])


# The lists of pokemon (and moves) inside a reference document, cut to the sample
# like a pokedex's entries: field -> (how an item names its resource, the kind).
TRIMMED_LISTS = {
    "type": {"pokemon": (lambda item: item["pokemon"]["url"], "pokemon"),
             "moves": (lambda item: item["url"], "move")},
    "ability": {"pokemon": (lambda item: item["pokemon"]["url"], "pokemon")},
    "move": {"learned_by_pokemon": (lambda item: item["url"], "pokemon")},
}


def reserialized(original, trim):
    """The document with `trim` applied, re-serialized like the index files
    (json.dumps(indent=4), no trailing newline), escaping non-ASCII characters only
    where upstream did (the 2026 snapshot does, the 2025 one does not)."""
    document = json.loads(original)
    escaped = json.dumps(document, indent=4).encode("utf-8") == original
    trim(document)
    return json.dumps(document, indent=4, ensure_ascii=escaped)


def trimmed_reference(source_root, kind, ident, ids_by_kind):
    with open(document_path(source_root, kind, ident), "rb") as handle:
        original = handle.read()

    def trim(document):
        for field, (url_of, target) in TRIMMED_LISTS[kind].items():
            keep = set(ids_by_kind[target])
            document[field] = [item for item in document[field] if resource_id(url_of(item)) in keep]
    return reserialized(original, trim)


def trimmed_pokedex(source_root, ident, species_ids):
    """The pokedex document with `pokemon_entries` cut to the sample's species: the
    only change to an upstream document. It is re-serialized like the index files
    (json.dumps(indent=4), no trailing newline), escaping non-ASCII characters only
    where upstream did (the 2026 snapshot does, the 2025 one does not)."""
    with open(document_path(source_root, "pokedex", ident), "rb") as handle:
        original = handle.read()
    document = json.loads(original)
    escaped = json.dumps(document, indent=4).encode("utf-8") == original
    document["pokemon_entries"] = [entry for entry in document["pokemon_entries"]
                                   if resource_id(entry["pokemon_species"]["url"]) in species_ids]
    return json.dumps(document, indent=4, ensure_ascii=escaped)


def write_index(source_root, out_root, kind, ids):
    """Write the kind's index.json holding upstream's entries for exactly these ids."""
    with open(os.path.join(source_root, "api", "v2", kind, "index.json"), "rb") as handle:
        upstream = json.loads(handle.read())
    by_id = {resource_id(entry["url"]): entry for entry in upstream["results"]}
    missing = [ident for ident in ids if ident not in by_id]
    if missing:
        sys.exit(f"cut_sample.py: {kind} {missing} not listed in {source_root}")
    listing = {"count": len(ids), "next": None, "previous": None,
               "results": [by_id[ident] for ident in ids]}
    text = json.dumps(listing, indent=4, ensure_ascii=False)
    with open(os.path.join(out_root, "api", "v2", kind, "index.json"), "w", encoding="utf-8") as handle:
        handle.write(text)


def cut(source_root, out_root, pokemon_ids, pokedex_ids, move_ids):
    if os.path.exists(out_root):
        shutil.rmtree(out_root)
    ids_by_kind = closure(source_root, pokemon_ids, pokedex_ids, move_ids)
    for kind in KINDS:
        for ident in ids_by_kind[kind]:
            target = document_path(out_root, kind, ident)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if kind == "pokedex" or kind in TRIMMED_LISTS:
                if kind == "pokedex":
                    text = trimmed_pokedex(source_root, ident, set(ids_by_kind["pokemon-species"]))
                else:
                    text = trimmed_reference(source_root, kind, ident, ids_by_kind)
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(text)
            else:
                shutil.copyfile(document_path(source_root, kind, ident), target)
        write_index(source_root, out_root, kind, ids_by_kind[kind])
    return ids_by_kind


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="/tmp/fx/old/api-data", help="unpacked 2025-12-02 api-data")
    parser.add_argument("--new", default="/tmp/fx/api-data", help="unpacked 2026-08-08 api-data")
    parser.add_argument("--out", default=os.path.join(here, "..", "Fixtures"), help="Tests/Fixtures")
    args = parser.parse_args()
    roots = {"old": args.old, "new": args.new}
    move_ids = level_up_moves(args.new, COMMON_POKEMON + ADDED_POKEMON)
    for name, (which, pokemon_ids, pokedex_ids) in SAMPLES.items():
        out_root = os.path.normpath(os.path.join(args.out, name))
        ids = cut(roots[which], out_root, pokemon_ids, pokedex_ids, move_ids)
        size = sum(os.path.getsize(os.path.join(folder, file))
                   for folder, _, files in os.walk(out_root) for file in files)
        print(f"{name}: {size / 1e6:.2f} MB")
        for kind in KINDS:
            shown = ids[kind] if kind not in ALL_OF else f"all {len(ids[kind])}"
            print(f"  {kind}: {shown}")


if __name__ == "__main__":
    main()
