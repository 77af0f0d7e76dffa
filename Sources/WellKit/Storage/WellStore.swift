import Foundation
import GRDB
import Synchronization

/// A WellKit store: one SQLite file with SpatiaLite, or a PostgreSQL database with PostGIS,
/// holding pins, details, loads and rejects.
///
/// For example:
///
/// ```swift
/// let store = try WellStore(path: "wells.sqlite")
/// let summary = try store.load(csvAt: "tn-oilgas-wells.csv")
/// print(summary.inserted, "wells loaded")
/// ```
///
/// A `postgresql://` URL as the path opens a PostgreSQL store instead; the API is the same
/// (see <doc:StorageEngines>):
///
/// ```swift
/// let shared = try WellStore(path: "postgresql://wells@localhost/wells")
/// ```
///
/// Every connection of a read-write store initialises SpatiaLite (``OpenMode/readOnly`` skips it),
/// and the file uses WAL, so readers never block the writer. The schema is created and upgraded
/// through migrations of its own.
public final class WellStore: Sendable {
    /// How to open a store.
    public enum OpenMode: Sendable {
        /// Create the file if it does not exist.
        case create
        /// Fail with ``StoreError/Code/notFound`` if the file does not exist.
        case existing
        /// Open an existing store for reading only, without SpatiaLite.
        ///
        /// Pins, regions, details and the fetch requests need no SpatiaLite function: a
        /// region reads the spatial index, an SQLite R*Tree, directly. Skipping SpatiaLite
        /// saves the process that opens the store loading the library and its dependencies and
        /// initialising a connection, which is most of a `wells bbox` (Benchmarks/README.md's "Start-up").
        /// SpatiaLite's SQL functions, such as `AsText(geom)`, are not available on such a store.
        case readOnly
    }

    /// How long a connection waits for another's lock before it fails with SQLITE_BUSY.
    static let busyTimeout: TimeInterval = 10

    /// The path of the store file, or a PostgreSQL store's URL without its password.
    public let path: String
    /// The storage engine: SQLite with SpatiaLite, or PostgreSQL with PostGIS. Every query and write goes through it.
    package let engine: any StorageEngine
    /// Whether the store is a PostgreSQL database rather than a file.
    public var isPostgreSQL: Bool { !(engine is SQLiteEngine) }
    /// The engine's GRDB connections, for the SQLite-specific code of this package (optimize,
    /// tests). Not public: writes must keep the store's invariants (suspended triggers, the packed
    /// R*Tree, the `loads` bookkeeping), which only ``WellStore`` methods do. A PostgreSQL store
    /// has none: the callers check ``sqlite(for:)`` first.
    package var pool: any DatabaseWriter { (engine as! SQLiteEngine).pool }

    /// The SQLite engine, for work only a file does; a PostgreSQL store throws ``StoreError/Code/unsupported``.
    func sqlite(for work: String) throws -> SQLiteEngine {
        guard let sqlite = engine as? SQLiteEngine else {
            throw StoreError(.unsupported, "\(work) is for a store file; a PostgreSQL store does not need it", path: path)
        }
        return sqlite
    }

    /// Opens the store at `path`, creating it as needed.
    ///
    /// A store made by an earlier build is upgraded to this build's schema by the first write, in
    /// the write's own transaction, or by the first read, or by ``upgrade()``; until then its file
    /// stays byte for byte as it was.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - mode: Whether a missing file is created.
    ///   - trace: Receives each SQL statement executed, when given.
    ///   - traceValues: Whether traced statements show their bound values (costs time per statement).
    /// - Throws: ``StoreError`` when the file is not an SQLite database, is not a WellKit store,
    ///   or was written by a newer schema version.
    public convenience init(path: String, mode: OpenMode = .create, trace: (@Sendable (String) -> Void)? = nil, traceValues: Bool = true) throws {
        try self.init(path: path, mode: mode, trace: trace, traceValues: traceValues, writer: .pool)
    }

