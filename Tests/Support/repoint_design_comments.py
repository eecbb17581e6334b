#!/usr/bin/env python3
"""Points every comment in Sources/ that names DESIGN (the contract file outside the
repository) at the article in the repository that now says the same thing.

The design is in the DocC catalogs beside the code (`Sources/<Target>/<Target>.docc/`).
A comment names an article in one form everywhere, `<doc:Target/Article>` or
`<doc:Target/Article#Section>`: DocC's link syntax (the target first, so it also
resolves across targets), and for a reader of the source the file to open,
`Sources/Target/Target.docc/Article.md`, and its heading.

The rewrite is an explicit table of the comments' current phrases, matched as text (never
by line number), so it still applies after other edits to the files. A phrase is matched
in any file unless the entry names the file it belongs to (the same phrase means two
sections in two files). Each line that names DESIGN gets the first entry that matches,
then the next ones in order while DESIGN is still on it. Lines still naming DESIGN
afterwards are reported, as are table entries that matched nothing (the comment changed:
point it at its article by hand, and `check_doc_links.py` checks the result).

Usage, from the repository root:
  repoint_design_comments.py            rewrite the files, then report
  repoint_design_comments.py --dry-run  print what would change, write nothing
Exit 0 when no comment names DESIGN afterwards, 1 otherwise."""
import pathlib
import re
import sys

CORE, SERVE, READER = "PokeSyncCore", "PokeServe", "PokedexReader"


def doc(target, article, section=None):
    return f"<doc:{target}/{article}" + (f"#{section}" if section else "") + ">"


DEVICE_DB = doc(READER, "DeviceDatabase")
REFERENCE_TABLES = doc(READER, "DeviceDatabase", "Reference-tables")
FLAVOR_TEXTS = doc(READER, "DeviceDatabase", "Flavor-texts")
SEARCH = doc(READER, "Reader", "Search")
TYPES = doc(READER, "Reader", "Types-and-matchups")
TERMINAL = doc(READER, "Reader", "Show-and-search-in-a-terminal")
APPLYING = doc(READER, "Installing", "Applying-a-delta")

