#!/usr/bin/env python3
"""Every design pointer in the sources and the articles leads somewhere that exists.

The design lives in the DocC catalogs beside the code: `Sources/<Target>/<Target>.docc/`,
one Markdown article per subject, readable on GitHub as they are. This script fails
(exit 1, one line per problem) when:

- a comment in `Sources/**/*.swift` or `Tests/**/*.swift` names an article,
  `<doc:Target/Article>` or `<doc:Target/Article#Section>`, that no catalog has, or a section the article does not have (a section is its heading
  with spaces as dashes, as DocC links it: `<doc:PokedexReader/DeviceDatabase#Flavor-texts>`);
  an unqualified `<doc:Article>` must be in the comment's own target's catalog;
- an article links `<doc:Article>` (its own catalog) or `<doc:Target/Article>` that does
  not exist, or a relative Markdown link (`../../PokeServe/PokeServe.docc/Serving.md#routes`,
  how articles link across catalogs so that GitHub follows them) to a missing file or to
  a heading the file does not have (GitHub's anchor: lowercase, dashes for spaces);
- a catalog has no landing page named after its target, or an article its landing page's
  `## Topics` does not list;
- the README links a file (`Sources/PokeServe/PokeServe.docc/Serving.md#headers`: how it
  points to the reference it keeps in the articles) that does not exist, or a heading the
  file does not have;
- the target table of the data-flow article (`DataFlow.md`, its `## The targets`) is not
  Package.swift's: a target (tests aside) in no row or in two, a row naming no target, or a
  row whose "depends on" column does not name exactly the targets its targets depend on
  (targets in one row depend on the same ones; words that are no target, Foundation or
  "the system", are free);
- a line of `Sources/`, `Tests/` (comments, test and suite names, helper scripts; the
  data in `Tests/Fixtures` aside, its Markdown included), the README, `Mirror/`, `cron/`,
  `.ci/`, the Makefile or Package.swift cites what a newcomer cannot follow: an issue
  number (`issue 18`, `issues 27 to 31`, `(issue 14)`, `PR 3`, `#12` as a reference) or
  a document the repository does not have (the design, red-team, platform and style notes
  kept outside it, named as in `CITED_DOCUMENTS` below). Say the thing itself (the rule,
  the reason), or point at the article section that holds it (`<doc:Target/Article#Section>`).
  A URL is never a citation (`https://github.com/owner/repo/issues/12` can be followed).

Usage: check_doc_links.py [--citations] [REPO_ROOT]   (default: the current folder)
  --citations  only the citation check (quick to re-run after merging other branches)
Exit 0 when every link resolves and nothing cites an issue or an outside document, 1 otherwise."""
import pathlib
import re
import sys

DOC_LINK = re.compile(r"<doc:([^>\s]+)>")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
# What a newcomer cannot follow. An issue: "issue 18", "Issue 14's", "issues 27 to 31",
# "(issue 14)", "PR 3", "pull request 7"; or "#12" standing alone as a reference ("see #12",
# "(#12)"), not "#25 pikachu" (a dex number in an example) nor "&#12;".
ISSUE_NUMBER = re.compile(r"\b(?:issues?|PRs?|pull\s+requests?)\s*#?\d+|(?<![\w&#/])#\d+\b(?![\w-]|\s+[A-Za-z(])",
                          re.IGNORECASE)
# The notes kept outside the repository (../shared): by their file names, and the two
# upper-case names the code used for them.
CITED_DOCUMENTS = re.compile(r"\b(?:DESIGN|REDTEAM|PLATFORM|STYLE)\.md\b|\b(?:DESIGN|REDTEAM)\b")
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
# The files that scan for citations: the folders read whole, and single files at the root.
CITED_FOLDERS = ("Sources", "Tests", "Mirror", "cron", ".ci")
CITED_FILES = ("README.md", "Makefile", "Package.swift")
# The checker and its test write what they look for (citations, broken links) as examples.
EXAMPLE_FILES = ("Tests/Support/check_doc_links.py", "Tests/PokeSyncTests/EndToEnd/DesignDocsTests.swift")


def headings(path):
    """The headings of a Markdown file outside code fences, as written (without '#')."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            found.append(match.group(1))
    return found


def docc_anchor(heading):
    """DocC's fragment for a heading: its text with spaces as dashes (`Flavor-texts`)."""
    return heading.replace("`", "").strip().replace(" ", "-")