    /// The connections a store file that may be written is opened with.
    package enum Writer: Sendable {
        /// GRDB's `DatabasePool`: one writer and concurrent readers, so reads in this process never
        /// wait for a load. Opening a pool on a store whose WAL file is absent commits a small
        /// transaction (GRDB creates and drops a table, so that readers can open), which the
        /// checkpoint at close copies into the file even when the command then fails.
        case pool
        /// One connection (GRDB's `DatabaseQueue`, the journal mode left as the file has it): the
        /// store's file changes only when the command's own transaction commits, so a command that
        /// fails, refuses or finds the store damaged leaves it byte for byte as it was. For `wells`
        /// commands, which write from one thread and read nothing alongside.
        case single
    }

    /// Opens the store at `path` as ``init(path:mode:trace:traceValues:)`` does, with `writer`'s connections.
    package init(path: String, mode: OpenMode, trace: (@Sendable (String) -> Void)?, traceValues: Bool = true, writer: Writer) throws {
        if let provider = StoreEngines.provider(for: path) {
            (engine, self.path) = try provider.open(path, mode: mode, trace: trace)
            return
        }
        if StoreEngines.isServerURL(path) {
            let scheme = path.components(separatedBy: "://")[0]
            let remedy = scheme.hasPrefix("postgres")
                ? "PostgreSQL stores need the PostgreSQL engine: wells has it unless built without the PostgreSQL trait; "
                    + "a program imports WellKitPostgreSQL and calls WellStore.enablePostgreSQL() once"
                : "give a store file's path, or a postgresql:// URL"
            throw StoreError(.unsupported, "no storage engine for \(scheme):// URLs is enabled; \(remedy)", path: StoreEngines.redacted(path))
        }
        self.path = path
        let exists: Bool
        switch Self.fileKind(path) {
        case .directory:
            throw StoreError(.notFound, "is a directory, not a store file; give a file such as \(path)/wells.sqlite", path: path)
        case .special(let kind):
            // A device or a pipe is no store: SQLite would block on a pipe, and write a journal beside a device (`/dev/null-journal`).
            throw StoreError(.notFound, "is \(kind), not a store file; give a regular file such as wells.sqlite", path: path)
        case .missing:
            guard mode == .create else { throw StoreError(.notFound, "no store here", remedy: .createStore, path: path) }
            exists = false
        case .regular:
            exists = true
        }
        let gate = TraceGate()
        let readOnly = mode == .readOnly
        var config = Configuration()
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(Self.busyTimeout)
        config.prepareDatabase { db in
            if !readOnly { try SpatiaLite.initialize(db) }
            TextFolding.register(db)
            DistanceFunction.register(db)
            AreaFunction.register(db)
            ProjectedRegion.register(db)
            // WAL with synchronous=NORMAL stays atomic and uncorrupted after a crash or power
            // loss; only the last commits before a power loss may roll back. (A reader writes
            // nothing, and on a store it cannot write the pragma would fail.)
            if !readOnly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            if let trace {
                // Statements with their bound values, as Core Data's SQLDebug log shows them;
                // `fetch` adds the total time, because SQLite's own profile timer counts milliseconds.
                db.trace(options: .statement) { event in
                    if case let .statement(statement) = event, gate.isOpen.load(ordering: .acquiring) { trace(traceValues ? statement.expandedSQL : statement.sql) }
                }
            }
        }
        do {
            if readOnly {
                engine = SQLiteEngine(pool: try StoreError.translating(path: path) { try Self.openReader(path: path, configuration: config) },
                                      path: path, trace: trace)
            } else {
                let (pool, upgradePending) = try StoreError.translating(path: path) {
                    try Self.openWriter(path: path, exists: exists, configuration: config, writer: writer)
                }
                engine = SQLiteEngine(pool: pool, path: path, trace: trace, upgradePending: upgradePending)
            }
            gate.isOpen.store(true, ordering: .releasing)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw StoreError(.notADatabase, "file is not an SQLite database", remedy: .chooseStore, cause: StoreError.Cause(error), path: path)
        }
    }

    /// What a store's path names, following links.
    enum FileKind {
        /// Nothing, or nothing this process may see.
        case missing
        case regular
        case directory
        /// "a device", "a pipe" or "a socket".
        case special(String)
    }

