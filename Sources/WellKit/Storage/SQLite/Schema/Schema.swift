import GRDB

/// The store's schema, created and upgraded by GRDB migrations.
///
/// Version 1:
/// - `pins(id, name, lat, lon, geom)`: narrow, one row per well, with a SpatiaLite
///   `POINT` geometry in EPSG:4326 and its R*Tree `idx_pins_geom`;
/// - `details(pin_id → pins.id ON DELETE CASCADE, uwi UNIQUE, typed attributes,
///   source coordinates, extra JSON, load_id)`;
/// - `loads`: provenance of every load; `rejects`: every row that did not load.
///
/// Version 2:
/// - `loads.inferences` (JSON: what the loader inferred about the columns, with its evidence) and `loads.suspects`;
/// - `suspects(pin_id → pins.id ON DELETE CASCADE, load_id, line, reason, detail)`: wells whose
///   coordinates look wrong (see `SuspectCoordinates`), flagged by the load that last wrote them.
///
/// Version 3 (migration "v3-pins"):
/// - `pins(id, name, lat, lon)`: the map's four fields and nothing else (the geometry blob made a pin
///   2.4 times as wide);
/// - `pin_points(id → pins.id ON DELETE CASCADE, geom)`: each pin's SpatiaLite `POINT` in EPSG:4326,
///   registered in `geometry_columns`, with its R*Tree `idx_pin_points_geom` keyed by pin id
///   (version 5 computes the points instead);
/// - the view `wells` (``WellsLayer``), registered in `views_geometry_columns`: one point layer with
///   every field, which GDAL, QGIS and SpatiaLite open.
///
/// Version 3 (migration "v3-details"), compact details (``CompactDetails``):
/// - dates as day numbers since 1970-01-01 (`INTEGER`), in the order of their `yyyy-mm-dd` text;
/// - operator, status, type, fluid, field, formation, county and state as codes (`INTEGER NOT NULL`)
///   of the tables `lookup_FIELD(code INTEGER PRIMARY KEY, value TEXT UNIQUE)`, whose code 0
///   (``nullCode``) has no value;
/// - `extra` as a JSON array of values by position, named once in `extra_keys(position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`.
///
/// Version 4 (migration "v4-extra-values"): an extra value that repeats is kept once, in
/// `extra_values(code INTEGER PRIMARY KEY, value TEXT NOT NULL)`, and the rows' arrays hold
/// its code, a JSON integer, where version 3 held the text (a JSON string; an unmapped column holds
/// text only, so an integer in the array is always a code). A value met once, and a column's values
/// past its first 1,024 distinct ones, stay text (``ExtraValues``). Tennessee's list repeats the
/// same 38-byte address and a handful of statuses on every row. No index on `value`: rows are read
/// by code, a condition finds a text's codes with one scan of the table per statement, a load reads
/// it whole, and `wells check` checks that no value has two codes (a unique index took 0.47 MB of
/// the 244,292-well store).
///
/// Version 5 (migration "v5-computed-points"): the pins' points computed, not stored
/// (``computePointsInPins(_:)``). `pins.geom` is a virtual generated column, `MakePoint(lon, lat,
/// 4326)`, registered in `geometry_columns`, so a pin's row on disk still holds its four fields and
/// nothing else; `pin_points` (60 bytes of SpatiaLite blob for each pin, 17.3 MB of the 75.6 MB
/// 244,292-well store) is gone. The R*Tree `idx_pins_geom` is keyed by pin id and kept in step by
/// three triggers on `pins` (``SpatialIndex``); the layer `wells` takes its geometry from `pins.geom`.
enum Schema {
    /// `PRAGMA application_id` of a WellKit store: "WELL" in ASCII.
    static let applicationID: Int32 = 0x5745_4C4C
    /// The schema version this build writes, kept in `PRAGMA user_version`.
    static let version: Int32 = 5
    /// The code of a lookup table's row without a value: a detail row's code when the field has none.
    static let nullCode: Int64 = 0

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "SELECT InitSpatialMetadata(0, 'WGS84_ONLY')")
            try db.execute(sql: """
                CREATE TABLE pins(\(pinsColumns));
                SELECT AddGeometryColumn('pins', 'geom', 4326, 'POINT', 'XY');
                SELECT CreateSpatialIndex('pins', 'geom');
                CREATE TABLE loads(\(loadsColumns));
                \(DetailColumn.createTable)
                CREATE UNIQUE INDEX details_uwi ON details(uwi);
                \(createRejects)
                """)
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        // Version 2: what each load inferred, and the wells whose coordinates look wrong.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE loads ADD COLUMN \(loadsColumnsOfVersion2[0]);
                ALTER TABLE loads ADD COLUMN \(loadsColumnsOfVersion2[1]);
                \(createSuspects)
                """)
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        // Version 3: pins of four fields, the point geometry in its own table, one GIS layer.
        // The layer `wells` is made by the last migration (v5), over the tables as they end up.
        migrator.registerMigration("v3-pins") { db in
            try movePointsOutOfPins(db)
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        // Version 3: the detail rows in compact form, rewritten in the migration's transaction.
        // The layer names `details`, which is replaced: a version 3 store's layer goes first.
        migrator.registerMigration("v3-details") { db in
            try WellsLayer.drop(db)
            try compactDetails(db)
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        // Version 4: repeated extra values as codes. Version 3's arrays hold text only and stay
        // valid; the layer comes back (v5) with the expression that reads codes.
        migrator.registerMigration("v4-extra-values") { db in
            try WellsLayer.drop(db)
            try db.execute(sql: createExtraValues)
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        // Version 5: the points computed from each pin's coordinates instead of stored beside them.
        migrator.registerMigration("v5-computed-points") { db in
            try WellsLayer.drop(db)
            try computePointsInPins(db)
            try WellsLayer.create(db)
            try db.execute(sql: "PRAGMA user_version = 5")
        }
        return migrator
    }

    /// Creates a new store's schema at ``version`` at once: the tables, indexes, triggers, view and
    /// SpatiaLite registrations that the migrations leave, with the same SQL text in `sqlite_schema`,
    /// and every migration marked as applied in GRDB's `grdb_migrations` (``migrator``'s later
    /// migrations then run on such a store as on a migrated one).
    ///
    /// The migrations rebuild `pins` and `details` and alter `loads` and `pins`, and each rebuild or
    /// `ALTER TABLE` makes SQLite parse the whole schema again, SpatiaLite's many triggers included:
    /// the six took 45–50 ms of the 145 ms a one-well load into a new store took.
    /// `WellStoreTests.newStoreSchemaIsTheMigratedSchema` holds both ways to the same schema.
    ///
    /// A new schema version needs a migration, for the stores that exist, and the same change here.
    static func create(_ db: Database) throws {
        try db.execute(sql: "SELECT InitSpatialMetadata(0, 'WGS84_ONLY')")
        // The text SQLite keeps for `pins` after version 3's rebuild (renamed into place, hence the
        // quotes) and version 5's `ADD COLUMN`, and for `loads` after version 2's.
        try db.execute(sql: """
            CREATE TABLE "pins"(\(pinsColumns), \(pointColumn));
            \(pointRegistration)
            CREATE TABLE loads(\(loadsColumns), \(loadsColumnsOfVersion2.joined(separator: ", ")));
            \(DetailColumn.createTable(named: "details".quotedDatabaseIdentifier, compact: true))
            CREATE UNIQUE INDEX details_uwi ON details(uwi);
            \(createRejects)
            \(createSuspects)
            \(createExtraKeys);
            \(createExtraValues);
            """)
        for table in WellField.detailValueFields.compactMap(\.lookupTable) {
            try db.execute(sql: createLookup(table))
        }
        try SpatialIndex.createIndex(db)
        try WellsLayer.create(db)
        // GRDB's own table, as `DatabaseMigrator` creates it.
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for identifier in migrator.migrations {
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
        }
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }

    // The text of the tables that the migrations and ``create(_:)`` both write. SQLite keeps a table's
    // text as written, so a migration's must stay as it was: a change is a new migration.

    /// Version 1's columns of `pins` (the map's four fields; version 1 added a SpatiaLite point after
    /// them), which version 3's rebuild kept.
    private static let pinsColumns = """

          id INTEGER PRIMARY KEY,
          name TEXT,
          lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
          lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180)
        """

    /// Version 1's columns of `loads`.
    private static let loadsColumns = """

          id INTEGER PRIMARY KEY,
          file TEXT NOT NULL,
          sha256 TEXT NOT NULL,
          started_at TEXT NOT NULL,
          seconds REAL NOT NULL,
          records INTEGER NOT NULL,
          inserted INTEGER NOT NULL,
          updated INTEGER NOT NULL,
          rejected INTEGER NOT NULL,
          bad_values INTEGER NOT NULL,
          duplicates INTEGER NOT NULL,
          generated_ids INTEGER NOT NULL,
          mapping TEXT NOT NULL,
          crs TEXT NOT NULL,
          transformation TEXT,
          accuracy_m REAL,
          warnings TEXT
        """

    /// The columns version 2 adds to `loads`.
    private static let loadsColumnsOfVersion2 = ["inferences TEXT", "suspects INTEGER NOT NULL DEFAULT 0"]

    /// Version 3's lookup table of a field's names, with the row of code ``nullCode`` (no name).
    private static func createLookup(_ table: String) -> String {
        """
        CREATE TABLE \(table)(code INTEGER PRIMARY KEY, value TEXT UNIQUE);
        INSERT INTO \(table)(code, value) VALUES (\(nullCode), NULL);
        """
    }

    /// Version 3's names of the unmapped columns, by their position in a row's `extra` array.
    private static let createExtraKeys = "CREATE TABLE extra_keys(position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"

    /// Version 4's repeated extra values.
    private static let createExtraValues = "CREATE TABLE \(ExtraValues.table)(code INTEGER PRIMARY KEY, value TEXT NOT NULL)"

    /// Version 1's table of rejects.
    private static let createRejects = """
        CREATE TABLE rejects(
          id INTEGER PRIMARY KEY,
          load_id INTEGER NOT NULL REFERENCES loads(id) ON DELETE CASCADE,
          line INTEGER NOT NULL,
          "column" TEXT,
          reason TEXT NOT NULL,
          raw TEXT NOT NULL);
        CREATE INDEX rejects_load ON rejects(load_id);
        """

    /// Version 2's table of suspects.
    private static let createSuspects = """
        CREATE TABLE suspects(
          pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
          load_id INTEGER NOT NULL REFERENCES loads(id),
          line INTEGER NOT NULL,
          reason TEXT NOT NULL,
          detail TEXT NOT NULL);
        """
}

extension Schema {
    /// Version 3's table of the pins' point geometries, one row per pin, which version 5 drops.
    static let pointTable = "pin_points"

    /// The pins' point, as SpatiaLite reads it: the expression of the virtual column `pins.geom`.
    static let pointExpression = "MakePoint(lon, lat, 4326)"

    /// Replaces version 3's stored points (``pointTable``, its R*Tree and SpatiaLite's triggers)
    /// with the virtual column `pins.geom` (``pointExpression``), registered in `geometry_columns` as
    /// a POINT in EPSG:4326 with a spatial index, and the R*Tree `idx_pins_geom` with the triggers
    /// that keep it in step (``SpatialIndex/createIndex(_:)``), packed from the pins.
    ///
    /// SpatiaLite's `AddGeometryColumn` and `CreateSpatialIndex` refuse a generated column (they look
    /// for it in `PRAGMA table_info`, which leaves generated columns out), so the registration rows
    /// are written as `AddGeometryColumn` writes them; GDAL reads the column, and answers a spatial
    /// filter from the R*Tree, as it did from `pin_points`. The column costs nothing on disk: SQLite
    /// computes a virtual column when a statement reads it, so only a statement that reads `geom`
    /// needs SpatiaLite (the query commands, which open the store without it, never do), and an
    /// INSERT or UPDATE of `pins` (SQLite computes the generated columns of every row it writes).
    /// Declared `BLOB`, not `POINT` as `AddGeometryColumn` declares a column: `POINT` has integer
    /// affinity ("INT"), and SQLite's `integrity_check` computes a column with an affinity to check
    /// its type, which `sqlite3` without SpatiaLite cannot do.
    static func computePointsInPins(_ db: Database) throws {
        func spatiaLite(_ call: String) throws {
            guard try Int.fetchOne(db, sql: "SELECT \(call)") == 1 else {
                throw StoreError(.spatiaLite, "could not upgrade the store to schema version 5: SpatiaLite's \(call) failed")
            }
        }
        if try db.tableExists(pointTable) {
            try spatiaLite("DisableSpatialIndex('\(pointTable)', 'geom')")
            try db.execute(sql: "DROP TABLE IF EXISTS \("idx_\(pointTable)_geom".quotedDatabaseIdentifier)")
            try spatiaLite("DiscardGeometryColumn('\(pointTable)', 'geom')")
            for table in ["geometry_columns_statistics", "geometry_columns_field_infos", "geometry_columns_time", "geometry_columns_auth"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE lower(f_table_name) = ? AND lower(f_geometry_column) = 'geom'", arguments: [pointTable])
            }
            try db.execute(sql: "DROP TABLE \(pointTable)")
        }
        try db.execute(sql: "ALTER TABLE pins ADD COLUMN \(pointColumn)")
        try db.execute(sql: pointRegistration)
        try SpatialIndex.createIndex(db)
        try SpatialIndex.repack(db)
    }

    /// The declaration of the virtual column `pins.geom` (``pointExpression``).
    static let pointColumn = "geom BLOB GENERATED ALWAYS AS (\(pointExpression)) VIRTUAL"

    /// The rows that register `pins.geom` with SpatiaLite, as `AddGeometryColumn` and
    /// `CreateSpatialIndex` would write them (they refuse a generated column: see ``computePointsInPins(_:)``).
    static let pointRegistration = """
        INSERT INTO geometry_columns(f_table_name, f_geometry_column, geometry_type, coord_dimension, srid, spatial_index_enabled)
          VALUES ('pins', 'geom', 1, 2, 4326, 1);
        INSERT INTO geometry_columns_auth(f_table_name, f_geometry_column, read_only, hidden) VALUES ('pins', 'geom', 1, 0);
        INSERT INTO geometry_columns_statistics(f_table_name, f_geometry_column) VALUES ('pins', 'geom');
        INSERT INTO geometry_columns_time(f_table_name, f_geometry_column) VALUES ('pins', 'geom');
        """

    /// Moves the SpatiaLite points from `pins.geom` to ``pointTable``, with its packed R*Tree, and
    /// drops `pins.geom` and its R*Tree `idx_pins_geom`.
    ///
    /// Runs inside the migration's transaction: a store is upgraded whole or not at all. Each point is
    /// made from the pin's `lat` and `lon`, as the loader makes it, so the geometry, the R*Tree and the
    /// columns that queries read agree. SpatiaLite's functions report failure by returning 0, not by
    /// an SQL error, so each call's result is checked.
    static func movePointsOutOfPins(_ db: Database) throws {
        func spatiaLite(_ call: String) throws {
            guard try Int.fetchOne(db, sql: "SELECT \(call)") == 1 else {
                throw StoreError(.spatiaLite, "could not upgrade the store to schema version 3: SpatiaLite's \(call) failed")
            }
        }
        try db.execute(sql: "CREATE TABLE \(pointTable)(id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE)")
        try spatiaLite("AddGeometryColumn('\(pointTable)', 'geom', 4326, 'POINT', 'XY')")
        try spatiaLite("CreateSpatialIndex('\(pointTable)', 'geom')")
        // As in a load: the points go in without the per-row triggers, then the R*Tree is packed.
        let triggers = try SpatialIndex.suspendTriggers(db, on: pointTable)
        try db.execute(sql: "INSERT INTO \(pointTable)(id, geom) SELECT id, MakePoint(lon, lat, 4326) FROM pins ORDER BY id")
        try SpatialIndex.restoreTriggers(triggers, in: db)
        try SpatialIndex.repack(db, into: "idx_\(pointTable)_geom")
        if try db.columns(in: "pins").contains(where: { $0.name == "geom" }) {
            try spatiaLite("DisableSpatialIndex('pins', 'geom')")
            try db.execute(sql: "DROP TABLE IF EXISTS idx_pins_geom")
            try spatiaLite("DiscardGeometryColumn('pins', 'geom')")
            // Their rows go by ON DELETE CASCADE, which the migration's foreign keys (off until its end) leave undone.
            for table in ["geometry_columns_statistics", "geometry_columns_field_infos", "geometry_columns_time", "geometry_columns_auth"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE lower(f_table_name) = 'pins' AND lower(f_geometry_column) = 'geom'")
            }
            // A rebuild, not `DROP COLUMN`: that rewrites each row in place and leaves the pages as many
            // as before, half empty (30.0 MB of pins for 244,292 wells, against 14.5 MB rebuilt in id order).
            // With foreign keys off, `details` and `suspects` refer to the new table by its name.
            try db.execute(sql: """
                CREATE TABLE pins_v3(\(pinsColumns));
                INSERT INTO pins_v3(id, name, lat, lon) SELECT id, name, lat, lon FROM pins ORDER BY id;
                DROP TABLE pins;
                ALTER TABLE pins_v3 RENAME TO pins;
                """)
        }
    }

    /// Rewrites a version 2 store's `details` in the compact form of version 3: fills the lookups
    /// (codes in text order) and `extra_keys` (in the order of first use), copies the rows into a
    /// new table with codes and day numbers, rewrites each `extra` object as an array by position
    /// (``ExtraArray``, as the loader writes it), then replaces the table and its identifier index.
    ///
    /// - Throws: ``StoreError`` when a stored date is not `yyyy-mm-dd` (no day number would read it
    ///   back the same); the migration's transaction is then rolled back, leaving the store as it was.
    static func compactDetails(_ db: Database) throws {
        var columns: [String] = ["pin_id"]
        for column in DetailColumn.all {
            let name = column.name.quotedDatabaseIdentifier
            switch column.content {
            case .value(let field) where field.lookupTable != nil:
                let table = field.lookupTable!
                try db.execute(sql: """
                    \(createLookup(table))
                    INSERT INTO \(table)(code, value)
                      SELECT \(nullCode) + row_number() OVER (ORDER BY v), v FROM (SELECT DISTINCT \(name) AS v FROM details WHERE \(name) IS NOT NULL);
                    """)
                columns.append("coalesce((SELECT code FROM \(table) WHERE value = d.\(name)), \(nullCode))")
            case .value(let field) where field.kind == .date:
                let days = "CAST(julianday(d.\(name)) - 2440587.5 AS INTEGER)"
                let unreadable = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM details d WHERE d.\(name) IS NOT NULL AND (\(days) IS NULL OR \(field.sqliteValue(days)) IS NOT d.\(name))
                    """) ?? 0
                guard unreadable == 0 else {
                    throw StoreError(.damaged, "\(unreadable) wells have a \(field.rawValue) that is not a date written yyyy-mm-dd; the store was not upgraded")
                }
                columns.append(days)
            default:
                columns.append("d." + name)
            }
        }
        try db.execute(sql: """
            \(createExtraKeys);
            INSERT INTO extra_keys(position, name)
              SELECT row_number() OVER (ORDER BY min(d.pin_id * 4096 + j.id)) - 1, j.key FROM details d, json_each(d."extra") j GROUP BY j.key;
            \(DetailColumn.createTable(named: "details_v3", compact: true))
            INSERT INTO details_v3 SELECT \(columns.joined(separator: ", ")) FROM details d;
            """)
        var positions: [String: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT position, name FROM extra_keys") { positions[row[1]] = row[0] }
        let update = try db.makeStatement(sql: "UPDATE details_v3 SET \"extra\" = ? WHERE pin_id = ?")
        let members = try Row.fetchCursor(db, sql: """
            SELECT d.pin_id, j.key, j.value FROM details d, json_each(d."extra") j ORDER BY d.pin_id, j.id
            """)
        var array = ExtraArray(), pin: Int64? = nil
        func flush() throws {
            guard let pin else { return }
            let text = array.withFinished { $0.map { String(decoding: $0, as: UTF8.self) } }
            try update.execute(arguments: [text, pin])
        }
        while let row = try members.next() {
            let id: Int64 = row[0]
            if id != pin {
                try flush()
                pin = id
                array.reset()
            }
            var value: String = row[2]
            value.withUTF8 { array.append(position: positions[row[1]]!, value: $0) }
        }
        try flush()
        try db.execute(sql: """
            DROP TABLE details;
            ALTER TABLE details_v3 RENAME TO details;
            CREATE UNIQUE INDEX details_uwi ON details(uwi);
            """)
    }
}

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

