import Foundation
import GRDB

extension WellStore {
    /// Fetches pins: exactly `id, name, lat, lon`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let box = try BoundingBox(parsing: "-114.2,50.9,-113.9,51.2")
    /// let pins = try store.fetchPins(WellFetchRequest(region: .box(box)))
    /// ```
    ///
    /// - Complexity: O(log n + k) through the R*Tree for a region holding k wells.
    public func fetchPins(_ request: WellFetchRequest) throws -> [WellPin] {
        try fetch(request, selection: WellPin.selection) { try WellPin.fetchAll($1.statement($0), arguments: $1.arguments) }
    }

    /// Fetches whole wells, pin and detail, in one join.
    public func fetchWells(_ request: WellFetchRequest) throws -> [Well] {
        try fetch(request, selection: Well.selection, joinDetails: true) { try Well.fetchAll($1.statement($0), arguments: $1.arguments) }
    }

    /// Fetches the chosen properties as one dictionary per row, like Core Data's dictionary results.
    public func fetchDictionaries(_ request: WellFetchRequest, properties: [WellField]) throws -> [[String: DatabaseValue]] {
        let selection = properties.map { "\($0.qualifiedColumn) AS \($0.rawValue.quotedDatabaseIdentifier)" }
        return try fetch(request, selection: selection, joinDetails: properties.contains { $0.table == .details }) { db, compiled in
            try Row.fetchAll(compiled.statement(db), arguments: compiled.arguments).map { row in
                var dictionary: [String: DatabaseValue] = [:]
                for (column, value) in row { dictionary[column] = value }
                return dictionary
            }
        }
    }

    /// Fetches only the ids, in request order.
    public func fetchIDs(_ request: WellFetchRequest) throws -> [Int64] {
        try fetch(request, selection: ["p.id"]) { try Int64.fetchAll($1.statement($0), arguments: $1.arguments) }
    }

    /// Counts the wells the request matches (limit and offset apply).
    public func fetchCount(_ request: WellFetchRequest) throws -> Int {
        try fetch(request, selection: ["p.id"]) { db, compiled in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(compiled.sql))", arguments: compiled.arguments) ?? 0
        }
    }

    /// The `k` wells nearest a point, nearest first, with their geodesic distances in metres.
    ///
    /// Queries growing radii through the R*Tree until `k` wells lie within one: any nearer
    /// well would lie within it too, so the answer is exact.
    public func fetchNearest(to center: Coordinate, count k: Int, request: WellFetchRequest = WellFetchRequest()) throws -> [(pin: WellPin, meters: Double)] {
        guard k > 0 else { return [] }
        var radius = 1_000.0
        while true {
            var attempt = request
            attempt.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: radius)
            attempt.limit = k
            attempt.offset = nil
            attempt.sortDescriptors = []  // nearest first
            let found = try fetchPinsWithDistance(attempt, from: center)
            if found.count == k || radius > 20_100_000 { return found }
            radius *= 4
        }
    }

    /// Fetches pins with their distance from `center`, nearest first unless the request sorts otherwise.
    public func fetchPinsWithDistance(_ request: WellFetchRequest, from center: Coordinate) throws -> [(pin: WellPin, meters: Double)] {
        try fetch(request, selection: WellPin.selection, distanceFrom: center) { db, compiled in
            try Row.fetchAll(compiled.statement(db), arguments: compiled.arguments).map { (WellPin(row: $0), $0[4]) }
        }
    }

    /// The well with a source identifier (`details.uwi`), or nil.
    public func well(identifier: String) throws -> Well? {
        try fetchWells(WellFetchRequest(predicate: .compare(.identifier, .equal, .text(identifier)), limit: 1)).first
    }

    /// Streams rows of the chosen fields to `body` without holding them: memory does not grow with the result.
    public func forEachRow(_ request: WellFetchRequest, fields: [WellField], distanceFrom center: Coordinate? = nil,
                           _ body: (Row) throws -> Void) throws {
        let selection = fields.map { "\($0.qualifiedColumn) AS \($0.rawValue.quotedDatabaseIdentifier)" }
        try fetch(request, selection: selection, joinDetails: fields.contains { $0.table == .details }, distanceFrom: center) { db, compiled in
            let rows = try Row.fetchCursor(compiled.statement(db), arguments: compiled.arguments)
            var count = 0
            while let row = try rows.next() {
                try body(row)
                count += 1
            }
            return count
        }
    }

    /// Compiles `request`, runs `body` in a read, and reports the total time and rows to the SQL log.
    @discardableResult
    func fetch<T>(_ request: WellFetchRequest, selection: [String], joinDetails: Bool = false, distanceFrom center: Coordinate? = nil,
                  _ body: (Database, CompiledFetch) throws -> T) throws -> T {
        let compiled = try request.compile(selection: selection, joinDetails: joinDetails,
                                           distanceFrom: center.map { ($0.latitude, $0.longitude) })
        let clock = ContinuousClock.now
        // One SELECT is atomic by itself, so it needs no transaction around it: `unsafeRead`
        // skips GRDB's BEGIN, schema check and COMMIT, which took half of a city-box fetch.
        let result = try pool.unsafeRead { try body($0, compiled) }
        if let trace {
            let rows = (result as? any Collection)?.count ?? (result as? Int) ?? 1
            trace("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(rows) rows")
        }
        return result
    }
}
