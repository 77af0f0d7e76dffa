import PostgresNIO
import WellKit

// Opening a store: PostGIS and the store's identity and version checked, the tables created for `.create`.

extension PostgresEngine {
    /// Checks PostGIS and the store's identity and version on `connection`; creates the tables for `.create`.
    func prepareStore(_ mode: WellStore.OpenMode, on connection: PostgresConnection) async throws {
        do {
            // One round trip for both checks: every open of a store (each `wells bbox`) makes it.
            let (postgis, meta) = try await all("""
                SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis'), to_regclass('wellkit_meta') IS NOT NULL
                """, on: connection) { (try $0.bool(), try $0.bool()) }[0]
            if !postgis {
                guard mode != .readOnly else {
                    throw StoreError(.missingExtension, "the database \(location.database) has no PostGIS extension, so it holds no WellKit store",
                                     remedy: .runSQL("CREATE EXTENSION postgis;"), path: location.description)
                }
                do {
                    try await execute("CREATE EXTENSION IF NOT EXISTS postgis", on: connection)
                } catch {
                    guard let error = Self.translate(error, location) as? StoreError, error.code == .readOnly || error.code == .serverError else { throw error }
                    throw StoreError(.missingExtension, "the database \(location.database) has no PostGIS extension, and user \(location.user) "
                                        + "may not create it (\(error.reason))", remedy: .runSQL("CREATE EXTENSION postgis;"), path: location.description)
                }
            }
            if try await identity(hasMeta: meta, on: connection) == nil {
                guard mode == .create else {
                    throw StoreError(.notFound, "no WellKit store in the database \(location.database)", remedy: .createStore, path: location.description)
                }
                try await createSchema(on: connection)
            }
        } catch let error as CallerError {
            throw error.error
        } catch {
            throw Self.translate(error, location)
        }
    }

    /// The store's schema version, or nil when the database holds no WellKit store (but no
    /// table of the same names either).
    private func identity(hasMeta: Bool, on connection: PostgresConnection) async throws -> Int32? {
        if hasMeta {
            let pairs = try await all("SELECT key, value FROM wellkit_meta", on: connection) { (try $0.requiredString(), try $0.requiredString()) }
            let values = Dictionary(pairs, uniquingKeysWith: { $1 })
            guard values["application"] == "WellKit", let version = values["schema_version"].flatMap(Int32.init) else {
                throw StoreError(.notAWellStore, "the database \(location.database) has a wellkit_meta table that is not WellKit's",
                                 remedy: .chooseStore, path: location.description)
            }
            if version > PostgresSchema.version {
                throw StoreError(.newerSchema, "store has schema version \(version), but this WellKit \(wellKitVersion) knows up to version \(PostgresSchema.version)",
                                 schemaVersion: version, remedy: .upgradeWellKit(knowsUpTo: PostgresSchema.version), path: location.description)
            }
            return version
        }
        let clashes = try await all("""
            SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
              AND table_name IN ('pins', 'details', 'loads', 'rejects', 'suspects') ORDER BY 1
            """, on: connection) { try $0.requiredString() }
        if !clashes.isEmpty {
            throw StoreError(.notAWellStore, "not a WellKit store: the database \(location.database) already has tables named \(clashes.joined(separator: ", "))",
                             remedy: .chooseStore, path: location.description)
        }
        return nil
    }

    /// Creates the tables in one transaction, under the load lock, so that two processes
    /// creating the store at once make it once.
    private func createSchema(on connection: PostgresConnection) async throws {
        do {
            try await inTransaction(on: connection) {
                try await execute("SELECT pg_advisory_xact_lock(\(PostgresSchema.loadLock))", on: connection)
                // pg_class read with the statement's snapshot, taken after the lock: to_regclass()
                // looks in the catalog cache, which waiting on an advisory lock does not refresh, and
                // answered false for the table another process had just committed (two loads into a
                // new database at once: "relation wellkit_meta already exists").
                let exists = try await connection.query("""
                    SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                                   WHERE c.relname = 'wellkit_meta' AND n.nspname = current_schema())
                    """, logger: .wellKitPostgres)
                    .collect().first?.decode(Bool.self) ?? false
                if !exists {
                    try await execute("CREATE EXTENSION IF NOT EXISTS unaccent", on: connection)
                    for statement in PostgresSchema.tables { try await execute(statement, on: connection) }
                }
            }
        } catch {
            throw Self.translate(error, location, during: "creating the store's tables")
        }
    }
}
