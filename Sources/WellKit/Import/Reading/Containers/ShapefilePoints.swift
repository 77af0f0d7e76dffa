import Foundation
import GRDB

extension FeatureTable {
    /// A point shapefile (`.shp` with its `.shx`, `.dbf` and `.prj`), read through SpatiaLite's
    /// `VirtualShape` as ``Shapefile`` reads areas: every `.dbf` attribute as a column (its text
    /// encoding from the `.cpg`, ISO-8859-1 without one), the point as it is stored, in the CRS
    /// of the `.prj` (its WKT, which PROJ reads; WGS 84 degrees without a `.prj`).
    static func shapefile(_ path: String, label: String) throws -> FeatureTable {
        let base = path.lowercased().hasSuffix(".shp") ? String(path.dropLast(4)) : path
        for part in [".shx", ".dbf"] where !FileManager.default.fileExists(atPath: base + part) {
            throw ImportError(.cannotOpen, "a shapefile needs its \(part) beside it (\((base as NSString).lastPathComponent + part)); "
                + "copy the .shp, .shx, .dbf and .prj together", file: label)
        }
        do {
            try Shapefile.validate(base: base)
        } catch {
            throw ImportError(.notText, "\(error)", file: label)
        }
        let encoding = (try? String(contentsOfFile: base + ".cpg", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines).uppercased() ?? "ISO-8859-1"
        var table = FeatureTable()
        if let wkt = try? String(contentsOfFile: base + ".prj", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), !wkt.isEmpty {
            table.crs = Self.prjCRS(wkt)
        }
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            try SpatiaLite.initialize(db)
            do {
                try db.execute(literal: "CREATE VIRTUAL TABLE shape USING VirtualShape(\(sql: base.quotedDatabaseValueLiteral), \(sql: encoding.quotedDatabaseValueLiteral), 4326, 0, 'samecase')")
            } catch {
                // VirtualShape names its own columns PKUID and Geometry: an attribute of either name (any case) makes its table invalid.
                let reserved = "\(error)".contains("invalid SQL statement")
                throw ImportError(.notText, reserved
                    ? "the shapefile has an attribute named Geometry or PKUID (in some case), names SpatiaLite's reader keeps for its own; "
                        + "rename it, for example with ogr2ogr -sql \"SELECT *, geometry AS geometry_text FROM …\", or export the layer as GeoJSON"
                    : "the shapefile cannot be read (\(error)); export it again, for example with ogr2ogr -f 'ESRI Shapefile'", file: label)
            }
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(shape)").map { $0["name"] as String }
                .filter { !["PKUID", "Geometry"].contains($0) }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM shape") ?? 0
            guard !columns.isEmpty || count > 0 else {
                throw ImportError(.emptyFile, "the shapefile has no records", file: label)
            }
            for column in columns { _ = table.column(column) }
            let selected = (["GeometryType(Geometry)", "X(Geometry)", "Y(Geometry)"] + columns.map(\.quotedDatabaseIdentifier)).joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: "SELECT \(selected) FROM shape ORDER BY PKUID")
            while let row = try rows.next() {
                var attributes: [(String, String)] = []
                for (k, column) in columns.enumerated() {
                    let value: DatabaseValue = row[k + 3]
                    switch value.storage {
                    case .null: attributes.append((column, ""))
                    case .int64(let n): attributes.append((column, String(n)))
                    case .double(let d): attributes.append((column, SheetRows.shortest(d)))
                    case .string(let s): attributes.append((column, s.trimmingCharacters(in: .whitespaces)))
                    case .blob: attributes.append((column, ""))
                    }
                }
                let type: String? = row[0]
                var x = "", y = ""
                if let type, type.hasPrefix("POINT") {
                    x = (row[1] as Double?).map(SheetRows.shortest) ?? ""
                    y = (row[2] as Double?).map(SheetRows.shortest) ?? ""
                } else if let type {
                    x = "\(type.capitalized), not a point"
                    y = x
                }
                table.append(attributes, x: x, y: y)
            }
        }
        return table
    }

    /// The CRS of a `.prj`: nil for WGS 84 longitude and latitude, else its WKT for PROJ.
    static func prjCRS(_ wkt: String) -> String? {
        let upper = wkt.uppercased()
        if upper.hasPrefix("GEOGCS") && (upper.contains("WGS_1984") || upper.contains("WGS 84") || upper.contains("WGS84")) { return nil }
        return wkt
    }
}
