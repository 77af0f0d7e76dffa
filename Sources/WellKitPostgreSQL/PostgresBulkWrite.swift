import WellKit
import Foundation
import NIOCore
import PostgresNIO

/// The write phase of a load into a PostgreSQL/PostGIS store: COPY, in one transaction.
///
/// Everything before it (reading, inference, validation, CRS, duplicates, rejects) is the
/// shared ``WellStore/prepareLoad(csvAt:options:)``. The rows are built by the same
/// ``RowPipeline`` as the file's, encoded as COPY text on a thread of their own and streamed to
/// the server by the load's task, so building and sending overlap. The load runs on a connection
/// leased from the engine's pool, in one transaction (``PostgresEngine/inTransaction(_:on:_:)``).
///
/// - A **first load** (an empty store) copies straight into `details` and `pins`, the new wells
///   numbered in Hilbert order as in a file, so the table is in spatial order. Its primary and
///   foreign keys are taken off for the copy and added back after it (sorted builds, one join per
///   foreign key, rather than work per row), and the GiST and identifier indexes are built then.
/// - A **reload** copies into a temporary table, then matches identifiers and upserts with one
///   `INSERT … ON CONFLICT … DO UPDATE` per table.
///
/// Loads take an advisory lock for their transaction, so two loads into one store serialise.
/// If anything fails, the server going away included, the transaction rolls back and the
/// store is as it was; the error says so.
struct PostgresBulkWrite {
    let engine: PostgresEngine

    /// Bytes of COPY text per message to the server.
    static let chunkBytes = 1 << 20

    func write(_ load: PreparedLoad) throws -> LoadSummary {
        try engine.bridge.wait { try await write(load) }
    }

    private func write(_ load: PreparedLoad) async throws -> LoadSummary {
        if load.options.release != nil {
            throw ReleaseError(.unsupported, "a PostgreSQL store keeps no releases yet: load releases into a SQLite store (wells load FILE --release --db FILE.sqlite), or load without --release")
        }
        var summary = load.scan.summary
        summary.journal = "postgresql"
        let file = summary.file
        do {
            summary = try await engine.pool.withConnection { connection in
                try await engine.inTransaction(on: connection) { try await transaction(load, summary, on: connection) }
            }
        } catch {
            // The transaction was rolled back: the connection was closed (see inTransaction), or the server closed it.
            let translated = PostgresEngine.translate((error as? CallerError)?.error ?? error, engine.location, during: "loading \(file)")
            if var storeError = translated as? StoreError {
                storeError = StoreError(storeError.code, storeError.reason + "; the load was rolled back and the store is unchanged",
                                        remedy: storeError.remedy, path: storeError.path)
                throw storeError
            }
            throw translated
        }
        let analyzeClock = ContinuousClock.now
        await analyze()
        summary.phases["analyze"] = (ContinuousClock.now - analyzeClock).seconds
        load.options.progress?(LoadProgress(phase: .indexing, done: 3, total: 3))
        summary.seconds = (ContinuousClock.now - load.clock).seconds
        return summary
    }

