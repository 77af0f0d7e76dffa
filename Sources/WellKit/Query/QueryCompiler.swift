import GRDB

/// The one place that renders queries as SQL: SQLite's dialect, with SpatiaLite's R*Tree, and
/// PostgreSQL's, with PostGIS's GiST index.
///
/// For example:
///
/// ```swift
/// let compiled = try QueryCompiler.sqlite.select(request, .pins)
/// let pins = try store.pool.unsafeRead { try WellPin.fetchAll(compiled.statement($0)) }
/// ```
///
/// Every query goes through here: the fetches, faults, ``BatchedResults``' id query and batch
/// loads, suspects and sort indexes. It builds ``BoundSQL`` literals, so each value is bound where
/// it appears and conditions and arguments cannot fall out of step. The tables keep their
/// aliases: `p` pins, `d` details, `r` the R*Tree `idx_pins_geom`. The PostgreSQL dialect renders
/// the same inputs for PostGIS (see <doc:StorageEngines>); its `?` placeholders become `$n` when the
/// engine sends the query.
package struct QueryCompiler: Sendable {
    /// SQLite with SpatiaLite's `idx_pins_geom`.
    static let sqlite = QueryCompiler(dialect: .sqlite)
    /// PostgreSQL with PostGIS: `geom && ST_MakeEnvelope(…)` on the GiST index `pins_geom`.
    package static let postgres = QueryCompiler(dialect: .postgres)

    let dialect: SQLDialect

    /// The columns a query selects.
    package enum Selection: Sendable {
        /// Exactly `p.id, p.name, p.lat, p.lon`.
        case pins
        /// The pin's columns, then every detail column.
        case wells
        /// `p.id`.
        case ids
        /// Each attribute's value, a field's column named by the field: `p."id" AS "id"`; an extra
        /// column's unnamed (its name is bound, never in the text: readers name it by position).
        case named([WellAttribute])
        /// Each field's qualified column, unnamed: `p."id", d."status"`.
        case columns([WellField])

        package var expressions: [String] { expressions(.sqlite) }

        /// The expressions in `dialect`: PostgreSQL keeps `extra` as `jsonb`, read back as text.
        func expressions(_ dialect: SQLDialect) -> [String] {
            switch self {
            case .pins: WellPin.selection
            case .wells where dialect == .postgres: Well.selection.map { $0 == "d.\"extra\"" ? "d.\"extra\"::text" : $0 }
            case .wells: WellPin.selection + DetailColumn.sqliteSelection
            case .ids: ["p.id"]
            case .named: sql(dialect).map(\.text)
            case .columns(let fields): fields.map { WellAttribute($0).sql(dialect).text }
            }
        }

        /// The expressions with their values: an extra column's name is bound (see ``WellAttribute``).
        func sql(_ dialect: SQLDialect) -> [BoundSQL] {
            guard case .named(let attributes) = self else { return expressions(dialect).map { BoundSQL(sql: $0) } }
            return attributes.map { attribute -> BoundSQL in
                guard let field = attribute.field else { return attribute.sql(dialect) }
                return "\(attribute.sql(dialect)) AS \(sql: field.rawValue.quotedDatabaseIdentifier)"
            }
        }

        var readsDetails: Bool {
            switch self {
            case .wells: true
            case .pins, .ids: false
            case .named(let attributes): attributes.contains { $0.table == .details }
            case .columns(let fields): fields.contains { $0.table == .details }
            }
        }
    }

    // MARK: - Selecting wells

    /// Compiles `request` selecting `selection`.
    ///
    /// The region drives the query from the R*Tree `idx_pins_geom` (joined on id), then filters
    /// exactly on `p.lon`/`p.lat`, because the R*Tree stores 32-bit boxes rounded outwards.
    /// A radius adds an exact geodesic filter, `wellkit_distance(…) <= meters`.
    ///
    /// - Parameters:
    ///   - extra: Expressions selected after `selection`, such as `p.id` for a batch load's key.
    ///   - bound: Expressions with bound values selected after `extra`.
    ///   - joinDetails: Joins `details` even when nothing else reads it (`bound` reads a detail column).
    ///   - center: Adds `wellkit_distance(…) AS distance` and, when the request has no sort, orders by it.
    ///   - ids: Keeps only these wells, bound as one JSON array: `p.id IN (SELECT value FROM json_each(?))`.
    /// - Throws: ``QueryError`` (`outOfRange`, `tooComplex`, `invalidValue`) for a negative radius, limit or offset, a predicate over its limits, or a sort that names a field twice.
    package func select(_ request: WellFetchRequest, _ selection: Selection, extra: [String] = [], bound: [BoundSQL] = [],
                joinDetails: Bool = false, distanceFrom center: Coordinate? = nil, ids: [Int64]? = nil) throws -> CompiledFetch {
        try checkSort(request)
        var conditions: [BoundSQL] = []
        var from = "pins p"
        let needsDetails = joinDetails || selection.readsDetails || request.fieldsUsed.contains { $0.table == .details }
        var boxes = try request.boxes()
        if boxes.isEmpty, let area = request.within { boxes = try area.boxes() }
        if dialect == .postgres {
            // The GiST index answers `&&` with float4 boxes rounded outwards; the exact test follows.
            if !boxes.isEmpty {
                let index: [BoundSQL] = boxes.map { "p.geom && ST_MakeEnvelope(\($0.minLongitude), \($0.minLatitude), \($0.maxLongitude), \($0.maxLatitude), 4326)" }
                conditions.append(boxes.count == 1 ? index[0] : "(\(index.joined(separator: " OR ")))")
                conditions.append(boxes.count == 1 ? Self.exact(boxes[0]) : "(\(boxes.map { "(\(Self.exact($0)))" as BoundSQL }.joined(separator: " OR ")))")
            }
        } else if boxes.count == 1, let box = boxes.first {
            from = "idx_pins_geom r JOIN pins p ON p.id = r.pkid"
            conditions.append("r.xmin <= \(box.maxLongitude) AND r.xmax >= \(box.minLongitude) AND r.ymin <= \(box.maxLatitude) AND r.ymax >= \(box.minLatitude)")
            conditions.append(Self.exact(box))
        } else if boxes.count > 1 {
            let index: [BoundSQL] = boxes.map {
                "SELECT pkid FROM idx_pins_geom WHERE xmin <= \($0.maxLongitude) AND xmax >= \($0.minLongitude) AND ymin <= \($0.maxLatitude) AND ymax >= \($0.minLatitude)"
            }
            conditions.append("p.id IN (\(index.joined(separator: " UNION ALL ")))")
            conditions.append("(\(boxes.map { "(\(Self.exact($0)))" as BoundSQL }.joined(separator: " OR ")))")
        }
        switch (request.region, dialect) {
        case (.radius(let latitude, let longitude, let meters), .sqlite):
            conditions.append("wellkit_within(\(latitude), \(longitude), p.lat, p.lon, \(meters))")
        case (.radius(let latitude, let longitude, let meters), .postgres):
            // On the geography, geodesic on WGS 84 (GeographicLib, as the file's wellkit_distance);
            // the box above keeps it on the index: a bare cast alone would read every pin. The same
            // ST_Distance as the selected distance, not ST_DWithin, whose own computation can leave
            // out a well at exactly the distance ST_Distance reports for it: `wells near --nearest 3`
            // re-selects the three within the third's distance and got two.
            conditions.append("\(distance(from: Coordinate(latitude: latitude, longitude: longitude))) <= \(meters)")
        case (.projectedBox(let crs, let minX, let minY, let maxX, let maxY), .sqlite):
            conditions.append("wellkit_in_projected_box(p.lon, p.lat, \(crs), \(minX), \(minY), \(maxX), \(maxY))")
        case (.projectedBox(let crs, _, _, _, _), .postgres):
            throw QueryError(.outOfRange, "a box in \(crs) is not supported on a PostgreSQL store yet; give the box in longitude and latitude (EPSG:4326)", subject: .boundingBox)
        case (.box, _), (nil, _): break
        }
        if let area = request.within { conditions.append(within(area)) }
        if needsDetails { from += " JOIN details d ON d.pin_id = p.id" }
        let lookup = sortLookup(request)
        if let lookup { from += " JOIN \(lookup.table) l ON l.code = d.\(lookup.column)" }
        if let predicate = request.predicate {
            try predicate.validate()
            conditions.append(predicate.sql(dialect))
        }
        if let ids { conditions.append(idsCondition(ids)) }

        var columns: [BoundSQL] = selection.sql(dialect) + extra.map { BoundSQL(sql: $0) } + bound
        if let center { columns.append("\(distance(from: center)) AS distance") }
        var sql: BoundSQL = "SELECT \(columns.joined(separator: ", ")) FROM \(sql: from)"
        if !conditions.isEmpty { sql += " WHERE \(conditions.joined(separator: " AND "))" }
        var order = order(request.sortDescriptors)
        if let lookup { order[0] = lookup.order }
        if center != nil && request.sortDescriptors.isEmpty { order.append("distance") }
        if !order.isEmpty { sql += " ORDER BY \((order + ["p.id"]).joined(separator: ", "))" }
        sql += try limit(request)
        return CompiledFetch(literal: sql, usesSpatiaLite: request.within != nil)
    }

    /// Groups the request's wells by `keys` (`k0`, `k1`, …) in key order, nulls first: the keys, `count(*)`,
    /// then each measure over the group (`sum`, `avg`, `min`, `max`). Sort, limit and offset are ignored.
    package func aggregate(_ request: WellFetchRequest, keys: [AggregateKey], measures: [WellMeasure]) throws -> CompiledFetch {
        var request = request
        request.sortDescriptors = []
        request.limit = nil
        request.offset = nil
        // Counts by an extra column of a SQLite store group the values as the rows hold them (text or
        // code) and read each group's key back to text once, then add up the groups of one text (a
        // value is text where a load met it first, a code after): decoding every row's value would
        // slow `count --by extra.X` down. Measures keep grouping by the text.
        let storedKeys = measures.isEmpty && keys.contains { if case .field(let field) = $0 { field.storedExtra(dialect) != nil } else { false } }
        let keyColumns: [BoundSQL] = keys.enumerated().map { k, key in
            switch key {
            case .field(let field): "\(storedKeys ? field.storedExtra(dialect) ?? field.sql(dialect) : field.sql(dialect)) AS k\(sql: String(k))"
            case .cell(let longitude, let lines): "\(lines.sql(longitude ? "p.lon" : "p.lat")) AS k\(sql: String(k))"
            }
        }
        let measureColumns: [BoundSQL] = measures.enumerated().map { m, measure in
            "\(sql: measure.field.qualifiedColumn) AS m\(sql: String(m))"
        }
        let readsDetails = measures.contains { $0.field.table == .details } || keys.contains {
            if case .field(let field) = $0 { field.table == .details } else { false }
        }
        let selected = try select(request, .ids, bound: keyColumns + measureColumns, joinDetails: readsDetails)
        let names = keys.indices.map { "k\($0)" }
        let aggregates = measures.enumerated().map { m, measure in
            let function = switch measure.function { case .sum: "sum"; case .mean: "avg"; case .min: "min"; case .max: "max" }
            return "\(function)(m\(m))"
        }
        var sql: BoundSQL = "SELECT \(sql: (names + ["count(*)"] + aggregates).joined(separator: ", ")) FROM (\(selected.literal)) q"
        if !names.isEmpty {
            let order = names.map { dialect == .postgres ? "\($0) ASC NULLS FIRST" : "\($0) ASC" }
            if storedKeys {
                let texts = keys.enumerated().map { k, key in
                    guard case .field(let field) = key, field.storedExtra(dialect) != nil else { return "k\(k)" }
                    return ExtraValues.text(type: "typeof(k\(k))", value: "k\(k)") + " AS k\(k)"
                }
                let stored: BoundSQL = "SELECT \(sql: names.joined(separator: ", ")), count(*) AS n FROM (\(selected.literal)) q GROUP BY \(sql: names.joined(separator: ", "))"
                let decoded: BoundSQL = "SELECT \(sql: texts.joined(separator: ", ")), n FROM (\(stored)) g"
                sql = "SELECT \(sql: names.joined(separator: ", ")), sum(n) FROM (\(decoded)) t"
            }
            sql += BoundSQL(sql: " GROUP BY \(names.joined(separator: ", ")) ORDER BY \(order.joined(separator: ", "))")
        }
        return CompiledFetch(literal: sql, usesSpatiaLite: selected.usesSpatiaLite)
    }

    /// `SELECT count(*)` of what `compiled` selects.
    package func count(_ compiled: CompiledFetch) -> CompiledFetch {
        CompiledFetch(literal: "SELECT count(*) FROM (\(compiled.literal)) q", usesSpatiaLite: compiled.usesSpatiaLite)
    }

    /// The geodesic distance in metres from `center` to the pin `p`.
    private func distance(from center: Coordinate) -> BoundSQL {
        switch dialect {
        case .sqlite: "wellkit_distance(\(center.latitude), \(center.longitude), p.lat, p.lon)"
        case .postgres: "ST_Distance(p.geom::geography, \(Self.point(center.latitude, center.longitude)))"
        }
    }

    /// Whether the pin `p` lies in `area` or on its boundary. SQLite: ``AreaFunction``'s crossing
    /// test, and GEOS through SpatiaLite for a point within 1e-9° of an edge (`= 1`, as SpatiaLite
    /// answers −1 when GEOS fails); PostgreSQL: PostGIS.
    private func within(_ area: Area) -> BoundSQL {
        switch dialect {
        case .sqlite:
            "coalesce(wellkit_in_area(\(area.wkb), p.lon, p.lat), ST_Intersects(GeomFromWKB(\(area.wkb), 4326), MakePoint(p.lon, p.lat, 4326))) = 1"
        case .postgres: "ST_Intersects(p.geom, ST_GeomFromWKB(\(area.wkb), 4326))"
        }
    }

    /// A PostGIS geography point.
    private static func point(_ latitude: Double, _ longitude: Double) -> BoundSQL {
        "ST_SetSRID(ST_MakePoint(\(longitude), \(latitude)), 4326)::geography"
    }

    /// Keeps only the wells of `ids`, bound as one value: a JSON array for SQLite, an `int8[]` for PostgreSQL.
    private func idsCondition(_ ids: [Int64]) -> BoundSQL {
        switch dialect {
        case .sqlite: "p.id IN (SELECT value FROM json_each(\("[" + ids.map(String.init).joined(separator: ",") + "]")))"
        case .postgres: "p.id = ANY(\("{" + ids.map(String.init).joined(separator: ",") + "}")::int8[])"
        }
    }

    /// The id query of ``BatchedResults``: `p.id` and the section key, in sort order; or, when the
    /// request has no region and reads only detail fields, the same query over `details` alone.
    ///
    /// Every detail row has its pin (a foreign key with `ON DELETE CASCADE`), so the join to
    /// `pins` filters nothing, but it costs a primary-key lookup per row and keeps SQLite from
    /// reading the rows in order from an index on the sort fields: with an index such as
    /// `details(spud_date DESC, pin_id)`, sorting the wells by spud date takes a walk of it.
    package func ids(_ request: WellFetchRequest, sectionKey: WellField?) throws -> CompiledFetch {
        var sectionColumn = sectionKey.map { [WellAttribute($0).sql(dialect).text] } ?? []
        let lookup = sortLookup(request)
        if lookup != nil, sectionKey == request.sortDescriptors[0].field.field { sectionColumn = ["l.value"] }
        guard request.region == nil, request.within == nil, request.fieldsUsed.allSatisfy({ $0.table == .details }) else {
            return try select(request, .ids, extra: sectionColumn)
        }
        try checkSort(request)   // `select` checks it on the other path
        var order = order(request.sortDescriptors)
        var from = "details d"
        if let lookup {
            // The lookup drives the join in name order, so that an index such as
            // `details("operator", pin_id)` gives each name's rows in order and nothing is sorted,
            // as fast as the walk of a text column's index.
            from = "\(lookup.table) l JOIN details d ON d.\(lookup.column) = l.code"
            order[0] = lookup.order
        }
        var sql = BoundSQL(sql: "SELECT " + (["d.pin_id"] + sectionColumn).joined(separator: ", ") + " FROM " + from)
        if let predicate = request.predicate {
            try predicate.validate()
            sql += " WHERE \(predicate.sql(dialect))"
        }
        sql += " ORDER BY \((order + ["d.pin_id"]).joined(separator: ", "))"
        sql += try limit(request)
        return CompiledFetch(literal: sql)
    }

    /// The lookup a SQLite store's query joins as `l` when the first sort is a looked-up name
    /// (schema version 3): its table, the detail column of the codes, and the first ORDER BY term
    /// on `l.value`. The join reads each row's name once (the correlated lookup of
    /// ``WellAttribute/sql(_:qualified:)`` ran in both the selection and the sort) and lets the
    /// lookup's index on the names drive the query. Every row has a code, a null's too (``Schema/nullCode``).
    private func sortLookup(_ request: WellFetchRequest) -> (table: String, column: String, order: BoundSQL)? {
        guard dialect == .sqlite, let first = request.sortDescriptors.first, let field = first.field.field, let table = field.lookupTable else { return nil }
        return (table, field.column.quotedDatabaseIdentifier, "l.value \(sql: first.ascending ? "ASC" : "DESC")")
    }

    // MARK: - Sections one at a time

    /// Whether ``BatchedResults``' id query can be read one section at a time from the sort's
    /// index (see ``sectionValue(_:ascending:after:)``): the whole of `details`, sorted first by a
    /// text section key of `details`, with no predicate, region, limit or offset.
    func walksSections(_ request: WellFetchRequest, sectionKey: WellField) -> Bool {
        sectionKey.table == .details && [.text, .date].contains(sectionKey.kind) && request.sortDescriptors.first?.field.field == sectionKey
            && request.region == nil && request.within == nil && request.predicate == nil && request.limit == nil && (request.offset ?? 0) == 0
            && request.fieldsUsed.allSatisfy { $0.table == .details }
    }

    /// The section key's first non-null value after `value` (or the first, when nil) in the sort's
    /// direction: one seek in an index that starts with the key.
    ///
    /// In a SQLite store (schema version 3) a looked-up key's values are the lookup's names that
    /// some row's code points to (one seek in the index on the codes per name), and a date's are
    /// read from its day numbers.
    func sectionValue(_ sectionKey: WellField, ascending: Bool, after value: String?) -> CompiledFetch {
        let column = BoundSQL(sql: sectionKey.column.quotedDatabaseIdentifier)
        if dialect == .sqlite, let table = sectionKey.lookupTable {
            let condition: BoundSQL = value.map { ascending ? "l.value > \($0)" : "l.value < \($0)" } ?? "l.value IS NOT NULL"
            return CompiledFetch(literal: """
                SELECT l.value FROM \(sql: table) l WHERE \(condition) AND EXISTS (SELECT 1 FROM details d WHERE d.\(column) = l.code)
                ORDER BY l.value \(sql: ascending ? "ASC" : "DESC") LIMIT 1
                """)
        }
        let key = WellAttribute(sectionKey).key(dialect, qualified: false)
        let bound = value.map { value -> DatabaseValue in
            // A section of a year alone (`1904`) is passed by its own key, not by the prefix a year compares as.
            if sectionKey.kind == .date, value.utf8.count == 4, let year = Int(value) {
                return dialect == .sqlite ? ValueParsing.yearOnlyDays(year).databaseValue : "\(value)-01-01~".databaseValue
            }
            return PredicateValue.text(value).bound(for: WellAttribute(sectionKey), dialect)
        }
        let condition: BoundSQL = bound.map { ascending ? "\(key) > \($0)" : "\(key) < \($0)" } ?? "\(key) IS NOT NULL"
        let selected = WellAttribute(sectionKey).sql(dialect, qualified: false)
        return CompiledFetch(literal: "SELECT \(selected) FROM details WHERE \(condition) ORDER BY \(key) \(sql: ascending ? "ASC" : "DESC") LIMIT 1")
    }

    /// Whether any well has no value for the section key.
    func hasNullSection(_ sectionKey: WellField) -> CompiledFetch {
        CompiledFetch(literal: "SELECT EXISTS (SELECT 1 FROM details WHERE \(sectionCondition(sectionKey, nil)))")
    }

    /// The ids of one section, `value` (nil: the wells without one), in the request's order.
    func ids(_ request: WellFetchRequest, sectionKey: WellField, value: String?) -> CompiledFetch {
        let condition = sectionCondition(sectionKey, value)
        var sql: BoundSQL = "SELECT pin_id FROM details WHERE \(condition) ORDER BY "
        sql += (order(Array(request.sortDescriptors.dropFirst()), qualified: false) + ["pin_id"]).joined(separator: ", ")
        return CompiledFetch(literal: sql)
    }

    /// The rows of `details` whose section key is `value` (nil: none), on the key's column so that
    /// the sort's index serves it: a looked-up key's code, a SQLite date's day number.
    private func sectionCondition(_ sectionKey: WellField, _ value: String?) -> BoundSQL {
        let column = BoundSQL(sql: sectionKey.column.quotedDatabaseIdentifier)
        if dialect == .sqlite, let table = sectionKey.lookupTable {
            let code: BoundSQL = value.map { "(SELECT code FROM \(sql: table) WHERE value = \($0))" } ?? "\(Schema.nullCode)"
            return "\(column) = \(code)"
        }
        return value.map { "\(column) = \(PredicateValue.text($0).bound(for: WellAttribute(sectionKey), dialect))" } ?? "\(column) IS NULL"
    }

    /// The flagged wells of the `suspects` table, in pin order.
    package func suspects(reason: String?, pinID: Int64?, limit: Int?) -> CompiledFetch {
        var sql: BoundSQL = """
            SELECT s.pin_id, d.uwi, p.name, p.lat, p.lon, s.line, s.reason, s.detail, s.load_id
            FROM suspects s JOIN pins p ON p.id = s.pin_id JOIN details d ON d.pin_id = s.pin_id
            """
        var conditions: [BoundSQL] = []
        if let reason { conditions.append("s.reason = \(reason)") }
        if let pinID { conditions.append("s.pin_id = \(pinID)") }
        if !conditions.isEmpty { sql += " WHERE \(conditions.joined(separator: " AND "))" }
        sql += " ORDER BY s.pin_id"
        if let limit { sql += " LIMIT \(limit)" }
        return CompiledFetch(literal: sql)
    }

    /// The inferences a load recorded (`loads.inferences`, JSON text on both engines).
    package func loadInferences(id: Int64) -> CompiledFetch {
        CompiledFetch(literal: "SELECT inferences FROM loads WHERE id = \(id)")
    }

    /// The keys of every well's `extra` object, each once: one pass over `details` (a `json_each`
    /// per row), as the names a store keeps (SQLite's
    /// `extra_keys`, PostgreSQL's none) may name columns no well has a value for any more.
    package func extraColumnNames() -> CompiledFetch {
        switch dialect {
        case .sqlite:
            // Schema version 3: each row's values by position, named in `extra_keys`; a null is a gap.
            CompiledFetch(literal: """
                SELECT DISTINCT k.name FROM details d, json_each(d."extra") j JOIN extra_keys k ON k.position = j.key WHERE j.type != 'null'
                """)
        case .postgres: CompiledFetch(literal: "SELECT DISTINCT k FROM details d, jsonb_object_keys(d.\"extra\") k")
        }
    }

    /// The box and number of all wells: `min(lon), min(lat), max(lon), max(lat), count(*)`.
    package func extent() -> CompiledFetch {
        CompiledFetch(literal: "SELECT min(p.lon), min(p.lat), max(p.lon), max(p.lat), count(*) FROM pins p")
    }

    // MARK: - Sort indexes

    /// The name of the index that serves `sortDescriptors`, or nil when no index can: only sorts
    /// made wholly of detail fields get one (pins sorts are on the narrow table already; extra
    /// columns are keys of a JSON object, not columns).
    package func sortIndexName(_ sortDescriptors: [WellSortDescriptor]) -> String? {
        let fields = sortDescriptors.compactMap(\.field.field)
        guard !sortDescriptors.isEmpty, fields.count == sortDescriptors.count, fields.allSatisfy({ $0.table == .details }) else { return nil }
        return "wellkit_sort_" + zip(fields, sortDescriptors).map { "\($0.column)_\($1.ascending ? "asc" : "desc")" }.joined(separator: "_")
    }

    /// `CREATE INDEX IF NOT EXISTS wellkit_sort_… ON details(…, pin_id)`, or nil when no index serves the sort.
    package func createSortIndex(_ sortDescriptors: [WellSortDescriptor]) -> (name: String, sql: BoundSQL)? {
        guard let name = sortIndexName(sortDescriptors) else { return nil }
        // SQLite indexes the stored columns, codes and day numbers: the dates in their order, the
        // codes for the lookup's walk in name order (``ids(_:sectionKey:)``) and for sections.
        let columns = (dialect == .sqlite ? sortDescriptors.map { "\(sql: $0.field.field!.column.quotedDatabaseIdentifier) \(sql: $0.ascending ? "ASC" : "DESC")" }
                       : order(sortDescriptors, qualified: false)) + ["pin_id"]
        return (name, "CREATE INDEX IF NOT EXISTS \(sql: name.quotedDatabaseIdentifier) ON details(\(columns.joined(separator: ", ")))")
    }

    /// Whether the store has an index named `name`.
    package func indexExists(_ name: String) -> CompiledFetch {
        switch dialect {
        case .sqlite: CompiledFetch(literal: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = \(name))")
        case .postgres: CompiledFetch(literal: "SELECT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = \(name))")
        }
    }

    // MARK: - Pieces

    /// `p.lon BETWEEN … AND … AND p.lat BETWEEN … AND …`: the exact test the R*Tree's rounded boxes need.
    private static func exact(_ box: BoundingBox) -> BoundSQL {
        "p.lon BETWEEN \(box.minLongitude) AND \(box.maxLongitude) AND p.lat BETWEEN \(box.minLatitude) AND \(box.maxLatitude)"
    }

    /// `column ASC|DESC` per sort descriptor. PostgreSQL is told SQLite's order of nulls: first
    /// ascending, last descending.
    private func order(_ sortDescriptors: [WellSortDescriptor], qualified: Bool = true) -> [BoundSQL] {
        sortDescriptors.map {
            let column = $0.field.key(dialect, qualified: qualified)
            return switch dialect {
            case .sqlite: "\(column) \(sql: $0.ascending ? "ASC" : "DESC")"
            case .postgres: "\(column) \(sql: $0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
            }
        }
    }

    /// Refuses a sort that names a field twice: its later terms could never change the order, and
    /// SQLite refuses more than 2,000 of them with an error of its own (issue: a 200-term `sortby`
    /// held a server connection for seconds, a 2,000-term one answered 500).
    private func checkSort(_ request: WellFetchRequest) throws {
        var seen: Set<WellAttribute> = []
        for descriptor in request.sortDescriptors where !seen.insert(descriptor.field).inserted {
            throw QueryError(.invalidValue, "the sort names \(descriptor.field.name) twice; name each field once", subject: .sortDescriptor)
        }
    }

    /// ` LIMIT ? OFFSET ?` when the request limits or skips rows.
    private func limit(_ request: WellFetchRequest) throws -> BoundSQL {
        if let limit = request.limit, limit < 0 { throw QueryError(.outOfRange, "limit \(limit) must be zero or more", subject: .limit) }
        if let offset = request.offset, offset < 0 { throw QueryError(.outOfRange, "offset \(offset) must be zero or more", subject: .offset) }
        guard request.limit != nil || (request.offset ?? 0) > 0 else { return "" }
        var limit: BoundSQL = switch (request.limit, dialect) {
        case (let limit?, _): " LIMIT \(limit)"
        case (nil, .sqlite): " LIMIT -1"
        case (nil, .postgres): " LIMIT ALL"
        }
        limit += " OFFSET \(request.offset ?? 0)"
        return limit
    }
}