    /// What `path` names, from one `stat`.
    static func fileKind(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFCHR, S_IFBLK: return .special("a device")
        case S_IFIFO: return .special("a pipe")
        default: return .special("a socket")
        }
    }

    /// The directory that holds `path` ("." for a bare file name).
    static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// Opens a store for reading, also one the process cannot write.
    ///
    /// A store in a directory the user cannot write, or a read-only file in WAL mode, cannot be
    /// opened as usual: SQLite needs to create its shared-memory file. Like `ogrinfo`, the store is
    /// then opened as immutable (`?immutable=1`): read as it is on disk, without locks. A store with
    /// the journal of an interrupted first load is first rolled back, when the process can write
    /// it; when it cannot, the reader refuses rather than read half a load.
    private static func openReader(path: String, configuration: Configuration) throws -> DatabaseQueue {
        // SQLite's rule: a journal is hot (the store's file holds half a transaction) when its
        // first byte is not zero; it writes the header just before it changes the store's file.
        let journal = path + "-journal"
        let hotJournal = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: journal)).read(upToCount: 1))?.first.map { $0 != 0 } ?? false
        let directory = directory(of: path)
        let writable = access(path, W_OK) == 0 && access(directory, W_OK) == 0
        if hotJournal {
            guard writable else {
                throw StoreError(.readOnly, "the store has the journal of an interrupted load (\(journal)), which only a user who can write "
                                    + "the store and its directory can roll back", remedy: .rollBackJournal, path: path)
            }
            // Any read-write connection rolls a hot journal back when it first reads.
            var recovery = Configuration()
            recovery.busyMode = .timeout(busyTimeout)
            _ = try DatabaseQueue(path: path, configuration: recovery).writeWithoutTransaction { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            }
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in try checkIdentity(db, path: path, readOnly: true) }
            return queue
        } catch let error as DatabaseError where !writable && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) {
            let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path) + "?immutable=1"
            let queue = try DatabaseQueue(path: uri, configuration: configuration)
            try queue.read { db in try checkIdentity(db, path: path, readOnly: true) }
            return queue
        }
    }

    /// Opens a store for writing, creating it if needed.
    ///
    /// A new store is created and migrated under a temporary name in the same directory, then
    /// linked into place, which fails if another process created the store meanwhile: two
    /// commands creating the same store at once both end up using one complete store, and
    /// neither sees the other's half-made schema.
    /// - Returns: The connections, and whether the store is older than this build and waits for
    ///   the upgrade its first write (or read) makes (``SQLiteEngine``'s `upgradePending`).
    private static func openWriter(path: String, exists: Bool, configuration: Configuration, writer: Writer) throws -> (any DatabaseWriter, Bool) {
        if exists { return try openWriter(path: path, created: false, configuration: configuration, writer: writer) }
        return try creationGate.withLock { _ in
            try openWriter(path: path, created: true, configuration: configuration, writer: writer)
        }
    }

    /// Held while this process creates a store, from its temporary file until the new store is
    /// open and migrated. A process that stops on a signal takes it first (`wells`' interrupt
    /// handler): it then sees either no store and no temporary file, or a whole store that it
    /// can open and remove, never the moment between (a `.creating-` file, a store being opened).
    package static let creationGate = Mutex<Void>(())

    private static func openWriter(path: String, created: Bool, configuration: Configuration, writer: Writer) throws -> (any DatabaseWriter, Bool) {
        let exists = !created
        if created {
            let temporary = path + ".creating-\(UUID().uuidString)"
            defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
            do {
                let pool = try DatabasePool(path: temporary, configuration: configuration)
                try pool.write { try Schema.create($0) }
                try pool.close()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN {
                let directory = directory(of: path)
                let reason = access(directory, W_OK) == 0 ? (error.message ?? "unable to open") : "the directory \(directory) is missing or not writable"
                throw StoreError(.readOnly, "cannot create the store: \(reason); choose a file in a directory you can write", path: path)
            }
            if link(temporary, path) != 0 && errno != EEXIST {
                throw StoreError(.readOnly, "cannot create the store: \(String(cString: strerror(errno)))", path: path)
            }
        }
        if exists { try checkIdentityBeforeWriting(path: path) }
        let pool: any DatabaseWriter = switch writer {
        case .pool: try DatabasePool(path: path, configuration: configuration)
        case .single: try DatabaseQueue(path: path, configuration: configuration)
        }
        let version = try pool.barrierWriteWithoutTransaction { db in
            try checkIdentity(db, path: path, readOnly: false)
            return try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        }
        // An empty file becomes a store now; an older store waits for the command's first write,
        // so that a command that fails before it leaves the file as it was.
        if version == 0 { try Schema.upgrade(pool) }
        return (pool, version != 0 && version < Schema.version)
    }

    /// Refuses a file that is not a WellKit store through a read-only connection, before a writer
    /// switches it to WAL or writes anything: a GeoPackage given to `--db` by mistake stays byte for
    /// byte as it was. (A file this cannot read, such as a store with a hot journal that only a
    /// writer may roll back, goes on to the writer's own check.)
    private static func checkIdentityBeforeWriting(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { try checkIdentity($0, path: path, readOnly: false) }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw error
        } catch {
            return
        }
    }

    /// Checks that the file is empty or a WellKit store of a schema version this build knows;
    /// read-only, that it is a store of exactly this build's version, which needs no migration.
    private static func checkIdentity(_ db: Database, path: String, readOnly: Bool) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let version = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if applicationID == Schema.applicationID {
            if version > Schema.version {
                throw StoreError(
                    .newerSchema,
                    "store has schema version \(version), but this WellKit \(wellKitVersion) knows up to version \(Schema.version)", schemaVersion: version, remedy: .upgradeWellKit(knowsUpTo: Schema.version),
                    path: path)
            }
            if readOnly && version < Schema.version {
                throw StoreError(
                    .olderSchema,
                    "store has schema version \(version)", schemaVersion: version, remedy: .upgradeStore(toVersion: Schema.version),
                    path: path)
            }
            return
        }
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 5")
        if !tables.isEmpty || applicationID != 0 {
            throw StoreError(
                .notAWellStore,
                "not a WellKit store (it holds \(tables.joined(separator: ", ")))", remedy: .chooseNewFile,
                path: path)
        }
        if readOnly {
            throw StoreError(.notAWellStore, "an empty file, not a WellKit store", remedy: .createStore, path: path)
        }
    }
}

