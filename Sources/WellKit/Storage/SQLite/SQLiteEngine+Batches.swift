import Foundation
import GRDB
import GRDBSQLite

extension SQLiteEngine {
    /// The ids in request order with the sections of `sectionKey`, in one read.
    func snapshot(_ request: WellFetchRequest, sectionKey: WellField?) throws -> ResultsSnapshot {
        try reading { try snapshot(request, sectionKey: sectionKey, $0) }
    }

    /// A new snapshot and the rows of `ids`, in one read transaction.
    func snapshot<Element: BatchLoadable>(_ request: WellFetchRequest, sectionKey: WellField?, reloading ids: [Int64],
                                          as type: Element.Type) throws -> (ResultsSnapshot, [Int64: Element]) {
        try reading { db in
            (try snapshot(request, sectionKey: sectionKey, db), ids.isEmpty ? [:] : try load(ids, as: type, db))
        }
    }

    /// Loads the rows of `ids` as `Element`s, in one read.
    func load<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type) throws -> [Int64: Element] {
        guard !ids.isEmpty else { return [:] }
        let clock = ContinuousClock.now
        let loaded = try reading { try load(ids, as: type, $0) }
        reportFetch(since: clock, count: loaded.count)
        return loaded
    }

    /// Loads the rows of `ids` with one query, `p.id IN (SELECT value FROM json_each(?))`, the
    /// element's columns then `p.id`; deleted ids are absent from the result.
    func load<Element: BatchLoadable>(_ ids: [Int64], as type: Element.Type, _ db: Database) throws -> [Int64: Element] {
        let selection = (Element.self as? any FixedSelection.Type)?.querySelection ?? .columns(Element.batchFields)
        let width = selection.expressions.count
        let compiled = try compiler.select(WellFetchRequest(), selection, extra: ["p.id"], ids: ids)
        let statement = try compiled.statement(db)
        let rows = try Row.fetchCursor(statement)
        var objects: [Int64: Element] = [:]
        objects.reserveCapacity(ids.count)
        while let row = try rows.next() {
            objects[row[width]] = try Element(row: WellRow(row, of: statement))
        }
        return objects
    }

    /// Runs the id query: `p.id` and the section key, in sort order, stepped with the C API so
    /// that no row object or string is made per row; a section name is made once per section.
    func snapshot(_ request: WellFetchRequest, sectionKey: WellField?, _ db: Database) throws -> ResultsSnapshot {
        if let sectionKey, compiler.walksSections(request, sectionKey: sectionKey), let index = compiler.sortIndexName(request.sortDescriptors),
           try Bool.fetchOne(compiler.indexExists(index).statement(db)) == true {
            return try sectionBySection(request, sectionKey: sectionKey, db)
        }
        let clock = ContinuousClock.now
        let (sql, arguments) = try compiler.ids(request, sectionKey: sectionKey).build(db)
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        var ids: [Int64] = []
        var sections: [ResultsSection] = []
        var key: [UInt8]? = nil
        let sectioned = sectionKey != nil
        try forEachRow(handle, sql: sql, arguments: arguments, db) { handle in
            let offset = ids.count
            ids.append(sqlite3_column_int64(handle, 0))
            guard sectioned else { return }
            if sqlite3_column_type(handle, 1) == SQLITE_NULL {
                if key == nil && !sections.isEmpty { return }
                key = nil
                sections.append(ResultsSection(name: nil, offset: offset, count: 0))
            } else {
                let text = sqlite3_column_text(handle, 1)
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, 1)))
                if let key, key.count == bytes.count,
                   bytes.isEmpty || key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) { return }
                key = Array(bytes)
                sections.append(ResultsSection(name: String(decoding: bytes, as: UTF8.self), offset: offset, count: 0))
            }
        }
        trimCapacity(&ids)
        reportFetch(since: clock, count: ids.count, of: "ids")
        return ResultsSnapshot(ids: ids, sectionStarts: sectioned ? sections : nil)
    }

    /// The id query read one section at a time, when an index serves the sort: the section values
    /// by one index seek each, then each section's ids, so that no row carries its section's text:
    /// for a national list of few sections, faster than the one query that reads the key on every
    /// row (`wells-bench list`, Benchmarks/README.md's "Scaling").
    func sectionBySection(_ request: WellFetchRequest, sectionKey: WellField, _ db: Database) throws -> ResultsSnapshot {
        let clock = ContinuousClock.now
        let ascending = request.sortDescriptors[0].ascending
        var values: [String] = []
        while let next = try String.fetchOne(compiler.sectionValue(sectionKey, ascending: ascending, after: values.last).statement(db)) {
            values.append(next)
        }
        // SQLite sorts nulls first, ascending, and last, descending.
        var names: [String?] = values
        if try Bool.fetchOne(compiler.hasNullSection(sectionKey).statement(db)) == true {
            if ascending { names.insert(nil, at: 0) } else { names.append(nil) }
        }
        var ids: [Int64] = []
        ids.reserveCapacity(try Int.fetchOne(db, sql: "SELECT max(pin_id) FROM details") ?? 0)
        var sections: [ResultsSection] = []
        for name in names {
            let offset = ids.count
            let (sql, arguments) = try compiler.ids(request, sectionKey: sectionKey, value: name).build(db)
            let statement = try db.makeStatement(sql: sql)
            try statement.setArguments(arguments)
            try withStatement(statement) { handle in
                try forEachRow(handle, sql: sql, arguments: arguments, db) { ids.append(sqlite3_column_int64($0, 0)) }
            }
            if ids.count > offset { sections.append(ResultsSection(name: name, offset: offset, count: ids.count - offset)) }
        }
        trimCapacity(&ids)
        reportFetch(since: clock, count: ids.count, of: "ids")
        return ResultsSnapshot(ids: ids, sections: sections)
    }

    /// Steps `handle` (prepared from `sql` with `arguments`) to its end, calling `row` on each row;
    /// SQLite's error is thrown as GRDB throws it.
    private func forEachRow(_ handle: OpaquePointer, sql: String, arguments: StatementArguments, _ db: Database,
                            _ row: (OpaquePointer) throws -> Void) throws {
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                    sql: sql, arguments: arguments)
            }
            try row(handle)
        }
    }

    /// Growth by doubling can leave up to twice the memory needed: copies `ids` to their exact size then.
    private func trimCapacity(_ ids: inout [Int64]) {
        guard ids.capacity > ids.count + ids.count / 32 else { return }
        ids = [Int64](unsafeUninitializedCapacity: ids.count) { buffer, count in
            count = ids.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
        }
    }
}
