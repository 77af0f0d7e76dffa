import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit


/// 3,000 seeded wells as CSV, with the rows the oracles filter.
private let seeded: (csv: String, rows: [OracleRow]) = {
    var random = SplitMix(seed: 42)
    var csv = "uwi,name,lat,lon,status,operator,spud_date,total_depth\n"
    var rows: [OracleRow] = []
    let statuses = ["Abandoned", "Flowing", "Pumping", "Suspended"]
    let operators = ["Acme Energy", "ÉCHO Resources", "echo petroleum", "Bison Oil", "Cédar, Ltd."]
    for k in 0..<3_000 {
        // Clusters plus a few wells on exact, round coordinates to test the edge rule.
        let lat = k % 97 == 0 ? 51.0 : 49 + random.unit() * 11
        let lon = k % 89 == 0 ? -114.0 : -120 + random.unit() * 10
        let status = statuses[Int(random.next() % 4)]
        let op = operators[Int(random.next() % 5)]
        let spud = random.next() % 7 == 0 ? "" : String(format: "%04d-%02d-%02d", 1950 + Int(random.next() % 70), 1 + Int(random.next() % 12), 1 + Int(random.next() % 28))
        let depth = random.next() % 9 == 0 ? "" : String(format: "%.1f", 300 + random.unit() * 3000)
        csv += "W\(k),Well \(k),\(lat),\(lon),\(status),\(CSVWriter.field(op)),\(spud),\(depth)\n"
        rows.append(OracleRow(uwi: "W\(k)", lat: lat, lon: lon, status: status, op: op, spud: spud.isEmpty ? nil : spud, depth: Double(depth)))
    }
    return (csv, rows)
}()

/// A store of the seeded wells per engine, shared by the fetch tests (read-only).
private let fileFixture: (store: WellStore, rows: [OracleRow]) = {
    let store = try! Fixtures.makeStore()
    _ = try! store.load(csvAt: try! Fixtures.file(seeded.csv))
    return (store, seeded.rows)
}()

private let postgisFixture: Result<(store: WellStore, rows: [OracleRow]), any Error> = Result {
    let store = try PostGIS.makeStore()
    _ = try store.load(csvAt: try Fixtures.file(seeded.csv))
    return (store, seeded.rows)
}

private func fixture(_ engine: Engine) throws -> (store: WellStore, rows: [OracleRow]) {
    switch engine {
    case .file: fileFixture
    case .postgis: try postgisFixture.get()
    }
}

struct OracleRow {
    var uwi: String, lat: Double, lon: Double, status: String, op: String, spud: String?, depth: Double?
}

/// The oracle tests run against both engines: the same wells, compared by identifier (PostGIS's in
/// ``FetchTestsOnPostGIS``, in the postgres lane, which the fast lane leaves out).
@Suite struct FetchTests {
    let store = fileFixture.store
    let rows = fileFixture.rows

    private func uwis(_ request: WellFetchRequest, in store: WellStore) throws -> [String] {
        try store.fetchDictionaries(request, properties: [.identifier]).map { $0["uwi"]!.string! }
    }

    private func uwis(_ request: WellFetchRequest) throws -> [String] { try uwis(request, in: store) }

    // MARK: - Regions against a brute-force oracle

    @Test(arguments: [Engine.file]) func twoHundredRandomBoxesMatchBruteForce(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        var random = SplitMix(seed: 1)
        for _ in 0..<200 {
            let size = [0.05, 0.5, 2.0][Int(random.next() % 3)]
            let lon = -120 + random.unit() * 10, lat = 49 + random.unit() * 11
            let box = try BoundingBox(minLongitude: lon, minLatitude: lat, maxLongitude: lon + size, maxLatitude: lat + size)
            let expected = Set(rows.filter { box.contains(longitude: $0.lon, latitude: $0.lat) }.map(\.uwi))
            #expect(Set(try uwis(WellFetchRequest(region: .box(box)))) == expected)
        }
    }