def github_anchor(heading):
    """GitHub's fragment for a heading: lowercase, punctuation dropped, spaces as dashes."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def catalogs(root):
    """{target: {article name: path}} for every `Sources/<Target>/<Target>.docc`."""
    found = {}
    for docc in sorted((root / "Sources").glob("*/*.docc")):
        found[docc.parent.name] = {path.stem: path for path in sorted(docc.rglob("*.md"))}
    return found


def resolve(reference, own_target, articles):
    """Why `<doc:reference>` does not resolve, or None. `own_target` is the target whose
    catalog an unqualified name is looked up in (None: it must be qualified)."""
    name, _, section = reference.partition("#")
    parts = name.split("/")
    if len(parts) == 2:
        target, article = parts
    elif len(parts) == 1 and own_target is not None:
        target, article = own_target, parts[0]
    else:
        return f"<doc:{reference}> must name its target: <doc:Target/Article>"
    if target not in articles:
        return f"<doc:{reference}>: no catalog Sources/{target}/{target}.docc"
    if article not in articles[target]:
        known = ", ".join(sorted(articles[target]))
        return f"<doc:{reference}>: {target}.docc has no article {article} (it has {known})"
    if section and section not in {docc_anchor(h) for h in headings(articles[target][article])}:
        return f"<doc:{reference}>: {article}.md has no heading whose link is #{section}"
    return None


def comment_of(line):
    """The `//` comment of a Swift line (naively: after the first `//` not in a URL)."""
    index = 0
    while True:
        index = line.find("//", index)
        if index < 0:
            return None
        if index > 0 and line[index - 1] == ":":  # https://
            index += 2
            continue
        return line[index:]


def source_problems(root, articles):
    """The `<doc:>` links in the comments of `Sources/` and `Tests/` (a test's must be
    qualified: `<doc:Target/Article#Section>`)."""
    paths = sorted((root / "Sources").rglob("*.swift")) + sorted((root / "Tests").rglob("*.swift"))
    for path in paths:
        if path.relative_to(root).as_posix() in EXAMPLE_FILES:
            continue
        folder, target = path.relative_to(root).parts[:2]
        own = target if folder == "Sources" and target in articles else None
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            comment = comment_of(line)
            if comment is None:
                continue
            where = f"{path.relative_to(root)}:{number}"
            for reference in DOC_LINK.findall(comment):
                problem = resolve(reference, own, articles)
                if problem:
                    yield f"{where}: {problem}"


def cited_files(root):
    """Every text file the citation check reads (see the module's docstring)."""
    for name in CITED_FILES:
        if (root / name).is_file():
            yield root / name
    for folder in CITED_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            parts = path.relative_to(root).parts
            if not path.is_file() or any(part.startswith(".") and part != ".ci" for part in parts):
                continue
            if parts[:2] == ("Tests", "Fixtures") and path.suffix != ".md":
                continue  # upstream's data, not ours to word
            yield path


def citation_problems(root):
    """Lines that cite an issue number or a document the repository does not have."""
    for path in cited_files(root):
        relative = path.relative_to(root).as_posix()
        if relative in EXAMPLE_FILES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        for number, line in enumerate(text.split("\n"), 1):
            plain = URL.sub("", line)
            for pattern, what in ((ISSUE_NUMBER, "an issue number"), (CITED_DOCUMENTS, "a document the repo does not have")):
                match = pattern.search(plain)
                if match:
                    yield (f"{relative}:{number}: cites {what} ({match.group(0).strip()!r}): say the thing itself "
                           f"or point at its article section: {line.strip()[:100]}")


def unfenced_lines(path):
    """(line number, line) of a Markdown file outside code fences."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def relative_link_problems(path, where, number, plain):
    """Why each relative Markdown link of `plain` (a line of `path`, inline code removed)
    does not resolve: a missing file, or a heading the linked file does not have."""
    for link in MARKDOWN_LINK.findall(plain):
        if re.match(r"[a-z][a-z0-9+.-]*:", link) or link.startswith("#"):
            continue  # an absolute URL, or a link within the page
        file, _, anchor = link.partition("#")
        linked = (path.parent / file).resolve()
        if not linked.exists():
            yield f"{where}:{number}: link to {link}: no such file"
        elif anchor and (not linked.is_file() or anchor not in {github_anchor(h) for h in headings(linked)}):
            yield f"{where}:{number}: link to {link}: {linked.name} has no heading #{anchor}"


def readme_problems(root):
    """The README's relative links: the reference it moved to the articles must be there."""
    readme = root / "README.md"
    if not readme.is_file():
        return
    for number, line in unfenced_lines(readme):
        yield from relative_link_problems(readme, "README.md", number, re.sub(r"`[^`]*`", "", line))


def article_problems(root, articles):
    for target, files in articles.items():
        landing = files.get(target)
        if landing is None:
            yield f"Sources/{target}/{target}.docc: no landing page {target}.md"
        for name, path in files.items():
            where = path.relative_to(root)
            for number, line in unfenced_lines(path):
                # Inline code is an example of a link, not a link.
                plain = re.sub(r"`[^`]*`", "", line)
                for reference in DOC_LINK.findall(plain):
                    problem = resolve(reference, target, articles)
                    if problem:
                        yield f"{where}:{number}: {problem}"
                yield from relative_link_problems(path, where, number, plain)
        if landing is not None:
            topics = landing.read_text(encoding="utf-8").partition("## Topics")[2]
            listed = {reference.split("/")[-1] for reference in DOC_LINK.findall(topics)}
            for name in files:
                if name != target and name not in listed:
                    yield f"{landing.relative_to(root)}: ## Topics does not list <doc:{name}>"


def package_targets(text):
    """{target: [its target dependencies]} of a Package.swift, test targets aside: each
    `.target(`, `.executableTarget(` or `.systemLibrary(` call read to its closing
    parenthesis, its `name:` and the quoted names in its `dependencies: [...]`."""
    found, inside_until = {}, 0
    for match in re.finditer(r"\.(systemLibrary|target|executableTarget|testTarget)\(", text):
        if match.start() < inside_until:
            continue  # `.target(name: "CCurl", condition: ...)` in a dependency list names, not declares
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        call, inside_until = text[match.end():end], end
        name = re.match(r"\s*name:\s*\"([^\"]+)\"", call)
        if name is None or match.group(1) == "testTarget":
            continue
        dependencies = call.partition("dependencies:")[2]
        dependencies = dependencies[:dependencies.find("]")] if dependencies else ""
        found[name.group(1)] = re.findall(r"\"([^\"]+)\"", dependencies)
    return found


def target_table_problems(root, articles):
    """The data-flow article's `## The targets` table against Package.swift."""
    package = root / "Package.swift"
    article = next((files["DataFlow"] for files in articles.values() if "DataFlow" in files), None)
    if not package.is_file() or article is None:
        return
    targets = package_targets(package.read_text(encoding="utf-8"))
    where = article.relative_to(root)
    rows, inside = [], False
    for number, line in unfenced_lines(article):
        if line.startswith("#"):
            inside = line.strip() == "## The targets"
        elif inside and line.startswith("|") and not re.match(r"\|\s*(target\s*\||-)", line):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows.append((number, re.findall(r"`([^`]+)`", cells[0]), set(re.findall(r"`([^`]+)`", cells[-1]))))
    if not rows:
        yield f"{where}: no table under ## The targets (Package.swift has {len(targets)} targets)"
        return
    seen = {}
    for number, names, depends in rows:
        if not names:
            yield f"{where}:{number}: a row of ## The targets names no target"
        for name in names:
            if name not in targets:
                yield f"{where}:{number}: `{name}` is no target of Package.swift"
                continue
            if name in seen:
                yield f"{where}:{number}: `{name}` has a row already (line {seen[name]})"
            seen[name] = number
            wanted, written = set(targets[name]), depends & set(targets)
            if written != wanted:
                missing, extra = sorted(wanted - written), sorted(written - wanted)
                yield (f"{where}:{number}: `{name}` depends on " + (", ".join(targets[name]) or "no target")
                       + (f"; the row lacks {', '.join(missing)}" if missing else "")
                       + (f"; the row adds {', '.join(extra)}" if extra else ""))
    for name in targets:
        if name not in seen:
            yield f"{where}: ## The targets has no row for `{name}` (Package.swift declares it)"


def main():
    arguments = sys.argv[1:]
    citations_only = "--citations" in arguments
    arguments = [argument for argument in arguments if argument != "--citations"]
    root = pathlib.Path(arguments[0] if arguments else ".").resolve()
    cited = list(citation_problems(root))
    if citations_only:
        print("\n".join(cited) if cited else "nothing cites an issue number or a document the repo does not have")
        return 1 if cited else 0
    articles = catalogs(root)
    if not articles:
        print(f"{root}/Sources: no DocC catalog (Sources/<Target>/<Target>.docc)")
        return 1
    found = (list(source_problems(root, articles)) + list(article_problems(root, articles))
             + list(target_table_problems(root, articles)) + list(readme_problems(root)) + cited)
    count = sum(len(files) for files in articles.values())
    print("\n".join(found) if found else f"every design link resolves ({len(articles)} catalogs, {count} articles, "
          "the README), and nothing cites an issue number or a document the repo does not have")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
