import WellKit
import Foundation
import GRDB

/// Country outlines for a map's background, read from an ESRI shapefile through SpatiaLite's
/// `VirtualShape` (https://www.gaia-gis.it/gaia-sins/spatialite-sql-latest.html), such as the
/// Natural Earth low-resolution countries that Debian's python3-geopandas ships.
package enum Shapefile {
    /// The shapefile at `path` (with or without `.shp`) as a GeoJSON FeatureCollection in
    /// EPSG:4326 with the `name` attribute, when it has one; its text encoding is read from the
    /// `.cpg` beside it (ISO-8859-1 when there is none).
    ///
    /// - Throws: ``StoreError`` when the file cannot be read.
    package static func geoJSON(path: String) throws -> String {
        let base = path.hasSuffix(".shp") ? String(path.dropLast(4)) : path
        let encoding = (try? String(contentsOfFile: base + ".cpg", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines).uppercased() ?? "ISO-8859-1"
        let queue = try DatabaseQueue()
        return try StoreError.translating(path: base + ".shp") {
            try queue.inDatabase { db in
                try SpatiaLite.initialize(db)
                try db.execute(literal: "CREATE VIRTUAL TABLE shape USING VirtualShape(\(sql: base.quotedDatabaseValueLiteral), \(sql: encoding.quotedDatabaseValueLiteral), 4326)")
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(shape)").map { $0["name"] as String }
                guard !columns.isEmpty else {
                    throw StoreError(.notFound, "no shapefile here (or it has no records)", path: base + ".shp")
                }
                let name = columns.contains("name") ? "name" : "NULL"
                var out = #"{"type":"FeatureCollection","features":["#
                var first = true
                let rows = try Row.fetchCursor(db, sql: "SELECT AsGeoJSON(Geometry, 4), \(name) FROM shape WHERE Geometry IS NOT NULL")
                while let row = try rows.next() {
                    guard let geometry = row[0] as String? else { continue }
                    out += first ? "" : ","
                    first = false
                    out += #"{"type":"Feature","geometry":\#(geometry),"properties":{"name":"#
                    out += ResultWriter.json(row[1] as String? == nil ? .null : .text(row[1]))
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
