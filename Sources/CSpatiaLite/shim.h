#include <sqlite3.h>
#include <spatialite.h>

/// Allows `sqlite3_load_extension` from C only (not from SQL), through the
/// variadic `sqlite3_db_config`, which Swift cannot call.
static inline int wk_enable_c_load_extension(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (void *)0);
}
