import Foundation
import GRDB

/// ESRI shapefiles read through SpatiaLite's `VirtualShape`
/// (https://www.gaia-gis.it/gaia-sins/spatialite-sql-latest.html): areas for ``Area`` (every
/// attribute, full precision) and country outlines for a map's background (`name` only, such as the
/// Natural Earth low-resolution countries that Debian's python3-geopandas ships).
package enum Shapefile {
    /// The shapefile at `path` (with or without `.shp`) as a GeoJSON FeatureCollection, coordinates
    /// as the file has them, with the `name` attribute when it has one, or with every attribute
    /// (`allAttributes`, named as the file names them); its text encoding is read from the `.cpg`
    /// beside it (ISO-8859-1 when there is none).
    ///
    /// - Parameter precision: Decimal places of the coordinates (`AsGeoJSON`'s).
    /// - Throws: ``StoreError`` when the file cannot be read.
    package static func geoJSON(path: String, allAttributes: Bool = false, precision: Int = 4) throws -> String {
        let base = path.hasSuffix(".shp") ? String(path.dropLast(4)) : path
        let encoding = (try? String(contentsOfFile: base + ".cpg", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines).uppercased() ?? "ISO-8859-1"
        let queue = try DatabaseQueue()
        return try StoreError.translating(path: base + ".shp") {
            try queue.inDatabase { db in
                try SpatiaLite.initialize(db)
                // Column names as the file has them for areas; lower case (`name`) for the map.
                let names = allAttributes ? ", 0, 'samecase'" : ""
                try db.execute(literal: "CREATE VIRTUAL TABLE shape USING VirtualShape(\(sql: base.quotedDatabaseValueLiteral), \(sql: encoding.quotedDatabaseValueLiteral), 4326\(sql: names))")
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(shape)").map { $0["name"] as String }
                guard !columns.isEmpty else {
                    throw StoreError(.notFound, "no shapefile here (or it has no records)", path: base + ".shp")
                }
                let attributes = allAttributes ? columns.filter { !["PKUID", "Geometry"].contains($0) } : columns.contains("name") ? ["name"] : []
                var out = #"{"type":"FeatureCollection","features":["#
                var first = true
                // The whole table: VirtualShape 5.0 returns no row for a LIMIT.
                let selected = (["AsGeoJSON(Geometry, \(max(0, min(15, precision))))"] + attributes.map(\.quotedDatabaseIdentifier)).joined(separator: ", ")
                let rows = try Row.fetchCursor(db, sql: "SELECT \(selected) FROM shape WHERE Geometry IS NOT NULL")
                while let row = try rows.next() {
                    guard let geometry = row[0] as String? else { continue }
                    out += first ? "" : ","
                    first = false
                    out += #"{"type":"Feature","geometry":\#(geometry),"properties":{"#
                    for (k, attribute) in attributes.enumerated() {
                        if k > 0 { out += "," }
                        out += ResultWriter.json(.text(attribute)) + ":" + ResultWriter.json(WellValue(row[k + 1] as DatabaseValue))
                    }
                    out += "}}"
                }
                return out + "]}"
            }
        }
    }
}

extension String {
    /// The string as an SQL literal, `'it''s'`: for the arguments of `CREATE VIRTUAL TABLE`, which SQLite cannot bind.
    fileprivate var quotedDatabaseValueLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension Area {
    /// The areas of an ESRI shapefile (`.shp` with its `.dbf`, `.shx` and, for its CRS, `.prj`),
    /// each Polygon or MultiPolygon record with its attributes, read through SpatiaLite.
    ///
    /// - Parameter crs: The CRS when the shapefile has no `.prj` (nil: EPSG:4326).
    public static func features(shapefileAt url: URL, crs: String? = nil) throws -> [Area] {
        let base = url.pathExtension.lowercased() == "shp" ? url.deletingPathExtension() : url
        let prj = try? String(contentsOf: base.appendingPathExtension("prj"), encoding: .utf8)
        let text = try Shapefile.geoJSON(path: base.path, allAttributes: true, precision: 15)
        return try features(geoJSON: Data(text.utf8), source: url.path, crs: prj ?? crs)
    }
}
