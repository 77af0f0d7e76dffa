import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The first ``StorageEngine``: one SQLite file with SpatiaLite, through GRDB.
///
/// It owns the GRDB connections and is the only holder of SQL: queries come from
/// ``QueryCompiler/sqlite``, the schema from ``Schema``, the packed R*Tree from ``SpatialIndex``.
/// The store is opened (identity check, migrations) by ``WellStore/init(path:mode:trace:traceValues:)``,
/// which hands the connections over.
final class SQLiteEngine: StorageEngine {
    static var schemaVersion: Int32 { Schema.version }

    /// The GRDB connections to the file: a `DatabasePool`, or for ``WellStore/OpenMode/readOnly`` a
    /// single read-only `DatabaseQueue`, which saves opening a second connection.
    let pool: any DatabaseWriter
    let path: String
    /// Receives each SQL statement with its values, and fetch summaries, when tracing is on.
    let trace: (@Sendable (String) -> Void)?
    let compiler = QueryCompiler.sqlite
    /// Set while the store, opened for writing, is older than this build (``Schema/needsUpgrade(_:)``).
    ///
    /// Nothing is upgraded when the store opens: a command that fails before it writes (a missing
    /// input, a full disk) leaves the file byte for byte as it was. The first write upgrades the
    /// store in its own transaction (``Schema/upgrade(_:)``), so the upgrade commits with it or not
    /// at all; the first read, which needs the current schema, upgrades it alone (``upgradeIfPending()``).
    private let upgradePending: Atomic<Bool>

    init(pool: any DatabaseWriter, path: String, trace: (@Sendable (String) -> Void)?, upgradePending: Bool = false) {
        self.pool = pool
        self.path = path
        self.trace = trace
        self.upgradePending = Atomic(upgradePending)
    }

    /// Brings an older store to this build's schema in one transaction of its own, if it has not
    /// been yet; a no-op on a current store.
    func upgradeIfPending() throws {
        guard upgradePending.load(ordering: .acquiring) else { return }
        try StoreError.translating(path: path) { try Schema.upgrade(pool) }
        upgradePending.store(false, ordering: .releasing)
    }

    /// ``upgradeIfPending()`` without blocking the caller's thread.
    func upgradeIfPending() async throws {
        guard upgradePending.load(ordering: .acquiring) else { return }
        try await StoreError.translating(path: path) { try await pool.writeWithoutTransaction { try Schema.upgradeAlone($0) } }
        upgradePending.store(false, ordering: .releasing)
    }

    // MARK: - Writing

    /// The write phase of a load: ``SQLiteBulkWrite`` in one transaction (``BulkWriter``, the packed
    /// R*Tree, the `loads` row), which upgrades an older store first.
    func write(_ load: consuming PreparedLoad) throws -> LoadSummary {
        let summary = try SQLiteBulkWrite.write(load, to: pool, path: path)
        upgradePending.store(false, ordering: .releasing)
        return summary
    }

    // MARK: - Reading

    /// Compiles `request`, runs `body` on its cached statement in a read, and reports the total
    /// time and rows to the SQL log.
    ///
    /// - Parameters:
    ///   - count: Runs `SELECT count(*)` of the query instead.
    @discardableResult
    func fetch<T>(_ request: WellFetchRequest, _ selection: QueryCompiler.Selection, distanceFrom center: Coordinate? = nil,
                  count: Bool = false, _ body: (Statement) throws -> T) throws -> T {
        let compiled = try compile(request, selection, distanceFrom: center, count: count)
        let clock = ContinuousClock.now
        // One SELECT is atomic by itself, so it needs no transaction around it: `unsafeRead`
        // skips GRDB's BEGIN, schema check and COMMIT, a large part of a city-box fetch (`wells-bench bbox`).
        let result = try readingUnsafely { try body(compiled.statement($0)) }
        reportFetch(since: clock, of: result)
        return result
    }

    /// ``fetch(_:_:distanceFrom:count:_:)`` without blocking the caller: GRDB's asynchronous read
    /// runs `body` on a reader connection's own dispatch queue (never on Swift's cooperative pool)
    /// and resumes the caller when it is done, waiting without a thread when every reader is busy.
    /// Cancelling the task interrupts the statement (`CancellationError`).
    func fetch<T: Sendable>(_ request: WellFetchRequest, _ selection: QueryCompiler.Selection, distanceFrom center: Coordinate? = nil,
                            count: Bool = false, _ body: @escaping @Sendable (Statement) throws -> T) async throws -> T {
        let clock = ContinuousClock.now
        try await upgradeIfPending()
        let result = try await StoreError.translating(path: path) {
            try await pool.unsafeRead { [self] db in
                try body(compile(request, selection, distanceFrom: center, count: count).statement(db))
            }
        }
        reportFetch(since: clock, of: result)
        return result
    }

