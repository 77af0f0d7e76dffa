import GRDB

/// SQL text with its values bound where they appear: `"p.lat BETWEEN \(min) AND \(max)"` becomes
/// `p.lat BETWEEN ? AND ?` with `min` and `max` as its arguments, so text and arguments cannot fall
/// out of step. `\(sql: text)` splices trusted text (allow-listed column names); `\(other)` nests.
///
/// GRDB's `SQL` literal does the same and more (qualified expressions, subqueries, resolution
/// against a database), but building and rendering one per fetch was a large share of a street-sized
/// bounding-box fetch (`wells-bench bbox --sizes 0.005`; `perf` put it in `SQL.Element` copies and
/// `SQL.build`). This keeps the literal's safety at the cost of plain string appends.
package struct BoundSQL: ExpressibleByStringInterpolation, Sendable {
    /// The SQL text, with `?` for each value.
    package private(set) var text: String
    /// The values, in the order of their `?`.
    package private(set) var values: [DatabaseValue]

    init(sql: String) {
        text = sql
        values = []
    }

    package init(stringLiteral value: String) { self.init(sql: value) }

    package init(stringInterpolation: Interpolation) {
        text = stringInterpolation.text
        values = stringInterpolation.values
    }

    /// The text and its arguments, as a statement takes them.
    var rendered: (sql: String, arguments: StatementArguments) { (text, StatementArguments(values)) }

    package struct Interpolation: StringInterpolationProtocol {
        var text = ""
        var values: [DatabaseValue] = []
        package init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
        }
        package mutating func appendLiteral(_ literal: String) { text += literal }
        /// Trusted text: a column name from ``WellField``, a keyword.
        package mutating func appendInterpolation(sql: String) { text += sql }
        package mutating func appendInterpolation(_ other: BoundSQL) {
            text += other.text
            values += other.values
        }
        /// A value, bound.
        package mutating func appendInterpolation<Value: DatabaseValueConvertible>(_ value: Value) {
            text += "?"
            values.append(value.databaseValue)
        }
    }

    package static func += (lhs: inout BoundSQL, rhs: BoundSQL) {
        lhs.text += rhs.text
        lhs.values += rhs.values
    }
}

/// The SQL dialect a query is rendered in: SQLite's (with SpatiaLite's R*Tree) or PostgreSQL's
/// (with PostGIS). ``QueryCompiler`` and ``WellPredicate/sql(_:)`` branch on it where the two differ.
package enum SQLDialect: Sendable {
    case sqlite, postgres

    /// The literal for a constant truth value: SQLite has no booleans.
    func truth(_ value: Bool) -> String {
        switch self {
        case .sqlite: value ? "1" : "0"
        case .postgres: value ? "TRUE" : "FALSE"
        }
    }
}

extension Array where Element == BoundSQL {
    /// The elements one after another, `separator` (trusted text) between them.
    package func joined(separator: String) -> BoundSQL {
        var result = BoundSQL(sql: "")
        for (k, element) in enumerated() {
            if k > 0 { result += BoundSQL(sql: separator) }
            result += element
        }
        return result
    }
}
