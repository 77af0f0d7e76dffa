import WellKit
import Foundation
import GRDB
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The second ``StorageEngine``: a PostgreSQL database with PostGIS, through postgres-nio.
///
/// The same tables as a file (``PostgresSchema``), the queries of ``QueryCompiler/postgres``, loads
/// by COPY (``PostgresBulkWrite``), and a change token that a trigger advances and announces with
/// `NOTIFY`. The queries run on postgres-nio's connection pool (``PostgresPool``, a
/// `PostgresClient`): each call leases a connection of its own, so calls from several threads or
/// tasks run at once. The engine's work is `async`; the seam's synchronous calls wait for it
/// through ``EventLoopBridge``, while ``WellStore``'s async fetches await it with no thread
/// blocked. ``interrupt()`` stops the calls in progress from another thread, a server's request
/// timeout: the client-side deadline that a server which stopped answering, and so enforces no
/// `statement_timeout`, needs.
final class PostgresEngine: StorageEngine {
    static var schemaVersion: Int32 { PostgresSchema.version }

    let location: PostgresLocation
    let bridge: EventLoopBridge
    let pool: PostgresPool
    let readOnly: Bool
    let trace: (@Sendable (String) -> Void)?
    let compiler = QueryCompiler.postgres

    /// Connects to `location`, checks that the database is a WellKit store of a version this build
    /// reads (or, with `.create`, makes it one), and starts the pool.
    ///
    /// The checks run on a connection of their own, closed after them (see ``connect(_:)``: a
    /// connection that fails is told at once); the pool connects when the first query needs it.
    init(location: PostgresLocation, mode: WellStore.OpenMode, trace: (@Sendable (String) -> Void)?) throws {
        self.location = location
        self.readOnly = mode == .readOnly
        self.trace = trace
        let bridge = EventLoopBridge(MultiThreadedEventLoopGroup.singleton.next())
        self.bridge = bridge
        let (connection, tls) = try bridge.wait { try await Self.connect(location) }
        var logger = Logger.wellKitPostgres
        logger[metadataKey: "wellkit.store"] = "\(location.server)/\(location.database)"
        pool = PostgresPool(client: PostgresClient(configuration: Self.clientConfiguration(location, tls: tls),
                                                   eventLoopGroup: RoundRobinEventLoopGroup(base: .singleton), backgroundLogger: logger),
                            executor: bridge, location: location)
        defer { connection.closeNow() }
        try bridge.wait { try await prepareStore(mode, on: connection) }
    }

    /// Stops what the calls in progress wait for: a query's answer (its connection is closed, so
    /// the wait fails as for a connection the server closed) or a lease of a connection (the
    /// wait is cancelled). They throw ``StoreError/Code/connectionLost``; the next call gets a
    /// connection anew. An interrupt when no call runs does nothing, as SQLite's, so the next
    /// call is not stopped by it. (The server's backend of a closed connection runs its statement
    /// on until its `statement_timeout`.)
    ///
    /// From any thread; never blocks. A server that stopped answering (`kill -STOP`, a
    /// partition) enforces no `statement_timeout`, so this is what bounds a `wells serve` request then.
    func interrupt() {
        pool.interrupt()
    }

    func stopStatements(after timeout: Duration) throws {
        let milliseconds = max(1, Int64((timeout / .milliseconds(1)).rounded(.up)))
        try setSessionSetting("statement_timeout", "\(milliseconds)ms")
    }

    /// Sets a setting of the sessions, on every pooled connection (each makes it at its next
    /// lease), and makes it now on one, so that a value the server refuses is told here. A
    /// connection found lost meanwhile is no failure: the next lease makes the setting.
    func setSessionSetting(_ name: String, _ value: String) throws {
        pool.set(name, value)
        do {
            try bridge.wait { try await withConnection { _ in } }
        } catch let error as StoreError where error.code == .connectionLost {}
    }

    var poolStatistics: StorePoolStatistics? { pool.statistics }

    // MARK: - Running SQL

    /// `literal`'s text for PostgreSQL: `$1::float8, $2::text…` for its `?`s, each cast to the type
    /// its value is bound as (what postgres-nio declares anyway, written into the text so that
    /// pgbench's replay of the SQL log types them the same).
    static func sql(_ literal: BoundSQL) -> String {
        var sql = ""
        sql.reserveCapacity(literal.text.utf8.count + literal.values.count * 10)
        var values = literal.values.makeIterator()
        var number = 0
        // The compiler's text has no `?` but its placeholders: its literals are names and keywords.
        for piece in literal.text.split(separator: "?", omittingEmptySubsequences: false) {
            if number > 0 {
                sql += "$\(number)"
                if let cast = values.next()?.postgresCast { sql += "::" + cast }
            }
            sql += piece
            number += 1
        }
        return sql
    }