    /// The compiled SELECT of `request`, or its `count(*)`.
    private func compile(_ request: WellFetchRequest, _ selection: QueryCompiler.Selection, distanceFrom center: Coordinate?,
                         count: Bool) throws -> CompiledFetch {
        let compiled = try compiler.select(request, selection, distanceFrom: center)
        return count ? compiler.count(compiled) : compiled
    }

    /// ``reportFetch(since:count:of:)`` for a fetch's result: its rows, or the count it fetched.
    private func reportFetch<T>(since clock: ContinuousClock.Instant, of result: T) {
        reportFetch(since: clock, count: (result as? any Collection)?.count ?? (result as? Int) ?? 1)
    }

    /// The SQL log's summary line of one fetch: `total fetch execution time: <seconds>s for <count> rows`.
    func reportFetch(since clock: ContinuousClock.Instant, count: Int, of unit: String = "rows") {
        trace?("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(count) \(unit)")
    }

    func pins(_ request: WellFetchRequest) throws -> [WellPin] {
        try fetch(request, .pins) { try WellPin.fetchAll($0) }
    }

    func pins(_ request: WellFetchRequest, distanceFrom center: Coordinate) throws -> [(pin: WellPin, meters: Double)] {
        try fetch(request, .pins, distanceFrom: center) { statement in
            try Row.fetchAll(statement).map { (WellPin($0), $0[4]) }
        }
    }

    func wells(_ request: WellFetchRequest) throws -> [Well] {
        try fetch(request, .wells) { try Well.fetchAll($0) }
    }

    func wells(ids: [Int64]) throws -> [Well] {
        let compiled = try compiler.select(WellFetchRequest(), .wells, ids: ids)
        let clock = ContinuousClock.now
        let wells = try reading { try Well.fetchAll(compiled.statement($0)) }
        reportFetch(since: clock, count: wells.count)
        return wells
    }

    func ids(_ request: WellFetchRequest) throws -> [Int64] {
        try fetch(request, .ids) { try Int64.fetchAll($0) }
    }

    func count(_ request: WellFetchRequest) throws -> Int {
        try fetch(request, .ids, count: true) { try Int.fetchOne($0) ?? 0 }
    }

    // The asynchronous reads of ``WellStore/pins(matching:)`` and its siblings.

    func pins(_ request: WellFetchRequest) async throws -> [WellPin] {
        try await fetch(request, .pins) { try WellPin.fetchAll($0) }
    }

    func wells(_ request: WellFetchRequest) async throws -> [Well] {
        try await fetch(request, .wells) { try Well.fetchAll($0) }
    }

    func ids(_ request: WellFetchRequest) async throws -> [Int64] {
        try await fetch(request, .ids) { try Int64.fetchAll($0) }
    }

    func count(_ request: WellFetchRequest) async throws -> Int {
        try await fetch(request, .ids, count: true) { try Int.fetchOne($0) ?? 0 }
    }

    func dictionaries(_ request: WellFetchRequest, fields: [WellAttribute]) throws -> [[String: WellValue]] {
        let names = fields.map(\.name)
        return try fetch(request, .named(fields)) { statement in
            try Row.fetchAll(statement).map { row in
                Dictionary(zip(names, row.databaseValues.map(WellValue.init)), uniquingKeysWith: { first, _ in first })
            }
        }
    }

    func forEachRow(_ request: WellFetchRequest, fields: [WellAttribute], distanceFrom center: Coordinate?,
                    _ body: (WellRow) throws -> Void) throws {
        try fetch(request, .named(fields), distanceFrom: center) { statement in
            let rows = try Row.fetchCursor(statement)
            var count = 0
            while let row = try rows.next() {
                try body(WellRow(row, of: statement))
                count += 1
            }
            return count
        }
    }

    func aggregate(_ request: WellFetchRequest, keys: [AggregateKey], measures: [WellMeasure]) throws -> [[WellValue]] {
        let compiled = try compiler.aggregate(request, keys: keys, measures: measures)
        let clock = ContinuousClock.now
        let rows = try readingUnsafely { db in
            try Row.fetchAll(compiled.statement(db)).map { row in Array(row.databaseValues.map(WellValue.init)) }
        }
        reportFetch(since: clock, count: rows.count, of: "groups")
        return rows
    }

