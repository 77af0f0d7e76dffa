import Foundation
import GRDB

/// A load taken as a release of its source (``LoadOptions/release``), inside the load's
/// transaction: the source's wells are noted before the write, and the old rows of those the write
/// changes kept by temporary triggers (``init(_:options:file:)``); after it (``record(loadID:matched:summary:)``)
/// they are compared with the new rows, the release and its changes recorded, and the wells that
/// are gone taken out of the live tables.
///
/// The store keeps the current list and the changes, not a copy per release: a changed field is a
/// row of `changes` with its old and new text, a gone well one row with its last values (JSON),
/// whence ``SQLiteEngine/history(of:)`` rebuilds each release's values. The source's wells are the
/// wells its releases' loads wrote last (`release_loads`). The write leaves unchanged rows alone
/// (`BulkWriter`'s `skipUnchanged`), and only the rows that differ are decoded.
struct ReleaseWriter {
    private let db: Database
    let source: String
    private let options: ReleaseOptions
    /// The source's last release, if it has one.
    private let prior: (id: Int64, number: Int, sha256: String, summary: ReleaseSummary)?
    /// How many wells the source had before the write.
    private let priorCount: Int
    /// The source's wells before the write, by pin id.
    private let members: Set<Int64>
    /// The id the write's first new pin gets: every pin from it on is new.
    private let firstNewID: Int64

    /// The detail columns a release compares, each with the name its changes give the field; the
    /// identifier is the key, the source coordinates are the position (compared as a move), and
    /// the extra values are compared by name.
    private static let comparedColumns: [(column: DetailColumn, index: Int)] = DetailColumn.all.enumerated().compactMap { index, column in
        switch column.content {
        case .value, .extra: (column, index)
        default: nil
        }
    }

    init(_ db: Database, options: ReleaseOptions, file: String) throws {
        self.db = db
        self.options = options
        source = options.source ?? WellRelease.sourceName(ofFile: file)
        if let row = try Row.fetchOne(db, sql: """
            SELECT r.id, r.number, l.sha256, r.summary FROM releases r JOIN loads l ON l.id = r.load_id
            WHERE r.source = ? ORDER BY r.number DESC LIMIT 1
            """, arguments: [source]) {
            prior = (row[0], row[1], row[2], try JSONDecoder().decode(ReleaseSummary.self, from: Data((row[3] as String).utf8)))
        } else {
            prior = nil
        }
        try Self.dropScratch(db)
        firstNewID = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM pins") ?? 0) + 1
        guard prior != nil else { priorCount = 0; members = []; return }
        // The source's wells, by pin id; and, as the write updates them, the old rows of those whose
        // values change (temporary triggers after the update; the write leaves unchanged rows alone,
        // so they fire for those alone): a release that changes 2% of a list copies 2% of its rows.
        // A copy of every row before the write, or triggers on every row's update, cost the load as much again.
        members = Set(try Int64.fetchAll(db, sql: """
            SELECT pin_id FROM details WHERE load_id IN (SELECT rl.load_id FROM release_loads rl JOIN releases r ON r.id = rl.release_id WHERE r.source = ?)
            """, arguments: [source]))
        let columns = DetailColumn.all.map(\.name.quotedDatabaseIdentifier)
        try db.execute(sql: """
            CREATE TEMP TABLE \(Self.priorTable)(pin_id INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")));
            CREATE TEMP TABLE \(Self.priorPinsTable)(id INTEGER PRIMARY KEY, name, lat, lon);
            CREATE TEMP TRIGGER release_details AFTER UPDATE ON main.details
              BEGIN INSERT OR IGNORE INTO release_prior VALUES (old.pin_id, \(columns.map { "old." + $0 }.joined(separator: ", "))); END;
            CREATE TEMP TRIGGER release_pins AFTER UPDATE ON main.pins
              BEGIN INSERT OR IGNORE INTO release_prior_pins VALUES (old.id, old.name, old.lat, old.lon); END;
            """)
        priorCount = members.count
    }

    /// The old rows of the source's wells whose values the write changes: details, and pins.
    static let priorTable = "temp.release_prior"
    static let priorPinsTable = "temp.release_prior_pins"

