import WellKit

extension WellStore {
    /// Lets ``WellStore/init(path:mode:trace:traceValues:)`` open `postgresql://` URLs: a PostgreSQL
    /// database with PostGIS, through postgres-nio, with the same API as a store file.
    ///
    /// Call it once, before opening such a store; calling it again does nothing. WellKit alone opens
    /// only files, so that an app that needs no server links no NIO and no TLS library.
    ///
    /// ```swift
    /// import WellKit
    /// import WellKitPostgreSQL
    ///
    /// WellStore.enablePostgreSQL()
    /// let shared = try WellStore(path: "postgresql://wells@localhost/wells")
    /// ```
    public static func enablePostgreSQL() {
        StoreEngines.register(PostgresProvider())
    }
}

/// The PostgreSQL engine as the core sees it: the `postgresql://` and `postgres://` URLs.
struct PostgresProvider: StoreEngineProvider {
    func claims(_ location: String) -> Bool { PostgresLocation.isURL(location) }

    func open(_ location: String, mode: WellStore.OpenMode, trace: (@Sendable (String) -> Void)?) throws -> (engine: any StorageEngine, name: String) {
        let parsed = try PostgresLocation(url: location)
        return (try PostgresEngine(location: parsed, mode: mode, trace: trace), parsed.description)
    }

    func displayName(of location: String) -> String {
        (try? PostgresLocation(url: location, environment: [:]))?.description ?? PostgresLocation.redacted(location)
    }

    func publicName(of location: String) -> String {
        (try? PostgresLocation(url: location))?.database ?? "a PostgreSQL database"
    }
}
