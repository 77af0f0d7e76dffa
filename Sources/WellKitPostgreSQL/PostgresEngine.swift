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
/// `NOTIFY`. The engine's calls are synchronous, as the seam is: each waits for postgres-nio on
/// the connection's event loop (``EventLoopBridge``). One connection serves the queries, one at a
/// time; a load opens a connection of its own for its transaction. ``interrupt()`` stops the
/// call in progress from another thread, a server's request timeout: the client-side deadline
/// that a server which stopped answering, and so enforces no `statement_timeout`, needs.
final class PostgresEngine: StorageEngine {
    static var schemaVersion: Int32 { PostgresSchema.version }

    let location: PostgresLocation
    let bridge: EventLoopBridge
    /// The queries' connection, used under `gate`; see ``liveConnection()``.
    private let live: UncheckedBox<PostgresConnection>
    /// Whether the connection was given up after a lost-connection error (under `gate`).
    private let abandoned = UncheckedBox(false)
    /// Ends ``wait(_:unlessClosed:)`` when the connection closes.
    private let closing = CloseWatch()
    /// Session settings made with ``setSessionSetting(_:_:)``, made again on a new connection.
    private let settings = UncheckedBox<[(name: String, value: String)]>([])
    let readOnly: Bool
    let trace: (@Sendable (String) -> Void)?
    let compiler = QueryCompiler.postgres
    /// One operation at a time on the connection, so that a transaction's statements stay together.
    private let gate = NSLock()
    /// The statements prepared on `connection`, used under `gate`.
    private let statements = UncheckedBox(PostgresStatements())
    /// What the call under `gate` waits for, which ``interrupt()`` stops without taking `gate`.
    private let interruption: Interruption

    /// Connects to `location`, checks that the database is a WellKit store of a version this build
    /// reads (or, with `.create`, makes it one), and keeps the connection.
    init(location: PostgresLocation, mode: WellStore.OpenMode, trace: (@Sendable (String) -> Void)?) throws {
        self.location = location
        self.readOnly = mode == .readOnly
        self.trace = trace
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        bridge = EventLoopBridge(loop)
        interruption = Interruption(location)
        let connection = try Self.connect(location, on: loop, bridge: bridge)
        live = UncheckedBox(connection)
        closing.watch(connection)
        do {
            try prepareStore(mode)
        } catch {
            Self.close(connection)
            throw error
        }
    }

    deinit {
        Self.close(live.value)
    }

    /// The queries' connection, under `gate`: a new one when the server has closed the last
    /// (a restart, `pg_terminate_backend`, a failover), with the session's settings made again and
    /// no statements prepared. The query that found the connection lost failed with
    /// ``StoreError/Code/connectionLost``; the next one connects anew, so that a long-running
    /// process (`wells serve`) outlives a server restart.
    ///
    /// Both the attempt and the connection it returns are what ``interrupt()`` stops from here on.
    private func liveConnection() throws -> PostgresConnection {
        guard live.value.isClosed || abandoned.value else {
            try interruption.watch(live.value)
            return live.value
        }
        let connection = try Self.connect(location, on: bridge.loop, bridge: bridge, interruption: interruption)
        do {
            try interruption.watch(connection)
            for setting in settings.value {
                _ = try bridge.wait { try await connection.query(Self.query(Self.setting(setting.name, setting.value)), logger: .wellKitPostgres) }
            }
        } catch {
            Self.close(connection)
            throw failure(error, during: "setting up a new connection")
        }
        statements.value = PostgresStatements()
        live.value = connection
        abandoned.value = false
        closing.watch(connection)
        return connection
    }

    /// `error`, having given up the connection (under `gate`) when it says the connection was
    /// lost: the next query connects anew even if postgres-nio has not yet seen the close.
    private func lost(_ error: any Error) -> any Error {
        if (error as? StoreError)?.code == .connectionLost, !abandoned.value {
            abandoned.value = true
            Self.close(live.value)
        }
        return error
    }

