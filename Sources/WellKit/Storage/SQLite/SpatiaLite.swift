import CSpatiaLite
import GRDB

/// Initialises SpatiaLite on one SQLite connection.
///
/// Each connection gets its own SpatiaLite cache from `spatialite_alloc_connection()`,
/// initialised with `spatialite_init_ex` (see
/// <https://www.gaia-gis.it/gaia-sins/spatialite-cookbook-5/cookbook_topics.03.html>).
/// The cache has exactly one owner, a ``SpatiaLiteCache`` object, which SQLite releases
/// when it closes the connection: the object is the user data of a tiny SQL function,
/// `wellkit_spatialite_version()`, whose destructor frees it.
package enum SpatiaLite {
    /// Initialises SpatiaLite on the connection of `db`.
    ///
    /// - Throws: ``StoreError`` (`missingLibrary`) if SpatiaLite or PROJ is not installed, or if SQLite
    ///   refuses to register the owner function.
    package static func initialize(_ db: Database) throws {
        guard let connection = db.sqliteConnection else { return }
        _ = try loadedSpatiaLite.get()
        _ = try loadedProj.get()   // SpatiaLite links PROJ, so this costs nothing; Geodesic then cannot fail
        let cache = SpatiaLiteCache()
        libspatialite.spatialite_init_ex(connection, cache.pointer, 0)
        let owner = Unmanaged.passRetained(cache).toOpaque()
        let code = sqlite3_create_function_v2(
            connection, "wellkit_spatialite_version", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, owner,
            { context, _, _ in
                sqlite3_result_text(context, libspatialite.spatialite_version(), -1, nil)
            },
            nil, nil,
            { owner in
                if let owner { Unmanaged<SpatiaLiteCache>.fromOpaque(owner).release() }
            })
        guard code == SQLITE_OK else {
            throw StoreError(.spatiaLite, "could not initialise SpatiaLite (SQLite code \(code))")
        }
    }

    /// Initialises SpatiaLite on the connection of `db` unless it already has it: read-only
    /// connections go without it (loading it is most of a small command's start-up) until a query
    /// needs its geometry functions, such as a request ``WellFetchRequest/within`` an area.
    ///
    /// The probe is a statement that calls SpatiaLite's owner function: SQLite refuses to prepare it
    /// on a connection without SpatiaLite, and once prepared it stays in the connection's cache, so
    /// the check costs a cache lookup (`pragma_function_list` lists SpatiaLite's thousand functions
    /// every time, which `count --by-area` would pay once per area).
    package static func ensureInitialized(_ db: Database) throws {
        if (try? db.cachedStatement(sql: "SELECT wellkit_spatialite_version()")) == nil { try initialize(db) }
    }

    /// The version of the loaded SpatiaLite library, such as "5.0.1".
    static var version: String { libspatialite.spatialite_version().map { String(cString: $0) } ?? "unknown" }
}

/// Owns one SpatiaLite connection cache and frees it in `deinit`.
final class SpatiaLiteCache {
    let pointer: UnsafeMutableRawPointer?

    init() { pointer = libspatialite.spatialite_alloc_connection() }

    deinit { libspatialite.spatialite_cleanup_ex(pointer) }
}

/// SpatiaLite's functions, from libspatialite loaded on first use (see ``SystemLibrary``); call
/// `try loadedSpatiaLite.get()` before the first use. Read once, on first use, like ``libproj``.
let libspatialite: WKSpatiaLite = SystemLibrary.loaded(loadedSpatiaLite)

/// libspatialite, or the error that says what to install.
let loadedSpatiaLite: Result<WKSpatiaLite, StoreError> = SystemLibrary.load(
    "SpatiaLite", names: ["libspatialite.so", "libspatialite.so.7", "libspatialite.dylib"],
    package: "libspatialite-dev", into: WKSpatiaLite(), resolve: { wk_spatialite_resolve($0, $1) })
