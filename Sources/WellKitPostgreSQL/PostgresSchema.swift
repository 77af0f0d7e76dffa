import WellKit

/// The schema of a PostgreSQL/PostGIS store: the file's tables, in PostgreSQL's types.
///
/// - `pins(id, name, lat, lon, geom)`: `geom` is `geometry(Point, 4326)`, generated from lat and
///   lon, with the GiST index `pins_geom`;
/// - `details`: one-to-one with pins (`ON DELETE CASCADE`), the unique identifier `details_uwi`,
///   the typed fields of ``DetailColumn``, and `extra` as `jsonb`;
/// - `loads`, `rejects` and `suspects`, as in the file;
/// - `wellkit_meta(key, value)`: the store's identity (`application` = `WellKit`) and its
///   `schema_version`, the file's `application_id` and `user_version`;
/// - `wellkit_changes`: a counter that a statement trigger on pins and details advances, with a
///   `NOTIFY wellkit_changes`: the change token and the batched results' notifications.
///
/// Text columns are `COLLATE "C"`, so comparisons and sorts are by bytes, as SQLite's BINARY:
/// both engines answer the same wells in the same order.
enum PostgresSchema {
    /// The schema version this build creates and reads.
    static let version: Int32 = 1
    /// The `NOTIFY` channel of commits to pins and details.
    static let channel = "wellkit_changes"
    /// The advisory lock that serialises loads (and the schema's creation): "WELL" in ASCII.
    static let loadLock: Int64 = 0x5745_4C4C

    /// The statements that make the tables but their indexes. The GiST and identifier indexes are made by ``indexes``,
    /// after the first load's COPY, which is faster than keeping them during it.
    static var tables: [String] {
        let details = DetailColumn.all.map { column -> String in
            let constraint = switch column.content {
            case .identifier: " NOT NULL"
            case .loadID: " REFERENCES loads(id)"
            default: ""
            }
            return "  \(column.name.quotedDatabaseIdentifier) \(type(of: column.content))\(constraint)"
        }.joined(separator: ",\n")
        return [
            """
            CREATE TABLE wellkit_meta(key text PRIMARY KEY, value text NOT NULL)
            """,
            """
            CREATE TABLE pins(
              id bigint PRIMARY KEY,
              name text COLLATE "C",
              lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
              lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
              geom geometry(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)) STORED)
            """,
            """
            CREATE TABLE loads(
              id bigint PRIMARY KEY,
              file text NOT NULL,
              sha256 text NOT NULL,
              started_at text NOT NULL,
              seconds double precision NOT NULL,
              records bigint NOT NULL,
              inserted bigint NOT NULL,
              updated bigint NOT NULL,
              rejected bigint NOT NULL,
              bad_values bigint NOT NULL,
              duplicates bigint NOT NULL,
              generated_ids bigint NOT NULL,
              mapping text NOT NULL,
              crs text NOT NULL,
              transformation text,
              accuracy_m double precision,
              warnings text,
              inferences text,
              suspects bigint NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE details(
              pin_id bigint PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
            \(details))
            """,
            // No query plans by the whole `extra` document, so ANALYZE need not sample it, which
            // was a large part of ANALYZE's time on details.
            """
            ALTER TABLE details ALTER COLUMN extra SET STATISTICS 0
            """,
            """
            CREATE TABLE rejects(
              id bigserial PRIMARY KEY,
              load_id bigint NOT NULL REFERENCES loads(id) ON DELETE CASCADE,
              line bigint NOT NULL,
              "column" text,
              reason text NOT NULL,
              raw text NOT NULL)
            """,
            """
            CREATE INDEX rejects_load ON rejects(load_id)
            """,
            """
            CREATE TABLE suspects(
              pin_id bigint PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
              load_id bigint NOT NULL REFERENCES loads(id),
              line bigint NOT NULL,
              reason text NOT NULL,
              detail text NOT NULL)
            """,
            """
            CREATE TABLE wellkit_changes(id int PRIMARY KEY CHECK (id = 1), counter bigint NOT NULL)
            """,
            """
            INSERT INTO wellkit_changes VALUES (1, 0)
            """,
            """
            CREATE FUNCTION wellkit_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              UPDATE wellkit_changes SET counter = counter + 1 WHERE id = 1;
              PERFORM pg_notify('\(channel)', '');
              RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER pins_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON pins
              FOR EACH STATEMENT EXECUTE FUNCTION wellkit_changed()
            """,
            """
            CREATE TRIGGER details_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON details
              FOR EACH STATEMENT EXECUTE FUNCTION wellkit_changed()
            """,
            """
            INSERT INTO wellkit_meta VALUES ('application', 'WellKit'), ('schema_version', '\(version)')
            """,
        ]
    }

    /// The PostgreSQL type of a detail column.
    static func type(of content: DetailColumn.Content) -> String {
        switch content {
        case .identifier: "text COLLATE \"C\""
        case .value(let field): field.kind == .real ? "double precision" : "text COLLATE \"C\""
        case .sourceX, .sourceY: "double precision"
        case .sourceCRS: "text"
        case .extra: "jsonb"
        case .loadID: "bigint"
        }
    }

    /// What a first load takes off before its COPY: the keys, whose indexes a sorted build after
    /// the copy makes faster than a row at a time during it, and the foreign keys that use them
    /// (`wells-bench postgis`, Benchmarks/README.md's "PostgreSQL/PostGIS").
    static let firstLoadDrops = [
        "ALTER TABLE details DROP CONSTRAINT IF EXISTS details_pin_id_fkey, DROP CONSTRAINT IF EXISTS details_load_id_fkey, "
            + "DROP CONSTRAINT IF EXISTS details_pkey",
        "ALTER TABLE suspects DROP CONSTRAINT IF EXISTS suspects_pin_id_fkey",
        "ALTER TABLE pins DROP CONSTRAINT IF EXISTS pins_pkey",
    ]

    /// What a first load puts back after its COPY, as the tables declare them: each foreign key
    /// is then checked with one join rather than a lookup per row.
    static let firstLoadRestores = [
        "ALTER TABLE pins ADD CONSTRAINT pins_pkey PRIMARY KEY (id)",
        "ALTER TABLE details ADD CONSTRAINT details_pkey PRIMARY KEY (pin_id)",
        "ALTER TABLE details ADD CONSTRAINT details_pin_id_fkey FOREIGN KEY (pin_id) REFERENCES pins(id) ON DELETE CASCADE, "
            + "ADD CONSTRAINT details_load_id_fkey FOREIGN KEY (load_id) REFERENCES loads(id)",
        "ALTER TABLE suspects ADD CONSTRAINT suspects_pin_id_fkey FOREIGN KEY (pin_id) REFERENCES pins(id) ON DELETE CASCADE",
    ]

    /// The spatial and identifier indexes, built once the first load's rows are in: GiST sorts
    /// the points when it builds (PostGIS 3 on PostgreSQL 15), which is faster than inserting.
    static let indexes = [
        "CREATE INDEX IF NOT EXISTS pins_geom ON pins USING gist(geom)",
        "CREATE UNIQUE INDEX IF NOT EXISTS details_uwi ON details(uwi)",
    ]
}
