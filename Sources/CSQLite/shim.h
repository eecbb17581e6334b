#ifndef POKESYNC_CSQLITE_SHIM_H
#define POKESYNC_CSQLITE_SHIM_H
// The core library uses only the plain C API. The session extension is not
// enabled on purpose: Apple's system SQLite may lack it, and the device
// database must be readable there.
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one wrapper per shape used.

/// sqlite3_db_config(db, op, value, &result) for the options that take an int and report
/// the new setting (SQLITE_DBCONFIG_DQS_DML, SQLITE_DBCONFIG_DQS_DDL, ...).
static inline int pokesync_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}
#endif
