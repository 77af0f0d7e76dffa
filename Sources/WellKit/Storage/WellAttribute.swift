/// What a query can read of a well: a schema field (``WellField``) or an unmapped source column
/// kept in `details.extra` (`extra.DRILLER`).
///
/// Predicates, sort descriptors and selections take attributes, so `--where 'extra.DRILLER = Smith'`,
/// `--sort extra.DRILLER:desc` and `--fields uwi,extra.DRILLER` work as they do for fields. Every
/// field is a static member, so `.compare(.status, .equal, "Abandoned")` reads as before:
///
/// ```swift
/// let smith: WellPredicate = .compare(.extra("DRILLER"), .equal, "Smith")
/// let sort = WellSortDescriptor(.spudDate, ascending: false)
/// let attribute = try WellAttribute(keyPath: "extra.DRILLER")   // or "status", "detail.spud_date"
/// ```
///
/// An extra column's name is kept as given and compared exactly (case and all): it is a key of
/// the well's `extra` JSON object, bound as a value where a query reads it, never spliced into SQL
/// text. Its values are text, so they compare, sort and match numbers as text: `extra.DEPTH > 90`
/// holds for "950" and not for "1200".
public struct WellAttribute: Hashable, Sendable, CustomStringConvertible {
    /// Where the attribute lives.
    public enum Storage: Hashable, Sendable {
        /// A column of `pins` or `details`.
        case field(WellField)
        /// A key of the `details.extra` JSON object: an unmapped source column.
        case extra(String)
    }

    public let storage: Storage

    public init(_ field: WellField) { storage = .field(field) }

    /// The unmapped source column `name`, as the source file's header spelt it.
    public static func extra(_ name: String) -> WellAttribute { WellAttribute(storage: .extra(name)) }

    private init(storage: Storage) { self.storage = storage }

    /// The prefix of an extra column's key path: `extra.DRILLER`.
    public static let extraPrefix = "extra."

    /// Resolves a field name or key path (everything ``WellField/init(keyPath:)`` accepts) or
    /// `extra.NAME`, NAME being any non-empty column name, kept as given.
    ///
    /// - Throws: ``QueryError`` listing the valid fields, and `extra.NAME`, for an unknown name.
    public init(keyPath: String) throws {
        if keyPath.hasPrefix(Self.extraPrefix) {
            let name = String(keyPath.dropFirst(Self.extraPrefix.count))
            guard !name.isEmpty else {
                throw QueryError(.unknownField, "\"\(keyPath)\" names no column; write extra.NAME with the source column's name, such as extra.DRILLER", subject: .fieldName, text: keyPath, token: keyPath, offset: 1)
            }
            storage = .extra(name)
        } else {
            storage = .field(try WellField(keyPath: keyPath))
        }
    }

    /// The public name: the field's (`status`, `spud_date`) or `extra.NAME`.
    public var name: String {
        switch storage {
        case .field(let field): field.rawValue
        case .extra(let name): Self.extraPrefix + name
        }
    }

    public var description: String { name }

    /// The schema field, or nil for an extra column.
    public var field: WellField? {
        if case .field(let field) = storage { field } else { nil }
    }

    /// How the value is stored: the field's kind; text for an extra column.
    public var kind: WellField.Kind { field?.kind ?? .text }

    /// The table that holds the value: `details` for an extra column.
    public var table: WellField.Table { field?.table ?? .details }

    // MARK: - SQL

    /// The attribute's value as an SQL expression in `dialect`, the one place that renders it.
    ///
    /// A field is its value as text or number: PostgreSQL's column (`d."status"`, or `"status"`
    /// unqualified for a query of `details` alone); in SQLite's compact layout (schema version 3)
    /// the same value decoded from its column (``WellField/sqliteValue(_:)``): a looked-up name or
    /// a date as `yyyy-mm-dd`. An extra column is read with its name bound, never in the text:
    /// - SQLite: `details.extra` is a JSON array of values by position, the positions named once in
    ///   `extra_keys`: `json_extract(d."extra", (SELECT '$[' || position || ']' FROM extra_keys WHERE name = ?))`,
    ///   the name compared exactly as a key (quotes and all) and looked up once per statement; null
    ///   when the store has no such column or the row no value for it. A value kept as a code
    ///   (a JSON integer, schema version 4) reads as its text in `extra_values` (``ExtraValues``).
    /// - PostgreSQL: `(d."extra" ->> ?) COLLATE "C"`, the key bound as text; `COLLATE "C"` so that
    ///   it compares and sorts bytes as the text columns do (SQLite's BINARY).
    func sql(_ dialect: SQLDialect, qualified: Bool = true) -> BoundSQL {
        let prefix = qualified ? (table == .pins ? "p." : "d.") : ""
        switch storage {
        case .field(let field):
            let column = prefix + field.column.quotedDatabaseIdentifier
            return BoundSQL(sql: dialect == .sqlite ? field.sqliteValue(column) : column)
        case .extra(let name):
            let column = prefix + "\"extra\""
            switch dialect {
            case .postgres:
                return "(\(sql: column) ->> \(name)) COLLATE \"C\""
            case .sqlite:
                let value = Self.extraValue(column, name)
                return "CASE \(Self.extraType(column, name)) WHEN 'integer' THEN (SELECT v.value FROM \(sql: ExtraValues.table) v WHERE v.code = \(value)) ELSE \(value) END"
            }
        }
    }