    @Test(arguments: [Engine.file]) func boxEdgesAreIncluded(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        let box = try BoundingBox(minLongitude: -114.0, minLatitude: 51.0, maxLongitude: -113.5, maxLatitude: 51.5)
        let onEdge = rows.filter { $0.lat == 51.0 && $0.lon == -114.0 }.map(\.uwi)
        #expect(!onEdge.isEmpty)
        #expect(Set(onEdge).isSubset(of: Set(try uwis(WellFetchRequest(region: .box(box))))))
    }

    @Test(arguments: [Engine.file]) func twoHundredRandomRadiiMatchBruteForce(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        var random = SplitMix(seed: 2)
        for _ in 0..<200 {
            let center = Coordinate(latitude: 49 + random.unit() * 11, longitude: -120 + random.unit() * 10)
            let meters = [500.0, 5_000, 50_000][Int(random.next() % 3)]
            let expected = rows.filter { Coordinate(latitude: $0.lat, longitude: $0.lon).distance(to: center) <= meters }.map(\.uwi)
            let found = try uwis(WellFetchRequest(region: .radius(latitude: center.latitude, longitude: center.longitude, meters: meters)))
            #expect(Set(found) == Set(expected))
        }
    }

    @Test(arguments: [Engine.file]) func twoHundredNearestQueriesMatchBruteForce(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        var random = SplitMix(seed: 3)
        for _ in 0..<200 {
            let center = Coordinate(latitude: 45 + random.unit() * 20, longitude: -125 + random.unit() * 20)
            let k = 1 + Int(random.next() % 12)
            let expected = rows.map { Coordinate(latitude: $0.lat, longitude: $0.lon).distance(to: center) }.sorted().prefix(k)
            let found = try store.fetchNearest(to: center, count: k)
            #expect(found.count == k)
            for (got, want) in zip(found.map(\.meters), expected) { #expect(abs(got - want) < 1e-6) }
            #expect(found.map(\.meters) == found.map(\.meters).sorted())
            // A radius of the k-th distance holds the k (`wells near --nearest k` re-selects them
            // so): the radius test and the reported distance must agree at the boundary.
            let within = try store.fetchPins(WellFetchRequest(region: .radius(latitude: center.latitude, longitude: center.longitude,
                                                                              meters: found.last!.meters)))
            #expect(Set(found.map(\.pin.id)).isSubset(of: Set(within.map(\.id))))
        }
    }

    /// Points far from every well (other continents, the poles, the antimeridian) and points
    /// among them, with and without a predicate: the nearest beyond 16 km are found through a box
    /// read without distances and a radius from the sphere, and must still be the brute force's.
    @Test(.lane(.slow), arguments: [Engine.file]) func nearestFarFromTheWellsMatchBruteForce(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        var random = SplitMix(seed: 11)
        var centers = [(0.0, 0.0), (-45, 170), (89.9, 0), (-89.9, 45), (30, -179.99), (55, -100), (50, -140), (70, -80)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        for _ in 0..<24 { centers.append(Coordinate(latitude: -80 + random.unit() * 160, longitude: -180 + random.unit() * 360)) }
        let predicate = WellPredicate.in(.status, ["Flowing"])
        let filtered = rows.filter { $0.status == "Flowing" }
        for center in centers {
            for (request, candidates) in [(WellFetchRequest(), rows), (WellFetchRequest(predicate: predicate), filtered)] {
                // The brute force once per center and request; each k takes its prefix.
                let distances = candidates.map { Coordinate(latitude: $0.lat, longitude: $0.lon).distance(to: center) }.sorted()
                for k in [1, 5, 25, 100] {
                    let expected = distances.prefix(k)
                    let found = try store.fetchNearest(to: center, count: k, request: request)
                    #expect(found.count == min(k, candidates.count), "\(center), k \(k)")
                    for (got, want) in zip(found.map(\.meters), expected) { #expect(abs(got - want) < 1e-6, "\(center), k \(k)") }
                }
            }
        }
    }

    @Test(arguments: [Engine.file]) func antimeridianBoxesSplitOrThrow(engine: Engine) throws {
        let (store, _) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        let box = try BoundingBox(minLongitude: 170, minLatitude: -10, maxLongitude: -170, maxLatitude: 10)
        #expect(try box.parts(.split).count == 2)
        #expect(throws: QueryError.self) { try box.parts(.reject) }
        var request = WellFetchRequest(region: .box(box))
        request.antimeridian = .reject
        #expect(throws: QueryError.self) { try store.fetchPins(request) }
        request.antimeridian = .split
        #expect(try store.fetchPins(request).isEmpty)
    }

    // MARK: - The SQL

    @Test func pinFetchSelectsExactlyFourColumns() throws {
        let compiled = try QueryCompiler.sqlite.select(WellFetchRequest(region: .box(try BoundingBox(parsing: "-115,50,-114,51"))), .pins)
        let (sql, _) = try store.pool.read { try compiled.build($0) }
        #expect(sql.hasPrefix("SELECT p.id, p.name, p.lat, p.lon FROM idx_pins_geom r JOIN pins p ON p.id = r.pkid WHERE "))
        let statement = try store.pool.read { try $0.makeStatement(sql: sql) }
        #expect(statement.columnNames == ["id", "name", "lat", "lon"])
    }

    @Test(arguments: [
        WellFetchRequest(region: .box(try! BoundingBox(parsing: "-115,50,-114,51"))),
        WellFetchRequest(region: .radius(latitude: 51, longitude: -114, meters: 2_000)),
    ])
    func regionQueriesUseTheRTree(request: WellFetchRequest) throws {
        let compiled = try QueryCompiler.sqlite.select(request, .pins)
        let (sql, arguments) = try store.pool.read { try compiled.build($0) }
        let plan = try store.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
        // The R*Tree (alias r) drives the query; pins are then looked up by primary key.
        #expect(sql.contains("FROM idx_pins_geom r JOIN pins p ON p.id = r.pkid"))
        #expect(plan.first?.hasPrefix("SCAN r VIRTUAL TABLE INDEX") == true, "\(plan)")
        #expect(plan.contains { $0.contains("INTEGER PRIMARY KEY") }, "\(plan)")
        #expect(!plan.contains { $0 == "SCAN p" }, "\(plan)")
    }

    @Test func faultsCostNPlusOneQueriesAndPrefetchTwo() throws {
        let log = StatementLog()
        let traced = try WellStore(path: store.path, mode: .existing, trace: { log.append($0) })
        let request = WellFetchRequest(predicate: .compare(.status, .equal, "Flowing"), sortDescriptors: [WellSortDescriptor(.identifier)], limit: 20)
        let faults = try traced.faults(request)
        for k in 0..<faults.count { _ = try faults.well(at: k) }
        #expect(log.selects == 21)
        log.reset()
        let prefetched = try traced.faults(request)
        try prefetched.prefetchAll()
        for k in 0..<prefetched.count { _ = try prefetched.well(at: k) }
        #expect(log.selects == 2)
        #expect(try (0..<20).map { try prefetched.well(at: $0) } == (try traced.fetchWells(request)))
    }

    // MARK: - Predicates and sorts

    @Test(arguments: [Engine.file]) func everyOperatorMatchesAnOracle(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        let cases: [(String, (OracleRow) -> Bool)] = [
            ("status = Abandoned", { $0.status == "Abandoned" }),
            ("status != Abandoned", { $0.status != "Abandoned" }),
            ("total_depth < 1000", { ($0.depth ?? .nan) < 1000 }),
            ("total_depth <= 1000.5", { ($0.depth ?? .nan) <= 1000.5 }),
            ("total_depth > 3000", { ($0.depth ?? .nan) > 3000 }),
            ("total_depth >= 3000", { ($0.depth ?? .nan) >= 3000 }),
            ("spud_date between 1960-01-01 and 1969-12-31", { ($0.spud ?? "") >= "1960-01-01" && ($0.spud ?? "") <= "1969-12-31" }),
            ("status in (Flowing, Pumping)", { ["Flowing", "Pumping"].contains($0.status) }),
            ("operator beginswith Acme", { $0.op.hasPrefix("Acme") }),
            ("operator endswith Ltd.", { $0.op.hasSuffix("Ltd.") }),
            ("operator contains echo", { $0.op.contains("echo") }),
            ("operator contains[c] echo", { $0.op.lowercased().contains("echo") }),
            ("operator contains[d] ECHO", { $0.op.contains("ECHO") || $0.op.contains("ÉCHO") }),
            ("operator contains[cd] \"echo\"", { $0.op.lowercased().contains("echo") || $0.op.contains("ÉCHO") }),
            ("operator beginswith[cd] cedar", { $0.op.hasPrefix("Cédar") }),
            ("spud_date is null", { $0.spud == nil }),
            ("spud_date is not null and not status = Flowing", { $0.spud != nil && $0.status != "Flowing" }),
            ("(status = Flowing or status = Pumping) and total_depth > 2000", { ["Flowing", "Pumping"].contains($0.status) && ($0.depth ?? 0) > 2000 }),
        ]
        for (text, oracle) in cases {
            let found = try uwis(WellFetchRequest(predicate: try WellPredicate(parsing: text)))
            #expect(Set(found) == Set(rows.filter(oracle).map(\.uwi)), "\(text)")
            #expect(!found.isEmpty, "\(text) matched nothing, so it tests nothing")
        }
    }

    @Test(arguments: [Engine.file]) func sortsOnPinAndDetailKeyPathsTogether(engine: Engine) throws {
        let (store, rows) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        let request = WellFetchRequest(predicate: try WellPredicate(parsing: "spud_date is not null"),
                                   sortDescriptors: [try WellSortDescriptor(parsing: "detail.status"), try WellSortDescriptor(parsing: "detail.spud_date:desc"), try WellSortDescriptor(parsing: "pin.name")])
        let expected = rows.filter { $0.spud != nil }.sorted {
            ($0.status, $1.spud!, "Well " + $0.uwi.dropFirst()) < ($1.status, $0.spud!, "Well " + $1.uwi.dropFirst())
        }.map(\.uwi)
        #expect(try uwis(request) == expected)
    }

    @Test(arguments: [Engine.file]) func limitAndOffsetPage(engine: Engine) throws {
        let (store, _) = try fixture(engine)
        func uwis(_ request: WellFetchRequest) throws -> [String] { try self.uwis(request, in: store) }
        let all = try uwis(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        let page = try uwis(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)], limit: 10, offset: 20))
        #expect(page == Array(all[20..<30]))
    }

    /// The async reads give the synchronous fetches' answers.
    @Test(arguments: [Engine.file]) func asyncReadsMatchTheFetches(engine: Engine) async throws {
        let (store, _) = try fixture(engine)
        let box = try BoundingBox(minLongitude: -118, minLatitude: 50, maxLongitude: -115, maxLatitude: 53)
        let request = WellFetchRequest(predicate: try WellPredicate(parsing: "status = Flowing"),
                                       sortDescriptors: [WellSortDescriptor(.identifier)], region: .box(box))
        #expect(try await store.pins(matching: request) == store.fetchPins(request))
        #expect(try await store.wells(matching: request) == store.fetchWells(request))
        #expect(try await store.ids(matching: request) == store.fetchIDs(request))
        let count = try await store.count(matching: request)
        #expect(count == (try store.fetchCount(request)) && count > 10)
        await #expect(throws: QueryError.self) { try await store.pins(matching: WellFetchRequest(limit: -1)) }
    }

    @Test func unknownFieldsListTheValidOnes() throws {
        do {
            _ = try WellPredicate(parsing: "colour = red")
            Issue.record("an unknown field parsed")
        } catch let error as QueryError {
            #expect(error.message.contains("unknown field \"colour\""))
            #expect(error.message.contains("spud_date"))
        }
        #expect(throws: QueryError.self) { try WellSortDescriptor(parsing: "detail.nope:desc") }
        #expect(throws: QueryError.self) { try WellPredicate(parsing: "status = ") }
        #expect(throws: QueryError.self) { try WellPredicate(parsing: "status ~ x") }
    }

    @Test func valuesAreBoundNotSpliced() throws {
        let hostile = "x'; DROP TABLE pins; --"
        let compiled = try QueryCompiler.sqlite.select(WellFetchRequest(predicate: .compare(.status, .equal, .text(hostile))), .pins)
        #expect(try !store.pool.read { try compiled.build($0) }.sql.contains("DROP"))
        #expect(try store.fetchPins(WellFetchRequest(predicate: .compare(.status, .equal, .text(hostile)))).isEmpty)
        #expect(try store.fetchCount(WellFetchRequest()) == rows.count)
    }

    @Test func resultTypesAgree() throws {
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)], region: .box(try BoundingBox(parsing: "-118,50,-116,52")))
        let pins = try store.fetchPins(request)
        let wells = try store.fetchWells(request)
        let dictionaries = try store.fetchDictionaries(request, properties: [.id, .name, .latitude, .longitude])
        #expect(!pins.isEmpty)
        #expect(wells.map(\.pin) == pins)
        #expect(dictionaries.map { $0["id"]!.int64! } == pins.map(\.id))
        #expect(try store.fetchIDs(request) == pins.map(\.id))
        let well = try #require(try store.well(identifier: wells[0].detail.identifier))
        #expect(well == wells[0])
    }
}