    /// `error` as the caller sees it: the interrupt's own error when ``interrupt()`` stopped the
    /// call (whatever postgres-nio reported for the connection it closed), else translated.
    private func failure(_ error: any Error, during: String?) -> any Error {
        interruption.isInterrupted ? interruption.error : Self.translate(error, location, during: during)
    }

    /// Runs `body` under `gate` as one call, which ``interrupt()`` stops. An interrupted call
    /// leaves no connection behind, even one whose last wait had ended before the interrupt
    /// closed it: the next call connects anew rather than finding it closing.
    private func call<T>(_ body: () throws -> T) rethrows -> T {
        gate.lock()
        interruption.begin()
        defer {
            if interruption.end() {
                abandoned.value = true
                Self.close(live.value)
            }
            gate.unlock()
        }
        return try body()
    }

    /// Stops what the call in progress waits for: the connection's answer to a query (the
    /// connection is closed, so the wait fails as for a connection the server closed) or a new
    /// connection (the attempt is abandoned, and a connection that completes later is closed).
    /// The call throws ``StoreError/Code/connectionLost``; the next call connects anew. An
    /// interrupt when no call runs does nothing, as SQLite's, so the next call is not stopped by it.
    ///
    /// From any thread, without `gate`, which the waiting call holds; never blocks. A server that
    /// stopped answering (`kill -STOP`, a partition) enforces no `statement_timeout`, so this is
    /// what bounds a `wells serve` request then. (The server's backend of a closed connection runs
    /// its statement on until its `statement_timeout`.)
    func interrupt() {
        interruption.interrupt()
    }

    func stopStatements(after timeout: Duration) throws {
        let milliseconds = max(1, Int64((timeout / .milliseconds(1)).rounded(.up)))
        try setSessionSetting("statement_timeout", "\(milliseconds)ms")
    }

    /// Sets a setting of the session, on this connection and on any that replaces it.
    func setSessionSetting(_ name: String, _ value: String) throws {
        _ = try all(Self.setting(name, value)) { try $0.string() }
        gate.withLock {
            settings.value.removeAll { $0.name == name }
            settings.value.append((name, value))
        }
    }

    /// `set_config(name, value, false)`: a setting for the rest of the session.
    private static func setting(_ name: String, _ value: String) -> BoundSQL {
        "SELECT set_config(\(name), \(value), false)"
    }

    /// Closes `connection` without waiting; it stays alive until it has closed.
    static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    // MARK: - Running SQL

    /// `literal`'s text for PostgreSQL: `$1::float8, $2::text…` for its `?`s, each cast to the type
    /// its value is bound as (what postgres-nio declares anyway, written into the text so that a
    /// prepared statement's parameters get the same types).
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

    /// `literal` as postgres-nio's query: its text (``sql(_:)``) and its values as bindings.
    static func query(_ literal: BoundSQL) -> PostgresQuery { query(sql(literal), literal) }