    /// For an extra column of a SQLite store, its value as the row's array holds it: the text, or
    /// the code of a value kept once (``ExtraValues``); nil for a field or PostgreSQL. Comparisons
    /// for equality read it without decoding (``ExtraValues/isOne(_:of:)``).
    func storedExtra(_ dialect: SQLDialect, qualified: Bool = true) -> BoundSQL? {
        guard dialect == .sqlite, case .extra(let name) = storage else { return nil }
        return Self.extraValue(qualified ? "d.\"extra\"" : "\"extra\"", name)
    }

    /// For an extra column of a SQLite store, the JSON type of ``storedExtra(_:qualified:)``:
    /// `integer` for a code, `text` for a text, null where the row has no value. Cheaper than
    /// `typeof` of the value, which copies the value out first.
    func storedExtraType(_ dialect: SQLDialect) -> BoundSQL? {
        guard dialect == .sqlite, case .extra(let name) = storage else { return nil }
        return Self.extraType("d.\"extra\"", name)
    }

    /// SQLite: the value at an extra column's position in `column`'s array, and its JSON type; the
    /// position is looked up by the bound name once per statement.
    private static func extraValue(_ column: String, _ name: String) -> BoundSQL {
        "json_extract(\(sql: column), \(extraPath(name)))"
    }

    private static func extraType(_ column: String, _ name: String) -> BoundSQL {
        "json_type(\(sql: column), \(extraPath(name)))"
    }

    private static func extraPath(_ name: String) -> BoundSQL {
        "(SELECT '$[' || position || ']' FROM extra_keys WHERE name = \(name))"
    }

    /// The attribute as an SQL expression that sorts and compares as its value but is cheaper to
    /// read, or that an index serves: a SQLite date's day number (the days sort as the dates do;
    /// ``PredicateValue`` binds dates as days for it). Every other attribute is its value (``sql(_:qualified:)``).
    ///
    /// A PostgreSQL date is its ISO text, and a year alone its four digits: the key reads a year as
    /// `yyyy-01-01~`, after its first day and before its second, as a SQLite store's half day
    /// (``ValueParsing/yearOnlyDays(_:)``) orders, so `spud_date >= 1904-01-01` finds `1904` on both engines.
    func key(_ dialect: SQLDialect, qualified: Bool = true) -> BoundSQL {
        guard kind == .date, let field else { return sql(dialect, qualified: qualified) }
        let column = (qualified ? "d." : "") + field.column.quotedDatabaseIdentifier
        if dialect == .postgres { return BoundSQL(sql: "(CASE WHEN length(\(column)) = 4 THEN \(column) || '-01-01~' ELSE \(column) END)") }
        return BoundSQL(sql: column)
    }

    // MARK: - Fields

    public static let id = WellAttribute(.id)
    public static let name = WellAttribute(.name)
    public static let latitude = WellAttribute(.latitude)
    public static let longitude = WellAttribute(.longitude)
    public static let identifier = WellAttribute(.identifier)
    public static let `operator` = WellAttribute(.operator)
    public static let status = WellAttribute(.status)
    public static let type = WellAttribute(.type)
    public static let fluid = WellAttribute(.fluid)
    public static let field = WellAttribute(.field)
    public static let formation = WellAttribute(.formation)
    public static let county = WellAttribute(.county)
    public static let state = WellAttribute(.state)
    public static let licence = WellAttribute(.licence)
    public static let spudDate = WellAttribute(.spudDate)
    public static let completionDate = WellAttribute(.completionDate)
    public static let plugDate = WellAttribute(.plugDate)
    public static let totalDepth = WellAttribute(.totalDepth)
    public static let groundElevation = WellAttribute(.groundElevation)
    public static let kbElevation = WellAttribute(.kbElevation)

    /// Every schema field, in ``WellField``'s order.
    public static let fields: [WellAttribute] = WellField.allCases.map(WellAttribute.init)
}