# (file name or None for any file, the phrase as it is now, what it becomes).
# More specific phrases come before shorter ones they contain.
TABLE = [
    # PokeSyncCore
    ("DeltaBuilder.swift", "DESIGN's delta any SQLite can apply",
     f"the delta any SQLite can apply ({doc(CORE, 'Bundles', 'Deltas')})"),
    ("VersionDiff+JSON.swift", "field for field as DESIGN gives them",
     f"field for field as {doc(CORE, 'VersionsAndDiffs', 'The-diff-JSON')} gives them"),
    ("ExportedSource.swift", '(DESIGN: "as a phone may see it")',
     f'({doc(CORE, "Bundles", "The-manifest")}: "as a phone may see it")'),
    ("ResourceKind.swift", "(DESIGN, Sources)", f"({doc(CORE, 'Sources', 'Kinds')})"),
    ("ResourceKind.swift", "(DESIGN, `--sprites`)", f"({doc(CORE, 'Sources', 'Linked-files')})"),
    (None, '(DESIGN "The device database")', f"({DEVICE_DB})"),
    (None, "(DESIGN, the reference tables)", f"({REFERENCE_TABLES})"),
    (None, "DESIGN's flavor-text rule", f"The flavor-text rule ({FLAVOR_TEXTS})"),
    (None, "(DESIGN, flavor texts)", f"({FLAVOR_TEXTS})"),
    (None, "DESIGN's CJK:", f"CJK as {FLAVOR_TEXTS} has it:"),
    (None, "The reference check DESIGN asks for before",
     f"The reference check ({doc(CORE, 'Bundles', 'The-reference-check')}) made before"),
    ("DeviceDocuments+Reference.swift", "(DESIGN, the", f"({REFERENCE_TABLES}: the"),
    # The command line
    (None, "DESIGN's `show --json`:", f"`show --json` ({TERMINAL}):"),
    (None, "DESIGN's id, name and types", f"id, name and types ({TERMINAL})"),
    # PokedexReader
    ("Pokedex+ListNames.swift", "(DESIGN: the", f"({doc(READER, 'Reader', 'The-list')}: the"),
    (None, '(DESIGN, the reader: "types")', f"({TYPES})"),
    (None, "(DESIGN: trigger, level", f"({doc(READER, 'Reader', 'Details')}: trigger, level"),
    (None, "(DESIGN: every type with", f"({TYPES}: every type with"),
    (None, "(DESIGN: a pokemon's", f"({TYPES}: a pokemon's"),
    (None, "// DESIGN writes a full bundle as", f"// The index ({doc(CORE, 'Bundles', 'The-index')}) writes a full bundle as"),
    (None, "Encoded as DESIGN fixes it,", f"Encoded as {doc(CORE, 'Bundles', 'The-profile')} fixes it,"),
    (None, "The folding DESIGN fixes for search", f"The folding search uses ({SEARCH})"),
    (None, "the folded strings DESIGN's search matches", f"the folded strings search ({SEARCH}) matches"),
    (None, "which DESIGN's search matches too", "which search matches too"),
    (None, "DESIGN's rule has no index-friendly shape", f"The search rule ({SEARCH}) has no index-friendly shape"),
    (None, "// DESIGN: a pokemon's types,", f"// {SEARCH}: a pokemon's types,"),
    (None, "by DESIGN's rule.", f"by the rule of {SEARCH}."),
    (None, "as DESIGN's \"Installing on a device\" fixes it:", f"as {doc(READER, 'Installing')} fixes it:"),
    (None, "// DESIGN: a nightly check is one conditional request",
     f"// {doc(READER, 'Installing', 'The-nightly-check')}: a nightly check is one conditional request"),
    (None, "// DESIGN: a device that cannot use its delta",
     f"// {doc(READER, 'Installing', 'Choosing-a-file')}: a device that cannot use its delta"),
    (None, "exactly as DESIGN", f"exactly as {APPLYING}"),
    (None, "(DESIGN: they are rebuilt on apply", f"({APPLYING}: they are rebuilt on apply"),
    (None, "the keys DESIGN fixes.", f"the keys {doc(READER, 'DeviceDatabase', 'The-meta-table')} fixes."),
    (None, "has DESIGN's columns in DESIGN's order, keyed by", f"has the columns of {DEVICE_DB} in its order, keyed by"),
    (None, "/// DESIGN's key, so that", "/// its key, so that"),
    (None, "`UNIQUE` (DESIGN),", f"`UNIQUE` ({doc(READER, 'DeviceDatabase', 'The-tables')}),"),
    (None, "(DESIGN allows it)", f"({doc(READER, 'DeviceDatabase', 'Views-over-shared-tables')} allows it)"),
    (None, "triggers that let DESIGN's plain-SQL delta", f"triggers that let the plain-SQL delta of {APPLYING}"),
    (None, "logical content, as DESIGN", f"logical content, as {doc(READER, 'DeviceDatabase', 'The-content-digest')}"),
    (None, "as DESIGN fixes it:", f"as {DEVICE_DB} fixes it:"),
    (None, "The columns DESIGN lists, in its order:", f"The columns {DEVICE_DB} lists, in its order:"),
    (None, "(DESIGN: `type*` tables belong", f"({doc(READER, 'DeviceDatabase', 'Entities')}: `type*` tables belong"),
    (None, "in DESIGN's order (the order of `content_digest`)",
     f"in the order {DEVICE_DB} lists them (the order of `content_digest`)"),
    (None, "in DESIGN's order.", f"in the order {DEVICE_DB} lists them."),
    (None, "(DESIGN: `type*`,", f"({REFERENCE_TABLES}: `type*`,"),
    # PokeServe
    (None, "(DESIGN, `pokesync serve`)", f"({doc(SERVE, 'Serving')})"),
    ("ServedForm.swift", "(DESIGN, Sources)", f"({doc(CORE, 'Sources', 'Linked-files')})"),
]

DESIGN = re.compile(r"\bDESIGN\b")


def main():
    dry_run = "--dry-run" in sys.argv[1:]
    sources = pathlib.Path("Sources")
    if not sources.is_dir():
        print("run from the repository root (no Sources/ here)")
        return 64
    used = [0] * len(TABLE)
    changed_lines, left = 0, []
    for path in sorted(sources.rglob("*.swift")):
        lines = path.read_text(encoding="utf-8").split("\n")
        changed = False
        for index, line in enumerate(lines):
            if not DESIGN.search(line):
                continue
            new = line
            for number, (file, phrase, replacement) in enumerate(TABLE):
                if not DESIGN.search(new):
                    break
                if (file is None or file == path.name) and phrase in new:
                    new = new.replace(phrase, replacement, 1)
                    used[number] += 1
            if new != line:
                if dry_run:
                    print(f"{path}:{index + 1}:\n  - {line.strip()}\n  + {new.strip()}")
                lines[index] = new
                changed, changed_lines = True, changed_lines + 1
            if DESIGN.search(new):
                left.append(f"{path}:{index + 1}: {new.strip()}")
        if changed and not dry_run:
            path.write_text("\n".join(lines), encoding="utf-8")
    unused = [f"  ({file or 'any file'}) {phrase}" for (file, phrase, _), count in zip(TABLE, used) if count == 0]
    print(f"{'would repoint' if dry_run else 'repointed'} {changed_lines} line(s)")
    if unused:
        print("table entries that matched nothing (already repointed, or the comment changed):")
        print("\n".join(unused))
    if left:
        print("comments still naming DESIGN (point them at their article by hand):")
        print("\n".join(left))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
