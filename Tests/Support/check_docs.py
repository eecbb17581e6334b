#!/usr/bin/env python3
"""Every public declaration of a Swift source tree has a /// comment, with `- Throws:`
where it throws; every case of a public enum has one too. Prints what lacks one and
exits 1, else exits 0. Usage: check_docs.py Sources/PokedexReader"""
import pathlib, re, sys


def doc_above(lines, i):
    j = i - 1
    while j >= 0 and lines[j].strip().startswith("@"):
        j -= 1
    doc = []
    while j >= 0 and lines[j].strip().startswith("///"):
        doc.insert(0, lines[j].strip())
        j -= 1
    return doc


def problems(root):
    for path in sorted(pathlib.Path(root).rglob("*.swift")):
        lines = path.read_text().split("\n")
        depth, enums = 0, []
        for i, line in enumerate(lines):
            text = line.strip()
            where = f"{path}:{i + 1}: {text[:90]}"
            if re.match(r"public\b", text) and not re.match(r"public\s+(import|extension)\b", text):
                doc = doc_above(lines, i)
                if not doc:
                    yield "no ///: " + where
                else:
                    head, k = text, i
                    while "{" not in head and k + 1 < len(lines) and k - i < 6:
                        k += 1
                        head += " " + lines[k].strip()
                    if re.search(r"\bthrows\b", head.split("{")[0]) and not any("- Throws:" in d for d in doc):
                        yield "throws without - Throws: " + where
            if re.match(r"public (indirect )?enum \w+", text) and "{" in text:
                enums.append(depth + 1)
            if re.match(r"case \w", text) and enums and depth == enums[-1] and not doc_above(lines, i):
                yield "no /// on a public enum's case: " + where
            depth += line.count("{") - line.count("}")
            while enums and depth < enums[-1]:
                enums.pop()


found = list(problems(sys.argv[1]))
print("\n".join(found) if found else "every public declaration is documented")
sys.exit(1 if found else 0)
