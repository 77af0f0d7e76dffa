// A stand-in for the few GRDB declarations the fuzzed parsers touch, built as a module named GRDB
// so the library's sources compile unchanged (`import GRDB`) without SQLite. Arguments are kept as
// plain values, so a harness can check that every value of a predicate went to the arguments.
// Nothing here talks to a database: `Database`, `DatabaseFunction` and `Row` exist only to compile.

public struct DatabaseValue: Sendable, Equatable {
    public enum Storage: Sendable, Equatable { case null, int64(Int64), double(Double), string(String) }
    public let storage: Storage
    public init(storage: Storage) { self.storage = storage }
    public static let null = DatabaseValue(storage: .null)
}

public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> DatabaseValue? { dbValue }
}
extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(self)) }
    public static func fromDatabaseValue(_ v: DatabaseValue) -> Int64? { if case .int64(let i) = v.storage { i } else { nil } }
}
extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .int64(Int64(self))) }
    public static func fromDatabaseValue(_ v: DatabaseValue) -> Int? { if case .int64(let i) = v.storage { Int(i) } else { nil } }
}
extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .double(self)) }
    public static func fromDatabaseValue(_ v: DatabaseValue) -> Double? { if case .double(let d) = v.storage { d } else { nil } }
}
extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { DatabaseValue(storage: .string(self)) }
    public static func fromDatabaseValue(_ v: DatabaseValue) -> String? { if case .string(let s) = v.storage { s } else { nil } }
}

public struct StatementArguments: ExpressibleByArrayLiteral, Sendable {
    public var values: [DatabaseValue] = []
    public init() {}
    public init<S: Sequence>(_ sequence: S) where S.Element: DatabaseValueConvertible { values = sequence.map(\.databaseValue) }
    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) { values = elements.map { $0?.databaseValue ?? .null } }
    @discardableResult
    public mutating func append(contentsOf other: StatementArguments) -> [String: DatabaseValue] {
        values += other.values
        return [:]
    }
    public static func + (lhs: StatementArguments, rhs: StatementArguments) -> StatementArguments {
        var result = lhs
        result.values += rhs.values
        return result
    }
}

extension String {
    public var quotedDatabaseIdentifier: String { "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    private func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

public final class Database {
    public func add(function: DatabaseFunction) {}
}

public struct DatabaseFunction {
    public init(_ name: String, argumentCount: Int32? = nil, pure: Bool = false,
                function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?) {}
}

public struct Row {
    public subscript<Value>(_ index: Int) -> Value { fatalError("Row: not available in the fuzz build") }
}

public protocol FetchableRecord {
    init(row: Row) throws
}
