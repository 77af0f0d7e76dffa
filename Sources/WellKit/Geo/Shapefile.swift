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
        try validate(base: base)
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

extension Shapefile {
    /// Checks that every record the index (`.shx`) points to lies inside the `.shp` and that its
    /// parts and points fit in its length, before SpatiaLite reads them: `VirtualShape` trusts
    /// both, and a damaged file (one flipped byte of a record's length or of its count of parts)
    /// made it read past its buffer and crash the process (`wells count --by-area` with a mutated
    /// shapefile: 11 crashes, SIGSEGV, in 750 runs; the .dbf's record length, ``dbaseProblem(_:)``, 1 more in 800).
    ///
    /// - Throws: ``QueryError`` (`.syntax`, subject `.area`) naming the file, the record and what is wrong.
    static func validate(base: String) throws {
        let shpPath = base + ".shp", shxPath = base + ".shx"
        // Missing files are SpatiaLite's to report, as they were.
        guard let shp = try? Data(contentsOf: URL(fileURLWithPath: shpPath), options: .alwaysMapped),
              let shx = try? Data(contentsOf: URL(fileURLWithPath: shxPath), options: .alwaysMapped) else { return }
        func damaged(_ path: String, _ what: String) -> QueryError {
            QueryError(.syntax, "\(path): \(what); the shapefile is damaged: export it again, for example with ogr2ogr -f 'ESRI Shapefile'",
                       subject: .area)
        }
        if let dbf = try? Data(contentsOf: URL(fileURLWithPath: base + ".dbf"), options: .alwaysMapped),
           let problem = dbaseProblem(dbf) {
            throw damaged(base + ".dbf", problem)
        }
        guard shp.count >= 100, shx.count >= 100, (shx.count - 100) % 8 == 0 else {
            throw damaged(shp.count < 100 ? shpPath : shxPath, "shorter than a shapefile's header or not whole index entries")
        }
        try shp.withUnsafeBytes { (shp: UnsafeRawBufferPointer) in
            try shx.withUnsafeBytes { (shx: UnsafeRawBufferPointer) in
                func big(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> Int { Int(Int32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self))) }
                func little(_ at: Int) -> Int { Int(Int32(littleEndian: shp.loadUnaligned(fromByteOffset: at, as: Int32.self))) }
                guard big(shp, 0) == 9994 else { throw damaged(shpPath, "it does not begin with a shapefile's file code (9994)") }
                for k in 0..<(shx.count - 100) / 8 {
                    let start = big(shx, 100 + 8 * k) * 2
                    guard start >= 100, start <= shp.count - 12 else {
                        throw damaged(shxPath, "index entry \(k + 1) points to byte \(start), outside the .shp's \(shp.count) bytes")
                    }
                    // The record's own header: its content length (16-bit words), then its shape type.
                    let length = big(shp, start + 4) * 2, content = start + 8
                    let record = "record \(k + 1) (at byte \(start))"
                    guard length >= 4, length <= shp.count - content else {
                        throw damaged(shpPath, "\(record) says it is \(length) bytes long, but \(shp.count - content) bytes follow it")
                    }
                    let type = little(content)
                    // The bytes a record of this type needs, for `parts` parts and `points` points (ESRI's white paper, 1998).
                    func need(parts: Int, points: Int) -> Int {
                        switch type {
                        case 1: 20
                        case 11, 21: 28
                        case 8, 28: 40 + 16 * points
                        case 18: 40 + 16 * points + 16 + 8 * points
                        case 3, 5, 23, 25: 44 + 4 * parts + 16 * points
                        case 13, 15: 44 + 4 * parts + 16 * points + 16 + 8 * points
                        case 31: 44 + 8 * parts + 16 * points + 16 + 8 * points
                        default: 4
                        }
                    }
                    guard [0, 1, 3, 5, 8, 11, 13, 15, 18, 21, 23, 25, 28, 31].contains(type) else {
                        throw damaged(shpPath, "\(record) has shape type \(type), which is none of a shapefile's")
                    }
                    var parts = 0, points = 0
                    switch type {
                    case 8, 18, 28:
                        guard length >= 40 else { break }
                        points = little(content + 36)
                    case 3, 5, 13, 15, 23, 25, 31:
                        guard length >= 44 else { break }
                        (parts, points) = (little(content + 36), little(content + 40))
                    default: break
                    }
                    // 32-bit counts: `need` cannot overflow.
                    guard parts >= 0, points >= 0, need(parts: parts, points: points) <= length else {
                        throw damaged(shpPath, "\(record) holds \(parts) part\(parts == 1 ? "" : "s") and \(points) point\(points == 1 ? "" : "s"), "
                                       + "which do not fit in its \(length) bytes")
                    }
                    // Each part starts at a point of the record, in order.
                    var previous = 0
                    for p in 0..<parts {
                        let first = little(content + 44 + 4 * p)
                        guard first >= previous, first <= points else {
                            throw damaged(shpPath, "\(record): part \(p + 1) starts at point \(first), outside \(previous)...\(points)")
                        }
                        previous = first
                    }
                }
            }
        }
    }
}

extension Shapefile {
    /// What is wrong with the header of a dBASE table (`.dbf`), or nil: its fields must fill its
    /// record length and its records fit in the file (a record length changed made SpatiaLite copy
    /// through a null pointer).
    static func dbaseProblem(_ dbf: Data) -> String? {
        guard dbf.count >= 33 else { return "it is shorter than a dBASE header (\(dbf.count) bytes)" }
        return dbf.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            func u16(_ at: Int) -> Int { Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))) }
            let records = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let headerLength = u16(8), recordLength = u16(10)
            guard headerLength >= 33, headerLength <= dbf.count else {
                return "its header says it is \(headerLength) bytes long, in a file of \(dbf.count)"
            }
            // 32-byte field descriptors from offset 32 to the 0x0D that ends them; a record is a deletion flag, then the fields.
            var fields = 0, width = 1, at = 32
            while at < headerLength, bytes[at] != 0x0D {
                guard at + 32 <= headerLength else { return "its field descriptors run past its header" }
                width += Int(bytes[at + 16])
                fields += 1
                at += 32
            }
            guard fields > 0, width <= recordLength, recordLength > 1 else {
                return "its \(fields) fields take \(width) bytes a record, but its records are \(recordLength) bytes long"
            }
            guard records <= (dbf.count - headerLength) / recordLength else {
                return "its header counts \(records) records of \(recordLength) bytes, more than the file holds"
            }
            return nil
        }
    }
}

extension String {
    /// The string as an SQL literal, `'it''s'`: for the arguments of `CREATE VIRTUAL TABLE`, which SQLite cannot bind.
    var quotedDatabaseValueLiteral: String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension Area {
    /// The areas of an ESRI shapefile (`.shp` with its `.dbf`, `.shx` and, for its CRS, `.prj`),
    /// each Polygon or MultiPolygon record with its attributes, read through SpatiaLite.
    ///
    /// - Parameters:
    ///   - url: The `.shp` file; its `.dbf`, `.shx` and `.prj` are beside it, of the same name.
    ///   - crs: The CRS when the shapefile has no `.prj` (nil: EPSG:4326).
    public static func features(shapefileAt url: URL, crs: String? = nil) throws -> [Area] {
        let base = url.pathExtension.lowercased() == "shp" ? url.deletingPathExtension() : url
        let prj = try? String(contentsOf: base.appendingPathExtension("prj"), encoding: .utf8)
        let text = try Shapefile.geoJSON(path: base.path, allAttributes: true, precision: 15)
        return try features(geoJSON: Data(text.utf8), source: url.path, crs: prj ?? crs)
    }
}
