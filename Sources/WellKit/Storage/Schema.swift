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
enum Schema {
    /// `PRAGMA application_id` of a WellKit store: "WELL" in ASCII.
    static let applicationID: Int32 = 0x5745_4C4C
    /// The schema version this build writes, kept in `PRAGMA user_version`.
    static let version: Int32 = 2

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "SELECT InitSpatialMetadata(0, 'WGS84_ONLY')")
            try db.execute(sql: """
                CREATE TABLE pins(
                  id INTEGER PRIMARY KEY,
                  name TEXT,
                  lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
                  lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180));
                SELECT AddGeometryColumn('pins', 'geom', 4326, 'POINT', 'XY');
                SELECT CreateSpatialIndex('pins', 'geom');
                CREATE TABLE loads(
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
                  warnings TEXT);
                CREATE TABLE details(
                  pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
                  uwi TEXT NOT NULL,
                  "operator" TEXT, status TEXT, "type" TEXT, fluid TEXT, field TEXT, formation TEXT,
                  county TEXT, state TEXT, licence TEXT,
                  spud_date TEXT, completion_date TEXT, plug_date TEXT,
                  total_depth REAL, ground_elevation REAL, kb_elevation REAL,
                  source_x REAL, source_y REAL, source_crs TEXT,
                  extra TEXT,
                  load_id INTEGER REFERENCES loads(id));
                CREATE UNIQUE INDEX details_uwi ON details(uwi);
                CREATE TABLE rejects(
                  id INTEGER PRIMARY KEY,
                  load_id INTEGER NOT NULL REFERENCES loads(id) ON DELETE CASCADE,
                  line INTEGER NOT NULL,
                  "column" TEXT,
                  reason TEXT NOT NULL,
                  raw TEXT NOT NULL);
                CREATE INDEX rejects_load ON rejects(load_id);
                """)
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        // Version 2: what each load inferred, and the wells whose coordinates look wrong.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE loads ADD COLUMN inferences TEXT;
                ALTER TABLE loads ADD COLUMN suspects INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE suspects(
                  pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
                  load_id INTEGER NOT NULL REFERENCES loads(id),
                  line INTEGER NOT NULL,
                  reason TEXT NOT NULL,
                  detail TEXT NOT NULL);
                """)
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        return migrator
    }
}
