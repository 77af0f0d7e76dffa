import Foundation
import GRDB
import GRDBSQLite

/// Writes located wells, the load record and the rejects inside the load's transaction.
///
/// Binds and steps the raw SQLite statements of GRDB-prepared statements, with the text bound
/// in place from the mapped file: GRDB's `StatementArguments` path is slower for the two inserts
/// per well (`wells-bench load`, Benchmarks/README.md's "Loading").
struct BulkWriter {
    private let db: Database
    /// Seconds spent writing rows and packing the index.
    private(set) var phases: [String: Double] = [:]
    /// The stored wells the last ``write(_:edit:skipUnchanged:progress:)`` with `skipUnchanged` matched, by pin id.
    private(set) var matched: [Int64] = []

    init(_ db: Database) { self.db = db }

    /// Inserts new wells and updates those whose identifier is already stored.
    ///
    /// The rows are built on a second thread (``RowPipeline``) while this one binds and steps.
    ///
    /// - Returns: the id of the load's `loads` row (allocated here, filled in by ``record(_:loadID:startedAt:rejects:)``),
    ///   the counts of inserted and updated wells, and of bad values and of values per detail field.
    ///
    /// With `skipUnchanged` (a release: ``ReleaseWriter``), a stored well whose values are those of
    /// its record is not written again (it keeps the load that last wrote it), and ``matched`` lists
    /// the pin ids of the stored wells the file listed.
    mutating func write(_ scan: ScannedFile, edit: EditPlan? = nil, skipUnchanged: Bool = false, progress: (@Sendable (LoadProgress) -> Void)? = nil) throws
        -> (loadID: Int64, inserted: Int, updated: Int, deleted: Int, badValues: [Int], filled: [Int]) {
        let clock = ContinuousClock.now
        let records = scan.records
        try db.execute(sql: "PRAGMA cache_size = \(Self.writeCacheSize)")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(Self.defaultCacheSize)") }
        // A few wells into a store that has some (an edit, a small reload): each identifier is looked
        // up in its index and the R*Tree kept by the pins' triggers, rather than every stored
        // identifier read and the whole tree packed again, which cost a one-well write time in
        // proportion to the store (Benchmarks/README.md's "Writes of single wells").
        let few = try records.count <= Self.fewWells && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pins)")!
        let existing = few ? nil : try StoredIdentifiers(db)
        let lookup = try db.makeStatement(sql: "SELECT pin_id FROM details WHERE uwi = ?")
        /// The pin id of the stored well of `identifier`: from the identifiers read, or from the index.
        func storedID(_ identifier: String) throws -> Int64? {
            if let existing { return existing.id(of: identifier) }
            return try Int64.fetchOne(lookup, arguments: [identifier])
        }
        let storeIsEmpty = existing?.isEmpty ?? false
        // The wells to delete, found before anything is written: a missing one fails the edit at once.
        let deletions = try (edit?.deletes ?? []).map { identifier in
            guard let id = try Int64.fetchOne(lookup, arguments: [identifier]) else { throw EditPlan.notStoredForDelete(identifier) }
            return id
        }
        // New wells take ids in Hilbert order, after the largest id in use (``SpatialIndex/orderKey(index:longitude:latitude:)``).
        var newOnes: [UInt64] = []
        var updates: [(id: Int64, index: Int)] = []
        newOnes.reserveCapacity(records.count)
        // Matching reads each identifier from the file, in file order: a big file's pages are given back behind it.
        var release = MappedFile.ReleaseBehind(scan.file, from: 0)
        for index in records.indices {
            if !storeIsEmpty {
                let record = records[index]
                release.done(before: record.range.lowerBound)
                let identifier = scan.identifier(of: record)
                let id = try storedID(identifier)
                try edit?.check(identifier, stored: id != nil)
                if let id {
                    updates.append((id, index))
                    continue
                }
            } else if let edit {
                try edit.check(scan.identifier(of: records[index]), stored: false)
            }
            let point = records.coordinates(index)
            newOnes.append(SpatialIndex.orderKey(index: index, longitude: point.lon, latitude: point.lat))
        }
        newOnes.sortByHighHalves()  // their indices ascend
        // Updates in id order walk the pins and details B-trees from one end to the other.
        updates.sort { $0.id < $1.id }
        let firstNewID = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM pins") ?? 0) + 1

