import Foundation
import GRDB
import GRDBSQLite

/// Writes located wells, the load record and the rejects inside the load's transaction.
///
/// Binds and steps the raw SQLite statements of GRDB-prepared statements, with the text bound
/// in place from the mapped file: on the 244,292-well benchmark file, GRDB's `StatementArguments`
/// path took longer for the two inserts per well (see the foundation issue's note for the figures).
struct BulkWriter {
    private let db: Database
    /// Seconds spent writing rows and packing the index.
    private(set) var phases: [String: Double] = [:]

    init(_ db: Database) { self.db = db }

    /// Inserts new wells and updates those whose identifier is already stored.
    ///
    /// The rows are built on a second thread (``RowPipeline``) while this one binds and steps.
    ///
    /// - Returns: the id of the load's `loads` row (allocated here, filled in by ``record(_:loadID:startedAt:rejects:)``),
    ///   the counts of inserted and updated wells, and of bad values per detail field.
    mutating func write(_ scan: ScannedFile, progress: (@Sendable (LoadProgress) -> Void)? = nil) throws
        -> (loadID: Int64, inserted: Int, updated: Int, badValues: [Int]) {
        let clock = ContinuousClock.now
        let records = scan.records
        // A big page cache keeps the index B-trees in memory while they grow; back to the default after.
        try db.execute(sql: "PRAGMA cache_size = -262144")
        defer { try? db.execute(sql: "PRAGMA cache_size = -2000") }
        var existing: [String: Int64] = [:]
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM details)") == true {
            let cursor = try Row.fetchCursor(db, sql: "SELECT uwi, pin_id FROM details")
            while let row = try cursor.next() { existing[row[0]] = row[1] }
        }
        // New wells take ids in Hilbert order, after the largest id in use.
        var newOnes: [(key: UInt64, index: Int)] = []
        var updates: [(id: Int64, index: Int)] = []
        newOnes.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            if !existing.isEmpty, let id = existing[scan.identifier(of: record)] {
                updates.append((id, index))
            } else {
                newOnes.append((SpatialIndex.hilbertKey(longitude: record.lon, latitude: record.lat), index))
            }
        }
        newOnes.sort { $0.key < $1.key || ($0.key == $1.key && $0.index < $1.index) }
        // Updates in id order walk the pins and details B-trees from one end to the other.
        updates.sort { $0.id < $1.id }
        let firstNewID = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM pins") ?? 0) + 1

        let triggers = try SpatialIndex.suspendTriggers(db)
        // A big batch of new wells is faster to index after the insert: CREATE INDEX sorts once.
        let rebuildIdentifierIndex = newOnes.count > 10_000 && newOnes.count > existing.count
        if rebuildIdentifierIndex { try db.execute(sql: "DROP INDEX details_uwi") }
        let insertPin = try db.makeStatement(sql: """
            INSERT INTO pins(id, name, lat, lon, geom) VALUES (?1, ?2, ?3, ?4, MakePoint(?4, ?3, 4326))
            """)
        let updatePin = try db.makeStatement(sql: """
            UPDATE pins SET name = ?2, lat = ?3, lon = ?4, geom = MakePoint(?4, ?3, 4326) WHERE id = ?1
            """)
        let columns = ["pin_id"] + DetailColumn.all.map(\.name)
        let detailSQL = """
            INTO details(\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
            VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))
            """
        let insertDetail = try db.makeStatement(sql: "INSERT " + detailSQL)
        // The identifier matched, so it stays: its index entry is left alone (REPLACE would delete and re-insert it).
        let updateDetail = try db.makeStatement(sql: """
            UPDATE details SET \(columns.indices.dropFirst(2).map { "\(columns[$0].quotedDatabaseIdentifier) = ?\($0 + 1)" }.joined(separator: ", "))
            WHERE pin_id = ?1 AND uwi = ?2
            """)
        let loadID = try nextLoadID()
        let builder = scan.makeBuilder()
        let statements = [insertPin, insertDetail, updatePin, updateDetail].map(\.sqliteStatement)
        // Text is bound in place (SQLITE_STATIC): no statement may point into the batches once they are gone.
        defer { for statement in statements { sqlite3_clear_bindings(statement) } }
        for detail in [statements[1], statements[3]] { sqlite3_bind_int64(detail, Int32(1 + DetailColumn.index(of: .loadID) + 1), loadID) }
        // A row's cells are the pin's (name, lat, lon), then the detail's in ``DetailColumn`` order but load_id, bound above.
        let values = RowBatch.Column.identifier
        try RowPipeline.run(records, order: newOnes.map(\.index) + updates.map(\.index), builder: builder) { batch in
            try batch.withRows { rows in
                for (k, position) in batch.rows.enumerated() {
                    let isNew = position < newOnes.count
                    let id = isNew ? firstNewID + Int64(position) : updates[position - newOnes.count].id
                    let pin = statements[isNew ? 0 : 2], detail = statements[isNew ? 1 : 3]
                    sqlite3_bind_int64(pin, 1, id)
                    rows.bind(row: k, 0..<values, to: pin, from: 2)
                    try stepToDone(pin)
                    sqlite3_bind_int64(detail, 1, id)
                    rows.bind(row: k, values..<RowBatch.Column.width, to: detail, from: 2)
                    try stepToDone(detail)
                }
            }
            progress?(LoadProgress(phase: .writing, done: batch.rows.upperBound, total: records.count))
        }
        progress?(LoadProgress(phase: .indexing, done: 0, total: 3))
        if rebuildIdentifierIndex { try db.execute(sql: "CREATE UNIQUE INDEX details_uwi ON details(uwi)") }
        try SpatialIndex.restoreTriggers(triggers, in: db)
        phases["rows"] = (ContinuousClock.now - clock).seconds
        progress?(LoadProgress(phase: .indexing, done: 1, total: 3))
        if existing.isEmpty && firstNewID == 1 {
            // A first load: the new pins are every pin, already in Hilbert order; no need to read them back.
            try SpatialIndex.write(newOnes.enumerated().map { (Int64($0.offset + 1), records[$0.element.index].lon, records[$0.element.index].lat) },
                                   into: SpatialIndex.rtree, db)
        } else {
            try SpatialIndex.repack(db)
        }
        phases["index"] = (ContinuousClock.now - clock).seconds - phases["rows"]!
        return (loadID, newOnes.count, updates.count, builder.badValues)
    }

    /// The id the `loads` row of this load will get; its row is written last, with the counts.
    private func nextLoadID() throws -> Int64 {
        let id = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM loads") ?? 0) + 1
        try db.execute(
            sql: """
                INSERT INTO loads(id, file, sha256, started_at, seconds, records, inserted, updated, rejected,
                  bad_values, duplicates, generated_ids, mapping, crs)
                VALUES (?, '', '', '', 0, 0, 0, 0, 0, 0, 0, 0, '{}', 'EPSG:4326')
                """,
            arguments: [id])
        return id
    }

    /// Fills in the `loads` row `id` that ``write(_:progress:)`` allocated, and writes the rejects and suspects.
    func record(_ summary: LoadSummary, loadID id: Int64, startedAt: Date, rejects: [Reject]) throws {
        let mappingJSON = try String(decoding: JSONEncoder.sorted.encode(summary.mapping), as: UTF8.self)
        try db.execute(
            sql: """
                UPDATE loads SET file = ?, sha256 = ?, started_at = ?, seconds = ?, records = ?, inserted = ?, updated = ?,
                  rejected = ?, bad_values = ?, duplicates = ?, generated_ids = ?, mapping = ?, crs = ?,
                  transformation = ?, accuracy_m = ?, warnings = ?, inferences = ?, suspects = ?
                WHERE id = ?
                """,
            arguments: [
                summary.file, summary.sha256, ISO8601DateFormatter().string(from: startedAt), summary.seconds,
                summary.records, summary.inserted, summary.updated, summary.rejected, summary.badValues,
                summary.duplicates, summary.generatedIdentifiers, mappingJSON, summary.crs,
                summary.transformations.isEmpty ? nil : summary.transformations.map(\.description).joined(separator: "; "),
                summary.transformations.compactMap(\.accuracyMeters).max(),
                summary.warnings.isEmpty ? nil : summary.warnings.joined(separator: "\n"),
                summary.inferences.isEmpty ? nil : String(decoding: try JSONEncoder.sorted.encode(summary.inferences), as: UTF8.self),
                summary.suspects.count, id,
            ])
        let insert = try db.makeStatement(sql: "INSERT INTO rejects(load_id, line, \"column\", reason, raw) VALUES (?, ?, ?, ?, ?)")
        for reject in rejects {
            try insert.execute(arguments: [id, reject.line, reject.column, reject.reason, reject.raw])
        }
        // A well's flag belongs to the load that last wrote it: this load's wells lose their old
        // flags (only reloads have any), and its suspects are flagged by identifier.
        if summary.updated > 0 {
            // Visits the few flags, each with a primary-key lookup, rather than every detail.
            try db.execute(sql: "DELETE FROM suspects WHERE (SELECT load_id FROM details d WHERE d.pin_id = suspects.pin_id) = ?",
                           arguments: [id])
        }
        let flag = try db.makeStatement(sql: """
            INSERT OR REPLACE INTO suspects(pin_id, load_id, line, reason, detail)
            SELECT pin_id, ?, ?, ?, ? FROM details WHERE uwi = ?
            """)
        for suspect in summary.suspects {
            try flag.execute(arguments: [id, suspect.line, suspect.reason, suspect.detail, suspect.identifier])
        }
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, for stable JSON in the store.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