/// Collects SQL log lines from a traced store.
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    func reset() { lock.withLock { lines = [] } }
    var selects: Int { lock.withLock { lines.filter { $0.hasPrefix("SELECT p.") }.count } }
}

/// ``FetchTests``' oracle tests against the PostgreSQL/PostGIS engine.
@Suite(.lane(.postgres), .blocking) struct FetchTestsOnPostGIS {
    @Test func twoHundredRandomBoxesMatchBruteForce() throws { try FetchTests().twoHundredRandomBoxesMatchBruteForce(engine: .postgis) }
    @Test func boxEdgesAreIncluded() throws { try FetchTests().boxEdgesAreIncluded(engine: .postgis) }
    @Test func twoHundredRandomRadiiMatchBruteForce() throws { try FetchTests().twoHundredRandomRadiiMatchBruteForce(engine: .postgis) }
    @Test func twoHundredNearestQueriesMatchBruteForce() throws { try FetchTests().twoHundredNearestQueriesMatchBruteForce(engine: .postgis) }
    @Test func nearestFarFromTheWellsMatchBruteForce() throws { try FetchTests().nearestFarFromTheWellsMatchBruteForce(engine: .postgis) }
    @Test func antimeridianBoxesSplitOrThrow() throws { try FetchTests().antimeridianBoxesSplitOrThrow(engine: .postgis) }
    @Test func everyOperatorMatchesAnOracle() throws { try FetchTests().everyOperatorMatchesAnOracle(engine: .postgis) }
    @Test func sortsOnPinAndDetailKeyPathsTogether() throws { try FetchTests().sortsOnPinAndDetailKeyPathsTogether(engine: .postgis) }
    @Test func limitAndOffsetPage() throws { try FetchTests().limitAndOffsetPage(engine: .postgis) }
    @Test func asyncReadsMatchTheFetches() async throws { try await FetchTests().asyncReadsMatchTheFetches(engine: .postgis) }
}