    func suspects(reason: String?, pinID: Int64?, limit: Int?) throws -> [SuspectWell] {
        let compiled = compiler.suspects(reason: reason, pinID: pinID, limit: limit)
        return try reading { db in
            try Row.fetchAll(compiled.statement(db)).map { row in
                SuspectWell(id: row[0], identifier: row[1], name: row[2], latitude: row[3], longitude: row[4],
                            line: row[5], reason: row[6], detail: row[7], loadID: row[8])
            }
        }
    }

    func extent() throws -> (box: BoundingBox?, count: Int) {
        let compiled = compiler.extent()
        return try reading { db in
            guard let row = try Row.fetchOne(compiled.statement(db)), let count = row[4] as Int?, count > 0,
                  let minLon = row[0] as Double?, let minLat = row[1] as Double?, let maxLon = row[2] as Double?, let maxLat = row[3] as Double? else {
                return (nil, 0)
            }
            return (try BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat), count)
        }
    }

    func extraColumnNames() throws -> [String] {
        let compiled = compiler.extraColumnNames()
        return try reading { try String.fetchAll(compiled.statement($0)) }
    }

    func loadInferences(id: Int64) throws -> String? {
        let compiled = compiler.loadInferences(id: id)
        return try reading { try String.fetchOne(compiled.statement($0)) }
    }

    // MARK: - Sort indexes

    func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let name = compiler.sortIndexName(sortDescriptors) else { return nil }
        let exists = compiler.indexExists(name)
        return try reading { try Bool.fetchOne(exists.statement($0)) ?? false } ? name : nil
    }

    func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let (name, sql) = compiler.createSortIndex(sortDescriptors) else { return nil }
        try writing { try $0.execute(sql: sql.text, arguments: sql.rendered.arguments) }
        return name
    }

    // MARK: - Changes

    /// `PRAGMA data_version` on the process's shared read-only connection to the file: it changes
    /// when another connection commits, this process's writer included.
    func changeToken() throws -> Int64 {
        try ChangeMonitor.shared(path: path).version()
    }

    // MARK: - Housekeeping

    /// Whether any load has been recorded.
    func hasLoads() throws -> Bool {
        try reading { try Bool.fetchOne($0, sql: "SELECT EXISTS (SELECT 1 FROM loads)") ?? false }
    }

    /// Closes the connections; later use fails.
    func close() throws {
        try pool.close()
    }

    func interrupt() {
        pool.interrupt()
    }

    func stopStatements(after timeout: Duration) {}

    func changeMonitor() throws -> ChangeMonitor {
        try ChangeMonitor.shared(path: path)
    }

    /// A GRDB region observation of pins and details: this process's commits through the pool.
    func observeCommits(onError: @escaping @Sendable (any Error) -> Void, _ onCommit: @escaping @Sendable () -> Void) throws -> @Sendable () -> Void {
        try upgradeIfPending()
        let region = DatabaseRegionObservation(tracking: Table("pins"), Table("details"))
        let cancellable = region.start(in: pool, onError: onError) { _ in onCommit() }
        return { cancellable.cancel() }
    }
}

extension SQLiteEngine {
    // The connections' reads and writes, with SQLite's errors about the file (damage, I/O, a full
    // disk, a lock) as ``StoreError``s that name the store and what to do: every command exits
    // with the same code for the same fault.

    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        try upgradeIfPending()
        return try StoreError.translating(path: path) { try pool.read(body) }
    }

    /// A read without GRDB's transaction, for one statement (see ``fetch(_:_:distanceFrom:count:_:)``).
    func readingUnsafely<T>(_ body: (Database) throws -> T) throws -> T {
        try upgradeIfPending()
        return try StoreError.translating(path: path) { try pool.unsafeRead(body) }
    }

    /// `body` in a transaction that first upgrades an older store (``Schema/upgrade(_:)``), so
    /// that the upgrade commits with the write or not at all.
    func writing<T>(_ body: (Database) throws -> T) throws -> T {
        let result = try StoreError.translating(path: path) {
            try pool.writeWithoutTransaction { db in
                let upgrade = upgradePending.load(ordering: .acquiring)
                if upgrade { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                defer { if upgrade { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                var result: T?
                try db.inTransaction(.immediate) {
                    try Schema.upgrade(db)
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
        upgradePending.store(false, ordering: .releasing)
        return result
    }
}