extension WellStore {
    /// Brings a store made by an earlier build to this build's schema now, in one transaction
    /// (kill the process at any moment and the store has the old version or the new one), instead
    /// of with the first write or read. A no-op on a current store and on PostgreSQL.
    ///
    /// - Throws: ``StoreError`` when the old rows cannot be upgraded (the store is then as it was).
    public func upgrade() throws {
        try (engine as? SQLiteEngine)?.upgradeIfPending()
    }

    /// Whether any load has been recorded: a store just created holds none.
    package func hasLoads() throws -> Bool { try engine.hasLoads() }

    /// Closes the store's connections, so that SQLite removes its `-wal` and `-shm` files; later use fails.
    package func close() throws { try engine.close() }
}

/// Keeps the SQL log quiet while a store opens and migrates, so it shows the user's queries.
private final class TraceGate: Sendable {
    let isOpen = Atomic<Bool>(false)
}

extension WellStore {
    /// How a store is named wherever WellKit shows it (messages, logs, summaries, the server's
    /// documents): a file by its path; a PostgreSQL URL by user, host, port and database, never its
    /// password, whether in the user-info or a `password=` parameter.
    ///
    /// For example, `postgresql://u:pw@db.example.org/wells?password=pw` is shown as
    /// `postgresql://u@db.example.org:5432/wells`.
    public static func displayName(of location: String) -> String {
        if let provider = StoreEngines.provider(for: location) { return provider.displayName(of: location) }
        return StoreEngines.isServerURL(location) ? StoreEngines.redacted(location) : location
    }

    /// How a store is named to anyone who is not its operator (`wells serve`'s documents and
    /// answers): a file by its file name, with no directory; a PostgreSQL store by its database's
    /// name, with no user, host or port.
    package static func publicName(of location: String) -> String {
        if let provider = StoreEngines.provider(for: location) { return provider.publicName(of: location) }
        return StoreEngines.isServerURL(location) ? "a database" : (location as NSString).lastPathComponent
    }
}
