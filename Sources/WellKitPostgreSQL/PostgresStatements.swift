import WellKit
import GRDB
import NIOCore
import PostgresNIO

/// The statements the engine has prepared on its connection, by SQL text: a statement cache, as
/// JDBC's `prepareThreshold` and asyncpg keep one.
///
/// postgres-nio sends every query as an unnamed statement, which the server parses and plans each
/// time. A text the engine sends a second time is prepared as a named statement, and from then on
/// only bound and executed: `pgbench` put the difference at 0.1 ms of a city box's 0.4–0.5 ms.
/// Each placeholder carries its value's type (`$1::float8`), so the server types a prepared
/// statement's parameters as postgres-nio declares an unnamed one's: a text names one statement.
///
/// Not thread-safe: the engine uses it under its gate.
struct PostgresStatements {
    /// How many prepared statements the connection keeps; the oldest is deallocated beyond it.
    static let capacity = 64
    /// How many texts seen once are remembered, waiting for a second sighting.
    static let sightings = 1_024

    private var prepared: [String: PreparedQuery] = [:]
    private var order: [String] = []
    private var seen: Set<String> = []

    /// How many statements are prepared.
    var count: Int { prepared.count }

    /// The prepared statement of `sql`, or nil: then `shouldPrepare` says whether to prepare it now.
    mutating func lookup(_ sql: String) -> (statement: PreparedQuery?, shouldPrepare: Bool) {
        if let statement = prepared[sql] { return (statement, false) }
        if seen.remove(sql) != nil { return (nil, true) }
        if seen.count >= Self.sightings { seen.removeAll(keepingCapacity: true) }
        seen.insert(sql)
        return (nil, false)
    }

    /// Keeps `statement` for `sql`, and returns the statement it displaces, to deallocate.
    mutating func insert(_ statement: PreparedQuery, for sql: String) -> PreparedQuery? {
        prepared[sql] = statement
        order.append(sql)
        guard order.count > Self.capacity else { return nil }
        return prepared.removeValue(forKey: order.removeFirst())
    }

    /// Forgets `sql`'s statement, after the server refused it (a table it read was replaced), and
    /// returns it, to deallocate.
    mutating func remove(_ sql: String) -> PreparedQuery? {
        guard let statement = prepared.removeValue(forKey: sql) else { return nil }
        order.removeAll { $0 == sql }
        return statement
    }
}

extension DatabaseValue {
    /// The value as postgres-nio binds it, for unnamed and prepared statements alike.
    var postgresData: PostgresData {
        switch storage {
        case .null: .null
        case .int64(let n): PostgresData(int64: n)
        case .double(let d): PostgresData(double: d)
        case .string(let s): PostgresData(string: s)
        case .blob(let data): PostgresData(bytes: data)
        }
    }

    /// The PostgreSQL type postgres-nio binds the value as, for a placeholder's cast; nil for null.
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
