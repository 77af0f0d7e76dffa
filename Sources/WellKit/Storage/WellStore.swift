import Foundation
import GRDB

/// A WellKit store: one SQLite file with SpatiaLite, holding pins, details, loads and rejects.
///
/// For example:
///
/// ```swift
/// let store = try WellStore(path: "wells.sqlite")
/// let summary = try store.load(csvAt: "tn-oilgas-wells.csv")
/// print(summary.inserted, "wells loaded")
/// ```
///
/// Every connection initialises SpatiaLite and the file uses WAL, so readers never block
/// the writer. The schema is created and upgraded through ``Schema`` migrations.
public final class WellStore: Sendable {
    /// How to open a store.
    public enum OpenMode: Sendable {
        /// Create the file if it does not exist.
        case create
        /// Fail with ``StoreError/Code/notFound`` if the file does not exist.
        case existing
    }

    /// The path of the store file.
    public let path: String
    /// The GRDB pool over the file. WellKit reads through it; writes go through ``WellStore`` methods.
    public let pool: DatabasePool

    /// Opens the store at `path`, creating and migrating it as needed.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - mode: Whether a missing file is created.
    ///   - trace: Receives each SQL statement executed with its bound values, when given.
    /// - Throws: ``StoreError`` when the file is not an SQLite database, is not a WellKit store,
    ///   or was written by a newer schema version.
    public init(path: String, mode: OpenMode = .create, trace: (@Sendable (String) -> Void)? = nil) throws {
        self.path = path
        let exists = FileManager.default.fileExists(atPath: path)
        if mode == .existing && !exists {
            throw StoreError(.notFound, "no store here; create one with `wells load FILE --db \(path)`", path: path)
        }
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try SpatiaLite.initialize(db)
            // WAL with synchronous=NORMAL stays atomic and uncorrupted after a crash or power
            // loss; only the last commits before a power loss may roll back.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if let trace {
                db.trace(options: .profile) { event in
                    if case let .profile(statement, duration) = event {
                        trace("\(statement.expandedSQL)  -- \(String(format: "%.6f", duration))s")
                    }
                }
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
            try pool.barrierWriteWithoutTransaction { db in
                try Self.checkIdentity(db, path: path)
            }
            try Schema.migrator.migrate(pool)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError(.notADatabase, "file is not an SQLite database; pass a new or existing WellKit store to --db", path: path)
        }
    }

    /// Checks that the file is empty or a WellKit store of a schema version this build knows.
    private static func checkIdentity(_ db: Database, path: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let version = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if applicationID == Schema.applicationID {
            if version > Schema.version {
                throw StoreError(
                    .newerSchema,
                    "store has schema version \(version), but this wells \(WellKit.version) knows up to version \(Schema.version); upgrade WellKit to open it",
                    path: path)
            }
            return
        }
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 5")
        if !tables.isEmpty || applicationID != 0 {
            throw StoreError(
                .notAWellStore,
                "not a WellKit store (it holds \(tables.joined(separator: ", "))); choose a new file for --db",
                path: path)
        }
    }
}
