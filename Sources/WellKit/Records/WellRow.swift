import Foundation
import GRDB
import GRDBSQLite

/// One result row of a ``BatchLoadable`` projection, read by position.
///
/// For example:
///
/// ```swift
/// init(row: WellRow) { id = row[0]; uwi = row[1]; licence = row[2] }
/// ```
///
/// For SQLite it wraps the engine's current row without copying it: a value is decoded only
/// when it is read, straight from the statement. Another engine can back it with values.
public struct WellRow {
    enum Storage {
        /// GRDB's row and the statement stepped to it, valid only during the call that receives
        /// them. Values are read from the statement with SQLite's C API when their type is the
        /// one asked for: through GRDB's generic decoding, reading the values of uncached pages
        /// of every field was a visible share of a server's time (`perf`, `wells serve --cache-mb 0`).
        case sqlite(Row, SQLiteStatement)
        /// Values in selection order, from an engine that has no row type to wrap.
        case values([WellValue])
    }

    let storage: Storage

    init(_ row: Row, of statement: Statement) { storage = .sqlite(row, statement.sqliteStatement) }
    package init(values: [WellValue]) { storage = .values(values) }

    /// The number of columns.
    public var count: Int {
        switch storage {
        case .sqlite(let row, _): row.count
        case .values(let values): values.count
        }
    }

    /// The value at `index`, as `Value`: `Int64`, `Int`, `Double`, `String`, `Bool`, ``WellValue``
    /// or an optional of them. A null read as a non-optional type traps, as it would in GRDB.
    public subscript<Value: WellRowValue>(_ index: Int) -> Value {
        Value.value(in: self, at: index)
    }

    /// Whether the value at `index` is null.
    public func isNull(at index: Int) -> Bool {
        switch storage {
        case .sqlite(_, let statement): sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL
        case .values(let values): values[index].isNull
        }
    }

    /// Every value of the row, in column order.
    package var values: [WellValue] { (0..<count).map(wellValue(at:)) }

    /// The value at `index` as a ``WellValue``.
    func wellValue(at index: Int) -> WellValue {
        switch storage {
        case .sqlite(_, let statement): Self.value(statement, Int32(index))
        case .values(let values): values[index]
        }
    }

    /// The value of `statement`'s current row at `index`, as GRDB's `DatabaseValue` reads it
    /// (text is read with its length, so a NUL inside it is kept).
    static func value(_ statement: SQLiteStatement, _ index: Int32) -> WellValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: return .text(text(statement, index))
        default:
            // The pointer first, then the length, as SQLite's documentation orders the calls.
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, index))))
        }
    }

    /// The text of `statement`'s current row at `index`, a column SQLite holds as TEXT.
    static func text(_ statement: SQLiteStatement, _ index: Int32) -> String {
        guard let start = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index))), as: UTF8.self)
    }
}

/// A type that a ``WellRow`` column can be read as.
public protocol WellRowValue {
    /// The value of `row` at `index`.
    static func value(in row: WellRow, at index: Int) -> Self
}

extension WellRowValue {
    /// Decodes through ``WellValue`` for rows backed by values; traps with the column's position when it does not fit.
    fileprivate static func converted(_ row: WellRow, _ index: Int, _ convert: (WellValue) -> Self?) -> Self {
        let value = row.wellValue(at: index)
        guard let converted = convert(value) else { preconditionFailure("WellRow: column \(index) holds \(value), not \(Self.self)") }
        return converted
    }
}

extension WellValue: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> WellValue { row.wellValue(at: index) }
}

extension Int64: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Int64 {
        if case .sqlite(let r, let statement) = row.storage {
            return sqlite3_column_type(statement, Int32(index)) == SQLITE_INTEGER ? sqlite3_column_int64(statement, Int32(index)) : r[index]
        }
        return converted(row, index) { $0.int64 }
    }
}

extension Int: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Int {
        if case .sqlite(let r, _) = row.storage { return r[index] }
        return converted(row, index) { $0.int64.flatMap(Int.init(exactly:)) }
    }
}

extension Double: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Double {
        if case .sqlite(let r, let statement) = row.storage {
            return sqlite3_column_type(statement, Int32(index)) == SQLITE_FLOAT ? sqlite3_column_double(statement, Int32(index)) : r[index]
        }
        return converted(row, index) { $0.double }
    }
}

extension String: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> String {
        if case .sqlite(let r, let statement) = row.storage {
            return sqlite3_column_type(statement, Int32(index)) == SQLITE_TEXT ? WellRow.text(statement, Int32(index)) : r[index]
        }
        return converted(row, index) { $0.string }
    }
}

extension Bool: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Bool {
        if case .sqlite(let r, _) = row.storage { return r[index] }
        return converted(row, index) { $0.int64.map { $0 != 0 } }
    }
}

extension Optional: WellRowValue where Wrapped: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Wrapped? {
        row.isNull(at: index) ? nil : Wrapped.value(in: row, at: index)
    }
}
