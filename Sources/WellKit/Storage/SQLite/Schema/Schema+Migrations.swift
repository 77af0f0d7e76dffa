import GRDB

extension Schema {
    /// The migrations that bring a store made by an earlier build to ``Schema/version``, one per change,
    /// run in one transaction by ``upgrade(_:)``:
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
    ///   more than twice as wide);
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
    /// it whole, and `wells check` checks that no value has two codes (a unique index would cost
    /// its own pages for no query).
    ///
    /// Version 5 (migration "v5-computed-points"): the pins' points computed, not stored
    /// (``computePointsInPins(_:)``). `pins.geom` is a virtual generated column, `MakePoint(lon, lat,
    /// 4326)`, registered in `geometry_columns`, so a pin's row on disk still holds its four fields and
    /// nothing else; `pin_points` (a SpatiaLite blob for each pin, a large share of the store:
    /// Benchmarks/README.md's "The store file") is gone. The R*Tree `idx_pins_geom` is keyed by pin id and kept in step by
    /// three triggers on `pins` (``SpatialIndex``); the layer `wells` takes its geometry from `pins.geom`.
    ///
    /// Version 6 (migration "v6-releases"): `releases(id, source, number, load_id, wells, summary)`, the
    /// releases of each source's list (``ReleaseWriter``); `release_loads(load_id, release_id)`, the
    /// loads that brought each; `changes(release_id, kind, uwi, field, old, new, meters, lat, lon)`,
    /// what changed in each release, well by well.
    static let migrations: [Migration] = [
        Migration("v1") { db in
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
        },
        // Version 2: what each load inferred, and the wells whose coordinates look wrong.
        Migration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE loads ADD COLUMN \(loadsColumnsOfVersion2[0]);
                ALTER TABLE loads ADD COLUMN \(loadsColumnsOfVersion2[1]);
                \(createSuspects)
                """)
            try db.execute(sql: "PRAGMA user_version = 2")
        },
        // Version 3: pins of four fields, the point geometry in its own table, one GIS layer.
        // The layer `wells` is made by the last migration (v5), over the tables as they end up.
        Migration("v3-pins") { db in
            try movePointsOutOfPins(db)
            try db.execute(sql: "PRAGMA user_version = 3")
        },
        // Version 3: the detail rows in compact form.
        // The layer names `details`, which is replaced: a version 3 store's layer goes first.
        Migration("v3-details") { db in
            try WellsLayer.drop(db)
            try compactDetails(db)
            try db.execute(sql: "PRAGMA user_version = 3")
        },
        // Version 4: repeated extra values as codes. Version 3's arrays hold text only and stay
        // valid; the layer comes back (v5) with the expression that reads codes.
        Migration("v4-extra-values") { db in
            try WellsLayer.drop(db)
            try db.execute(sql: createExtraValues)
            try db.execute(sql: "PRAGMA user_version = 4")
        },
        // Version 5: the points computed from each pin's coordinates instead of stored beside them.
        Migration("v5-computed-points") { db in
            try WellsLayer.drop(db)
            try computePointsInPins(db)
            try WellsLayer.create(db)
            try db.execute(sql: "PRAGMA user_version = 5")
        },
        // Version 6: releases of each source's list and their changes.
        Migration("v6-releases") { db in
            try db.execute(sql: createReleases)
            try db.execute(sql: "PRAGMA user_version = 6")
        },
    ]

    /// One change of the schema: its identifier, as GRDB's `DatabaseMigrator` recorded it in
    /// `grdb_migrations` (stores made before ``upgrade(_:)`` hold those rows), and what it does.
    struct Migration: Sendable {
        let identifier: String
        let migrate: @Sendable (Database) throws -> Void
        init(_ identifier: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
            self.identifier = identifier
            self.migrate = migrate
        }
    }

    /// Whether the store is older than this build's ``version`` (or an empty file): it needs ``upgrade(_:)``.
    static func needsUpgrade(_ db: Database) throws -> Bool {
        try (Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0) < version
    }

    /// The migrations a store has not had yet, in order.
    static func pendingMigrations(_ db: Database) throws -> [Migration] {
        let applied = try db.tableExists("grdb_migrations")
            ? Set(String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
        return migrations.filter { !applied.contains($0.identifier) }
    }

    /// Brings the store from whatever version it has to ``version``, inside the caller's transaction:
    /// every pending migration, then SQLite's foreign-key check.
    ///
    /// Not GRDB's `DatabaseMigrator`, which commits each migration in a transaction of its own: a
    /// process killed between two (or a disk that fills at the third) left a version-2 store at
    /// `v3-pins`, a state no release wrote. Here the upgrade commits with the caller's first
    /// write (``SQLiteEngine``) or alone (``SQLiteEngine/upgrade()``), and a failure or a kill
    /// leaves the old version whole. Foreign keys must be off (the pragma cannot change inside a
    /// transaction): the migrations rebuild `pins` and `details`, and dropping the old `pins` with
    /// foreign keys on would delete every detail through `ON DELETE CASCADE`.
    ///
    /// - Throws: ``StoreError`` when a migration cannot read the old rows, or when the result breaks
    ///   a foreign key; the caller's transaction then rolls back, and the store is as it was.
    static func upgrade(_ db: Database) throws {
        guard try needsUpgrade(db) else { return }
        precondition(db.isInsideTransaction, "Schema.upgrade runs inside the caller's transaction")
        guard try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == false else {
            preconditionFailure("Schema.upgrade needs foreign keys off: the rebuild of pins would cascade to details")
        }
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in try pendingMigrations(db) {
            try migration.migrate(db)
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
        }
        let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        guard broken.isEmpty else {
            throw StoreError(.damaged, "\(broken.count) rows of \(Set(broken.map { $0[0] as String }).sorted().joined(separator: ", ")) refer to rows "
                             + "that are missing; the store was not upgraded", remedy: .checkStore)
        }
    }

    /// ``upgrade(_:)`` in a transaction of its own on `writer`, with foreign keys off around it.
    static func upgrade(_ writer: some DatabaseWriter) throws {
        try writer.writeWithoutTransaction(upgradeAlone)
    }

    /// ``upgrade(_:)`` in a transaction of its own, on a connection outside any transaction.
    static func upgradeAlone(_ db: Database) throws {
        guard try needsUpgrade(db) else { return }
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
        try db.inTransaction(.immediate) {
            try upgrade(db)
            return .commit
        }
    }

    /// Version 3's table of the pins' point geometries, one row per pin, which version 5 drops.
    static let pointTable = "pin_points"

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

    /// Moves the SpatiaLite points from `pins.geom` to ``pointTable``, with its packed R*Tree, and
    /// drops `pins.geom` and its R*Tree `idx_pins_geom`.
    ///
    /// Runs inside the upgrade's transaction: a store is upgraded whole or not at all. Each point is
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
            // as before, half empty, where a rebuild in id order packs them.
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
    ///   back the same); the upgrade's transaction is then rolled back, leaving the store as it was.
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
