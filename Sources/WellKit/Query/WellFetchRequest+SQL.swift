import GRDB

/// One fetch request turned into SQL text and bound values.
struct CompiledFetch {
    var sql: String
    var arguments: StatementArguments

    /// The connection's cached prepared statement for this SQL: repeated fetches skip the parse.
    func statement(_ db: Database) throws -> Statement {
        try db.cachedStatement(sql: sql)
    }
}

extension WellFetchRequest {
    /// The fields any part of the request reads.
    var fieldsUsed: [WellField] {
        (predicate?.fields ?? []) + sortDescriptors.map(\.field)
    }

    /// Compiles the request to SQL selecting `selection` (already qualified SQL expressions of `p.` and `d.`).
    ///
    /// The region drives the query from the R*Tree `idx_pins_geom` (joined on id), then filters
    /// exactly on `p.lon`/`p.lat`, because the R*Tree stores 32-bit boxes rounded outwards.
    /// A radius adds an exact geodesic filter, `wellkit_distance(…) <= meters`.
    func compile(selection: [String], joinDetails: Bool = false, distanceFrom center: (latitude: Double, longitude: Double)? = nil) throws -> CompiledFetch {
        var arguments = StatementArguments()
        var conditions: [String] = []
        var from = "pins p"
        let needsDetails = joinDetails || fieldsUsed.contains { $0.table == .details }
        var boxes: [BoundingBox] = []
        switch region {
        case .box(let box): boxes = try box.parts(antimeridian)
        case .radius(let latitude, let longitude, let meters):
            guard meters.isFinite, meters >= 0 else { throw QueryError(.outOfRange, "radius \(meters) m must be zero or more", subject: .radius) }
            boxes = [try Geodesic.enclosingBox(latitude: latitude, longitude: longitude, meters: meters)]
        case .projectedBox(let crs, let minX, let minY, let maxX, let maxY):
            boxes = [try ProjectedRegion.enclosingBox(crs: crs, minX: minX, minY: minY, maxX: maxX, maxY: maxY)]
        case nil: break
        }
        if boxes.count == 1, let box = boxes.first {
            from = "idx_pins_geom r JOIN pins p ON p.id = r.pkid"
            conditions.append("r.xmin <= ? AND r.xmax >= ? AND r.ymin <= ? AND r.ymax >= ?")
            _ = arguments.append(contentsOf: [box.maxLongitude, box.minLongitude, box.maxLatitude, box.minLatitude])
            conditions.append("p.lon BETWEEN ? AND ? AND p.lat BETWEEN ? AND ?")
            _ = arguments.append(contentsOf: [box.minLongitude, box.maxLongitude, box.minLatitude, box.maxLatitude])
        } else if boxes.count > 1 {
            let index = boxes.map { _ in "SELECT pkid FROM idx_pins_geom WHERE xmin <= ? AND xmax >= ? AND ymin <= ? AND ymax >= ?" }
            let exact = boxes.map { _ in "(p.lon BETWEEN ? AND ? AND p.lat BETWEEN ? AND ?)" }
            for box in boxes { _ = arguments.append(contentsOf: [box.maxLongitude, box.minLongitude, box.maxLatitude, box.minLatitude]) }
            for box in boxes { _ = arguments.append(contentsOf: [box.minLongitude, box.maxLongitude, box.minLatitude, box.maxLatitude]) }
            conditions.append("p.id IN (\(index.joined(separator: " UNION ALL ")))")
            conditions.append("(" + exact.joined(separator: " OR ") + ")")
        }
        if case .radius(let latitude, let longitude, let meters) = region {
            conditions.append("wellkit_distance(?, ?, p.lat, p.lon) <= ?")
            _ = arguments.append(contentsOf: [latitude, longitude, meters])
        }
        if case .projectedBox(let crs, let minX, let minY, let maxX, let maxY) = region {
            conditions.append("wellkit_in_projected_box(p.lon, p.lat, ?, ?, ?, ?, ?)")
            _ = arguments.append(contentsOf: [crs, minX, minY, maxX, maxY])
        }
        if needsDetails { from += " JOIN details d ON d.pin_id = p.id" }
        if let predicate {
            try predicate.validate()
            conditions.append(predicate.sql(&arguments))
        }

        var select = selection
        var distanceArguments = StatementArguments()
        if let center {
            select.append("wellkit_distance(?, ?, p.lat, p.lon) AS distance")
            distanceArguments = [center.latitude, center.longitude]
        }
        var sql = "SELECT \(select.joined(separator: ", ")) FROM \(from)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        var order = sortDescriptors.map { "\($0.field.qualifiedColumn) \($0.ascending ? "ASC" : "DESC")" }
        if center != nil && sortDescriptors.isEmpty { order.append("distance") }
        if !order.isEmpty { sql += " ORDER BY " + (order + ["p.id"]).joined(separator: ", ") }
        if let limit, limit < 0 { throw QueryError(.outOfRange, "limit \(limit) must be zero or more", subject: .limit) }
        if let offset, offset < 0 { throw QueryError(.outOfRange, "offset \(offset) must be zero or more", subject: .offset) }
        if limit != nil || (offset ?? 0) > 0 {
            sql += " LIMIT ? OFFSET ?"
            _ = arguments.append(contentsOf: [limit ?? -1, offset ?? 0])
        }
        return CompiledFetch(sql: sql, arguments: distanceArguments + arguments)
    }
}

/// The SQL function `wellkit_distance(lat1, lon1, lat2, lon2)`: geodesic metres on WGS 84.
enum DistanceFunction {
    static func register(_ db: Database) {
        db.add(function: DatabaseFunction("wellkit_distance", argumentCount: 4, pure: true) { values in
            guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
                  let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3]) else { return nil }
            return Geodesic.distance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
        })
    }
}
