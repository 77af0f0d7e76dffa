import GRDB
import GRDBSQLite

// SQLite's C API under GRDB's statements, for the hot paths a profile found (the load's rows and identifiers,
// the spatial index's nodes, batches of ids, the GeoPackage writer's rows); everything else goes through GRDB.

/// Runs `body` with the raw SQLite statement of `statement`, and resets it afterwards.
///
/// Only for the profiled hot paths; everything else goes through GRDB.
func withStatement<T>(_ statement: Statement, _ body: (OpaquePointer) throws -> T) throws -> T {
    let stmt = statement.sqliteStatement
    defer { sqlite3_reset(stmt) }
    return try body(stmt)
}

/// Binds `value` to parameter `index` of a raw statement; SQLite copies text and blobs.
func bind(_ value: WellValue, at index: Int32, to statement: OpaquePointer) {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    switch value {
    case .null: sqlite3_bind_null(statement, index)
    case .integer(let n): sqlite3_bind_int64(statement, index, n)
    case .real(let d): sqlite3_bind_double(statement, index, d)
    case .text(var text):
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return _ = sqlite3_bind_text(statement, index, "", 0, transient) }
            sqlite3_bind_text(statement, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
        }
    case .blob(let data):
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return _ = sqlite3_bind_zeroblob(statement, index, 0) }
            sqlite3_bind_blob(statement, index, base, Int32(bytes.count), transient)
        }
    }
}

/// Steps a raw statement that returns no rows, resets it, and throws SQLite's error as GRDB does.
func stepToDone(_ statement: OpaquePointer) throws {
    let code = sqlite3_step(statement)
    sqlite3_reset(statement)
    guard code == SQLITE_DONE else {
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))),
                            sql: String(cString: sqlite3_sql(statement)))
    }
}
