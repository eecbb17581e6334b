#!/usr/bin/env python3
"""Say where any of some strings (host names) occur in exported or bundled files.

    python3 Tests/Support/find_hosts.py --needle STR [--needle STR ...] PATH [PATH ...]

Walks every PATH (files and folders). A .tar.gz is opened and each member checked; a
gzip file is decompressed; a SQLite database (checked after extraction too) is also read
with sqlite3: every text or blob cell of every table, so a string that a page layout
would hide from a byte scan is still found. Prints one line per finding and exits 1 when
there is any; otherwise prints "clean: N files, M database cells" and exits 0.
Python 3 standard library only.
"""

import argparse
import gzip
import io
import os
import sqlite3
import sys
import tarfile
import tempfile


def check_database(data, where, needles, findings, counts):
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as handle:
        handle.write(data)
        handle.flush()
        connection = sqlite3.connect(f"file:{handle.name}?mode=ro", uri=True)
        try:
            tables = [row[0] for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]
                for column in columns:
                    for (value,) in connection.execute(f'SELECT "{column}" FROM "{table}"'):
                        if isinstance(value, (str, bytes)):
                            counts["cells"] += 1
                            text = value.encode("utf-8") if isinstance(value, str) else value
                            for needle in needles:
                                if needle in text:
                                    findings.append(f"{where}: {table}.{column} holds {needle.decode()}")
        finally:
            connection.close()


def check_bytes(data, where, needles, findings, counts):
    counts["files"] += 1
    if where.endswith(".tar.gz") or where.endswith(".tgz"):
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if member.isfile():
                    check_bytes(archive.extractfile(member).read(), f"{where}!{member.name}",
                                needles, findings, counts)
        return
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    for needle in needles:
        if needle in data:
            findings.append(f"{where}: holds {needle.decode()}")
    if data[:16] == b"SQLite format 3\x00":
        check_database(data, where, needles, findings, counts)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="find_hosts.py")
    parser.add_argument("--needle", action="append", required=True)
    parser.add_argument("paths", nargs="+")
    arguments = parser.parse_args(argv)
    needles = [needle.encode("utf-8") for needle in arguments.needle]
    findings, counts = [], {"files": 0, "cells": 0}
    for path in arguments.paths:
        walked = [path] if os.path.isfile(path) else [
            os.path.join(folder, name) for folder, _, names in os.walk(path) for name in names]
        for file in sorted(walked):
            with open(file, "rb") as handle:
                check_bytes(handle.read(), file, needles, findings, counts)
    for finding in findings:
        print(finding)
    if not findings:
        print(f"clean: {counts['files']} files, {counts['cells']} database cells")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
