import GRDB

/// One column of `details` after its `pin_id` key: what it holds, its name, and its type in the schema.
///
/// This table is the one definition of a detail row. The schema's `CREATE TABLE details` is
/// rendered from it (``createTable``), the loader's rows hold their cells in this order after the
/// pin's (``RowBatch/Column``, and `BulkWriter`'s INSERT and UPDATE name ``all``), and a full
/// fetch selects ``all`` in this order (`WellDetail.columns`).
///
/// The rendered text is the v1 migration's, byte for byte (`DetailColumnTests` pins it), so stores
/// made by earlier builds and new ones have the same schema. A new column needs a new migration
/// (`ALTER TABLE details ADD COLUMN`); the v1 text must then keep the columns it had.
package struct DetailColumn: Sendable, Equatable {
    /// What a column holds.
    package enum Content: Sendable, Equatable {
        case identifier
        /// A typed attribute: one of ``WellField/detailValueFields``, in their order.
        case value(WellField)
        case sourceX, sourceY, sourceCRS
        /// Unmapped source columns and values that did not parse, as JSON.
        case extra
        /// The load that last wrote the row; bound by the writer, not built per row.
        case loadID
    }

    package let content: Content
    package let name: String
    /// The column's type and constraints, as the schema declares them.
    let declaration: String

    /// Every column, in table order.
    package static let all: [DetailColumn] = [DetailColumn(content: .identifier, name: "uwi", declaration: "TEXT NOT NULL")]
        + WellField.detailValueFields.map { DetailColumn(content: .value($0), name: $0.column, declaration: $0.kind == .real ? "REAL" : "TEXT") }
        + [
            DetailColumn(content: .sourceX, name: "source_x", declaration: "REAL"),
            DetailColumn(content: .sourceY, name: "source_y", declaration: "REAL"),
            DetailColumn(content: .sourceCRS, name: "source_crs", declaration: "TEXT"),
            DetailColumn(content: .extra, name: "extra", declaration: "TEXT"),
            DetailColumn(content: .loadID, name: "load_id", declaration: "INTEGER REFERENCES loads(id)"),
        ]

    /// The position of the column that holds `content` in ``all``.
    static func index(of content: Content) -> Int {
        all.firstIndex { $0.content == content }!
    }

    /// The column's type in the compact layout of schema version 3 (``Schema/compactDetails(_:)``):
    /// a looked-up name's code, a date's day number; the others as in ``declaration``.
    var compactDeclaration: String {
        switch content {
        case .value(let field) where field.lookupTable != nil: "INTEGER NOT NULL DEFAULT \(Schema.nullCode)"
        case .value(let field) where field.kind == .date: "INTEGER"
        default: declaration
        }
    }

    /// `CREATE TABLE name(…);` with the compact layout's types, on one line.
    static func createTable(named name: String, compact: Bool) -> String {
        "CREATE TABLE \(name)(pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE, "
            + all.map { "\($0.name.quotedDatabaseIdentifier) \(compact ? $0.compactDeclaration : $0.declaration)" }.joined(separator: ", ") + ");"
    }

    /// The columns a SQLite store's full fetch selects, each read back as version 2 stored it:
    /// looked-up names and dates as text (``WellField/sqliteValue(_:)``), the extra values as a
    /// JSON object of their names (no object when the row has none).
    static let sqliteSelection: [String] = selection(from: "d")

    /// ``sqliteSelection`` over a table of detail rows named `alias` (a release's copy of the rows before it).
    static func selection(from alias: String) -> [String] { all.map { column in
        let qualified = alias + "." + column.name.quotedDatabaseIdentifier
        switch column.content {
        case .value(let field): return field.sqliteValue(qualified)
        case .extra:
            return """
                CASE WHEN \(qualified) IS NOT NULL THEN (SELECT json_group_object(k.name, \(ExtraValues.text(type: "j.type", value: "j.atom"))) \
                FROM json_each(\(qualified)) j JOIN extra_keys k ON k.position = j.key WHERE j.type != 'null') END
                """
        default: return qualified
        }
    } }

    /// `CREATE TABLE details(…);` as the v1 migration has always written it. Only the layout is
    /// kept here (which names are quoted, where lines break); the columns come from ``all``.
    static var createTable: String {
        let quoted: Set = ["operator", "type"]
        let lineBreakAfter: Set = ["uwi", "formation", "licence", "plug_date", "kb_elevation", "source_crs", "extra"]
        var text = "CREATE TABLE details(\n  pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,\n  "
        for (k, column) in all.enumerated() {
            text += (quoted.contains(column.name) ? "\"\(column.name)\"" : column.name) + " " + column.declaration
            if k == all.count - 1 {
                text += ");"
            } else {
                text += lineBreakAfter.contains(column.name) ? ",\n  " : ", "
            }
        }
        return text
    }
}
