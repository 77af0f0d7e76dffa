#include <dlfcn.h>
#include <sqlite3.h>
#include <spatialite.h>

/* The SpatiaLite functions WellKit calls, resolved at run time (see `SpatiaLite.swift`): linking
 * libspatialite would make every process load it, PROJ, GEOS and ~50 other libraries at start-up,
 * even the read-only commands that never use SpatiaLite (Benchmarks/README.md, "Start-up"). */
#define WK_SPATIALITE_FUNCTIONS(X) \
    X(spatialite_alloc_connection) X(spatialite_cleanup_ex) X(spatialite_init_ex) X(spatialite_version)

typedef struct WKSpatiaLite {
#define WK_SPATIALITE_FIELD(name) __typeof__(&name) name;
    WK_SPATIALITE_FUNCTIONS(WK_SPATIALITE_FIELD)
#undef WK_SPATIALITE_FIELD
} WKSpatiaLite;

/* Fills `api` from `handle`, a dlopen handle of libspatialite. Returns NULL, or the first missing symbol. */
static inline const char *wk_spatialite_resolve(void *handle, WKSpatiaLite *api) {
#define WK_SPATIALITE_RESOLVE(name) if (!(api->name = (__typeof__(&name))dlsym(handle, #name))) return #name;
    WK_SPATIALITE_FUNCTIONS(WK_SPATIALITE_RESOLVE)
#undef WK_SPATIALITE_RESOLVE
    return 0;
}

/* Turns SQLite's memory statistics off (SQLITE_CONFIG_MEMSTATUS): with them on, as Debian builds
 * SQLite, every allocation and free takes a process-wide mutex. `sqlite3_config` is variadic, so
 * Swift calls it through here. Returns SQLITE_MISUSE once SQLite is initialised. */
static inline int wk_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* Asks the processor to bring the cache line at `address` in, without waiting for it (a hint:
 * never faults). Swift has no prefetch; the row builder asks for the records it will read next
 * (`RowPipeline.prefetchDistance`). */
static inline void wk_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
