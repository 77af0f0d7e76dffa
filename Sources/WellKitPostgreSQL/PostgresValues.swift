import WellKit
import GRDB
import NIOCore
import PostgresNIO

extension DatabaseValue {
    /// Appends the value to a query's bindings as postgres-nio binds it natively: `int8`,
    /// `float8`, `text`, `bytea`, or null.
    func bind(to bindings: inout PostgresBindings) {
        switch storage {
        case .null: bindings.appendNull()
        case .int64(let n): bindings.append(n)
        case .double(let d): bindings.append(d)
        case .string(let s): bindings.append(s)
        case .blob(let data): bindings.append(ByteBuffer(bytes: data))
        }
    }

    /// The PostgreSQL type the value is bound as, for a placeholder's cast; nil for null.
    var postgresCast: String? {
        switch storage {
        case .null: nil
        case .int64: "int8"
        case .double: "float8"
        case .string: "text"
        case .blob: "bytea"
        }
    }
}