    /// The load's work inside its transaction: the summary with the load's id.
    private func transaction(_ load: PreparedLoad, _ summary: LoadSummary, on connection: PostgresConnection) async throws -> LoadSummary {
        let scan = load.scan, options = load.options
        var summary = summary
        let sql = { (text: String) in try await engine.execute(text, on: connection) }
        // The store's session settings (a server's statement_timeout) are for queries, not loads.
        try await sql("SET LOCAL statement_timeout TO 0")
        try await sql("SELECT pg_advisory_xact_lock(\(PostgresSchema.loadLock))")
        let (empty, maxID, maxLoad) = try await connection.query("""
            SELECT NOT EXISTS (SELECT 1 FROM pins), coalesce((SELECT max(id) FROM pins), 0), coalesce((SELECT max(id) FROM loads), 0)
            """, logger: .wellKitPostgres).collect()[0].decode((Bool, Int64, Int64).self)
        let loadID = maxLoad + 1
        // The wells an edit deletes, found before anything is written: a missing one fails it at once.
        var deletions: [Int64] = []
        for identifier in load.edit?.deletes ?? [] {
            let found = try await engine.all("SELECT pin_id FROM details WHERE uwi = \(identifier)", on: connection) { try $0.int64() }
            guard let id = found.first else { throw EditPlan.notStoredForDelete(identifier) }
            deletions.append(id)
        }
        try await sql("""
            INSERT INTO loads(id, file, sha256, started_at, seconds, records, inserted, updated, rejected, bad_values,
              duplicates, generated_ids, mapping, crs) VALUES (\(loadID), '', '', '', 0, 0, 0, 0, 0, 0, 0, 0, '{}', 'EPSG:4326')
            """)
        let records = scan.records
        // Wells in Hilbert order: new ones take their ids in it, after the largest in use.
        var order = records.indices.map {
            let point = records.coordinates($0)
            return SpatialIndex.orderKey(index: $0, longitude: point.lon, latitude: point.lat)
        }
        order.sortByHighHalves()  // their indices ascend
        let builder = scan.makeBuilder()
        let rowsClock = ContinuousClock.now
        if empty {
            if let edit = load.edit {
                for record in records { try edit.check(scan.identifier(of: record), stored: false) }
            }
            for statement in PostgresSchema.firstLoadDrops { try await sql(statement) }
            let pins = UncheckedBox(ByteBuffer())
            try await copy(into: "details", on: connection, records: records, order: order, builder: builder, progress: options.progress) { rows, k, position, out in
                let id = maxID + 1 + Int64(position)
                out.writeString(String(id))
                rows.appendCopyText(row: k, RowBatch.Column.detail..<RowBatch.Column.width, to: &out)
                out.writeString("\t\(loadID)\n")
                pins.value.writeString(String(id))
                rows.appendCopyText(row: k, 0..<RowBatch.Column.detail, to: &pins.value)
                pins.value.writeInteger(UInt8(ascii: "\n"))
            }
            let pinsBuffer = pins.value
            try await connection.copyFrom(table: "pins", columns: ["id", "name", "lat", "lon"], logger: .wellKitPostgres) { writer in
                try await writer.write(pinsBuffer)
            }
            summary.phases["rows"] = (ContinuousClock.now - rowsClock).seconds
            options.progress?(LoadProgress(phase: .indexing, done: 0, total: 3))
            let indexClock = ContinuousClock.now
            for statement in PostgresSchema.firstLoadRestores { try await sql(statement) }
            for index in PostgresSchema.indexes { try await sql(index) }
            summary.phases["index"] = (ContinuousClock.now - indexClock).seconds
            summary.inserted = records.count
            summary.updated = 0
        } else {
            let detailColumns = DetailColumn.all.filter { $0.content != .loadID }.map(\.name.quotedDatabaseIdentifier)
            try await sql("""
                CREATE TEMPORARY TABLE wellkit_incoming(seq bigint, name text COLLATE "C", lat double precision, lon double precision,
                  \(DetailColumn.all.filter { $0.content != .loadID }.map { "\($0.name.quotedDatabaseIdentifier) \(PostgresSchema.type(of: $0.content))" }.joined(separator: ", "))) ON COMMIT DROP
                """)
            try await copy(into: "wellkit_incoming", on: connection, records: records, order: order, builder: builder, progress: options.progress) { rows, k, position, out in
                out.writeString(String(position))
                rows.appendCopyText(row: k, 0..<RowBatch.Column.width, to: &out)
                out.writeInteger(UInt8(ascii: "\n"))
            }
            summary.phases["rows"] = (ContinuousClock.now - rowsClock).seconds
            options.progress?(LoadProgress(phase: .indexing, done: 0, total: 3))
            let upsertClock = ContinuousClock.now
            // Stored wells keep their ids; new ones are numbered in the copy's (Hilbert) order.
            let updated = detailColumns.dropFirst().map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            try await sql("""
                CREATE TEMPORARY TABLE wellkit_rows ON COMMIT DROP AS
                  SELECT coalesce(d.pin_id, \(maxID) + row_number() OVER (PARTITION BY d.pin_id IS NULL ORDER BY i.seq)) AS id,
                         d.pin_id IS NOT NULL AS stored, i.*
                  FROM wellkit_incoming i LEFT JOIN details d ON d.uwi = i.uwi
                """)
            if let edit = load.edit {
                // Inside the transaction, after the advisory lock: no other write comes between this check and the upsert.
                let found = try await engine.all("SELECT uwi, stored FROM wellkit_rows", on: connection) { (try $0.requiredString(), try $0.bool()) }
                for (identifier, stored) in found { try edit.check(identifier, stored: stored) }
            }
            try await sql("""
                INSERT INTO pins(id, name, lat, lon) SELECT id, name, lat, lon FROM wellkit_rows ORDER BY id
                  ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, lat = EXCLUDED.lat, lon = EXCLUDED.lon
                """)
            try await sql("""
                INSERT INTO details(pin_id, \(detailColumns.joined(separator: ", ")), load_id)
                  SELECT id, \(detailColumns.joined(separator: ", ")), \(loadID) FROM wellkit_rows ORDER BY id
                  ON CONFLICT (pin_id) DO UPDATE SET \(updated), load_id = EXCLUDED.load_id
                """)
            let (stored, new) = try await connection.query("SELECT count(*) FILTER (WHERE stored), count(*) FILTER (WHERE NOT stored) FROM wellkit_rows",
                                                           logger: .wellKitPostgres).collect()[0].decode((Int, Int).self)
            summary.inserted = new
            summary.updated = stored
            summary.phases["upsert"] = (ContinuousClock.now - upsertClock).seconds
        }
        // A pin's detail and flag go with it (ON DELETE CASCADE), its GiST entry with its row.
        for id in deletions { try await engine.rows("DELETE FROM pins WHERE id = \(id)", on: connection) { _ in } }
        summary.deleted = deletions.count
        if let edit = load.edit { summary.inferences.append(edit.record(inserted: summary.inserted, updated: summary.updated)) }
        summary.count(badValues: builder.badValues)
        summary.warnings += scan.emptyColumnWarnings(filled: builder.filled, describe: options.describeRemedy)
        options.progress?(LoadProgress(phase: .indexing, done: 1, total: 3))
        try await record(summary, loadID: loadID, startedAt: load.startedAt, rejects: scan.rejects, on: connection)
        options.progress?(LoadProgress(phase: .indexing, done: 2, total: 3))
        summary.loadID = loadID
        return summary
    }