    /// Removes the release's temporary tables and triggers (a failed load's go with its rollback).
    static func dropScratch(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER IF EXISTS temp.release_details; DROP TRIGGER IF EXISTS temp.release_pins;
            DROP TABLE IF EXISTS \(priorTable); DROP TABLE IF EXISTS \(priorPinsTable);
            DROP TABLE IF EXISTS temp.release_respelled;
            """)
    }

    /// A change found, before it is written.
    private struct Found {
        var kind: WellChange.Kind
        var identifier: String
        var field: String? = nil
        var old: String? = nil
        var new: String? = nil
        var meters: Double? = nil
        var latitude: Double
        var longitude: Double
    }

    /// A well listed before and now (under the same or a re-spelled identifier): its positions,
    /// for the moves, which are measured once the release's common shift, if any, is known.
    private struct Pair {
        var identifier: String
        var old: (lat: Double, lon: Double)
        var new: (lat: Double, lon: Double)
    }

    /// Compares the source's wells after the write of load `loadID` with their old rows, records the
    /// release and its changes, and deletes the gone wells; returns the release's summary.
    ///
    /// - Throws: ``ReleaseError`` (`mostGone`) when most of the source's wells are missing and the
    ///   options do not confirm it; the caller's transaction then rolls everything back.
    ///
    /// The write left the wells it listed unchanged as they were (`skipUnchanged`); `matched` are
    /// the stored wells it listed, by pin id.
    func record(loadID: Int64, matched: [Int64], summary load: LoadSummary) throws -> (release: Int, summary: ReleaseSummary) {
        defer { try? Self.dropScratch(db) }
        var summary = ReleaseSummary()
        summary.columns = load.mapping.filter { $0.key != WellField.latitude.rawValue && $0.key != WellField.longitude.rawValue }
        summary.extraColumns = load.extraColumns
        summary.crs = load.crs
        summary.wells = load.loaded
        // Listed, and stored, but not one of the source's (a plain load's, an edit's, unchanged so
        // not written): new to it, and its from now on.
        if prior != nil { try db.execute(sql: "DROP TRIGGER temp.release_details; DROP TRIGGER temp.release_pins") }
        let listed = Set(matched)
        let joining = listed.subtracting(members)
        if !joining.isEmpty {
            let statement = try db.makeStatement(sql: "UPDATE details SET load_id = ? WHERE pin_id = ? AND load_id IS NOT ?")
            for id in joining { try statement.execute(arguments: [loadID, id, loadID]) }
        }
        guard let prior else {
            // The first release: every well is new, and none is recorded one by one (its values are the store's).
            summary.new = summary.wells
            let number = try insertRelease(loadID: loadID, summary: summary)
            return (number, summary)
        }
        var found: [Found] = []
        var pairs: [Pair] = []
        // Fields whose every change is the release's: a column the release added or dropped.
        var wholeRelease = Set<String>()
        for (field, column) in prior.summary.columns where summary.columns[field] == nil {
            wholeRelease.insert(field)
            summary.notes.append("column \(Self.quoted(column)) (\(field)) is not in this release: each well's value is kept in its history and is now empty")
        }
        for (field, column) in summary.columns where prior.summary.columns[field] == nil && !prior.summary.columns.isEmpty {
            wholeRelease.insert(field)
            summary.notes.append("column \(Self.quoted(column)) (\(field)) is new in this release")
        }
        for (field, column) in summary.columns.sorted(by: { $0.key < $1.key }) {
            if let was = prior.summary.columns[field], was != column, field != WellField.identifier.rawValue {
                summary.notes.append("\(field) is read from column \(Self.quoted(column)), which release \(prior.number) named \(Self.quoted(was)): its values are compared as one field")
            }
        }
        let priorExtras = Set(prior.summary.extraColumns), extras = Set(summary.extraColumns)
        for dropped in priorExtras.subtracting(extras).sorted() {
            wholeRelease.insert("extra." + dropped)
            summary.notes.append("unmapped column \(Self.quoted(dropped)) is not in this release: each well's value is kept in its history")
        }
        for added in extras.subtracting(priorExtras).sorted() where !priorExtras.isEmpty {
            wholeRelease.insert("extra." + added)
            summary.notes.append("unmapped column \(Self.quoted(added)) is new in this release")
        }
        if prior.summary.crs != summary.crs {
            let accuracy = load.transformations.compactMap(\.accuracyMeters).max()
            summary.notes.append("the coordinates are in \(summary.crs), where release \(prior.number)'s were in \(prior.summary.crs): "
                                 + "the positions are compared in WGS 84, after PROJ's transformation" + (accuracy.map { String(format: " (accurate to %.2f m)", $0) } ?? ""))
        }

        // The wells listed before and now, under the same identifier: the write updated their rows in place.
        try compareDetails(from: "\(Self.priorTable) o JOIN details n ON n.pin_id = o.pin_id JOIN pins p ON p.id = n.pin_id", members: members, into: &found)
        try comparePins(from: "\(Self.priorPinsTable) o JOIN pins p ON p.id = o.id JOIN details n ON n.pin_id = o.id", old: "o", members: members, into: &found, pairs: &pairs)

        // The wells listed before and not listed by this load: gone, or listed under a re-spelled identifier.
        let uwi = try db.makeStatement(sql: "SELECT uwi FROM details WHERE pin_id = ?")
        var missing = try members.subtracting(listed).sorted().map { id in (id: id, identifier: try String.fetchOne(uwi, arguments: [id])!) }
        let newRow = try db.makeStatement(sql: "SELECT d.pin_id, d.uwi, p.lat, p.lon FROM details d JOIN pins p ON p.id = d.pin_id WHERE d.pin_id = ?")
        var added = try (Int64.fetchAll(db, sql: "SELECT id FROM pins WHERE id >= ?", arguments: [firstNewID]) + joining.sorted()).map { id in
            let row = try Row.fetchOne(newRow, arguments: [id])!
            return (id: row[0] as Int64, identifier: row[1] as String, lat: row[2] as Double, lon: row[3] as Double)
        }

        // Re-spelled identifiers: a missing well and a new one whose identifiers are the same once
        // normalised, each the only one so, are one well. The new row stays; the old one goes.
        let missingByKey = Dictionary(grouping: missing.indices, by: { WellRelease.normalizedIdentifier(missing[$0].identifier) })
        let addedByKey = Dictionary(grouping: added.indices, by: { WellRelease.normalizedIdentifier(added[$0].identifier) })
        var respelled: [(old: Int64, new: Int64, oldIdentifier: String, newIdentifier: String)] = []
        for (key, olds) in missingByKey where !key.isEmpty && olds.count == 1 {
            guard let news = addedByKey[key], news.count == 1 else { continue }
            let old = missing[olds[0]], new = added[news[0]]
            respelled.append((old.id, new.id, old.identifier, new.identifier))
        }
        if !respelled.isEmpty {
            let olds = Set(respelled.map(\.old)), news = Set(respelled.map(\.new))
            missing.removeAll { olds.contains($0.id) }
            added.removeAll { news.contains($0.id) }
            try db.execute(sql: "CREATE TEMP TABLE release_respelled(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
            let insert = try db.makeStatement(sql: "INSERT INTO temp.release_respelled(old, new) VALUES (?, ?)")
            for pair in respelled { try insert.execute(arguments: [pair.old, pair.new]) }
            // The old wells' rows are still there (the write did not list them): compared with the new ones'.
            try compareDetails(from: "temp.release_respelled x JOIN details o ON o.pin_id = x.old JOIN details n ON n.pin_id = x.new JOIN pins p ON p.id = x.new",
                               members: nil, into: &found)
            try comparePins(from: "temp.release_respelled x JOIN pins o ON o.id = x.old JOIN details n ON n.pin_id = x.new JOIN pins p ON p.id = x.new",
                            old: "o", members: nil, into: &found, pairs: &pairs)
            let position = try db.makeStatement(sql: "SELECT lat, lon FROM pins WHERE id = ?")
            for pair in respelled {
                let row = try Row.fetchOne(position, arguments: [pair.new])!
                found.append(Found(kind: .changed, identifier: pair.newIdentifier, field: WellField.identifier.rawValue,
                                   old: pair.oldIdentifier, new: pair.newIdentifier, latitude: row[0], longitude: row[1]))
            }
            try delete(respelled.map(\.old))
            summary.respelled = respelled.count
            wholeRelease.insert(WellField.identifier.rawValue)
            let example = respelled.min { $0.newIdentifier < $1.newIdentifier }!
            summary.notes.append("\(grouped(respelled.count)) wells are listed under re-spelled identifiers (\(example.oldIdentifier) → \(example.newIdentifier)): "
                                 + "they are matched by their letters and digits and compared as the same wells")
        }

        // A release that lists few of the source's wells is more likely a truncated download than the wells' end.
        if !options.confirmGone && priorCount >= 10 && missing.count * 2 > priorCount {
            throw ReleaseError(.mostGone, """
                \(load.file): this release of \(source) lists \(grouped(priorCount - missing.count)) of the \(grouped(priorCount)) wells of release \(prior.number): \
                \(grouped(missing.count)) (\(Int((Double(missing.count) * 100 / Double(priorCount)).rounded()))%) would be marked gone, which a truncated or partial file does; \
                nothing was changed. Check that the file is whole; if the wells are really gone, load it again with --confirm-gone (ReleaseOptions.confirmGone)
                """)
        }

        // Gone: the last values of each are kept with its change, then its rows go.
        if !missing.isEmpty {
            let statement = try db.makeStatement(sql: """
                SELECT \((WellPin.selection + DetailColumn.sqliteSelection).joined(separator: ", ")) FROM pins p JOIN details d ON d.pin_id = p.id WHERE p.id = ?
                """)
            for well in missing {
                statement.arguments = [well.id]
                guard let stored = try Well.fetchAll(statement).first else { continue }
                found.append(Found(kind: .gone, identifier: well.identifier, old: try Self.json(Self.values(of: stored)),
                                   latitude: stored.pin.latitude, longitude: stored.pin.longitude))
            }
            try delete(missing.map(\.id))
        }
        // New, or back: gone in an earlier release of the source and not back since (under any spelling of its identifier).
        let gone = Set(try String.fetchAll(db, sql: """
            SELECT c.uwi FROM changes c JOIN releases r ON r.id = c.release_id
            WHERE r.source = ? AND c.kind IN ('gone', 'back') AND c.field IS NULL
            GROUP BY c.uwi HAVING max(CASE c.kind WHEN 'gone' THEN c.id END) = max(c.id)
            """, arguments: [source]).map(WellRelease.normalizedIdentifier))
        for well in added {
            found.append(Found(kind: gone.contains(WellRelease.normalizedIdentifier(well.identifier)) ? .back : .new, identifier: well.identifier, latitude: well.lat, longitude: well.lon))
        }

        // Moves, measured after the release's common shift when it has one (a change of datum the file did not declare).
        let shift = Self.commonShift(pairs, compared: priorCount - missing.count)
        if let shift {
            summary.commonShift = [shift.median.east, shift.median.north]
            let sizes = shift.expected.map { hypot($0.east, $0.north) }
            summary.notes.append(String(format: "every well's position shifted at once, by %.1f to %.1f m (%.1f m east, %.1f m north at the median), as a change of datum does: ",
                                        sizes.min() ?? 0, sizes.max() ?? 0, shift.median.east, shift.median.north)
                                 + "the wells are compared through that shift (the median of their neighbours' moves), and a well is moved when it moved more than a metre (or a tenth of the shift) beyond it; "
                                 + "if the file's datum changed, load it with --crs or a datum column")
        }
        for (k, pair) in pairs.enumerated() {
            let meters: Double
            if let shift {
                // The shift is known to about a tenth of itself: a well moved with its neighbours within that.
                let d = Self.displacement(pair), expected = shift.expected[k]
                meters = hypot(d.east - expected.east, d.north - expected.north)
                if meters <= max(1, hypot(expected.east, expected.north) / 10) { continue }
            } else {
                meters = Geodesic.distance(fromLatitude: pair.old.lat, longitude: pair.old.lon, toLatitude: pair.new.lat, longitude: pair.new.lon)
            }
            guard meters > Self.smallestMove else { continue }
            found.append(Found(kind: .moved, identifier: pair.identifier, field: "position", old: Self.position(pair.old), new: Self.position(pair.new),
                               meters: meters, latitude: pair.new.lat, longitude: pair.new.lon))
        }

        summary.wholeReleaseFields = wholeRelease.sorted()
        summary.new = found.count(where: { $0.kind == .new })
        summary.back = found.count(where: { $0.kind == .back })
        summary.gone = found.count(where: { $0.kind == .gone })
        summary.moved = found.count(where: { $0.kind == .moved })
        summary.changed = Set(found.filter { $0.kind == .changed && !wholeRelease.contains($0.field ?? "") }.map(\.identifier)).count
        summary.transitions = Self.transitions(found.filter { !wholeRelease.contains($0.field ?? "") })

        // The same file again, read the same way: the release it is, not a new one.
        if found.isEmpty && prior.sha256 == load.sha256 {
            try db.execute(sql: "INSERT INTO release_loads(load_id, release_id) VALUES (?, ?)", arguments: [loadID, prior.id])
            summary.reloaded = true
            return (prior.number, summary)
        }
        let number = try insertRelease(loadID: loadID, summary: summary)
        let releaseID = try Int64.fetchOne(db, sql: "SELECT id FROM releases WHERE source = ? AND number = ?", arguments: [source, number])!
        let insert = try db.makeStatement(sql: "INSERT INTO changes(release_id, kind, uwi, field, old, new, meters, lat, lon) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for change in found.sorted(by: { ($0.identifier, $0.kind.rawValue) < ($1.identifier, $1.kind.rawValue) }) {
            try insert.execute(arguments: [releaseID, change.kind.rawValue, change.identifier, change.field, change.old, change.new,
                                           change.meters, change.latitude, change.longitude])
        }
        return (number, summary)
    }

    /// Finds the changed fields of the wells `from` pairs (`o` the old detail row, `n` and `p` the
    /// rows now; only the `members`' when given), decoding only the rows with a difference.
    private func compareDetails(from: String, members: Set<Int64>?, into found: inout [Found]) throws {
        let columns = Self.comparedColumns
        let differs = columns.map { "o.\($0.column.name.quotedDatabaseIdentifier) IS NOT n.\($0.column.name.quotedDatabaseIdentifier)" }.joined(separator: " OR ")
        let old = DetailColumn.selection(from: "o"), new = DetailColumn.selection(from: "n")
        let rows = try Row.fetchCursor(db, sql: """
            SELECT n.uwi, p.lat, p.lon, \(columns.map { "\(old[$0.index]), \(new[$0.index])" }.joined(separator: ", ")), o.pin_id
            FROM \(from) WHERE \(differs)
            """)
        while let row = try rows.next() {
            if let members, !members.contains(row[3 + 2 * columns.count]) { continue }
            let identifier: String = row[0]
            let position = (lat: row[1] as Double, lon: row[2] as Double)
            func change(_ field: String, _ was: String?, _ now: String?) {
                if was != now { found.append(Found(kind: .changed, identifier: identifier, field: field, old: was, new: now, latitude: position.lat, longitude: position.lon)) }
            }
            for (k, (column, _)) in columns.enumerated() {
                let before = row[3 + 2 * k] as DatabaseValue, after = row[4 + 2 * k] as DatabaseValue
                if case .value(let field) = column.content {
                    change(field.rawValue, Self.text(before), Self.text(after))
                } else {
                    // The extra values, as JSON objects of their names: one change per name.
                    let was = Self.object(before), now = Self.object(after)
                    for name in Set(was.keys).union(now.keys).sorted() { change("extra." + name, was[name], now[name]) }
                }
            }
        }
    }

    /// Finds the changed names and positions of the wells `from` pairs (`old` the old pin's alias,
    /// `p` the pin now, `n` its detail), and appends the positions that differ to `pairs`.
    private func comparePins(from: String, old o: String, members: Set<Int64>?, into found: inout [Found], pairs: inout [Pair]) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT n.uwi, \(o).name, p.name, \(o).lat, \(o).lon, p.lat, p.lon, \(o).id FROM \(from)
            WHERE \(o).name IS NOT p.name OR \(o).lat IS NOT p.lat OR \(o).lon IS NOT p.lon
            """)
        while let row = try rows.next() {
            if let members, !members.contains(row[7]) { continue }
            let identifier: String = row[0]
            let was = (lat: row[3] as Double, lon: row[4] as Double), now = (lat: row[5] as Double, lon: row[6] as Double)
            if (row[1] as String?) != (row[2] as String?) {
                found.append(Found(kind: .changed, identifier: identifier, field: WellField.name.rawValue, old: row[1], new: row[2], latitude: now.lat, longitude: now.lon))
            }
            if was != now { pairs.append(Pair(identifier: identifier, old: was, new: now)) }
        }
    }

    /// Deletes wells' rows (the pins' triggers take them out of the R*Tree; the load runs with foreign keys off).
    private func delete(_ ids: [Int64]) throws {
        let statements = try ["DELETE FROM suspects WHERE pin_id = ?", "DELETE FROM details WHERE pin_id = ?", "DELETE FROM pins WHERE id = ?"]
            .map { try db.makeStatement(sql: $0) }
        for id in ids {
            for statement in statements { try statement.execute(arguments: [id]) }
        }
    }

    private func insertRelease(loadID: Int64, summary: ReleaseSummary) throws -> Int {
        let number = (try Int.fetchOne(db, sql: "SELECT max(number) FROM releases WHERE source = ?", arguments: [source]) ?? 0) + 1
        try db.execute(sql: "INSERT INTO releases(source, number, load_id, wells, summary) VALUES (?, ?, ?, ?, ?)",
                       arguments: [source, number, loadID, summary.wells, String(decoding: try JSONEncoder.sorted.encode(summary), as: UTF8.self)])
        try db.execute(sql: "INSERT INTO release_loads(load_id, release_id) VALUES (?, last_insert_rowid())", arguments: [loadID])
        return number
    }

    /// Moves of at most this many metres are not recorded: a coordinate's last digit, rounded anew.
    static let smallestMove = 0.05

    /// A well's values as `wells show` names them, as text (a gone well's record).
    static func values(of well: Well) -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in well.properties() where name != "id" && value != .null { values[name] = ResultWriter.text(value) }
        return values
    }

    static func json(_ values: [String: String]) throws -> String {
        String(decoding: try JSONEncoder.sorted.encode(values), as: UTF8.self)
    }

    /// A stored value as text, as `wells show` writes it; nil for none.
    private static func text(_ value: DatabaseValue) -> String? {
        value.isNull ? nil : ResultWriter.text(WellValue(value))
    }

    private static func object(_ value: DatabaseValue) -> [String: String] {
        guard let text = String.fromDatabaseValue(value),
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [:] }
        return object.compactMapValues { $0 as? String ?? ($0 is NSNull ? nil : "\($0)") }
    }

    private static func position(_ p: (lat: Double, lon: Double)) -> String {
        "\(ResultWriter.text(.real(p.lat))),\(ResultWriter.text(.real(p.lon)))"
    }

    private static func quoted(_ text: String) -> String { "'\(text)'" }

    /// A pair's move east and north in metres (on the sphere, near the well: enough to see a common shift).
    private static func displacement(_ pair: Pair) -> (east: Double, north: Double) {
        let radius = 6_371_008.8, radians = Double.pi / 180
        var dlon = pair.new.lon - pair.old.lon
        if dlon > 180 { dlon -= 360 } else if dlon < -180 { dlon += 360 }
        return (dlon * radians * radius * cos((pair.old.lat + pair.new.lat) / 2 * radians), (pair.new.lat - pair.old.lat) * radians * radius)
    }

    /// The shift the wells moved by at once, when there is one, as each well's neighbours moved: a
    /// datum's shift varies smoothly across a state (NAD27 to NAD83 in Tennessee: 8 m east in the
    /// west, 15 m west in the east), so no one vector fits; the median move of cells of 0.2° and 1°
    /// was off by metres at their edges, and the median of a lone well's nearest by 1.5 m where they
    /// all lay to one side. Each cell of ``cellSize`` that holds a well gets a plane fitted to the
    /// moves east and north of the ``neighbours`` nearest wells that moved over a metre (fitted
    /// again without those far from the first fit, the wells that really moved): the well's
    /// expected shift is the plane's at its place. There is a shift when at least 10 wells moved
    /// over a metre, they are most of the `compared` wells, and 80% of them moved within a metre
    /// (or a tenth of it) of their expected shift.
    private static func commonShift(_ pairs: [Pair], compared: Int) -> (median: (east: Double, north: Double), expected: [(east: Double, north: Double)])? {
        let moves = pairs.map(displacement)
        let moved = moves.indices.filter { hypot(moves[$0].east, moves[$0].north) > 1 }
        guard moved.count >= 10, moved.count * 2 > compared else { return nil }
        func median(_ values: [Double]) -> Double { let sorted = values.sorted(); return sorted[sorted.count / 2] }
        let all = (east: median(moved.map { moves[$0].east }), north: median(moved.map { moves[$0].north }))
        func cell(_ p: (lat: Double, lon: Double)) -> SIMD2<Int32> {
            SIMD2(Int32((p.lon / cellSize).rounded(.down)), Int32((p.lat / cellSize).rounded(.down)))
        }
        let cells = Dictionary(grouping: moved) { cell(pairs[$0].new) }
        /// The plane of the moves around cell `home`: of the nearest moved wells to its centre,
        /// found ring of cells by ring, once enough lie within the rings searched (or 2° out).
        func plane(around home: SIMD2<Int32>) -> ShiftPlane? {
            let centre = (lat: (Double(home.y) + 0.5) * cellSize, lon: (Double(home.x) + 0.5) * cellSize)
            let scale = cos(centre.lat * .pi / 180)
            var found: [(index: Int, distance: Double)] = []
            for ring in Int32(0)...Int32(2 / cellSize) {
                for x in (home.x - ring)...(home.x + ring) {
                    for y in (home.y - ring)...(home.y + ring) where max(abs(x - home.x), abs(y - home.y)) == ring {
                        for j in cells[SIMD2(x, y)] ?? [] {
                            found.append((j, hypot((pairs[j].new.lon - centre.lon) * scale, pairs[j].new.lat - centre.lat)))
                        }
                    }
                }
                if found.count >= neighbours, found.count(where: { $0.distance <= (Double(ring) + 0.5) * cellSize * scale }) >= neighbours { break }
            }
            let nearest = found.sorted { $0.distance < $1.distance }.prefix(neighbours).map(\.index)
            return ShiftPlane(fitting: nearest, at: centre, pairs: pairs, moves: moves)
        }
        var planes: [SIMD2<Int32>: ShiftPlane?] = [:]
        let expected = pairs.indices.map { k -> (east: Double, north: Double) in
            let home = cell(pairs[k].new)
            if planes[home] == nil { planes[home] = .some(plane(around: home)) }
            return planes[home]!.map { $0.shift(at: pairs[k].new) } ?? all
        }
        let near = moved.count(where: { k in
            let e = expected[k]
            return hypot(moves[k].east - e.east, moves[k].north - e.north) <= max(1, hypot(e.east, e.north) / 10)
        })
        return near * 5 >= moved.count * 4 ? (all, expected) : nil
    }

    /// The wells whose moves give a cell's plane (``commonShift(_:compared:)``), and the cells' size in degrees.
    static let neighbours = 12
    static let cellSize = 0.02

    /// A plane through moves east and north over longitude and latitude: `a + b·Δlon + c·Δlat` each.
    private struct ShiftPlane {
        let origin: (lat: Double, lon: Double)
        let east: [Double], north: [Double]

        /// Fitted by least squares to the moves of `indices` but those over 3 m (and 3 times the
        /// median miss) from their median move; nil for fewer than 3 wells. Wells on one line fix
        /// no plane: their median move, flat.
        init?(fitting indices: [Int], at origin: (lat: Double, lon: Double), pairs: [Pair], moves: [(east: Double, north: Double)]) {
            guard indices.count >= 3 else { return nil }
            self.origin = origin
            func fit(_ indices: [Int]) -> (east: [Double], north: [Double]) {
                var m = [[Double]](repeating: [0, 0, 0], count: 3), ve = [0.0, 0, 0], vn = [0.0, 0, 0]
                for k in indices {
                    let row = [1, pairs[k].new.lon - origin.lon, pairs[k].new.lat - origin.lat]
                    for i in 0..<3 {
                        for j in 0..<3 { m[i][j] += row[i] * row[j] }
                        ve[i] += row[i] * moves[k].east
                        vn[i] += row[i] * moves[k].north
                    }
                }
                if let e = Self.solve(m, ve), let n = Self.solve(m, vn) { return (e, n) }
                let east = indices.map { moves[$0].east }.sorted(), north = indices.map { moves[$0].north }.sorted()
                return ([east[east.count / 2], 0, 0], [north[north.count / 2], 0, 0])
            }
            func miss(_ k: Int, _ plane: (east: [Double], north: [Double])) -> Double {
                let dlon = pairs[k].new.lon - origin.lon, dlat = pairs[k].new.lat - origin.lat
                return hypot(moves[k].east - (plane.east[0] + plane.east[1] * dlon + plane.east[2] * dlat),
                             moves[k].north - (plane.north[0] + plane.north[1] * dlon + plane.north[2] * dlat))
            }
            // The first guess is the median move, which the wells that really moved (a few among
            // them) do not pull; a least-squares plane through all of them was pulled hundreds of metres.
            let east = indices.map { moves[$0].east }.sorted(), north = indices.map { moves[$0].north }.sorted()
            let first = ([east[east.count / 2], 0, 0], [north[north.count / 2], 0, 0])
            let misses = indices.map { miss($0, first) }.sorted()
            let kept = indices.filter { miss($0, first) <= max(3, 3 * misses[misses.count / 2]) }
            (self.east, self.north) = kept.count >= 3 ? fit(kept) : first
        }

        func shift(at p: (lat: Double, lon: Double)) -> (east: Double, north: Double) {
            let dlon = p.lon - origin.lon, dlat = p.lat - origin.lat
            return (east[0] + east[1] * dlon + east[2] * dlat, north[0] + north[1] * dlon + north[2] * dlat)
        }

        /// `m x = v` for a 3×3 `m`, by Cramer's rule; nil when `m` is nearly singular.
        static func solve(_ m: [[Double]], _ v: [Double]) -> [Double]? {
            func det(_ a: [[Double]]) -> Double {
                a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
            }
            let d = det(m)
            guard abs(d) > 1e-9 * abs(m[0][0] * m[1][1] * m[2][2]), d != 0 else { return nil }
            return (0..<3).map { column in
                var a = m
                for row in 0..<3 { a[row][column] = v[row] }
                return det(a) / d
            }
        }
    }

    /// The commonest changes of the looked-up fields (status, operator, …), five of each.
    private static func transitions(_ found: [Found]) -> [ReleaseSummary.Transition] {
        let lookups = Set(WellField.detailValueFields.filter { $0.lookupTable != nil }.map(\.rawValue))
        var counts: [String: [TransitionKey: Int]] = [:]
        for change in found where change.kind == .changed {
            guard let field = change.field, lookups.contains(field) else { continue }
            counts[field, default: [:]][TransitionKey(old: change.old, new: change.new), default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.flatMap { field, pairs in
            pairs.sorted { $0.value != $1.value ? $0.value > $1.value : ($0.key.old ?? "", $0.key.new ?? "") < ($1.key.old ?? "", $1.key.new ?? "") }.prefix(5)
                .map { ReleaseSummary.Transition(field: field, old: $0.key.old, new: $0.key.new, count: $0.value) }
        }
    }

    private struct TransitionKey: Hashable { var old: String?; var new: String? }
}