    /// `literal` as postgres-nio's query: its text (``sql(_:)``) and its values, bound natively.
    static func query(_ literal: BoundSQL) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: literal.values.count)
        for value in literal.values { value.bind(to: &bindings) }
        return PostgresQuery(unsafeSQL: sql(literal), binds: bindings)
    }

    /// Runs `body` with a connection leased from the pool, as one call that ``interrupt()``
    /// stops, translating failures (an error of the caller's own row handler passes unchanged).
    func withConnection<T>(during: String? = nil, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await pool.withConnection(body)
        } catch let error as CallerError {
            throw error.error
        } catch {
            throw Self.translate(error, location, during: during)
        }
    }

    /// Runs `literal` on a leased connection, or on `connection`, calling `row` on each row as it
    /// arrives: the rows stream, none are held.
    ///
    /// postgres-nio's callback API rather than its async row sequence, which cost a task hop
    /// through Swift's executors per row: `row` runs on the connection's event loop while the
    /// call waits, so the socket is read no faster than `row` consumes. Each query is sent as an
    /// unnamed statement of the extended protocol (what `pgbench -M extended` does); cells are
    /// read by ``PostgresCells``.
    func rows(_ literal: BoundSQL, on connection: PostgresConnection? = nil, during: String? = nil,
              _ row: (inout PostgresCells) throws -> Void) async throws {
        let query = Self.query(literal)
        trace?(Self.traceLine(query.sql, literal))
        if let connection { return try await forEach(query, on: connection, row) }
        try await withConnection(during: during) { try await forEach(query, on: $0, row) }
    }

    /// Runs `query` on `connection`, calling `row` on each row; an error `row` throws ends the
    /// query and comes out as a ``CallerError``.
    private func forEach(_ query: PostgresQuery, on connection: PostgresConnection, _ row: (inout PostgresCells) throws -> Void) async throws {
        try await withoutActuallyEscaping(row) { row in
            let consumer = RowConsumer(row)
            defer { consumer.body = nil }
            do {
                _ = try await connection.query(query, logger: .wellKitPostgres, consumer.onRow).get()
            } catch {
                throw consumer.failure.map(CallerError.init) ?? error
            }
        }
    }

    /// The SQL log's line of a statement: its text and bound values.
    private static func traceLine(_ sql: String, _ literal: BoundSQL) -> String {
        sql + (literal.values.isEmpty ? "" : " -- \(literal.values.map(\.description))")
    }

    /// Every row of `literal`, decoded by `decode`, with the fetch's summary in the SQL log.
    func all<T>(_ literal: BoundSQL, on connection: PostgresConnection? = nil, _ decode: (inout PostgresCells) throws -> T) async throws -> [T] {
        let clock = ContinuousClock.now
        var result: [T] = []
        try await rows(literal, on: connection) { result.append(try decode(&$0)) }
        reportFetch(since: clock, count: result.count)
        return result
    }

    /// ``all(_:on:_:)`` for the synchronous callers (``check(quick:)``).
    func allBlocking<T>(_ literal: BoundSQL, _ decode: (inout PostgresCells) throws -> T) throws -> [T] {
        try bridge.wait { try await all(literal, decode) }
    }

    /// Runs `body` in a transaction on `connection`: `begin`, then `COMMIT`. When anything fails,
    /// the connection is closed, which rolls the transaction back on the server, rather than sent
    /// a `ROLLBACK`: a query on a connection the server has closed may never answer (a load whose
    /// connection was killed hung on it). The pool replaces the connection.
    func inTransaction<T>(_ begin: String = "BEGIN", on connection: PostgresConnection, _ body: () async throws -> T) async throws -> T {
        do {
            try await execute(begin, on: connection)
            let result = try await body()
            try await execute("COMMIT", on: connection)
            return result
        } catch {
            pool.close(connection)
            throw error
        }
    }

    /// Runs one statement, without arguments, for its effect.
    func execute(_ sql: String, on connection: PostgresConnection) async throws {
        trace?(sql)
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: .wellKitPostgres)
    }

    /// The SQL log's summary line of one fetch, as the file engine writes it.
    func reportFetch(since clock: ContinuousClock.Instant, count: Int, of unit: String = "rows") {
        trace?("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(count) \(unit)")
    }

    // MARK: - Writing

    func write(_ load: consuming PreparedLoad) throws -> LoadSummary {
        guard !readOnly else { throw StoreError(.readOnly, "the store was opened read-only", path: location.description) }
        return try PostgresBulkWrite(engine: self).write(load)
    }

    // MARK: - Reading
    // Each read is async; the seam's synchronous calls wait for it (``EventLoopBridge/wait(_:)``).

    func pins(_ request: WellFetchRequest) async throws -> [WellPin] {
        try await all(compiler.select(request, .pins).literal) { row in
            WellPin(id: try row.int64(), name: try row.string(), latitude: try row.double(), longitude: try row.double())
        }
    }

    func pins(_ request: WellFetchRequest) throws -> [WellPin] {
        try bridge.wait { try await pins(request) }
    }

    func pins(_ request: WellFetchRequest, distanceFrom center: Coordinate) throws -> [(pin: WellPin, meters: Double)] {
        try bridge.wait {
            try await all(compiler.select(request, .pins, distanceFrom: center).literal) { row in
                (WellPin(id: try row.int64(), name: try row.string(), latitude: try row.double(), longitude: try row.double()), try row.double())
            }
        }
    }

    func wells(_ request: WellFetchRequest) async throws -> [Well] {
        try await all(compiler.select(request, .wells).literal) { Well(row: WellRow(values: try $0.values())) }
    }

    func wells(_ request: WellFetchRequest) throws -> [Well] {
        try bridge.wait { try await wells(request) }
    }

    func wells(ids: [Int64]) throws -> [Well] {
        try bridge.wait {
            try await all(compiler.select(WellFetchRequest(), .wells, ids: ids).literal) { Well(row: WellRow(values: try $0.values())) }
        }
    }

    func ids(_ request: WellFetchRequest) async throws -> [Int64] {
        try await all(compiler.select(request, .ids).literal) { try $0.int64() }
    }

    func ids(_ request: WellFetchRequest) throws -> [Int64] {
        try bridge.wait { try await ids(request) }
    }

    func count(_ request: WellFetchRequest) async throws -> Int {
        try await all(compiler.count(compiler.select(request, .ids)).literal) { try $0.int() }.first ?? 0
    }

    func count(_ request: WellFetchRequest) throws -> Int {
        try bridge.wait { try await count(request) }
    }

    func dictionaries(_ request: WellFetchRequest, fields: [WellAttribute]) throws -> [[String: WellValue]] {
        try bridge.wait {
            try await all(compiler.select(request, .named(fields)).literal) { row in
                Dictionary(zip(fields.map(\.name), try row.values()), uniquingKeysWith: { first, _ in first })
            }
        }
    }

    func forEachRow(_ request: WellFetchRequest, fields: [WellAttribute], distanceFrom center: Coordinate?,
                    _ body: (WellRow) throws -> Void) throws {
        let literal = try compiler.select(request, .named(fields), distanceFrom: center).literal
        try bridge.wait {
            let clock = ContinuousClock.now
            var count = 0
            try await rows(literal) { row in
                try body(WellRow(values: try row.values()))
                count += 1
            }
            reportFetch(since: clock, count: count)
        }
    }

    func aggregate(_ request: WellFetchRequest, keys: [AggregateKey], measures: [WellMeasure]) throws -> [[WellValue]] {
        try bridge.wait { try await all(compiler.aggregate(request, keys: keys, measures: measures).literal) { try $0.values() } }
    }

    func suspects(reason: String?, pinID: Int64?, limit: Int?) throws -> [SuspectWell] {
        try bridge.wait {
            try await all(compiler.suspects(reason: reason, pinID: pinID, limit: limit).literal) { row in
                SuspectWell(id: try row.int64(), identifier: try row.requiredString(), name: try row.string(), latitude: try row.double(),
                            longitude: try row.double(), line: try row.int(), reason: try row.requiredString(), detail: try row.requiredString(),
                            loadID: try row.int64())
            }
        }
    }

    func extent() throws -> (box: BoundingBox?, count: Int) {
        let rows = try bridge.wait {
            try await all(compiler.extent().literal) { (try $0.optionalDouble(), try $0.optionalDouble(), try $0.optionalDouble(), try $0.optionalDouble(), try $0.int()) }
        }
        guard let (minLon, minLat, maxLon, maxLat, count) = rows.first, count > 0,
              let minLon, let minLat, let maxLon, let maxLat else { return (nil, 0) }
        return (try BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat), count)
    }

    func extraColumnNames() throws -> [String] {
        try bridge.wait { try await all(compiler.extraColumnNames().literal) { try $0.requiredString() } }
    }

    func loadInferences(id: Int64) throws -> String? {
        try bridge.wait { try await all(compiler.loadInferences(id: id).literal) { try $0.string() }.first ?? nil }
    }

    // MARK: - Sort indexes

    func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let name = compiler.sortIndexName(sortDescriptors) else { return nil }
        return try bridge.wait { try await all(compiler.indexExists(name).literal) { try $0.bool() }.first == true ? name : nil }
    }

    func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let (name, sql) = compiler.createSortIndex(sortDescriptors) else { return nil }
        try bridge.wait { try await withConnection(during: "creating the index \(name)") { try await execute(sql.text, on: $0) } }
        return name
    }

    // MARK: - Housekeeping

    func hasLoads() throws -> Bool {
        try bridge.wait { try await all("SELECT EXISTS (SELECT 1 FROM loads)") { try $0.bool() }.first ?? false }
    }

    /// Closes the pool's connections, waiting until they are closed; later calls fail.
    func close() throws {
        try bridge.wait { await pool.close() }
    }
}

/// An error thrown by a caller's row handler, carried through postgres-nio and the pool so that
/// it reaches the caller as it is, not as a PostgreSQL failure.
struct CallerError: Error, @unchecked Sendable {
    let error: any Error
}