    /// Refreshes the planner's statistics of both tables once the load has committed, the two at
    /// once on two of the pool's connections: ANALYZE changes no rows, so it need not be inside
    /// the load's transaction, and apart the two overlap (the pins' within the details' longer one).
    /// The load waits for them, so the queries after it are planned with the
    /// new rows. A failure here leaves the committed load as it is (autovacuum analyzes later) and
    /// goes to the SQL log.
    private func analyze() async {
        async let details: Void = analyze("details")
        async let pins: Void = analyze("pins")
        _ = await (details, pins)
    }

    private func analyze(_ table: String) async {
        do {
            try await engine.pool.withConnection { try await engine.execute("ANALYZE \(table)", on: $0) }
        } catch {
            engine.trace?("ANALYZE \(table) failed after the load committed: \(error)")
        }
    }

    /// Streams `records` in `order` into `table` by COPY: a thread of its own builds and encodes
    /// the rows (`encode` appends row `k` of a batch, the `position`-th in order, to the chunk)
    /// while this task sends the chunks.
    ///
    /// At most a few chunks wait to be sent: the builder waits for the network rather than fill
    /// memory, in a ``ChunkRoom`` of that many places, which each chunk sent frees and the sender's end (a lost
    /// connection, a server error: that is the cause to report) wakes at once. The builder is
    /// synchronous work (``RowPipeline`` runs on its caller's thread), so it runs on a thread,
    /// never on an event loop or Swift's pool.
    private func copy(into table: String, on connection: PostgresConnection, records: RecordList, order: [UInt64],
                      builder: RowBuilder, progress: (@Sendable (LoadProgress) -> Void)?,
                      encode: @escaping (BindableRows, Int, Int, inout ByteBuffer) -> Void) async throws {
        let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream()
        let (built, finished) = AsyncStream<Result<Void, any Error>>.makeStream()
        let room = ChunkRoom(chunks: 8)
        let build = UncheckedBox {
            var chunk = ByteBuffer()
            chunk.reserveCapacity(Self.chunkBytes + 4096)
            /// Hands the chunk to the sender, waiting for room; throws when the sender has stopped.
            func send() throws {
                try room.take()
                continuation.yield(chunk)
                chunk = ByteBuffer()
                chunk.reserveCapacity(Self.chunkBytes + 4096)
            }
            defer { continuation.finish() }
            try RowPipeline.run(records, count: records.count, order: { [order] in SpatialIndex.index(ofOrderKey: order[$0]) }, builder: builder) { batch in
                try batch.withRows { rows in
                    for (k, position) in batch.rows.enumerated() {
                        encode(rows, k, position, &chunk)
                        if chunk.readableBytes >= Self.chunkBytes { try send() }
                    }
                }
                progress?(LoadProgress(phase: .writing, done: batch.rows.upperBound, total: records.count))
            }
            if chunk.readableBytes > 0 { try send() }
        }
        Thread.detachNewThread {
            finished.yield(Result { try build.value() })
            finished.finish()
        }
        do {
            try await connection.copyFrom(table: table, logger: .wellKitPostgres) { writer in
                for await chunk in chunks {
                    room.free()
                    try await writer.write(chunk)
                }
            }
        } catch {
            room.close()
            for await _ in built {}
            throw error
        }
        room.close()
        for await outcome in built { try outcome.get() }
    }