/// One column of `details` after its `pin_id` key: what it holds, its name, and its type in the schema.
///
/// This table is the one definition of a detail row. The schema's `CREATE TABLE details` is
/// rendered from it (``createTable``), the loader's rows hold their cells in this order after the
/// pin's (``RowBatch/Column``, and `BulkWriter`'s INSERT and UPDATE name ``all``), and a full
/// fetch selects ``all`` in this order (`WellDetail.columns`).
///
/// The rendered text is the v1 migration's, byte for byte (`DetailColumnTests` pins it), so stores
/// made by earlier builds and new ones have the same schema. A new column needs a new migration
/// (`ALTER TABLE details ADD COLUMN`); the v1 text must then keep the columns it had.
package struct DetailColumn: Sendable, Equatable {
    /// What a column holds.
    package enum Content: Sendable, Equatable {
        case identifier
        /// A typed attribute: one of ``WellField/detailValueFields``, in their order.
        case value(WellField)
        case sourceX, sourceY, sourceCRS
        /// Unmapped source columns and values that did not parse, as JSON.
        case extra
        /// The load that last wrote the row; bound by the writer, not built per row.
        case loadID
    }

    package let content: Content
    package let name: String
    /// The column's type and constraints, as the schema declares them.
    let declaration: String

    /// Every column, in table order.
    package static let all: [DetailColumn] = [DetailColumn(content: .identifier, name: "uwi", declaration: "TEXT NOT NULL")]
        + WellField.detailValueFields.map { DetailColumn(content: .value($0), name: $0.column, declaration: $0.kind == .real ? "REAL" : "TEXT") }
        + [
            DetailColumn(content: .sourceX, name: "source_x", declaration: "REAL"),
            DetailColumn(content: .sourceY, name: "source_y", declaration: "REAL"),
            DetailColumn(content: .sourceCRS, name: "source_crs", declaration: "TEXT"),
            DetailColumn(content: .extra, name: "extra", declaration: "TEXT"),
            DetailColumn(content: .loadID, name: "load_id", declaration: "INTEGER REFERENCES loads(id)"),
        ]

    /// The position of the column that holds `content` in ``all``.
    static func index(of content: Content) -> Int {
        all.firstIndex { $0.content == content }!
    }

    /// The column's type in the compact layout of schema version 3 (``Schema/compactDetails(_:)``):
    /// a looked-up name's code, a date's day number; the others as in ``declaration``.
    var compactDeclaration: String {
        switch content {
        case .value(let field) where field.lookupTable != nil: "INTEGER NOT NULL DEFAULT \(Schema.nullCode)"
        case .value(let field) where field.kind == .date: "INTEGER"
        default: declaration
        }
    }

    /// `CREATE TABLE name(…);` with the compact layout's types, on one line.
    static func createTable(named name: String, compact: Bool) -> String {
        "CREATE TABLE \(name)(pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE, "
            + all.map { "\($0.name.quotedDatabaseIdentifier) \(compact ? $0.compactDeclaration : $0.declaration)" }.joined(separator: ", ") + ");"
    }

    /// The columns a SQLite store's full fetch selects, each read back as version 2 stored it:
    /// looked-up names and dates as text (``WellField/sqliteValue(_:)``), the extra values as a
    /// JSON object of their names (no object when the row has none).
    static let sqliteSelection: [String] = all.map { column in
        let qualified = "d." + column.name.quotedDatabaseIdentifier
        switch column.content {
        case .value(let field): return field.sqliteValue(qualified)
        case .extra:
            return """
                CASE WHEN \(qualified) IS NOT NULL THEN (SELECT json_group_object(k.name, \(ExtraValues.text(type: "j.type", value: "j.atom"))) \
                FROM json_each(\(qualified)) j JOIN extra_keys k ON k.position = j.key WHERE j.type != 'null') END
                """
        default: return qualified
        }
    }

    /// `CREATE TABLE details(…);` as the v1 migration has always written it. Only the layout is
    /// kept here (which names are quoted, where lines break); the columns come from ``all``.
    static var createTable: String {
        let quoted: Set = ["operator", "type"]
        let lineBreakAfter: Set = ["uwi", "formation", "licence", "plug_date", "kb_elevation", "source_crs", "extra"]
        var text = "CREATE TABLE details(\n  pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,\n  "
        for (k, column) in all.enumerated() {
            text += (quoted.contains(column.name) ? "\"\(column.name)\"" : column.name) + " " + column.declaration
            if k == all.count - 1 {
                text += ");"
            } else {
                text += lineBreakAfter.contains(column.name) ? ",\n  " : ", "
            }
        }
        return text
    }
}