    private static func query(_ sql: String, _ literal: BoundSQL) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: literal.values.count)
        for value in literal.values { bindings.append(value.postgresData) }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// Runs `body` with the connection, one operation at a time, translating failures.
    /// (The wait ends when ``interrupt()`` closes the connection: postgres-nio fails the
    /// connection's queries when it closes.)
    func withConnection<T>(during: String? = nil, _ body: (PostgresConnection) async throws -> T) throws -> T {
        try call {
            do {
                let connection = try liveConnection()
                return try bridge.wait { try await body(connection) }
            } catch {
                throw lost(failure(error, during: during))
            }
        }
    }

    /// Runs `literal` on the connection, one operation at a time, calling `row` on each row as it
    /// arrives, and waits for the end: the rows stream, none are held.
    ///
    /// The queries' path, kept short, as `perf` showed where a city box's client time went:
    /// - postgres-nio's callback API, waited for on the caller's thread, rather than its async
    ///   row sequence in a task, which cost a task and a hop through Swift's executors per row.
    ///   `row` runs on the event loop while the caller waits, so the socket is read no faster
    ///   than `row` consumes.
    /// - A text sent before is run as a prepared statement (``PostgresStatements``).
    /// - Cells are read by ``PostgresCells``.
    func rows(_ literal: BoundSQL, during: String? = nil, _ row: (inout PostgresCells) throws -> Void) throws {
        precondition(!bridge.loop.inEventLoop, "WellKit's PostgreSQL engine was called on its own event loop")
        try call { try rowsUnderGate(literal, during: during, row) }
    }

    /// ``rows(_:during:_:)``'s work, in a ``call(_:)``.
    private func rowsUnderGate(_ literal: BoundSQL, during: String?, _ row: (inout PostgresCells) throws -> Void) throws {
        let sql = Self.sql(literal)
        trace?(Self.traceLine(sql, literal))
        try withoutActuallyEscaping(row) { row in
            let consumer = RowConsumer(row)
            defer { consumer.body = nil }
            do {
                let connection = try liveConnection()
                if let statement = try preparedStatement(for: sql, on: connection) {
                    do {
                        return try wait(statement.execute(literal.values.map(\.postgresData), consumer.onRow), unlessClosed: connection)
                    } catch where ["0A000", "26000"].contains(Self.serverError(error)?.state) {
                        // The plan went stale (a table it reads was replaced: "cached plan must not
                        // change result type") or the statement is gone: forget it, run the text unnamed.
                        statements.value.remove(sql)?.deallocate().whenComplete { _ in }
                    }
                }
                _ = try wait(connection.query(Self.query(sql, literal), logger: .wellKitPostgres, consumer.onRow), unlessClosed: connection)
            } catch {
                throw consumer.failure ?? lost(failure(error, during: during))
            }
        }
    }

    /// How many statements are prepared on the connection (for tests).
    var preparedStatementCount: Int {
        gate.withLock { statements.value.count }
    }

    /// The statement prepared for `sql`, preparing it if this is the second time it is sent; nil
    /// to send it unnamed.
    private func preparedStatement(for sql: String, on connection: PostgresConnection) throws -> PreparedQuery? {
        let (statement, shouldPrepare) = statements.value.lookup(sql)
        if let statement { return statement }
        guard shouldPrepare else { return nil }
        let prepared = try wait(connection.prepare(query: sql), unlessClosed: connection)
        statements.value.insert(prepared, for: sql)?.deallocate().whenComplete { _ in }
        return prepared
    }

    /// Waits for `future`, or fails as a lost connection once `connection` has closed: postgres-nio's
    /// prepared statements (`prepare(query:)`, `PreparedQuery.execute`) never answer on a connection
    /// that closes before or while they run (`wells serve` hung after `pg_terminate_backend`), and
    /// ``interrupt()`` ends a wait by closing the connection.
    /// Under `gate`, so one wait at a time: the connection's one close callback ends it.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>, unlessClosed connection: PostgresConnection) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        let answered = StopFlag()
        @Sendable func answer(_ result: Result<T, any Error>) {
            if answered.flag.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { promise.completeWith(result) }
        }
        closing.waiter.withLock { $0 = (connection.id, { answer(.failure(PostgresError.connectionClosed)) }) }
        defer { closing.waiter.withLock { $0 = nil } }
        if connection.isClosed { answer(.failure(PostgresError.connectionClosed)) }
        future.whenComplete { answer($0) }
        return try promise.futureResult.wait()
    }

    /// Runs `literal`, calling `row` on each row as it arrives: the rows stream, none are held.
    /// For a call inside ``withConnection(during:_:)``, as a transaction's statements are.
    func forEach(_ literal: BoundSQL, on connection: PostgresConnection, _ row: (inout PostgresCells) throws -> Void) async throws {
        let query = Self.query(literal)
        trace?(Self.traceLine(query.sql, literal))
        try await withoutActuallyEscaping(row) { row in
            let consumer = RowConsumer(row)
            defer { consumer.body = nil }
            do {
                _ = try await connection.query(query, logger: .wellKitPostgres, consumer.onRow).get()
            } catch {
                throw consumer.failure ?? error
            }
        }
    }

    /// The SQL log's line of a statement: its text and bound values.
    private static func traceLine(_ sql: String, _ literal: BoundSQL) -> String {
        sql + (literal.values.isEmpty ? "" : " -- \(literal.values.map(\.description))")
    }

    /// Every row of `literal`, decoded by `decode`, with the fetch's summary in the SQL log.
    func all<T>(_ literal: BoundSQL, _ decode: (inout PostgresCells) throws -> T) throws -> [T] {
        let clock = ContinuousClock.now
        var result: [T] = []
        try rows(literal) { result.append(try decode(&$0)) }
        reportFetch(since: clock, count: result.count)
        return result
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

    // MARK: - Opening

    /// Checks PostGIS and the store's identity and version; creates the tables for `.create`.
    private func prepareStore(_ mode: WellStore.OpenMode) throws {
        // One round trip for both checks: every open of a store (each `wells bbox`) makes it.
        let (postgis, meta) = try all("""
            SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis'), to_regclass('wellkit_meta') IS NOT NULL
            """) { (try $0.bool(), try $0.bool()) }[0]
        if !postgis {
            guard mode != .readOnly else {
                throw StoreError(.missingExtension, "the database \(location.database) has no PostGIS extension, so it holds no WellKit store",
                                 remedy: .runSQL("CREATE EXTENSION postgis;"), path: location.description)
            }
            do {
                try withConnection { try await execute("CREATE EXTENSION IF NOT EXISTS postgis", on: $0) }
            } catch let error as StoreError where error.code == .readOnly || error.code == .serverError {
                throw StoreError(.missingExtension, "the database \(location.database) has no PostGIS extension, and user \(location.user) "
                                    + "may not create it (\(error.reason))", remedy: .runSQL("CREATE EXTENSION postgis;"), path: location.description)
            }
        }
        if try identity(hasMeta: meta) == nil {
            guard mode == .create else {
                throw StoreError(.notFound, "no WellKit store in the database \(location.database)", remedy: .createStore, path: location.description)
            }
            try createSchema()
        }
    }

    /// The store's schema version, or nil when the database holds no WellKit store (but no
    /// table of the same names either).
    private func identity(hasMeta: Bool) throws -> Int32? {
        if hasMeta {
            let pairs = try all("SELECT key, value FROM wellkit_meta") { (try $0.requiredString(), try $0.requiredString()) }
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
        let clashes = try all("""
            SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
              AND table_name IN ('pins', 'details', 'loads', 'rejects', 'suspects') ORDER BY 1
            """) { try $0.requiredString() }
        if !clashes.isEmpty {
            throw StoreError(.notAWellStore, "not a WellKit store: the database \(location.database) already has tables named \(clashes.joined(separator: ", "))",
                             remedy: .chooseStore, path: location.description)
        }
        return nil
    }

    /// Creates the tables in one transaction, under the load lock, so that two processes
    /// creating the store at once make it once.
    private func createSchema() throws {
        try withConnection(during: "creating the store's tables") { connection in
            try await execute("BEGIN", on: connection)
            do {
                try await execute("SELECT pg_advisory_xact_lock(\(PostgresSchema.loadLock))", on: connection)
                let exists = try await connection.query("SELECT to_regclass('wellkit_meta') IS NOT NULL", logger: .wellKitPostgres)
                    .collect().first?.decode(Bool.self) ?? false
                if !exists {
                    try await execute("CREATE EXTENSION IF NOT EXISTS unaccent", on: connection)
                    for statement in PostgresSchema.tables { try await execute(statement, on: connection) }
                }
                try await execute("COMMIT", on: connection)
            } catch {
                try? await execute("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    // MARK: - Writing

    func write(_ load: consuming PreparedLoad) throws -> LoadSummary {
        guard !readOnly else { throw StoreError(.readOnly, "the store was opened read-only", path: location.description) }
        return try PostgresBulkWrite(engine: self).write(load)
    }

    // MARK: - Reading

    func pins(_ request: WellFetchRequest) throws -> [WellPin] {
        try all(compiler.select(request, .pins).literal) { row in
            WellPin(id: try row.int64(), name: try row.string(), latitude: try row.double(), longitude: try row.double())
        }
    }

    func pins(_ request: WellFetchRequest, distanceFrom center: Coordinate) throws -> [(pin: WellPin, meters: Double)] {
        try all(compiler.select(request, .pins, distanceFrom: center).literal) { row in
            (WellPin(id: try row.int64(), name: try row.string(), latitude: try row.double(), longitude: try row.double()), try row.double())
        }
    }

    func wells(_ request: WellFetchRequest) throws -> [Well] {
        try all(compiler.select(request, .wells).literal) { Well(row: WellRow(values: try $0.values())) }
    }

    func wells(ids: [Int64]) throws -> [Well] {
        try all(compiler.select(WellFetchRequest(), .wells, ids: ids).literal) { Well(row: WellRow(values: try $0.values())) }
    }

    func ids(_ request: WellFetchRequest) throws -> [Int64] {
        try all(compiler.select(request, .ids).literal) { try $0.int64() }
    }

    func count(_ request: WellFetchRequest) throws -> Int {
        try all(compiler.count(compiler.select(request, .ids)).literal) { try $0.int() }.first ?? 0
    }

    func dictionaries(_ request: WellFetchRequest, fields: [WellAttribute]) throws -> [[String: WellValue]] {
        try all(compiler.select(request, .named(fields)).literal) { row in
            Dictionary(zip(fields.map(\.name), try row.values()), uniquingKeysWith: { first, _ in first })
        }
    }

    func forEachRow(_ request: WellFetchRequest, fields: [WellAttribute], distanceFrom center: Coordinate?,
                    _ body: (WellRow) throws -> Void) throws {
        let literal = try compiler.select(request, .named(fields), distanceFrom: center).literal
        let clock = ContinuousClock.now
        var count = 0
        try rows(literal) { row in
            try body(WellRow(values: try row.values()))
            count += 1
        }
        reportFetch(since: clock, count: count)
    }

    func aggregate(_ request: WellFetchRequest, keys: [AggregateKey], measures: [WellMeasure]) throws -> [[WellValue]] {
        try all(compiler.aggregate(request, keys: keys, measures: measures).literal) { try $0.values() }
    }

    func suspects(reason: String?, pinID: Int64?, limit: Int?) throws -> [SuspectWell] {
        try all(compiler.suspects(reason: reason, pinID: pinID, limit: limit).literal) { row in
            SuspectWell(id: try row.int64(), identifier: try row.requiredString(), name: try row.string(), latitude: try row.double(),
                        longitude: try row.double(), line: try row.int(), reason: try row.requiredString(), detail: try row.requiredString(),
                        loadID: try row.int64())
        }
    }

    func extent() throws -> (box: BoundingBox?, count: Int) {
        let rows = try all(compiler.extent().literal) { (try $0.optionalDouble(), try $0.optionalDouble(), try $0.optionalDouble(), try $0.optionalDouble(), try $0.int()) }
        guard let (minLon, minLat, maxLon, maxLat, count) = rows.first, count > 0,
              let minLon, let minLat, let maxLon, let maxLat else { return (nil, 0) }
        return (try BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat), count)
    }

    func extraColumnNames() throws -> [String] {
        try all(compiler.extraColumnNames().literal) { try $0.requiredString() }
    }

    // MARK: - Batched results

    func snapshot(_ request: WellFetchRequest, sectionKey: WellField?) throws -> ResultsSnapshot {
        let literal = try compiler.ids(request, sectionKey: sectionKey).literal
        return try withConnection { try await snapshot(literal, sectioned: sectionKey != nil, on: $0) }
    }

    func load<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> [Int64: Element] {
        guard !ids.isEmpty else { return [:] }
        let (literal, width) = try loadQuery(ids, as: type)
        let clock = ContinuousClock.now
        let loaded = try withConnection { try await load(literal, width: width, as: type, on: $0) }
        reportFetch(since: clock, count: loaded.count)
        return loaded
    }

    func snapshot<Element: BatchLoadable>(_ request: WellFetchRequest, sectionKey: WellField?, reloading ids: [Int64],
                                          as type: Element.Type) throws -> (ResultsSnapshot, [Int64: Element]) {
        let literal = try compiler.ids(request, sectionKey: sectionKey).literal
        let reload = ids.isEmpty ? nil : try loadQuery(ids, as: type)
        // One snapshot of the database for both reads, as the file's read transaction.
        return try withConnection { connection in
            try await execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", on: connection)
            do {
                let snapshot = try await snapshot(literal, sectioned: sectionKey != nil, on: connection)
                var rows: [Int64: Element] = [:]
                if let reload { rows = try await load(reload.literal, width: reload.width, as: type, on: connection) }
                try await execute("COMMIT", on: connection)
                return (snapshot, rows)
            } catch {
                try? await execute("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    /// The batch load of `ids`: the element's columns, then `p.id`, `p.id = ANY($1::int8[])`.
    private func loadQuery<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> (literal: BoundSQL, width: Int) {
        let selection = (Element.self as? any FixedSelection.Type)?.querySelection ?? .columns(Element.batchFields)
        return (try compiler.select(WellFetchRequest(), selection, extra: ["p.id"], ids: ids).literal, selection.expressions.count)
    }

    private func load<Element: BatchLoadable>(_ literal: BoundSQL, width: Int, as type: Element.Type,
                                              on connection: PostgresConnection) async throws -> [Int64: Element] {
        var objects: [Int64: Element] = [:]
        try await forEach(literal, on: connection) { row in
            let values = try row.values()
            objects[values[width].int64!] = try Element(row: WellRow(values: Array(values[..<width])))
        }
        return objects
    }

    /// The ids in order with their sections, a section per run of equal keys, as the file engine makes them.
    private func snapshot(_ literal: BoundSQL, sectioned: Bool, on connection: PostgresConnection) async throws -> ResultsSnapshot {
        let clock = ContinuousClock.now
        var ids: [Int64] = []
        var sections: [ResultsSection] = []
        var key: String?? = .none
        try await forEach(literal, on: connection) { row in
            let offset = ids.count
            ids.append(try row.int64())
            guard sectioned else { return }
            let name = try row.string()
            if case .some(let current) = key, current == name { return }
            key = .some(name)
            sections.append(ResultsSection(name: name, offset: offset, count: 0))
        }
        reportFetch(since: clock, count: ids.count, of: "ids")
        return ResultsSnapshot(ids: ids, sectionStarts: sectioned ? sections : nil)
    }

    /// The counter that the trigger on pins and details advances with every committed statement
    /// that changes them, by any connection; a standby replays it with the rows.
    func changeToken() throws -> Int64 {
        try all("SELECT counter FROM wellkit_changes WHERE id = 1") { try $0.int64() }.first ?? 0
    }

    // MARK: - Sort indexes

    func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let name = compiler.sortIndexName(sortDescriptors) else { return nil }
        return try all(compiler.indexExists(name).literal) { try $0.bool() }.first == true ? name : nil
    }

    func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let (name, sql) = compiler.createSortIndex(sortDescriptors) else { return nil }
        try withConnection(during: "creating the index \(name)") { try await execute(sql.text, on: $0) }
        return name
    }

    // MARK: - Housekeeping

    func hasLoads() throws -> Bool {
        try all("SELECT EXISTS (SELECT 1 FROM loads)") { try $0.bool() }.first ?? false
    }

    func close() throws {
        try withConnection { try await $0.close() }
    }

    // MARK: - Changes

    func changeMonitor() throws -> ChangeMonitor {
        try ChangeMonitor.shared(key: location.description) { [self] in { [self] in try changeToken() } }
    }

    /// `LISTEN wellkit_changes` on a connection of its own: the trigger's `NOTIFY` arrives after
    /// each commit to pins or details by any connection. (A hot standby delivers no notifications;
    /// the batched results' polling sees its changes.)
    func observeCommits(onError: @escaping @Sendable (any Error) -> Void, _ onCommit: @escaping @Sendable () -> Void) throws -> @Sendable () -> Void {
        let listener = try Self.connect(location, on: bridge.loop, bridge: bridge)
        let location = location
        let stopped = StopFlag()
        _ = bridge.start {
            do {
                try await listener.listen(on: PostgresSchema.channel) { notifications in
                    for try await _ in notifications { onCommit() }
                }
            } catch where !stopped.flag.load(ordering: .acquiring) {
                onError(Self.translate(error, location, during: "listening for changes"))
            }
        }
        return {
            stopped.flag.store(true, ordering: .releasing)
            Self.close(listener)
        }
    }
}

/// The wait in progress and its connection, failed when that connection closes: one callback per
/// connection rather than one per statement, which would pile up until it closes. (A connection
/// replaced after it was lost may report its close late, during a wait on its successor.)
private final class CloseWatch: Sendable {
    let waiter = Mutex<(connection: PostgresConnection.ID, fail: @Sendable () -> Void)?>(nil)

    func watch(_ connection: PostgresConnection) {
        let id = connection.id
        connection.closeFuture.whenComplete { [weak self] _ in
            self?.waiter.withLock { $0?.connection == id ? $0?.fail : nil }?()
        }
    }
}

/// What an engine's call under its `gate` waits for, so that ``PostgresEngine/interrupt()`` can
/// stop it from another thread without taking `gate`: the queries' connection, which it closes,
/// or a connection attempt, which it abandons. The state is per call (``begin()`` to ``end()``):
/// an interrupt between calls is forgotten, so it cannot stop the next request's query.
final class Interruption: Sendable {
    private struct State {
        /// Whether a call is in progress.
        var running = false
        /// Whether ``interrupt()`` stopped the call in progress.
        var interrupted = false
        /// The connection the call uses, closed by an interrupt.
        var connection: PostgresConnection?
        /// Abandons the connection attempt in progress.
        var abandonAttempt: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    /// What an interrupted call throws.
    let error: StoreError

    init(_ location: PostgresLocation) {
        error = StoreError(.connectionLost, "stopped waiting for PostgreSQL at \(location.server): interrupted (a server's request timeout); "
                            + "the connection was closed, and the next call connects anew", path: location.description)
    }

    /// Whether an interrupt stopped the call in progress.
    var isInterrupted: Bool { state.withLock { $0.interrupted } }

    func begin() {
        state.withLock { $0 = State(running: true) }
    }

    /// Ends the call: whether it was interrupted.
    func end() -> Bool {
        state.withLock { state in
            defer { state = State() }
            return state.interrupted
        }
    }

    /// Has an interrupt close `connection` from now until the call ends; closes it and throws
    /// ``error`` if the call was interrupted already.
    func watch(_ connection: PostgresConnection) throws {
        let interrupted = state.withLock { state in
            if !state.interrupted { state.connection = connection }
            return state.interrupted
        }
        if interrupted {
            PostgresEngine.close(connection)
            throw error
        }
    }

    /// Waits for a connection `attempt`, which an interrupt abandons: the wait then throws
    /// ``error`` at once, and the attempt's connection, should it complete, is closed.
    func wait(for attempt: Pending<PostgresConnection>) throws -> PostgresConnection {
        let error = error
        let abandon: @Sendable () -> Void = { attempt.abandon(with: error) { PostgresEngine.close($0) } }
        let interrupted = state.withLock { state in
            if !state.interrupted { state.abandonAttempt = abandon }
            return state.interrupted
        }
        if interrupted { abandon() }
        defer { state.withLock { $0.abandonAttempt = nil } }
        return try attempt.wait()
    }

    /// Stops the call in progress, if any. Under the state's lock, so that the connection it
    /// closes is still the call's, not the next call's: closing and abandoning never block.
    func interrupt() {
        state.withLock { state in
            guard state.running else { return }
            state.interrupted = true
            if let connection = state.connection { PostgresEngine.close(connection) }
            state.abandonAttempt?()
        }
    }
}
