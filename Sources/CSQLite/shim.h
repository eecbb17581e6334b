#ifndef POKESYNC_CSQLITE_SHIM_H
#define POKESYNC_CSQLITE_SHIM_H
// The core library uses only the plain C API. The session extension is not
// enabled on purpose: Apple's system SQLite may lack it, and the device
// database must be readable there.
#include <sqlite3.h>
#endif
