import Foundation
import GRDB

/// A filter on wells, like an `NSPredicate` restricted to the store's fields and unmapped columns.
///
/// For example:
///
/// ```swift
/// let abandonedAcme: WellPredicate = .and([
///     .compare(.status, .equal, "Abandoned"),
///     .string(.operator, .contains, "acme", options: [.caseInsensitive, .diacriticInsensitive]),
/// ])
/// ```
///
/// Attributes are ``WellAttribute``s: a field from ``WellField``, an allow-list, or an unmapped
/// column `extra.NAME`, whose name is bound like a value; values are always bound as SQL
/// parameters, never spliced into SQL text.
public indirect enum WellPredicate: Sendable, Equatable {
    case compare(WellAttribute, Comparison, PredicateValue)
    case string(WellAttribute, StringOperator, String, options: StringOptions = [])
    case between(WellAttribute, PredicateValue, PredicateValue)
    case `in`(WellAttribute, [PredicateValue])
    case isNull(WellAttribute)
    case and([WellPredicate])
    case or([WellPredicate])
    case not(WellPredicate)

    public enum Comparison: String, Sendable, CaseIterable {
        case equal = "=", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    }

    /// The text operators, each taking `[c]`, `[d]` or `[cd]`: `equals` and `notEquals` are `=` and
    /// `!=` with a modifier (`status =[c] abandoned`); without one, `=` and `!=` are ``Comparison``s.
    public enum StringOperator: String, Sendable, CaseIterable {
        case contains, beginsWith = "beginswith", endsWith = "endswith", equals = "=", notEquals = "!="
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

    /// The attributes this predicate reads.
    var fields: [WellAttribute] {
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

    /// The value as the given field stores it: numbers for numeric fields when the text is a number,
    /// and dates as ISO `yyyy-mm-dd` when the text is a date in another form.
    func bound(for field: WellAttribute) -> DatabaseValue {
        switch (self, field.kind) {
        case (.number(let n), .integer): Int64(exactly: n)?.databaseValue ?? n.databaseValue
        case (.number(let n), .real): n.databaseValue
        case (.number, _), (.text, .date): text(for: field).databaseValue
        case (.text(let t), .real): (ValueParsing.number(t)?.databaseValue) ?? t.databaseValue
        case (.text(let t), .integer): (Int64(t)?.databaseValue) ?? (ValueParsing.number(t)?.databaseValue) ?? t.databaseValue
        case (.text(let t), .text): t.databaseValue
        }
    }

    /// The value as `field` is stored in `dialect`: ``bound(for:)``, but a date of a SQLite store
    /// (schema version 3) is its day number, compared with the column's (``WellAttribute/key(_:qualified:)``).
    /// A year or a month compares as an ISO prefix, before every date it begins and after every
    /// earlier one (`spud_date >= 2001`, `spud_date < 2001-07`, never equal): so it is bound as
    /// half a day before its first day, which orders the same against every day number.
    func bound(for field: WellAttribute, _ dialect: SQLDialect) -> DatabaseValue {
        guard dialect == .sqlite, field.kind == .date else { return bound(for: field) }
        let text = text(for: field)
        if let days = ValueParsing.days(iso: text) { return days.databaseValue }
        let bytes = Array(text.utf8)
        let number = { (range: Range<Int>) -> Int? in
            range.allSatisfy { ValueParsing.isDigit(bytes[$0]) } ? bytes[range].reduce(0) { $0 * 10 + Int($1 - 48) } : nil
        }
        if bytes.count == 4 || (bytes.count == 7 && bytes[4] == UInt8(ascii: "-")), let year = number(0..<4),
           let month = bytes.count == 7 ? number(5..<7) : 1 {
            return (Double(ValueParsing.days(year: year, month: month, day: 1)) - 0.5).databaseValue
        }
        return text.databaseValue   // not a date: validate() refuses it first
    }

    /// The value as text for a text or date field.
    private func text(for field: WellAttribute) -> String {
        let text: String = switch self {
        case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .text(let t): t
        }
        return field.kind == .date ? ValueParsing.date(text) ?? text : text
    }

    /// What `field` needs when this value cannot match it, such as "a number, such as 1500"; nil when it can.
    func mismatch(for field: WellAttribute) -> String? {
        switch (self, field.kind) {
        case (.number(let n), .integer), (.number(let n), .real):
            return n.isFinite ? nil : "a number, such as 1500"
        case (.text(let t), .integer), (.text(let t), .real):
            return ValueParsing.number(t) != nil ? nil : "a number, such as 1500"
        case (_, .date):
            let text = text(for: field)
            if ValueParsing.date(text) != nil { return nil }
            // A year or a month, which compare as ISO prefixes: spud_date >= 2001, spud_date < 2001-07.
            let bytes = Array(text.utf8)
            let digits = { (range: Range<Int>) in range.allSatisfy { ValueParsing.isDigit(bytes[$0]) } }
            if bytes.count == 4, digits(0..<4) { return nil }
            if bytes.count == 7, digits(0..<4), bytes[4] == UInt8(ascii: "-"), digits(5..<7),
               let month = Int(text.suffix(2)), (1...12).contains(month) { return nil }
            return "a date, such as 2001-01-12, 1/12/2001, a year (2001) or a month (2001-01)"
        case (_, .text):
            return nil
        }
    }
}

// MARK: - Limits

extension WellPredicate {
    /// How deeply `not` and parentheses may nest in a parsed predicate: 32.
    ///
    /// SQLite's parser has a stack of 100 entries (YYSTACKDEPTH): about 45 nested `NOT (` fill it.
    /// A level of the text nests the SQL at most two deep (a parenthesis can hold an `or` of `and`s),
    /// and the SQL puts the deepest operand first, so only its open parentheses and NOTs stay on the stack.
    public static let maximumDepth = 32
    /// How many comparisons a predicate may hold, each value of an `in` list counting as one: 500.
    ///
    /// SQLite's expressions are at most 1,000 deep (SQLITE_MAX_EXPR_DEPTH), and a chain of `or`s
    /// is one level deeper per term.
    public static let maximumTerms = 500
    /// How deeply a predicate's SQL may nest, counting each NOT and each `and`/`or` group: what
    /// ``maximumDepth`` allows the text (two per level, two for the top level's `or` of `and`s, one
    /// for `is not null`), plus the group that joins several `--where` conditions: 68, of SQLite's 100.
    static let maximumSQLDepth = 2 * maximumDepth + 4

    /// The predicate's SQL nesting (``maximumSQLDepth``'s measure) and its terms, walked without recursion.
    func measure() -> (depth: Int, terms: Int) {
        var deepest = 0, terms = 0
        var stack = [(self, 0)]
        while let (predicate, depth) = stack.popLast() {
            deepest = max(deepest, depth)
            switch predicate {
            case .compare, .string, .between, .isNull: terms += 1
            case .in(_, let values): terms += max(1, values.count)
            case .and(let ps), .or(let ps): stack += ps.map { ($0, depth + 1) }
            case .not(let p): stack.append((p, depth + 1))
            }
        }
        return (deepest, terms)
    }

    /// Checks the limits and that every value can match its field, before the predicate becomes SQL.
    ///
    /// - Throws: ``QueryError`` naming the limit, or the field, the value and what the field needs.
    func validate() throws {
        let (depth, terms) = measure()
        guard depth <= Self.maximumSQLDepth else {
            throw QueryError(.tooComplex, "the conditions nest \(depth) levels deep in SQL, more than the limit of \(Self.maximumSQLDepth) (\(Self.maximumDepth) levels of not and parentheses)", subject: .predicate)
        }
        guard terms <= Self.maximumTerms else {
            throw QueryError(.tooComplex, "the conditions hold \(terms) comparisons, more than the limit of \(Self.maximumTerms) (each value of an in list counts as one)", subject: .predicate)
        }
        var stack = [self]
        while let predicate = stack.popLast() {
            var checks: [(WellAttribute, PredicateValue)] = []
            switch predicate {
            case .compare(let f, _, let v): checks = [(f, v)]
            case .between(let f, let low, let high): checks = [(f, low), (f, high)]
            case .in(let f, let vs): checks = vs.map { (f, $0) }
            case .string, .isNull: break
            case .and(let ps), .or(let ps): stack += ps
            case .not(let p): stack.append(p)
            }
            for (field, value) in checks {
                if let expected = value.mismatch(for: field) {
                    let shown = switch value { case .text(let t): "\"\(t)\""; case .number(let n): "\(n)" }
                    throw QueryError(.invalidValue, "\(field.name) is \(expected); \(shown) is not", subject: .predicate, token: shown, field: field.field)
                }
            }
        }
    }
}

// MARK: - SQL

extension WellPredicate {
    /// The SQL condition, an `SQL` literal that binds every value where it appears.
    ///
    /// Rendered here rather than in ``QueryCompiler`` because the fuzz build compiles this file
    /// alone (with a stand-in `SQL`) to check that no value reaches the SQL text.
    ///
    /// The two dialects give the same answers: text columns of a PostgreSQL store compare bytes
    /// (`COLLATE "C"`, as SQLite's BINARY), and the string operators keep SQLite's results even for
    /// an empty value (`endswith ''` matches only an empty text, as `substr(x, -0)` is all of `x`).
    /// An attribute's expression comes from ``WellAttribute``, which binds an extra column's name.
    func sql(_ dialect: SQLDialect = .sqlite) -> BoundSQL {
        switch self {
        case .compare(let field, let op, let value):
            if let stored = field.storedExtra(dialect), op == .equal || op == .notEqual {
                let equal = ExtraValues.isOne(stored, of: ["\(value.bound(for: field, dialect))"])
                return op == .equal ? equal : "NOT (\(equal))"
            }
            return Self.condition(on: field, dialect, keyed: true) { "\($0) \(sql: op.rawValue) \(value.bound(for: field, dialect))" }
        case .string(let field, let op, let text, let options):
            return Self.condition(on: field, dialect, keyed: false) { Self.string(op, text, options, on: $0, dialect) }
        case .between(let field, let low, let high):
            return Self.condition(on: field, dialect, keyed: true) {
                "\($0) BETWEEN \(low.bound(for: field, dialect)) AND \(high.bound(for: field, dialect))"
            }
        case .in(let field, let values):
            guard !values.isEmpty else { return BoundSQL(sql: dialect.truth(false)) }
            let list: [BoundSQL] = values.map { "\($0.bound(for: field, dialect))" }
            if let stored = field.storedExtra(dialect) { return "(\(ExtraValues.isOne(stored, of: list)))" }
            return "\(field.key(dialect)) IN (\(list.joined(separator: ", ")))"
        case .isNull(let field):
            // A code always has its text (`wells check`), so the stored value is null where the text is.
            return "\(field.storedExtra(dialect) ?? field.key(dialect)) IS NULL"
        case .and(let predicates):
            return predicates.isEmpty ? BoundSQL(sql: dialect.truth(true)) : Self.group(predicates, "AND", dialect)
        case .or(let predicates):
            return predicates.isEmpty ? BoundSQL(sql: dialect.truth(false)) : Self.group(predicates, "OR", dialect)
        case .not(let predicate):
            switch predicate {
            case .and, .or, .not: return "NOT \(predicate.sql(dialect))"  // already parenthesised, or a NOT
            default: return "NOT (\(predicate.sql(dialect)))"
            }
        }
    }

    /// `condition` applied to `field`: to its key (``WellAttribute/key(_:qualified:)``, when `keyed`)
    /// or its value; for an extra column of a SQLite store, to its text or code as the row holds it
    /// (``ExtraValues/meets(_:type:_:)``), so that no row's value is read back to text.
    private static func condition(on field: WellAttribute, _ dialect: SQLDialect, keyed: Bool,
                                  _ condition: (BoundSQL) -> BoundSQL) -> BoundSQL {
        if let stored = field.storedExtra(dialect), let type = field.storedExtraType(dialect) {
            return ExtraValues.meets(stored, type: type, condition)
        }
        return condition(keyed ? field.key(dialect) : field.sql(dialect))
    }

    /// A string operator's condition on `column`: an attribute's value or, for an extra column, a
    /// value of ``ExtraValues``; `text` is bound.
    private static func string(_ op: StringOperator, _ text: String, _ options: StringOptions, on column: BoundSQL, _ dialect: SQLDialect) -> BoundSQL {
        let column = folded(column, options, dialect)
        let value = { folded("\(text)", options, dialect) }
        switch (op, dialect) {
        case (.contains, .sqlite): return "instr(\(column), \(value())) > 0"
        case (.beginsWith, .sqlite): return "substr(\(column), 1, length(\(value()))) = \(value())"
        case (.endsWith, .sqlite): return "substr(\(column), -length(\(value()))) = \(value())"
        case (.contains, .postgres): return "strpos(\(column), \(value())) > 0"
        case (.beginsWith, .postgres): return "starts_with(\(column), \(value()))"
        case (.endsWith, .postgres):
            return text.isEmpty ? "\(column) = ''" : "right(\(column), length(\(value()))) = \(value())"
        case (.equals, _): return "\(column) = \(value())"
        case (.notEquals, _): return "\(column) != \(value())"
        }
    }

    /// `[c]`/`[d]` folding of `text`: SQLite's `wellkit_fold` (Swift's folding), or PostgreSQL's
    /// `lower` and `unaccent` under ICU's root collation, which folds beyond ASCII.
    private static func folded(_ text: BoundSQL, _ options: StringOptions, _ dialect: SQLDialect) -> BoundSQL {
        guard !options.isEmpty else { return text }
        switch dialect {
        case .sqlite:
            return "wellkit_fold(\(text), \(sql: String(options.rawValue)))"
        case .postgres:
            var folded = text
            if options.contains(.diacriticInsensitive) { folded = "unaccent(\(folded))" }
            if options.contains(.caseInsensitive) { folded = "lower(\(folded) COLLATE \"und-x-icu\")" }
            return "(\(folded) COLLATE \"C\")"
        }
    }

    /// `(a AND b …)` with the most deeply nested operand first, so that SQLite's parser, whose stack
    /// holds 100 entries, keeps only the open parentheses and NOTs of the nesting on it rather than
    /// also an operand and an operator for each level (`a OR (b AND (c …` overflowed it at 16 levels).
    private static func group(_ predicates: [WellPredicate], _ op: String, _ dialect: SQLDialect) -> BoundSQL {
        var ordered = predicates
        if let deepest = predicates.indices.max(by: { predicates[$0].nesting < predicates[$1].nesting }),
           deepest > 0, predicates[deepest].nesting > 0 {
            ordered.insert(ordered.remove(at: deepest), at: 0)
        }
        return "(\(ordered.map { $0.sql(dialect) }.joined(separator: " \(op) ")))"
    }

    /// The nesting of the predicate's SQL: one per NOT and per and/or group, as ``measure()`` counts it.
    private var nesting: Int {
        switch self {
        case .and(let ps), .or(let ps): 1 + (ps.map(\.nesting).max() ?? 0)
        case .not(let p): 1 + p.nesting
        default: 0
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
