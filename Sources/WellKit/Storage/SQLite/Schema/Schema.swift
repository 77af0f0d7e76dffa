import GRDB

/// The store's schema, version ``version``: the tables a SQLite store holds and the SQL that
/// creates them.
///
/// - `pins(id, name, lat, lon, geom)`: the map's four fields, one row per well, and `geom`, the
///   point SQLite computes from `lon` and `lat` (``pointExpression``), registered with SpatiaLite,
///   with its R*Tree `idx_pins_geom` keyed by pin id (``SpatialIndex``);
/// - `details(pin_id → pins.id ON DELETE CASCADE, uwi UNIQUE, …)`: every other field, in the
///   compact form of ``CompactDetails`` (``DetailColumn`` defines the columns);
/// - `lookup_FIELD`, `extra_keys`, `extra_values`: the names and values the compact rows refer to;
/// - `loads`, `rejects`, `suspects`: each load's provenance, the rows it rejected, the wells it flagged;
/// - `releases`, `release_loads`, `changes`: the releases of each source's list and what changed in each (``ReleaseWriter``);
/// - the view `wells` (``WellsLayer``): one point layer with every field, for GDAL, QGIS and SpatiaLite.
///
/// A new store gets it whole (``create(_:)``); an older one reaches it through the migrations
/// (``migrations``, in Schema+Migrations.swift, which says what each version changed).
enum Schema {
    /// `PRAGMA application_id` of a WellKit store: "WELL" in ASCII.
    static let applicationID: Int32 = 0x5745_4C4C
    /// The schema version this build writes, kept in `PRAGMA user_version`.
    static let version: Int32 = 6
    /// The code of a lookup table's row without a value: a detail row's code when the field has none.
    static let nullCode: Int64 = 0

    /// Creates a new store's schema at ``version`` at once: the tables, indexes, triggers, view and
    /// SpatiaLite registrations that the migrations leave, with the same SQL text in `sqlite_schema`,
    /// and every migration marked as applied in `grdb_migrations` (``migrations``' later
    /// migrations then run on such a store as on a migrated one).
    ///
    /// The migrations rebuild `pins` and `details` and alter `loads` and `pins`, and each rebuild or
    /// `ALTER TABLE` makes SQLite parse the whole schema again, SpatiaLite's many triggers included,
    /// which was most of a small first load's time (Benchmarks/README.md's "Loading").
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
            \(createReleases)
            """)
        for table in WellField.detailValueFields.compactMap(\.lookupTable) {
            try db.execute(sql: createLookup(table))
        }
        try SpatialIndex.createIndex(db)
        try WellsLayer.create(db)
        // GRDB's own table, as `DatabaseMigrator` creates it.
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for identifier in migrations.map(\.identifier) {
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
        }
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }

    // The text of the tables that the migrations and ``create(_:)`` both write. SQLite keeps a table's
    // text as written, so a migration's must stay as it was: a change is a new migration.

    /// Version 1's columns of `pins` (the map's four fields; version 1 added a SpatiaLite point after
    /// them), which version 3's rebuild kept.
    static let pinsColumns = """

          id INTEGER PRIMARY KEY,
          name TEXT,
          lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
          lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180)
        """

    /// Version 1's columns of `loads`.
    static let loadsColumns = """

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
    static let loadsColumnsOfVersion2 = ["inferences TEXT", "suspects INTEGER NOT NULL DEFAULT 0"]

    /// Version 3's lookup table of a field's names, with the row of code ``nullCode`` (no name).
    static func createLookup(_ table: String) -> String {
        """
        CREATE TABLE \(table)(code INTEGER PRIMARY KEY, value TEXT UNIQUE);
        INSERT INTO \(table)(code, value) VALUES (\(nullCode), NULL);
        """
    }

    /// Version 3's names of the unmapped columns, by their position in a row's `extra` array.
    static let createExtraKeys = "CREATE TABLE extra_keys(position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)"

    /// Version 4's repeated extra values.
    static let createExtraValues = "CREATE TABLE \(ExtraValues.table)(code INTEGER PRIMARY KEY, value TEXT NOT NULL)"

    /// Version 1's table of rejects.
    static let createRejects = """
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
    static let createSuspects = """
        CREATE TABLE suspects(
          pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
          load_id INTEGER NOT NULL REFERENCES loads(id),
          line INTEGER NOT NULL,
          reason TEXT NOT NULL,
          detail TEXT NOT NULL);
        """

    /// Version 6's releases of each source's list (``ReleaseWriter``): each release and the load
    /// that brought it, the loads of each release (a release loaded again is the same release),
    /// and every change of a well in a release.
    static let createReleases = """
        CREATE TABLE releases(
          id INTEGER PRIMARY KEY,
          source TEXT NOT NULL,
          number INTEGER NOT NULL,
          load_id INTEGER NOT NULL REFERENCES loads(id),
          wells INTEGER NOT NULL,
          summary TEXT NOT NULL,
          UNIQUE(source, number));
        CREATE TABLE release_loads(load_id INTEGER PRIMARY KEY REFERENCES loads(id), release_id INTEGER NOT NULL REFERENCES releases(id));
        CREATE TABLE changes(
          id INTEGER PRIMARY KEY,
          release_id INTEGER NOT NULL REFERENCES releases(id),
          kind TEXT NOT NULL,
          uwi TEXT NOT NULL,
          field TEXT,
          old TEXT,
          new TEXT,
          meters REAL,
          lat REAL NOT NULL,
          lon REAL NOT NULL);
        CREATE INDEX changes_release ON changes(release_id);
        CREATE INDEX changes_uwi ON changes(uwi);
        """

    /// The pins' point, as SpatiaLite reads it: the expression of the virtual column `pins.geom`.
    static let pointExpression = "MakePoint(lon, lat, 4326)"

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
}