/// What ``QueryCompiler/aggregate(_:keys:measures:)`` groups by: a field or unmapped column, or the
/// column (longitude) or row (latitude) of a grid in degrees, counted by ``GridLines/sql(_:)``.
package enum AggregateKey: Sendable {
    case field(WellAttribute)
    case cell(longitude: Bool, lines: GridLines)
}

/// A compiled query: SQL text that carries its own arguments (``BoundSQL``).
package struct CompiledFetch {
    package var literal: BoundSQL
    /// Whether the SQL calls SpatiaLite (`ST_Intersects` for a request ``WellFetchRequest/within`` an
    /// area), which read-only connections load only when a query needs it.
    var usesSpatiaLite = false

    /// The SQL text and its arguments, as SQLite receives them, on a connection ready for it.
    func build(_ db: Database) throws -> (sql: String, arguments: StatementArguments) {
        if usesSpatiaLite { try SpatiaLite.ensureInitialized(db) }
        return literal.rendered
    }

    /// The connection's cached prepared statement, its arguments set: repeated fetches skip the parse.
    func statement(_ db: Database) throws -> Statement {
        if usesSpatiaLite { try SpatiaLite.ensureInitialized(db) }
        let statement = try db.cachedStatement(sql: literal.text)
        try statement.setArguments(StatementArguments(literal.values))
        return statement
    }
}

extension WellFetchRequest {
    /// The attributes any part of the request reads.
    var fieldsUsed: [WellAttribute] {
        (predicate?.fields ?? []) + sortDescriptors.map(\.field)
    }

    /// The EPSG:4326 boxes the region's R*Tree search covers: none without a region, two for a box split at the antimeridian.
    func boxes() throws -> [BoundingBox] {
        switch region {
        case .box(let box): return try box.parts(antimeridian)
        case .radius(let latitude, let longitude, let meters):
            guard meters.isFinite, meters >= 0 else { throw QueryError(.outOfRange, "radius \(meters) m must be zero or more", subject: .radius) }
            return [try Geodesic.enclosingBox(latitude: latitude, longitude: longitude, meters: meters)]
        case .projectedBox(let crs, let minX, let minY, let maxX, let maxY):
            return [try ProjectedRegion.enclosingBox(crs: crs, minX: minX, minY: minY, maxX: maxX, maxY: maxY)]
        case nil: return []
        }
    }
}
