import Foundation
import GRDB
import GRDBSQLite

/// One loaded batch and when it was last used.
struct CachedBatch<Element: Sendable>: Sendable {
    var ids: [Int64]
    /// The rows, in id order; nil for a row deleted since the fetch.
    var objects: [Element?]
    var lastUse: UInt64
}

extension BatchedResults {
    /// The row at `indexPath`, loading its whole batch with one query if it is not cached.
    ///
    /// For example:
    ///
    /// ```swift
    /// let well = try results.object(at: ResultsIndexPath(section: 2, item: 14))
    /// ```
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when the index path is out of range or
    ///   nothing was fetched; ``StoreError/Code/notFound`` when the row was deleted since the
    ///   last fetch (``refresh()`` then reports it).
    public func object(at indexPath: ResultsIndexPath) throws -> Element {
        try withLock { state in
            let current = try fetched(state.current)
            let offset = try offset(of: indexPath, in: current)
            guard let object = try batch(containing: offset, in: current, &state)[offset % batchSize] else {
                throw StoreError(.notFound, "well \(current.ids[offset]) was deleted after the fetch; call refresh() or checkForChanges()")
            }
            return object
        }
    }

    /// The rows of the batch holding the row at `offset`, from the cache or with one query; nil for
    /// a row deleted since the fetch, so that the rest of its batch still loads.
    func batch(containing offset: Int, in snapshot: ResultsSnapshot, _ state: inout State) throws -> [Element?] {
        let index = offset / batchSize
        state.tick += 1
        if let hit = state.cache[index] {
            state.cache[index]?.lastUse = state.tick
            return hit.objects
        }
        let ids = Array(snapshot.ids[index * batchSize ..< min(snapshot.ids.count, (index + 1) * batchSize)])
        let clock = ContinuousClock.now
        let loaded = try store.pool.read { try load(ids, $0, &state) }
        store.trace?("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(loaded.count) rows")
        let objects = ids.map { loaded[$0] }
        if state.cache.count >= maxCachedBatches, let oldest = state.cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            state.cache[oldest] = nil
        }
        state.cache[index] = CachedBatch(ids: ids, objects: objects, lastUse: state.tick)
        return objects
    }

    /// Loads the rows of `ids` with one query, by id; deleted ids are absent from the result.
    func load(_ ids: [Int64], _ db: Database, _ state: inout State) throws -> [Int64: Element] {
        guard !ids.isEmpty else { return [:] }
        state.statementCount += 1
        let selection = Element.batchSelection
        let compiled = try WellFetchRequest().compile(selection: selection + ["p.id"], joinDetails: Element.batchJoinsDetails)
        let json = "[" + ids.map(String.init).joined(separator: ",") + "]"
        let rows = try Row.fetchCursor(db, sql: compiled.sql + " WHERE p.id IN (SELECT value FROM json_each(?))", arguments: [json])
        var objects: [Int64: Element] = [:]
        objects.reserveCapacity(ids.count)
        while let row = try rows.next() {
            objects[row[selection.count]] = try Element(row: row)
        }
        return objects
    }

    /// The id query: `request.compile` selecting `p.id` and the section key, or, when the request
    /// has no region and reads only detail fields, the same query over `details` alone.
    ///
    /// Every detail row has its pin (a foreign key with `ON DELETE CASCADE`), so the join to
    /// `pins` filters nothing, but it costs a primary-key lookup per row and keeps SQLite from
    /// reading the rows in order from an index on the sort fields: with an index such as
    /// `details(spud_date DESC, pin_id)`, sorting 244,292 wells by spud date takes a walk of it.
    func idQuery() throws -> CompiledFetch {
        let sectionColumn = sectionKey.map { [$0.qualifiedColumn] } ?? []
        guard request.region == nil, request.fieldsUsed.allSatisfy({ $0.table == .details }) else {
            return try request.compile(selection: ["p.id"] + sectionColumn)
        }
        var arguments = StatementArguments()
        var sql = "SELECT " + (["d.pin_id"] + sectionColumn).joined(separator: ", ") + " FROM details d"
        if let predicate = request.predicate { sql += " WHERE " + predicate.sql(&arguments) }
        let order = request.sortDescriptors.map { "\($0.field.qualifiedColumn) \($0.ascending ? "ASC" : "DESC")" } + ["d.pin_id"]
        sql += " ORDER BY " + order.joined(separator: ", ")
        if let limit = request.limit, limit < 0 { throw StoreError(.invalidArgument, "limit \(limit) must be zero or more") }
        if let offset = request.offset, offset < 0 { throw StoreError(.invalidArgument, "offset \(offset) must be zero or more") }
        if request.limit != nil || (request.offset ?? 0) > 0 {
            sql += " LIMIT ? OFFSET ?"
            _ = arguments.append(contentsOf: [request.limit ?? -1, request.offset ?? 0])
        }
        return CompiledFetch(sql: sql, arguments: arguments)
    }

    /// Runs the id query: `p.id` and the section key, in sort order, stepped with the C API so
    /// that no row object or string is made per row; a section name is made once per section.
    func fetchSnapshot(_ db: Database, _ state: inout State) throws -> ResultsSnapshot {
        state.statementCount += 1
        let clock = ContinuousClock.now
        let compiled = try idQuery()
        let statement = try db.makeStatement(sql: compiled.sql)
        try statement.setArguments(compiled.arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var ids: [Int64] = []
        var sections: [ResultsSection] = []
        var key: [UInt8]? = nil
        let sectioned = sectionKey != nil
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: compiled.sql, arguments: compiled.arguments)
            }
            let offset = ids.count
            ids.append(sqlite3_column_int64(handle, 0))
            guard sectioned else { continue }
            if sqlite3_column_type(handle, 1) == SQLITE_NULL {
                if key == nil && !sections.isEmpty { continue }
                key = nil
                sections.append(ResultsSection(name: nil, offset: offset, count: 0))
            } else {
                let text = sqlite3_column_text(handle, 1)
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, 1)))
                if let key, key.count == bytes.count,
                   bytes.isEmpty || key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { continue }
                key = Array(bytes)
                sections.append(ResultsSection(name: String(decoding: bytes, as: UTF8.self), offset: offset, count: 0))
            }
        }
        if ids.capacity > ids.count + ids.count / 32 {
            // Growth by doubling can leave up to twice the memory needed; copy to the exact size.
            ids = [Int64](unsafeUninitializedCapacity: ids.count) { buffer, count in
                count = ids.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
            }
        }
        if sectioned {
            for k in sections.indices {
                sections[k].count = (k + 1 < sections.count ? sections[k + 1].offset : ids.count) - sections[k].offset
            }
        } else {
            sections = [ResultsSection(name: nil, offset: 0, count: ids.count)]
        }
        store.trace?("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(ids.count) ids")
        return ResultsSnapshot(ids: ids, sections: sections)
    }
}
