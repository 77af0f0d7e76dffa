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
/// time; a load opens a connection of its own for its transaction.
final class PostgresEngine: StorageEngine {
    static var schemaVersion: Int32 { PostgresSchema.version }

    let location: PostgresLocation
    let bridge: EventLoopBridge
    let connection: PostgresConnection
    let readOnly: Bool
    let trace: (@Sendable (String) -> Void)?
    let compiler = QueryCompiler.postgres
    /// One operation at a time on the connection, so that a transaction's statements stay together.
    private let gate = NSLock()

    /// Connects to `location`, checks that the database is a WellKit store of a version this build
    /// reads (or, with `.create`, makes it one), and keeps the connection.
    init(location: PostgresLocation, mode: WellStore.OpenMode, trace: (@Sendable (String) -> Void)?) throws {
        self.location = location
        self.readOnly = mode == .readOnly
        self.trace = trace
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        bridge = EventLoopBridge(loop)
        connection = try Self.connect(location, on: loop, bridge: bridge)
        do {
            try prepareStore(mode)
        } catch {
            Self.close(connection)
            throw error
        }
    }

    deinit {
        Self.close(connection)
    }

    /// Closes `connection` without waiting; it stays alive until it has closed.
    static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    // MARK: - Running SQL

    /// `literal` as postgres-nio's query: `$1, $2…` for its `?`s, and its values as bindings.
    static func query(_ literal: BoundSQL) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: literal.values.count)
        for value in literal.values {
            switch value.storage {
            case .null: bindings.appendNull()
            case .int64(let n): bindings.append(n)
            case .double(let d): bindings.append(d)
            case .string(let s): bindings.append(s)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            }
        }
        var sql = ""
        sql.reserveCapacity(literal.text.utf8.count + literal.values.count * 2)
        var number = 0
        // The compiler's text has no `?` but its placeholders: its literals are names and keywords.
        for character in literal.text {
            if character == "?" {
                number += 1
                sql += "$\(number)"
            } else {
                sql.append(character)
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// Runs `body` with the connection, one operation at a time, translating failures.
    func withConnection<T>(during: String? = nil, _ body: (PostgresConnection) async throws -> T) throws -> T {
        gate.lock()
        defer { gate.unlock() }
        do {
            return try bridge.wait { try await body(connection) }
        } catch {
            throw Self.translate(error, location, during: during)
        }
    }

    /// Runs `literal`, calling `row` on each row as it arrives: the rows stream, none are held.
    func forEach(_ literal: BoundSQL, on connection: PostgresConnection, _ row: (PostgresRow) throws -> Void) async throws {
        let query = Self.query(literal)
        if let trace { trace(query.sql + (literal.values.isEmpty ? "" : " -- \(literal.values.map(\.description))")) }
        for try await next in try await connection.query(query, logger: .wellKitPostgres) {
            try row(next)
        }
    }

    /// Every row of `literal`, decoded by `decode`, with the fetch's summary in the SQL log.
    func all<T>(_ literal: BoundSQL, _ decode: (PostgresRow) throws -> T) throws -> [T] {
        let clock = ContinuousClock.now
        var result: [T] = []
        try withConnection { connection in
            try await forEach(literal, on: connection) { result.append(try decode($0)) }
        }
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

    /// A row's values, as the file's rows give them: integers, reals, text or null.
    static func values(_ row: PostgresRow) throws -> [WellValue] {
        try row.map { cell in
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int8, .int4, .int2: return .integer(try cell.decode(Int64.self))
            case .float8, .float4, .numeric: return .real(try cell.decode(Double.self))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            default: return .text(try cell.decode(String.self))
            }
        }
    }

    // MARK: - Opening

    /// Checks PostGIS and the store's identity and version; creates the tables for `.create`.
    private func prepareStore(_ mode: WellStore.OpenMode) throws {
        // One round trip for both checks: every open of a store (each `wells bbox`) makes it.
        let (postgis, meta) = try all("""
            SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis'), to_regclass('wellkit_meta') IS NOT NULL
            """) { try $0.decode((Bool, Bool).self) }[0]
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
            let pairs = try all("SELECT key, value FROM wellkit_meta") { try $0.decode((String, String).self) }
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
            """) { try $0.decode(String.self) }
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
            let (id, name, latitude, longitude) = try row.decode((Int64, String?, Double, Double).self)
            return WellPin(id: id, name: name, latitude: latitude, longitude: longitude)
        }
    }

    func pins(_ request: WellFetchRequest, distanceFrom center: Coordinate) throws -> [(pin: WellPin, meters: Double)] {
        try all(compiler.select(request, .pins, distanceFrom: center).literal) { row in
            let (id, name, latitude, longitude, meters) = try row.decode((Int64, String?, Double, Double, Double).self)
            return (WellPin(id: id, name: name, latitude: latitude, longitude: longitude), meters)
        }
    }

    func wells(_ request: WellFetchRequest) throws -> [Well] {
        try all(compiler.select(request, .wells).literal) { Well(row: WellRow(values: try Self.values($0))) }
    }

    func wells(ids: [Int64]) throws -> [Well] {
        try all(compiler.select(WellFetchRequest(), .wells, ids: ids).literal) { Well(row: WellRow(values: try Self.values($0))) }
    }

    func ids(_ request: WellFetchRequest) throws -> [Int64] {
        try all(compiler.select(request, .ids).literal) { try $0.decode(Int64.self) }
    }

    func count(_ request: WellFetchRequest) throws -> Int {
        try all(compiler.count(compiler.select(request, .ids)).literal) { try $0.decode(Int.self) }.first ?? 0
    }

    func dictionaries(_ request: WellFetchRequest, fields: [WellField]) throws -> [[String: WellValue]] {
        try all(compiler.select(request, .named(fields)).literal) { row in
            Dictionary(uniqueKeysWithValues: zip(fields.map(\.rawValue), try Self.values(row)))
        }
    }

    func forEachRow(_ request: WellFetchRequest, fields: [WellField], distanceFrom center: Coordinate?,
                    _ body: (WellRow) throws -> Void) throws {
        let literal = try compiler.select(request, .named(fields), distanceFrom: center).literal
        let clock = ContinuousClock.now
        var count = 0
        try withConnection { connection in
            try await forEach(literal, on: connection) { row in
                try body(WellRow(values: try Self.values(row)))
                count += 1
            }
        }
        reportFetch(since: clock, count: count)
    }

    func suspects(reason: String?, pinID: Int64?, limit: Int?) throws -> [SuspectWell] {
        try all(compiler.suspects(reason: reason, pinID: pinID, limit: limit).literal) { row in
            let (id, identifier, name, latitude, longitude, line, reason, detail, loadID) =
                try row.decode((Int64, String, String?, Double, Double, Int, String, String, Int64).self)
            return SuspectWell(id: id, identifier: identifier, name: name, latitude: latitude, longitude: longitude,
                               line: line, reason: reason, detail: detail, loadID: loadID)
        }
    }

    func extent() throws -> (box: BoundingBox?, count: Int) {
        let rows = try all(compiler.extent().literal) { try $0.decode((Double?, Double?, Double?, Double?, Int).self) }
        guard let (minLon, minLat, maxLon, maxLat, count) = rows.first, count > 0,
              let minLon, let minLat, let maxLon, let maxLat else { return (nil, 0) }
        return (try BoundingBox(minLongitude: minLon, minLatitude: minLat, maxLongitude: maxLon, maxLatitude: maxLat), count)
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
            let values = try Self.values(row)
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
            if !sectioned {
                ids.append(try row.decode(Int64.self))
                return
            }
            let (id, name) = try row.decode((Int64, String?).self)
            ids.append(id)
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
        try all("SELECT counter FROM wellkit_changes WHERE id = 1") { try $0.decode(Int64.self) }.first ?? 0
    }

    // MARK: - Sort indexes

    func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let name = compiler.sortIndexName(sortDescriptors) else { return nil }
        return try all(compiler.indexExists(name).literal) { try $0.decode(Bool.self) }.first == true ? name : nil
    }

    func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String? {
        guard let (name, sql) = compiler.createSortIndex(sortDescriptors) else { return nil }
        try withConnection(during: "creating the index \(name)") { try await execute(sql.text, on: $0) }
        return name
    }

    // MARK: - Housekeeping

    func hasLoads() throws -> Bool {
        try all("SELECT EXISTS (SELECT 1 FROM loads)") { try $0.decode(Bool.self) }.first ?? false
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
