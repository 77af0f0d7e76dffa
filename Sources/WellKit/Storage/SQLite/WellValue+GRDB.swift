import GRDB

// The conversions between WellKit's value type and GRDB's, used only inside the SQLite engine.

extension WellValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let n): self = .integer(n)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let data): self = .blob(data)
        }
    }
}

extension WellValue {
    /// The value to bind in an `SQL` literal. (No public `DatabaseValueConvertible` conformance:
    /// GRDB stays out of WellKit's public interface.)
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let n): n.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