    /// Fills in the load's row, and writes its rejects and suspects, as the file's writer does.
    private func record(_ summary: LoadSummary, loadID id: Int64, startedAt: Date, rejects: RejectList, on connection: PostgresConnection) async throws {
        let mappingJSON = try String(decoding: JSONEncoder.sorted.encode(summary.mapping), as: UTF8.self)
        let inferences = summary.inferences.isEmpty ? nil : String(decoding: try JSONEncoder.sorted.encode(summary.inferences), as: UTF8.self)
        let update: BoundSQL = """
            UPDATE loads SET file = \(summary.file), sha256 = \(summary.sha256), started_at = \(ISO8601DateFormatter().string(from: startedAt)),
              seconds = \(summary.seconds), records = \(summary.records), inserted = \(summary.inserted), updated = \(summary.updated),
              rejected = \(summary.rejected), bad_values = \(summary.badValues), duplicates = \(summary.duplicates),
              generated_ids = \(summary.generatedIdentifiers), mapping = \(mappingJSON), crs = \(summary.crs),
              transformation = \(summary.transformations.isEmpty ? nil : summary.transformations.map(\.description).joined(separator: "; ")),
              accuracy_m = \(summary.transformations.compactMap(\.accuracyMeters).max()),
              warnings = \(summary.warnings.isEmpty ? nil : summary.warnings.joined(separator: "\n")),
              inferences = \(inferences), suspects = \(summary.suspects.count)
            WHERE id = \(id)
            """
        try await connection.query(PostgresEngine.query(update), logger: .wellKitPostgres)
        if !rejects.isEmpty {
            // Written a megabyte at a time, as the list is read: ten million rejects are never in memory at once.
            try await connection.copyFrom(table: "rejects", columns: ["load_id", "line", "column", "reason", "raw"], logger: .wellKitPostgres) { writer in
                var text = ByteBuffer()
                for reject in rejects {
                    text.writeString("\(id)\t\(reject.line)\t")
                    if let column = reject.column { text.appendCopyEscaped(column) } else { text.writeString("\\N") }
                    text.writeString("\t")
                    text.appendCopyEscaped(reject.reason)
                    text.writeString("\t")
                    text.appendCopyEscaped(reject.raw)
                    text.writeString("\n")
                    if text.readableBytes >= 1 << 20 {
                        try await writer.write(text)
                        text.clear()
                    }
                }
                if text.readableBytes > 0 { try await writer.write(text) }
            }
        }
        // A well's flag belongs to the load that last wrote it, as in the file.
        if summary.updated > 0 {
            try await connection.query("DELETE FROM suspects s USING details d WHERE d.pin_id = s.pin_id AND d.load_id = \(id)",
                                       logger: .wellKitPostgres)
        }
        if !summary.suspects.isEmpty {
            let suspects = summary.suspects
            try await connection.query("""
                INSERT INTO suspects(pin_id, load_id, line, reason, detail)
                SELECT d.pin_id, \(id), s.line, s.reason, s.detail
                FROM unnest(\(suspects.map { Int64($0.line) }), \(suspects.map(\.reason)), \(suspects.map(\.detail)), \(suspects.map(\.identifier)))
                  AS s(line, reason, detail, uwi)
                JOIN details d ON d.uwi = s.uwi
                ON CONFLICT (pin_id) DO UPDATE SET load_id = EXCLUDED.load_id, line = EXCLUDED.line, reason = EXCLUDED.reason, detail = EXCLUDED.detail
                """, logger: .wellKitPostgres)
        }
    }
}

