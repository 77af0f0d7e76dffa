import GRDB

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
        /// GRDB's row, valid only during the call that receives it.
        case sqlite(Row)
        /// Values in selection order, from an engine that has no row type to wrap.
        case values([WellValue])
    }

    let storage: Storage

    init(_ row: Row) { storage = .sqlite(row) }
    package init(values: [WellValue]) { storage = .values(values) }

    /// The number of columns.
    public var count: Int {
        switch storage {
        case .sqlite(let row): row.count
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
        case .sqlite(let row): row.hasNull(atIndex: index)
        case .values(let values): values[index].isNull
        }
    }

    /// Every value of the row, in column order.
    package var values: [WellValue] { (0..<count).map(wellValue(at:)) }

    /// The value at `index` as a ``WellValue``.
    func wellValue(at index: Int) -> WellValue {
        switch storage {
        case .sqlite(let row): WellValue(row[index] as DatabaseValue)
        case .values(let values): values[index]
        }
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
        if case .sqlite(let r) = row.storage { return r[index] }
        return converted(row, index) { $0.int64 }
    }
}

extension Int: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Int {
        if case .sqlite(let r) = row.storage { return r[index] }
        return converted(row, index) { $0.int64.flatMap(Int.init(exactly:)) }
    }
}

extension Double: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Double {
        if case .sqlite(let r) = row.storage { return r[index] }
        return converted(row, index) { $0.double }
    }
}

extension String: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> String {
        if case .sqlite(let r) = row.storage { return r[index] }
        return converted(row, index) { $0.string }
    }
}

extension Bool: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Bool {
        if case .sqlite(let r) = row.storage { return r[index] }
        return converted(row, index) { $0.int64.map { $0 != 0 } }
    }
}

extension Optional: WellRowValue where Wrapped: WellRowValue {
    public static func value(in row: WellRow, at index: Int) -> Wrapped? {
        row.isNull(at: index) ? nil : Wrapped.value(in: row, at: index)
    }
}
