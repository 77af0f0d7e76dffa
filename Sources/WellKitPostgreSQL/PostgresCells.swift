import WellKit
import NIOCore
import PostgresNIO

/// A row's cells in order, each read as the type the query selected: the one place the engine
/// decodes what the server sends.
///
/// Over postgres-nio's `row.decode((Int64, String?, …).self)` for speed: the tuple decoding goes
/// through variadic generics that look up type metadata at run time for every row (`perf` put it
/// at a quarter of the client's CPU for a city box). The common types are read here straight
/// from their binary form, which postgres-nio asks the server for in every column.
struct PostgresCells {
    private var iterator: PostgresRow.Iterator

    init(_ row: PostgresRow) { iterator = row.makeIterator() }

    /// The next cell, its bytes and type, as binary.
    private mutating func next() throws -> PostgresCell {
        guard var cell = iterator.next() else {
            throw StoreError(.serverError, "a row from the server has fewer columns than the query selected")
        }
        cell.format = .binary
        return cell
    }

    /// An integer cell (`int8`, `int4`, `int2`); null throws.
    mutating func int64() throws -> Int64 {
        let cell = try next()
        if let bytes = cell.bytes {
            switch (cell.dataType, bytes.readableBytes) {
            case (.int8, 8): return bytes.getInteger(at: bytes.readerIndex, as: Int64.self)!
            case (.int4, 4): return Int64(bytes.getInteger(at: bytes.readerIndex, as: Int32.self)!)
            default: break
            }
        }
        return try cell.decode(Int64.self)
    }

    /// An integer cell as `Int`; null throws.
    mutating func int() throws -> Int { Int(try int64()) }

    /// A `float8` cell; null throws.
    mutating func double() throws -> Double {
        let cell = try next()
        if cell.dataType == .float8, let bytes = cell.bytes, bytes.readableBytes == 8 {
            return Double(bitPattern: bytes.getInteger(at: bytes.readerIndex, as: UInt64.self)!)
        }
        return try cell.decode(Double.self)
    }

    /// A `float8` cell, or nil for null.
    mutating func optionalDouble() throws -> Double? {
        let cell = try next()
        guard cell.bytes != nil else { return nil }
        return try cell.decode(Double.self)
    }

    /// A `bool` cell; null throws.
    mutating func bool() throws -> Bool { try next().decode(Bool.self) }

    /// A text cell, or nil for null.
    mutating func string() throws -> String? {
        let cell = try next()
        guard let bytes = cell.bytes else { return nil }
        switch cell.dataType {
        case .text, .varchar, .name, .bpchar: return String(buffer: bytes)
        default: return try cell.decode(String.self)
        }
    }

    /// A text cell; null throws.
    mutating func requiredString() throws -> String {
        guard let text = try string() else {
            throw StoreError(.serverError, "the server sent a null where the query selected a text that is never null")
        }
        return text
    }

    /// The remaining cells as the file's rows give them: integers, reals, text or null.
    mutating func values() throws -> [WellValue] {
        var values: [WellValue] = []
        while var cell = iterator.next() {
            cell.format = .binary
            guard cell.bytes != nil else { values.append(.null); continue }
            switch cell.dataType {
            case .int8, .int4, .int2: values.append(.integer(try cell.decode(Int64.self)))
            case .float8, .float4, .numeric: values.append(.real(try cell.decode(Double.self)))
            case .bool: values.append(.integer(try cell.decode(Bool.self) ? 1 : 0))
            default: values.append(.text(try cell.decode(String.self)))
            }
        }
        return values
    }
}

/// A row consumer lent to postgres-nio for one query: the caller empties it before returning,
/// so the closure, which may not escape, does not outlive the call.
final class RowConsumer: @unchecked Sendable {
    var body: ((inout PostgresCells) throws -> Void)?
    /// What `body` threw, which ends the query: the caller's own error, to rethrow as it is
    /// rather than as a PostgreSQL failure.
    private(set) var failure: (any Error)?

    init(_ body: @escaping (inout PostgresCells) throws -> Void) { self.body = body }

    /// postgres-nio's row callback, run on the event loop while the lender waits.
    var onRow: @Sendable (PostgresRow) throws -> Void {
        { [self] row in
            var cells = PostgresCells(row)
            do {
                try body?(&cells)
            } catch {
                failure = error
                throw error
            }
        }
    }
}
