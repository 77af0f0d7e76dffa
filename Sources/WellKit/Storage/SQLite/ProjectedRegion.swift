import GRDB

/// Rectangles in projected CRSs, for ``Region/projectedBox(crs:minX:minY:maxX:maxY:)``.
enum ProjectedRegion {
    /// Points per edge when densifying a rectangle; PROJ's own `proj_trans_bounds` default is 21.
    static let densify = 64

    /// The EPSG:4326 box enclosing the rectangle, from its densified edges, widened by a millidegree.
    static func enclosingBox(crs: String, minX: Double, minY: Double, maxX: Double, maxY: Double) throws -> BoundingBox {
        guard minX <= maxX, minY <= maxY else {
            throw QueryError(.outOfRange, "\(crs) box: min must not be greater than max (\(minX),\(minY),\(maxX),\(maxY))", subject: .boundingBox)
        }
        var xs: [Double] = [], ys: [Double] = []
        for k in 0...densify {
            let t = Double(k) / Double(densify)
            xs += [minX + t * (maxX - minX), minX + t * (maxX - minX), minX, maxX]
            ys += [minY, maxY, minY + t * (maxY - minY), minY + t * (maxY - minY)]
        }
        let transformer = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326")
        try transformer.transform(xs: &xs, ys: &ys)
        let margin = 0.001
        return try BoundingBox(
            minLongitude: max(-180, xs.min()! - margin), minLatitude: max(-90, ys.min()! - margin),
            maxLongitude: min(180, xs.max()! + margin), maxLatitude: min(90, ys.max()! + margin))
    }

    /// The SQL function `wellkit_in_projected_box(lon, lat, crs, minX, minY, maxX, maxY)`: 1 when the
    /// point, transformed to `crs`, lies in the rectangle (edges included).
    static func register(_ db: Database) {
        db.add(function: DatabaseFunction("wellkit_in_projected_box", argumentCount: 7, pure: true) { values in
            guard let lon = Double.fromDatabaseValue(values[0]), let lat = Double.fromDatabaseValue(values[1]),
                  let crs = String.fromDatabaseValue(values[2]),
                  let minX = Double.fromDatabaseValue(values[3]), let minY = Double.fromDatabaseValue(values[4]),
                  let maxX = Double.fromDatabaseValue(values[5]), let maxY = Double.fromDatabaseValue(values[6]) else { return nil }
            guard let p = try? TransformCache.shared.transformer(from: "EPSG:4326", to: crs).transform(x: lon, y: lat) else { return false }
            return p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
        })
    }
}