        // The pins' triggers keep the R*Tree in step with a few wells; many are packed after their rows.
        let triggers = few ? [] : try SpatialIndex.suspendTriggers(db)
        // A big batch of new wells is faster to index after the insert: CREATE INDEX sorts once.
        let rebuildIdentifierIndex = newOnes.count > 10_000 && newOnes.count > existing?.count ?? 0
        if rebuildIdentifierIndex { try db.execute(sql: "DROP INDEX details_uwi") }
        let pinColumns = ["id", "name", "lat", "lon"], columns = ["pin_id"] + DetailColumn.all.map(\.name)
        let chunk = Self.rowsPerInsert
        let insertPinStatement = try db.makeStatement(sql: Self.insertSQL(into: "pins", pinColumns, rows: 1))
        let insertDetailStatement = try db.makeStatement(sql: Self.insertSQL(into: "details", columns, rows: 1))
        let pinsChunkStatement = try db.makeStatement(sql: Self.insertSQL(into: "pins", pinColumns, rows: chunk))
        let detailsChunkStatement = try db.makeStatement(sql: Self.insertSQL(into: "details", columns, rows: chunk))
        // Unchanged rows left as they are: the UPDATE's condition compares every value but the load's id.
        let loadIDColumn = 1 + DetailColumn.index(of: .loadID)
        let unchangedPin = skipUnchanged ? " AND (name IS NOT ?2 OR lat IS NOT ?3 OR lon IS NOT ?4)" : ""
        let unchangedDetail = skipUnchanged
            ? " AND (" + columns.indices.dropFirst(2).filter { $0 != loadIDColumn }.map { "\(columns[$0].quotedDatabaseIdentifier) IS NOT ?\($0 + 1)" }.joined(separator: " OR ") + ")" : ""
        let updatePinStatement = try db.makeStatement(sql: "UPDATE pins SET name = ?2, lat = ?3, lon = ?4 WHERE id = ?1" + unchangedPin)
        // The identifier matched, so it stays: its index entry is left alone (REPLACE would delete and re-insert it).
        let updateDetailStatement = try db.makeStatement(sql: """
            UPDATE details SET \(columns.indices.dropFirst(2).map { "\(columns[$0].quotedDatabaseIdentifier) = ?\($0 + 1)" }.joined(separator: ", "))
            WHERE pin_id = ?1 AND uwi = ?2\(unchangedDetail)
            """)
        // With unchanged rows skipped, a row the update left alone is the record's well, or one matched by its hashes alone.
        let verifyStatement = try db.makeStatement(sql: "SELECT 1 FROM details WHERE pin_id = ?1 AND uwi = ?2")
        let loadID = try nextLoadID()
        let builder = scan.makeBuilder(compact: try CompactDetails(db, header: scan.validator.header, extraColumns: scan.extraColumns))
        let (insertPin, insertDetail, updatePin, updateDetail) = (insertPinStatement.sqliteStatement, insertDetailStatement.sqliteStatement,
                                                                  updatePinStatement.sqliteStatement, updateDetailStatement.sqliteStatement)
        let (insertPins, insertDetails) = (pinsChunkStatement.sqliteStatement, detailsChunkStatement.sqliteStatement)
        let verify = verifyStatement.sqliteStatement
        let statements = [insertPin, insertDetail, updatePin, updateDetail, insertPins, insertDetails, verify]
        matched.removeAll()
        // Text is bound in place (SQLITE_STATIC): no statement may point into the batches once they are gone.
        defer { for statement in statements { sqlite3_clear_bindings(statement) } }
        let loadIDParameter = Int32(1 + DetailColumn.index(of: .loadID) + 1)
        for detail in [insertDetail, updateDetail] { sqlite3_bind_int64(detail, loadIDParameter, loadID) }
        for r in 0..<chunk { sqlite3_bind_int64(insertDetails, Int32(r * columns.count) + loadIDParameter, loadID) }
        // A row's cells are the pin's (name, lat, lon), then the detail's in ``DetailColumn`` order but load_id, bound above.
        let values = RowBatch.Column.identifier
        let written = newOnes.count + updates.count
        var strays = 0
        // A first load: the new pins are every pin, in Hilbert order, their ids ascending; the writer
        // puts each in the R*Tree as it inserts it, rather than reading the points back afterwards.
        let firstLoad = storeIsEmpty && firstNewID == 1
        let tree = firstLoad ? try PackedRTree(count: newOnes.count, idsAscend: true, rowidsAsAppended: true, into: SpatialIndex.rtree, db) : nil
        try RowPipeline.run(records, count: written, order: { [newOnes, updates] in
            $0 < newOnes.count ? SpatialIndex.index(ofOrderKey: newOnes[$0]) : updates[$0 - newOnes.count].index
        }, builder: builder) { batch in
            try CompactDetails.insert(batch.newNames, into: db)
            try CompactDetails.insert(extraValues: batch.newExtraValues, into: db)
            try batch.withRows { rows in
                /// Binds row `k` as the `slot`-th row of `statement`: the id, then the pin's cells
                /// (name, lat, lon, the row's first) or the detail's (the rest).
                func bind(_ statement: OpaquePointer, slot: Int = 0, id: Int64, row k: Int, pin: Bool) {
                    let first = Int32(slot * (pin ? pinColumns.count : columns.count) + 1)
                    sqlite3_bind_int64(statement, first, id)
                    rows.bind(row: k, pin ? 0..<values : values..<RowBatch.Column.width, to: statement, from: first + 1)
                }
                func step(_ statement: OpaquePointer, id: Int64, row k: Int, pin: Bool) throws {
                    bind(statement, id: id, row: k, pin: pin)
                    try stepToDone(statement)
                }
                /// Whether pin `id` holds row `k`'s identifier.
                func isStored(_ id: Int64, row k: Int) throws -> Bool {
                    sqlite3_bind_int64(verify, 1, id)
                    rows.bind(row: k, values..<(values + 1), to: verify, from: 2)
                    let code = sqlite3_step(verify)
                    sqlite3_reset(verify)
                    guard code == SQLITE_ROW || code == SQLITE_DONE else {
                        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                    }
                    return code == SQLITE_ROW
                }
                func index(row k: Int, id: Int64) throws {
                    guard let tree else { return }
                    let point = rows.coordinates(row: k)
                    try tree.append(id: id, longitude: point.lon, latitude: point.lat)
                }
                var first = 0
                if updates.isEmpty {
                    // Only new wells: `chunk` rows to a statement (``rowsPerInsert``); the batch's last few one by one below.
                    while first + chunk <= batch.rows.count {
                        for slot in 0..<chunk {
                            let k = first + slot, id = firstNewID + Int64(batch.rows.lowerBound + k)
                            bind(insertPins, slot: slot, id: id, row: k, pin: true)
                            bind(insertDetails, slot: slot, id: id, row: k, pin: false)
                            try index(row: k, id: id)
                        }
                        try stepToDone(insertPins)
                        try stepToDone(insertDetails)
                        first += chunk
                    }
                }
                for (k, position) in batch.rows.enumerated().dropFirst(first) {
                    let isNew = position < newOnes.count
                    let id = isNew ? firstNewID + Int64(position) : updates[position - newOnes.count].id
                    if !isNew {
                        // The update matches the identifier too, so a well matched by its hashes alone is never
                        // changed: such a record (odds about 1 in 10^19 per pair) is a new well, appended.
                        try step(updateDetail, id: id, row: k, pin: false)
                        if try sqlite3_changes(db.sqliteConnection) == 1 || (skipUnchanged && isStored(id, row: k)) {
                            try step(updatePin, id: id, row: k, pin: true)
                            if skipUnchanged { matched.append(id) }
                            continue
                        }
                        strays += 1
                    }
                    let newID = isNew ? id : firstNewID + Int64(newOnes.count + strays - 1)
                    try step(insertPin, id: newID, row: k, pin: true)
                    try index(row: k, id: newID)
                    try step(insertDetail, id: newID, row: k, pin: false)
                }
            }
            progress?(LoadProgress(phase: .writing, done: batch.rows.upperBound, total: records.count))
        }
        progress?(LoadProgress(phase: .indexing, done: 0, total: 3))
        phases["rows"] = (ContinuousClock.now - clock).seconds
        if rebuildIdentifierIndex {
            // SQLite's sorter keeps runs of about the cache's size in memory: small runs are sorted
            // in the processor's caches and merged, which is faster and lighter than big ones. With
            // helper threads it sorts runs and merges them on the other cores while this one reads
            // the table, which a national load's index needs (Benchmarks/README.md's "Scaling").
            try db.execute(sql: "PRAGMA cache_size = \(Self.defaultCacheSize)")
            try db.execute(sql: "PRAGMA threads = \(min(4, ProcessInfo.processInfo.activeProcessorCount))")
            try db.execute(sql: "CREATE UNIQUE INDEX details_uwi ON details(uwi)")
            try db.execute(sql: "PRAGMA threads = 0")
            try db.execute(sql: "PRAGMA cache_size = \(Self.writeCacheSize)")
        }
        try SpatialIndex.restoreTriggers(triggers, in: db)
        phases["identifierIndex"] = (ContinuousClock.now - clock).seconds - phases["rows"]!
        progress?(LoadProgress(phase: .indexing, done: 1, total: 3))
        if let tree {
            try tree.finish()
        } else if !few {
            try SpatialIndex.repack(db)
        }
        // Last, with the triggers back: each pin's trigger takes its entry out of the R*Tree. The
        // store's foreign keys are off for the load (see SQLiteBulkWrite), so the detail and the
        // flag go by hand, before their pin.
        if !deletions.isEmpty {
            let statements = try ["DELETE FROM suspects WHERE pin_id = ?", "DELETE FROM details WHERE pin_id = ?", "DELETE FROM pins WHERE id = ?"]
                .map { try db.makeStatement(sql: $0) }
            for id in deletions {
                for statement in statements { try statement.execute(arguments: [id]) }
            }
        }
        phases["index"] = (ContinuousClock.now - clock).seconds - phases["rows"]! - phases["identifierIndex"]!
        return (loadID, newOnes.count + strays, updates.count - strays, deletions.count, builder.badValues, builder.filled)
    }

    /// The most wells a write into a store with wells matches one by one in the identifier index,
    /// its R*Tree kept by the triggers (``write(_:edit:progress:)``): k lookups and tree inserts
    /// rather than reading all n stored identifiers and packing n points. Measured at one well into
    /// 244,292 (Benchmarks/README.md's "Writes of single wells"); the bound itself is not tuned.
    static let fewWells = 256

    /// The page cache while rows are written, in KiB (SQLite's negative `cache_size`). The tables
    /// grow at their right edge, so a cache that holds the pages being filled and the B-trees'
    /// upper levels is enough: bigger caches loaded slower and held more memory, and a smaller one
    /// was slower too (`wells-bench scale`, Benchmarks/README.md's "Scaling").
    static let writeCacheSize = -65_536
    /// The new wells written by one INSERT of pins and one of details. One statement step per row
    /// paid its start, its end and a descent of the B-tree from the root each time; a few dozen
    /// rows a statement share those, where many more were slower again (the rows phase of
    /// `wells-bench load`).
    static let rowsPerInsert = 64
    /// SQLite's default page cache, which the connection goes back to after a load. The identifier
    /// index is built with it: its sorter's runs then fit the processor's caches, faster and in
    /// less memory than with ``writeCacheSize``.
    static let defaultCacheSize = -2_000

    /// `INSERT INTO table(columns) VALUES (?, …), (…)…`: `rows` rows of parameters, numbered 1, 2, …
    /// row by row. Anonymous `?`, not `?NNN`: SQLite looks each `?NNN` up in a list of the names
    /// before it while it prepares, so the parameters of ``rowsPerInsert`` rows of a detail insert
    /// cost quadratic time on every load, a visible share of a small one (`sqlite3VListNumToName`).
    private static func insertSQL(into table: String, _ columns: [String], rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(table)(\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
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
    func record(_ summary: LoadSummary, loadID id: Int64, startedAt: Date, rejects: RejectList) throws {
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
