#!/usr/bin/env python3
"""The device tables' columns as each Python oracle in this folder declares them, as JSON,
so that a Swift test can hold them to the one Swift declaration (DeviceSchema.tables).

    oracle_columns.py    -> {"oracle.py": {"table": {"columns": [...], "keys": N or null}}}

The oracles are written from the documentation alone, independent of the Swift code, so
they list the columns again; a column added to the declaration but not to an oracle (or
the other way round) makes the test fail instead of a comparison going quietly wrong.
A schema given as DDL is created in an in-memory SQLite and read back with
PRAGMA table_info, so the listing is SQLite's, not a parse of the text. Python stdlib only.
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import content_digest  # noqa: E402
import devdb_yardstick  # noqa: E402
import make_device_db  # noqa: E402
import make_update_test_db  # noqa: E402
import reference_tables  # noqa: E402


def from_ddl(script):
    """Every table `script` creates: its columns in order and its key column count."""
    db = sqlite3.connect(":memory:")
    db.executescript(script)
    tables = {}
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"):
        info = db.execute('SELECT name, pk FROM pragma_table_info(?)', (name,)).fetchall()
        tables[name] = {"columns": [column for column, _ in info], "keys": sum(1 for _, pk in info if pk)}
    db.close()
    return tables


def main():
    listed = {
        "content_digest.py": {table: {"columns": columns, "keys": None} for table, columns in content_digest.TABLES},
        "reference_tables.py": {table: {"columns": columns, "keys": keys}
                                for table, columns, keys in reference_tables.TABLES},
        "make_device_db.py": from_ddl(make_device_db.SCHEMA + reference_tables.create_sql()),
        "devdb_yardstick.py": from_ddl(devdb_yardstick.SCHEMA),
        "make_update_test_db.py": from_ddl("".join("CREATE TABLE %s (%s);\n" % (name, columns)
                                                   for name, columns in make_update_test_db.TABLES)
                                           + reference_tables.create_sql()),
    }
    json.dump(listed, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
