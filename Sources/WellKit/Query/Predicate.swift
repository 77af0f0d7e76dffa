import Foundation
import GRDB

/// A filter on wells, like an `NSPredicate` restricted to the store's fields.
///
/// For example:
///
/// ```swift
/// let abandonedAcme: Predicate = .and([
///     .compare(.status, .equal, "Abandoned"),
///     .string(.operator, .contains, "acme", options: [.caseInsensitive, .diacriticInsensitive]),
/// ])
/// ```
///
/// Field names come from ``WellField``, an allow-list; values are always bound as SQL
/// parameters, never spliced into SQL text.
public indirect enum Predicate: Sendable, Equatable {
    case compare(WellField, Comparison, PredicateValue)
    case string(WellField, StringOperator, String, options: StringOptions = [])
    case between(WellField, PredicateValue, PredicateValue)
    case `in`(WellField, [PredicateValue])
    case isNull(WellField)
    case and([Predicate])
    case or([Predicate])
    case not(Predicate)

    public enum Comparison: String, Sendable, CaseIterable {
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    public enum StringOperator: String, Sendable, CaseIterable {
        case contains, beginsWith = "beginswith", endsWith = "endswith"
    }

    /// Core Data's `[c]` and `[d]` modifiers.
    public struct StringOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: "ACME" matches "acme".
        public static let caseInsensitive = StringOptions(rawValue: 1)
        /// `[d]`: "Echo" matches "Écho".
        public static let diacriticInsensitive = StringOptions(rawValue: 2)
    }

    /// The fields this predicate reads.
    var fields: [WellField] {
        switch self {
        case .compare(let f, _, _), .string(let f, _, _, _), .between(let f, _, _), .in(let f, _), .isNull(let f): [f]
        case .and(let ps), .or(let ps): ps.flatMap(\.fields)
        case .not(let p): p.fields
        }
    }
}

/// A value compared with a field: text or a number.
public enum PredicateValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case number(Double)

    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }

    /// The value as the given field stores it: numbers for numeric fields when the text is a number.
    func bound(for field: WellField) -> DatabaseValue {
        switch (self, field.kind) {
        case (.number(let n), .integer): n.rounded() == n ? Int64(n).databaseValue : n.databaseValue
        case (.number(let n), .real): n.databaseValue
        case (.number(let n), _): (n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)).databaseValue
        case (.text(let t), .real): (Double(t)?.databaseValue) ?? t.databaseValue
        case (.text(let t), .integer): (Int64(t)?.databaseValue) ?? t.databaseValue
        case (.text(let t), _): t.databaseValue
        }
    }
}

// MARK: - SQL

extension Predicate {
    /// The SQL condition, with `?` placeholders whose values are appended to `arguments`.
    func sql(_ arguments: inout StatementArguments) -> String {
        switch self {
        case .compare(let field, let op, let value):
            _ = arguments.append(contentsOf: [value.bound(for: field)])
            return "\(field.qualifiedColumn) \(op.rawValue) ?"
        case .string(let field, let op, let text, let options):
            let column = options.isEmpty ? field.qualifiedColumn : "wellkit_fold(\(field.qualifiedColumn), \(options.rawValue))"
            let value = options.isEmpty ? "?" : "wellkit_fold(?, \(options.rawValue))"
            switch op {
            case .contains:
                _ = arguments.append(contentsOf: [text.databaseValue])
                return "instr(\(column), \(value)) > 0"
            case .beginsWith:
                _ = arguments.append(contentsOf: [text.databaseValue, text.databaseValue])
                return "substr(\(column), 1, length(\(value))) = \(value)"
            case .endsWith:
                _ = arguments.append(contentsOf: [text.databaseValue, text.databaseValue])
                return "substr(\(column), -length(\(value))) = \(value)"
            }
        case .between(let field, let low, let high):
            _ = arguments.append(contentsOf: [low.bound(for: field), high.bound(for: field)])
            return "\(field.qualifiedColumn) BETWEEN ? AND ?"
        case .in(let field, let values):
            guard !values.isEmpty else { return "0" }
            _ = arguments.append(contentsOf: StatementArguments(values.map { $0.bound(for: field) }))
            return "\(field.qualifiedColumn) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))"
        case .isNull(let field):
            return "\(field.qualifiedColumn) IS NULL"
        case .and(let predicates):
            return predicates.isEmpty ? "1" : "(" + predicates.map { $0.sql(&arguments) }.joined(separator: " AND ") + ")"
        case .or(let predicates):
            return predicates.isEmpty ? "0" : "(" + predicates.map { $0.sql(&arguments) }.joined(separator: " OR ") + ")"
        case .not(let predicate):
            return "NOT (\(predicate.sql(&arguments)))"
        }
    }
}

extension WellField {
    /// The column with its table alias: `p.` for pins, `d.` for details.
    var qualifiedColumn: String {
        (table == .pins ? "p." : "d.") + column.quotedDatabaseIdentifier
    }
}

// MARK: - Folding

/// The SQL function `wellkit_fold(text, options)`: case and/or diacritic folding, for `[c]`, `[d]` and `[cd]`.
enum TextFolding {
    static func register(_ db: Database) {
        db.add(function: DatabaseFunction("wellkit_fold", argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return nil }
            let flags = Int.fromDatabaseValue(values[1]) ?? 0
            var options: String.CompareOptions = []
            if flags & 1 != 0 { options.insert(.caseInsensitive) }
            if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
            return text.folding(options: options, locale: nil)
        })
    }
}