extension BindableRows {
    /// Appends the cells `columns` of row `k` as COPY text, each after a tab: `\N` for null.
    @inline(__always)
    func appendCopyText(row k: Int, _ columns: Range<Int>, to buffer: inout ByteBuffer) {
        for column in columns {
            let cell = cells[k * RowBatch.Column.width + column]
            buffer.writeInteger(UInt8(ascii: "\t"))
            switch cell.kind {
            case .null:
                buffer.writeStaticString("\\N")
            case .real:
                buffer.writeString(String(Double(bitPattern: cell.payload)))
            case .integer:   // a SQLite store's compact cells; PostgreSQL's rows are built as text
                buffer.writeString(String(Int64(bitPattern: cell.payload)))
            case .arenaText:
                buffer.appendCopyEscaped(UnsafeBufferPointer(start: arena! + Int(cell.payload), count: Int(cell.count)))
            }
        }
    }
}

extension ByteBuffer {
    /// Appends UTF-8 text escaped for COPY's text format: backslash, tab, newline and carriage return.
    mutating func appendCopyEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for (k, byte) in bytes.enumerated() where byte == UInt8(ascii: "\\") || byte == 9 || byte == 10 || byte == 13 {
            writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<k]))
            switch byte {
            case 9: writeStaticString("\\t")
            case 10: writeStaticString("\\n")
            case 13: writeStaticString("\\r")
            default: writeStaticString("\\\\")
            }
            start = k + 1
        }
        writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
    }

    mutating func appendCopyEscaped(_ text: String) {
        var text = text
        text.withUTF8 { appendCopyEscaped($0) }
    }
}

/// Room for the chunks a COPY's builder has made and its sender not yet taken: the builder's
/// thread waits in ``take()`` while none is free, and wakes when the sender frees one or closes
/// the room (then ``take()`` throws: the sender has stopped, and the builder stops with it).
private final class ChunkRoom: @unchecked Sendable {
    private let condition = NSCondition()
    private var available: Int
    private var closed = false

    init(chunks: Int) { available = chunks }

    /// Takes a place, waiting while none is free; throws once the room is closed.
    func take() throws {
        condition.lock()
        defer { condition.unlock() }
        while available == 0 && !closed { condition.wait() }
        if closed { throw CancellationError() }
        available -= 1
    }

    /// Frees the place of a chunk the sender took.
    func free() {
        condition.lock()
        available += 1
        condition.signal()
        condition.unlock()
    }

    /// The sender has stopped: a builder waiting, or coming to wait, stops too.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
