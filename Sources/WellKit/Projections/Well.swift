import Foundation
import GRDB

/// A whole well: its pin and its detail, every attribute, fetched with one join.
public struct Well: Sendable, Hashable, Identifiable {
    public var pin: WellPin
    public var detail: WellDetail

    public var id: Int64 { pin.id }

    /// The columns a full fetch selects: the pin's, then every detail column.
    static let selection = WellPin.selection + WellDetail.columns.map { "d.\($0.quotedDatabaseIdentifier)" }
}

extension Well: FetchableRecord {
    public init(row: Row) {
        pin = WellPin(row: row)
        detail = WellDetail(row: row, from: WellPin.selection.count)
    }
}

/// Everything about a well but its pin: identifier, typed attributes, source coordinates,
/// and the source columns no field maps to (``extra``, kept as JSON).
public struct WellDetail: Sendable, Hashable {
    public var identifier: String
    /// Text, real and date attributes by field; absent when the source had no value.
    public var values: [WellField: DatabaseValue]
    public var sourceX: Double?
    public var sourceY: Double?
    public var sourceCRS: String?
    /// Unmapped source columns and values that did not parse, as a JSON object of strings.
    public var extraJSON: String?
    public var loadID: Int64?

    /// The detail columns, in the order a full fetch selects them (the table's, ``DetailColumn/all``).
    static let columns = DetailColumn.all.map(\.name)

    init(row: Row, from start: Int) {
        identifier = row[start]
        var values: [WellField: DatabaseValue] = [:]
        for (k, field) in WellField.detailValueFields.enumerated() {
            let value = row[start + 1 + k] as DatabaseValue
            if !value.isNull { values[field] = value }
        }
        self.values = values
        let tail = start + 1 + WellField.detailValueFields.count
        sourceX = row[tail]
        sourceY = row[tail + 1]
        sourceCRS = row[tail + 2]
        extraJSON = row[tail + 3]
        loadID = row[tail + 4]
    }

    /// A text attribute, such as `detail[.status]`.
    public subscript(field: WellField) -> String? {
        values[field].flatMap { String.fromDatabaseValue($0) ?? Double.fromDatabaseValue($0).map { String($0) } }
    }

    /// The unmapped source columns as a dictionary.
    public var extra: [String: String] {
        guard let extraJSON, let object = try? JSONSerialization.jsonObject(with: Data(extraJSON.utf8)) as? [String: String] else { return [:] }
        return object
    }
}
