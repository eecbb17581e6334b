#!/usr/bin/env python3
"""Fails when Swift code spells the API's path (`api/v2`, `schema/v2`) in a string literal
anywhere but APIShape.swift: the path is declared once there (`APIShape.rootPath` and the
forms derived from it), so a change to it is one edit, not a hunt.

    check_api_path.py [ROOT]     (default: this repository; reads ROOT/Sources/**/*.swift)

Read are the one-line string literals of code, raw (`#"..."#`) ones and those inside an
interpolation included. Comments are not read, nor multi-line (`\"\"\"`) literals: those
are usage text and SQL, prose a reader is shown, where the path may stand as an example.
Prints one line per literal found, `path:line: "..." spells the API path`, and exits 1;
exits 0 with "the API path is spelled in APIShape alone" when there is none.
Python stdlib only.
"""
import bisect
import re
import sys

from check_platform_names import check_sources

DECLARATION = "Sources/PokeSyncCore/Source/APIShape.swift"
PATH = re.compile(r"\b(api|schema)/v2\b")
RAW_QUOTE = re.compile(r'#+"')
HASHES = re.compile("#*")


class SwiftLiterals:
    """The string literals of one Swift file: (offset, contents, multi-line) each, where
    contents leave out the interpolations (whose own literals are listed by themselves)."""

    def __init__(self, text):
        self.text = text
        self.found = []
        self.code(0, nested=False)

    def code(self, at, nested):
        """Scans code from `at` to the end, or past the `)` closing an interpolation."""
        text, depth = self.text, 0
        while at < len(text):
            if text.startswith("//", at):
                end = text.find("\n", at)
                at = len(text) if end < 0 else end
            elif text.startswith("/*", at):
                at = self.block_comment(at)
            elif text[at] == '"' or RAW_QUOTE.match(text, at):
                at = self.literal(at)
            else:
                if nested and text[at] == "(":
                    depth += 1
                elif nested and text[at] == ")":
                    if depth == 0:
                        return at + 1
                    depth -= 1
                at += 1
        return at

    def block_comment(self, at):
        """The offset after the block comment at `at` (Swift's nest)."""
        depth = 0
        while at < len(self.text):
            if self.text.startswith("/*", at):
                depth, at = depth + 1, at + 2
            elif self.text.startswith("*/", at):
                depth, at = depth - 1, at + 2
                if depth == 0:
                    return at
            else:
                at += 1
        return at

    def literal(self, start):
        """Records the literal at `start` (its first `#` or quote) and returns the offset after it."""
        text = self.text
        hashes = len(HASHES.match(text, start).group(0))
        at = start + hashes
        multiline = text.startswith('"""', at)
        at += 3 if multiline else 1
        close, escape = ('"""' if multiline else '"') + "#" * hashes, "\\" + "#" * hashes
        contents = []
        while at < len(text):
            if text.startswith(close, at):
                at += len(close)
                break
            if text.startswith(escape, at):
                after = at + len(escape)
                if text.startswith("(", after):
                    contents.append("\u0000")  # an interpolation: no path runs across it
                    at = self.code(after + 1, nested=True)
                else:
                    contents.append(text[at:after + 1])
                    at = after + 1
                continue
            if text[at] == "\n" and not multiline:
                break  # not closed on its line: not Swift; read on from the next line
            contents.append(text[at])
            at += 1
        self.found.append((start, "".join(contents), multiline))
        return at


def check_file(path, display):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    line_starts = [0] + [index + 1 for index, char in enumerate(text) if char == "\n"]
    problems = []
    for offset, contents, multiline in SwiftLiterals(text).found:
        if not multiline and PATH.search(contents):
            line = bisect.bisect_right(line_starts, offset)
            problems.append('%s:%d: "%s" spells the API path (derive it from APIShape)'
                            % (display, line, contents.replace("\u0000", "\\(...)")))
    return problems


def main():
    return check_sources(check_file, "%d string literal(s) spell the API path outside APIShape",
                         "the API path is spelled in APIShape alone", skip=[DECLARATION])


if __name__ == "__main__":
    sys.exit(main())
