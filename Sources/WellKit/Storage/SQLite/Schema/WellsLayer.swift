import GRDB

/// The GIS layer `wells`: a SpatiaLite view of every well as one point with every field, `pins`
/// (with its point, the column `geom`) joined with `details`, registered in
/// `views_geometry_columns` so that GDAL (`ogrinfo`, `ogr2ogr`), QGIS and SpatiaLite open it as a
/// point layer in EPSG:4326 whose FID is the pin id. GDAL answers a spatial filter on it from the
/// pins' R*Tree.
///
/// GDAL 3.6 registers no view whose geometry is an expression (`MakePoint` in the view), but takes
/// a view's geometry from a registered column of a table, which `pins.geom` is (computed by SQLite,
/// ``Schema/pointExpression``). GDAL also lists `pins` itself, a layer of the map's four fields.
enum WellsLayer {
    /// The view's name, which GIS tools show as the layer's.
    static let name = "wells"

    /// The view's fields after its FID `id`, as SQL expressions over `p` (pins) and `d` (details),
    /// each named as the field: the pin's name and coordinates, then every column of `details` as
    /// stored (the unmapped columns as one JSON text field, `extra`). The one place that says how a
    /// stored column reads as a field of the layer.
    static var fields: [String] {
        ["p.name AS name", "p.lat AS lat", "p.lon AS lon"]
            + zip(DetailColumn.all, DetailColumn.sqliteSelection).map { column, value in "\(value) AS \(column.name.quotedDatabaseIdentifier)" }
    }

    /// Removes the view and its registration. A migration that rebuilds `details` or `pins` calls it
    /// first (SQLite refuses to rename a table into place while a view names a table that is gone),
    /// then ``create(_:)``.
    static func drop(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM views_geometry_columns WHERE view_name = ?", arguments: [name])
        try db.execute(sql: "DROP VIEW IF EXISTS \(name.quotedDatabaseIdentifier)")
    }

    /// Creates the view and registers it, replacing an earlier definition.
    static func create(_ db: Database) throws {
        try drop(db)
        try db.execute(sql: """
            CREATE VIEW \(name.quotedDatabaseIdentifier) AS
            SELECT p.id AS id, \(fields.joined(separator: ", ")), p.geom AS geom
            FROM pins p JOIN details d ON d.pin_id = p.id
            """)
        try db.execute(sql: """
            INSERT INTO views_geometry_columns(view_name, view_geometry, view_rowid, f_table_name, f_geometry_column, read_only)
            VALUES (?, 'geom', 'id', 'pins', 'geom', 1)
            """, arguments: [name])
    }
}
