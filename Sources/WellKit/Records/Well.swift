import Foundation
import GRDB

/// A whole well: its pin and its detail, every attribute, fetched with one join.
public struct Well: Sendable, Hashable, Identifiable {
    public var pin: WellPin
    public var detail: WellDetail

    public var id: Int64 { pin.id }

    /// Makes a well of a pin and its detail.
    public init(pin: WellPin, detail: WellDetail) {
        self.pin = pin
        self.detail = detail
    }

    /// The columns a full fetch selects: the pin's, then every detail column.
    static let selection = WellPin.selection + WellDetail.columns.map { "d.\($0.quotedDatabaseIdentifier)" }
}


/// Everything about a well but its pin: identifier, typed attributes, source coordinates,
/// and the source columns no field maps to (``extra``, kept as JSON).
public struct WellDetail: Sendable, Hashable {
    public var identifier: String
    /// Text, real and date attributes by field; absent when the source had no value.
    public var values: [WellField: WellValue]
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
        var values: [WellField: WellValue] = [:]
        for (k, field) in WellField.detailValueFields.enumerated() {
            let value = row[start + 1 + k] as DatabaseValue
            if !value.isNull { values[field] = WellValue(value) }
        }
        self.values = values
        let tail = start + 1 + WellField.detailValueFields.count
        sourceX = row[tail]
        sourceY = row[tail + 1]
        sourceCRS = row[tail + 2]
        extraJSON = row[tail + 3]
        loadID = row[tail + 4]
    }

    /// Decodes the detail columns from `start` of a row backed by values (see ``WellRow``).
    init(row: WellRow, from start: Int) {
        identifier = row[start]
        var values: [WellField: WellValue] = [:]
        for (k, field) in WellField.detailValueFields.enumerated() where !row.isNull(at: start + 1 + k) {
            values[field] = row[start + 1 + k]
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
        switch values[field] {
        case .text(let text): text
        case .real, .integer: values[field]?.double.map { String($0) }
        case .blob, .null, nil: nil
        }
    }

    /// The unmapped source columns as a dictionary.
    public var extra: [String: String] {
        guard let extraJSON, let object = try? JSONSerialization.jsonObject(with: Data(extraJSON.utf8)) as? [String: String] else { return [:] }
        return object
    }
}
