import CProj
import Foundation
import GRDB
import GRDBSQLite

/// Writes query rows as one point layer of a new OGC GeoPackage, the file QGIS, GDAL (`ogrinfo`,
/// `ogr2ogr`) and ArcGIS open as they are.
///
/// For example:
///
/// ```swift
/// let columns = [GeoPackageWriter.Column(name: "uwi", kind: .text), .init(name: "total_depth", kind: .real)]
/// try GeoPackageWriter.write(to: "abandoned.gpkg", layer: "abandoned", columns: columns, crs: "EPSG:4326") { gpkg in
///     try gpkg.add([.text("42-001-00001"), .real(1234.5)], x: -80.1, y: 40.2)
/// }
/// ```
///
/// The format is SpatiaLite's, not written by hand: `gpkgCreateBaseTables()` makes the GeoPackage
/// tables, `gpkgInsertEpsgSRID()` the layer's CRS (or PROJ's WKT for a CRS SpatiaLite's EPSG list
/// lacks), `gpkgAddGeometryColumn()` the POINT column, `gpkgAddSpatialIndex()` its R*Tree (filled
/// once the rows are in, its triggers kept for later edits) and `gpkgMakePoint()` each geometry. SpatiaLite 5 marks the file as
/// GeoPackage 1.0 (`application_id` 'GP10'); the writer sets 'GPKG' and `user_version` 10200, as
/// GeoPackage 1.2 requires, and the layer's extent in `gpkg_contents`.
///
/// The file is written beside `path` under a temporary name (removed on SIGINT, see
/// ``TemporaryFiles``), in one transaction, and renamed over `path` only when every row is in: a
/// failure or an interruption leaves no file and whatever `path` held before.
package final class GeoPackageWriter {
    /// An attribute column: its name and its GeoPackage type (INTEGER, REAL, TEXT or DATE).
    package struct Column: Sendable, Equatable {
        package var name: String
        package var kind: WellField.Kind

        package init(name: String, kind: WellField.Kind) {
            self.name = name
            self.kind = kind
        }

        var sqlType: String {
            switch kind {
            case .integer: "INTEGER"
            case .real: "REAL"
            case .text: "TEXT"
            case .date: "DATE"
            }
        }
    }

    /// The GeoPackage 1.2 `application_id`, 'GPKG'.
    package static let applicationID: Int32 = 0x4750_4B47
    /// The `user_version` of GeoPackage 1.2.0.
    package static let userVersion = 10200

    private let statement: Statement
    /// The features written so far.
    package private(set) var count = 0
    private var extent = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)

    private init(statement: Statement) {
        self.statement = statement
    }

    /// Adds one feature: `values` in the order of the columns, and its point (nil: a feature without geometry).
    ///
    /// Bound with SQLite's C API: GRDB's `StatementArguments` of `DatabaseValue`s were a visible
    /// share of an export with every field (`perf`).
    package func add(_ values: [WellValue], x: Double?, y: Double?) throws {
        let handle = statement.sqliteStatement
        for (k, value) in values.enumerated() { bind(value, at: Int32(k + 1), to: handle) }
        let point = Int32(values.count + 1)
        if let x, let y, x.isFinite, y.isFinite {
            sqlite3_bind_double(handle, point, x)
            sqlite3_bind_double(handle, point + 1, y)
            extent = (min(extent.minX, x), min(extent.minY, y), max(extent.maxX, x), max(extent.maxY, y))
        } else {
            sqlite3_bind_null(handle, point)
            sqlite3_bind_null(handle, point + 1)
        }
        try stepToDone(handle)
        count += 1
    }

    /// Writes a GeoPackage of one layer at `path`, replacing what is there, with the rows `body` adds.
    ///
    /// - Parameters:
    ///   - layer: The table name: letters, digits and `_`, starting with a letter (see ``layerName(forFileAt:)``).
    ///   - columns: The attribute columns: any names without control characters (quoted), none repeated
    ///     (ignoring case, as SQLite compares them) and none called `fid` or `geom`.
    ///   - crs: The CRS of the points `body` gives, such as `EPSG:4326` (longitude, latitude) or `EPSG:32616`.
    /// - Throws: ``StoreError`` (`invalidArgument`) for a name that is not allowed, ``CRSError`` for a CRS
    ///   PROJ does not know, `DatabaseError` when SQLite fails, ``StoreError`` (`ioError`) when the rename fails, or what `body` throws.
    @discardableResult
    package static func write<R>(to path: String, layer: String, columns: [Column], crs: String,
                                 _ body: (GeoPackageWriter) throws -> R) throws -> R {
        if !isAllowedName(layer) {
            throw StoreError(.invalidArgument, "\"\(layer)\" cannot name a GeoPackage layer: use letters, digits and _, starting with a letter")
        }
        for name in columns.map(\.name) where !isAllowedColumnName(name) {
            throw StoreError(.invalidArgument, "\(SafeText.quoted(name)) cannot name a GeoPackage column: a column needs a name of 1 to 255 "
                + "characters without control characters; rename it in the source list")
        }
        let names = columns.map { $0.name.lowercased() }
        if let clash = names.first(where: { $0 == "fid" || $0 == "geom" }) ?? names.first(where: { name in names.count { $0 == name } > 1 }) {
            throw StoreError(.invalidArgument, "the GeoPackage column \"\(clash)\" is repeated or reserved (fid and geom are the layer's own)")
        }
        let srs = try spatialReference(crs)
        return try TemporaryFiles.beside(path) { temporary in
            var configuration = Configuration()
            configuration.prepareDatabase { db in try SpatiaLite.initialize(db) }
            let result: R
            do {
                let queue = try DatabaseQueue(path: temporary, configuration: configuration)
                // No journal file beside the temporary one: a failure removes the whole file anyway.
                try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = MEMORY") }
                result = try queue.write { db in
                    let writer = try create(db, layer: layer, columns: columns, srs: srs)
                    let result = try body(writer)
                    try writer.finish(db, layer: layer)
                    return result
                }
                try queue.close()
            }
            guard rename(temporary, path) == 0 else {
                throw StoreError(.ioError, "cannot rename the GeoPackage into place: \(String(cString: strerror(errno)))", path: path)
            }
            return result
        }
    }

    /// The layer name for a file: its name without the extension, made of letters, digits and `_`
    /// (`abandoned wells.gpkg` → `abandoned_wells`), or `wells` when nothing of it is usable.
    package static func layerName(forFileAt path: String) -> String {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let cleaned = String(stem.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") ? Character($0) : "_" })
        let name = String(cleaned.prefix(64))
        guard isAllowedName(name), !name.lowercased().hasPrefix("gpkg_"), !name.lowercased().hasPrefix("rtree_"),
              !name.lowercased().hasPrefix("sqlite_") else { return "wells" }
        return name
    }

    /// Whether `path` starts as a GeoPackage does: SQLite's header and the application id 'GPKG' (or SpatiaLite's 'GP10').
    package static func isGeoPackage(atPath path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: 72), head.count == 72 else { return false }
        let bytes = [UInt8](head)
        let id = bytes[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return bytes.starts(with: Array("SQLite format 3\0".utf8)) && (id == UInt32(applicationID) || id == 0x4750_3130)
    }

    // MARK: - Writing

    /// The CRS as a `gpkg_spatial_ref_sys` row: an EPSG code's own id, or 100000 for a CRS without one.
    private struct SpatialReference {
        var id: Int
        var epsg: Bool
        var name: String
        var organization: String
        var code: Int
        var wkt: String
    }

    private static func spatialReference(_ crs: String) throws -> SpatialReference {
        let context = try ProjContext()
        let object = try context.createCRS(crs)
        let authority = libproj.proj_get_id_auth_name(object.raw, 0).map { String(cString: $0) }
        let code = libproj.proj_get_id_code(object.raw, 0).map { String(cString: $0) }.flatMap { Int($0) }
        let wkt = libproj.proj_as_wkt(context.raw, object.raw, PJ_WKT1_GDAL, nil).map { String(cString: $0) }
            ?? libproj.proj_as_wkt(context.raw, object.raw, PJ_WKT2_2019, nil).map { String(cString: $0) } ?? "undefined"
        context.resetLog()
        let epsg = authority?.uppercased() == "EPSG" && code != nil
        return SpatialReference(id: epsg ? code! : 100_000, epsg: epsg, name: object.name ?? crs,
                                organization: authority ?? "NONE", code: code ?? 100_000, wkt: wkt)
    }

    private static func create(_ db: Database, layer: String, columns: [Column], srs: SpatialReference) throws -> GeoPackageWriter {
        try db.execute(sql: "SELECT gpkgCreateBaseTables()")
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(userVersion)")
        let known = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM gpkg_spatial_ref_sys WHERE srs_id = ?", arguments: [srs.id]) ?? false
        if !known {
            // SpatiaLite's own EPSG list first; PROJ's WKT for a code it lacks, or a CRS without a code.
            let inserted = srs.epsg && (try? db.execute(sql: "SELECT gpkgInsertEpsgSRID(?)", arguments: [srs.id])) != nil
            if !inserted {
                try db.execute(sql: """
                    INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition)
                    VALUES (?, ?, ?, ?, ?)
                    """, arguments: [srs.name, srs.id, srs.organization, srs.code, srs.wkt])
            }
        }
        // Column names are the source's (`extra.Well Depth (ft)`), checked by `isAllowedColumnName` and quoted as SQL identifiers.
        let definitions = (["fid INTEGER PRIMARY KEY AUTOINCREMENT"] + columns.map { "\($0.name.quotedDatabaseIdentifier) \($0.sqlType)" }).joined(separator: ", ")
        try db.execute(sql: "CREATE TABLE \"\(layer)\" (\(definitions))")
        try db.execute(sql: "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)",
                       arguments: [layer, layer, srs.id])
        try db.execute(sql: "SELECT gpkgAddGeometryColumn(?, 'geom', 'POINT', 0, 0, ?)", arguments: [layer, srs.id])
        let names = (columns.map(\.name.quotedDatabaseIdentifier) + ["geom"]).joined(separator: ", ")
        let values = (Array(repeating: "?", count: columns.count) + ["gpkgMakePoint(?, ?, \(srs.id))"]).joined(separator: ", ")
        let statement = try db.makeStatement(sql: "INSERT INTO \"\(layer)\" (\(names)) VALUES (\(values))")
        return GeoPackageWriter(statement: statement)
    }

    /// Adds the layer's spatial index, and records its extent and time of change in `gpkg_contents`.
    private func finish(_ db: Database, layer: String) throws {
        // The R*Tree after the rows, filled in one statement, as GDAL fills one it adds to a layer:
        // through the triggers of `gpkgAddSpatialIndex()`, row by row, the export takes longer.
        // The triggers stay, for edits after (QGIS).
        try db.execute(sql: "SELECT gpkgAddSpatialIndex(?, 'geom')", arguments: [layer])
        try db.execute(sql: "INSERT INTO \"rtree_\(layer)_geom\" SELECT fid, ST_MinX(geom), ST_MaxX(geom), ST_MinY(geom), ST_MaxY(geom) FROM \"\(layer)\" WHERE geom NOT NULL AND NOT ST_IsEmpty(geom)")
        let box: [DatabaseValue] = count > 0 && extent.minX.isFinite
            ? [extent.minX.databaseValue, extent.minY.databaseValue, extent.maxX.databaseValue, extent.maxY.databaseValue]
            : [.null, .null, .null, .null]
        try db.execute(sql: """
            UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?,
                last_change = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = ?
            """, arguments: StatementArguments(box + [layer.databaseValue]))
    }

    /// A column's name as a GeoPackage field: the unmapped columns of a list (`extra.Well Depth (ft)`,
    /// `extra.column_15`) keep their names, as GDAL keeps a CSV's; quoted where it is used, and of 1
    /// to 255 characters without control characters (which no reader shows).
    private static func isAllowedColumnName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.count <= 255 && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// Letters, digits and `_`, starting with a letter, at most 64 characters: a name that needs no escaping.
    private static func isAllowedName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64,
              first.isASCII, CharacterSet.letters.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
    }
}
