import GRDB

extension SQLiteEngine {
    /// SQLite's `integrity_check` (or `quick_check`), then the spatial index against the pins and
    /// ``StoreInvariants``. A query that fails on a damaged page is a finding; the rest still run.
    func check(quick: Bool) throws -> StoreCheck {
        var report = StoreCheck(quick: quick, engine: "sqlite", checks: [], skipped: [], findings: [], seconds: 0)
        let pragma = quick ? "quick_check" : "integrity_check"
        try readingUnsafely { db in
            report.checks.append(pragma)
            do {
                // At most 100 problems, as the sqlite3 shell's .dbinfo does: the first ones say where.
                let rows = try String.fetchAll(db, sql: "PRAGMA \(pragma)(100)")
                if rows != ["ok"] {
                    report.findings += rows.map { StoreCheck.Finding(check: pragma, problem: $0) }
                }
            } catch let error as DatabaseError {
                report.findings.append(StoreCheck.Finding(check: pragma, problem: Self.failure(error)))
            }
            // The points' check reads their geometry with SpatiaLite's functions.
            try SpatiaLite.ensureInitialized(db)
            report.run(Self.spatialIndexInvariants + Self.compactDetailInvariants + StoreInvariants.all) { sql in
                do {
                    return try Int.fetchOne(db, sql: sql.text, arguments: sql.rendered.arguments) ?? 0
                } catch let error as DatabaseError {
                    throw CheckFailure(description: Self.failure(error))
                }
            }
        }
        return report
    }

    /// The pins' points and the R*Tree `idx_pins_geom` against the pins: `pins.geom` registered as a
    /// POINT in EPSG:4326 with its spatial index, each pin's point (computed, read with SpatiaLite) at
    /// its coordinates, the triggers that keep the R*Tree in step, and one R*Tree entry per pin, whose
    /// box (float32, rounded outwards, so never smaller than the point) holds it.
    static let spatialIndexInvariants: [StoreInvariants.Invariant] = [
        .init(check: "points", problem: { _ in "pins.geom is not registered in geometry_columns as a POINT in EPSG:4326 with a spatial index" },
              sql: """
                SELECT count(*) = 0 FROM geometry_columns WHERE f_table_name = 'pins' AND f_geometry_column = 'geom'
                AND geometry_type = 1 AND coord_dimension = 2 AND srid = 4326 AND spatial_index_enabled = 1
                """),
        .init(check: "points", problem: { "\($0) pins' points are not a POINT in EPSG:4326 at their coordinates" },
              sql: """
                SELECT count(*) FROM pins p
                WHERE NOT coalesce(GeometryType(p.geom) = 'POINT' AND ST_SRID(p.geom) = 4326 AND ST_X(p.geom) = p.lon AND ST_Y(p.geom) = p.lat, 0)
                """),
        .init(check: "spatial-index", problem: { "\($0) of the triggers that keep the spatial index in step are missing" },
              sql: BoundSQL(sql: """
                SELECT \(SpatialIndex.triggers.count) - count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'pins'
                AND name IN (\(SpatialIndex.triggers.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")))
                """)),
        .init(check: "spatial-index", problem: { "\($0) pins have no spatial index entry" },
              sql: "SELECT count(*) FROM pins p WHERE NOT EXISTS (SELECT 1 FROM idx_pins_geom r WHERE r.pkid = p.id)"),
        .init(check: "spatial-index", problem: { "\($0) spatial index entries have no pin" },
              sql: "SELECT count(*) FROM idx_pins_geom r WHERE NOT EXISTS (SELECT 1 FROM pins p WHERE p.id = r.pkid)"),
        .init(check: "spatial-index", problem: { "\($0) spatial index boxes do not hold their pin" },
              sql: """
                SELECT count(*) FROM pins p JOIN idx_pins_geom r ON r.pkid = p.id
                WHERE NOT (r.xmin <= p.lon AND p.lon <= r.xmax AND r.ymin <= p.lat AND p.lat <= r.ymax)
                """),
    ]

    /// The compact details of schema version 3 (``CompactDetails``): every code names a row of its
    /// lookup, whose code 0 alone has no value; dates are day numbers; each `extra` is a JSON array
    /// whose values all have a name in `extra_keys` and are text or a code of `extra_values` (version 4).
    static let compactDetailInvariants: [StoreInvariants.Invariant] = WellField.detailValueFields.flatMap { field -> [StoreInvariants.Invariant] in
        let column = field.column.quotedDatabaseIdentifier
        if let table = field.lookupTable {
            return [
                .init(check: "lookups", problem: { "\($0) details have a \(field.rawValue) code with no row in \(table)" },
                      sql: BoundSQL(sql: "SELECT count(*) FROM details d WHERE NOT EXISTS (SELECT 1 FROM \(table) l WHERE l.code = d.\(column))")),
                .init(check: "lookups", problem: { "\($0) rows of \(table) have no value but code \(Schema.nullCode), or code \(Schema.nullCode) a value" },
                      sql: BoundSQL(sql: "SELECT count(*) FROM \(table) WHERE (code = \(Schema.nullCode)) <> (value IS NULL)")),
            ]
        }
        guard field.kind == .date else { return [] }
        // A day number, or a year alone: half a day after a day number (``ValueParsing/yearOnlyDays(_:)``).
        return [.init(check: "dates", problem: { "\($0) details have a \(field.rawValue) that is not a day number or a year" },
                      sql: BoundSQL(sql: "SELECT count(*) FROM details WHERE typeof(\(column)) NOT IN ('integer', 'null') "
                                      + "AND NOT (typeof(\(column)) = 'real' AND \(column) - 0.5 = CAST(\(column) - 0.5 AS INTEGER))"))]
    } + [
        .init(check: "extras", problem: { "\($0) details have extra values that are not a JSON array" },
              sql: "SELECT count(*) FROM details WHERE \"extra\" IS NOT NULL AND CASE WHEN json_valid(\"extra\") THEN json_type(\"extra\") <> 'array' ELSE 1 END"),
        .init(check: "extras", problem: { "\($0) extra values have no name in extra_keys" },
              sql: """
                SELECT count(*) FROM details d, json_each(CASE WHEN json_valid(d."extra") THEN d."extra" END) j
                WHERE j.type <> 'null' AND NOT EXISTS (SELECT 1 FROM extra_keys k WHERE k.position = j.key)
                """),
        .init(check: "extras", problem: { "\($0) extra values are neither text nor the code of a row of \(ExtraValues.table)" },
              sql: BoundSQL(sql: """
                SELECT count(*) FROM details d, json_each(CASE WHEN json_valid(d."extra") THEN d."extra" END) j
                WHERE j.type NOT IN ('null', 'text') AND (j.type <> 'integer' OR NOT EXISTS (SELECT 1 FROM \(ExtraValues.table) v WHERE v.code = j.atom))
                """)),
        .init(check: "extras", problem: { "\($0) values of \(ExtraValues.table) have more than one code" },
              sql: BoundSQL(sql: "SELECT count(*) FROM (SELECT value FROM \(ExtraValues.table) GROUP BY value HAVING count(*) > 1)")),
    ]

    /// SQLite's failure in a finding's words.
    private struct CheckFailure: Error, CustomStringConvertible { let description: String }

    private static func failure(_ error: DatabaseError) -> String {
        "\(error.message ?? "SQLite error") (SQLite error \(error.resultCode.rawValue))"
    }
}
