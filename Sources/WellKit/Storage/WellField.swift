/// A named attribute of a well, the one vocabulary shared by the schema, the loader's
/// column mapping and the fetch request's allow-list.
///
/// The raw value is the public field name: `--map operator=Licensee`, `--where 'status = Abandoned'`
/// and `--sort detail.spud_date:desc` all use it.
public enum WellField: String, CaseIterable, Sendable, Codable {
    case id
    case name
    case latitude = "lat"
    case longitude = "lon"
    case identifier = "uwi"
    case `operator`
    case status
    case type
    case fluid
    case field
    case formation
    case county
    case state
    case licence
    case spudDate = "spud_date"
    case completionDate = "completion_date"
    case plugDate = "plug_date"
    case totalDepth = "total_depth"
    case groundElevation = "ground_elevation"
    case kbElevation = "kb_elevation"

    /// How a field's value is stored.
    public enum Kind: String, Sendable {
        case integer, text, real, date
    }

    /// The table that holds the field.
    public enum Table: String, Sendable {
        case pins, details
    }

    public var kind: Kind {
        switch self {
        case .id: .integer
        case .latitude, .longitude, .totalDepth, .groundElevation, .kbElevation: .real
        case .spudDate, .completionDate, .plugDate: .date
        default: .text
        }
    }

    public var table: Table {
        switch self {
        case .id, .name, .latitude, .longitude: .pins
        default: .details
        }
    }

    /// The column name in ``table``. It equals the public name.
    public var column: String { rawValue }

    /// The lookup table of a SQLite store (schema version 3) that keeps each distinct value of this
    /// field once, `lookup_FIELD(code INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE)`, the detail
    /// row holding the value's code: names repeated on many rows (operators, statuses, fields…).
    /// Nil for a field stored in its row.
    package var lookupTable: String? {
        switch self {
        case .operator, .status, .type, .fluid, .field, .formation, .county, .state: "lookup_" + rawValue
        default: nil
        }
    }

    /// The field's value as SQL reads it back from `column` (its SQL text, such as `d."status"`) of a
    /// SQLite store's compact layout (schema version 3): a code's name from ``lookupTable``, a day
    /// number (``ValueParsing/days(year:month:day:)``) as `yyyy-mm-dd`, a year alone (a REAL day,
    /// ``ValueParsing/yearOnlyDays(_:)``) as `yyyy`; any other field is its column.
    package func sqliteValue(_ column: String) -> String {
        if let lookupTable { return "(SELECT value FROM \(lookupTable) WHERE code = \(column))" }
        guard kind == .date else { return column }
        // A REAL day number is a year alone (``ValueParsing/yearOnlyDays(_:)``): its first four digits.
        return "CASE WHEN typeof(\(column)) = 'real' THEN substr(date(\(column) * 86400, 'unixepoch'), 1, 4) ELSE date(\(column) * 86400, 'unixepoch') END"
    }

    /// The fields that live in `details`, in column order.
    public static let detailFields: [WellField] = allCases.filter { $0.table == .details }
    /// The detail fields after the identifier, in column order: the typed values of a detail row.
    static let detailValueFields: [WellField] = detailFields.filter { $0 != .identifier }

    /// The fields a loader can map from a source column (all but the generated `id`).
    public static let mappable: [WellField] = allCases.filter { $0 != .id }
}
