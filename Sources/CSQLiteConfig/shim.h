#include <sqlite3.h>

/// sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1): the connection refuses what could corrupt
/// a database file on purpose (writable_schema, writes to shadow tables, ...). sqlite3_db_config
/// is variadic, so Swift cannot call it directly. Returns SQLITE_OK, or an error code.
static inline int trailmap_sqlite_defensive(sqlite3 *db) {
    int enabled = 0;
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &enabled);
    return rc == SQLITE_OK && enabled == 1 ? SQLITE_OK : (rc == SQLITE_OK ? SQLITE_ERROR : rc);
}
