import Foundation
import Testing
import WellKit

/// Checks a store against the file it was loaded from, every field of every well: each column's
/// value must be where the load's mapping put it (its field, or `extra.COLUMN` when unmapped, or
/// when a date column's value is no date), and a well must hold nothing else.
package enum SourceFields {
    /// The differences, at most `limit`; empty when the store holds the file exactly.
    ///
    /// - Parameter dates: per identifier, per date column, the value the store must hold
    ///   (`yyyy-mm-dd` or `yyyy`), or nil where the value is no date and is kept as text.
    package static func differences(_ store: WellStore, _ summary: LoadSummary, file path: String,
                                    dates: [String: [String: String?]], limit: Int = 20) throws -> [String] {
        let records = try Fixtures.records(ofFileAt: path)
        let header = records[0]
        let fieldOf = Dictionary(summary.mapping.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        guard let idColumn = summary.mapping["uwi"], let idIndex = header.firstIndex(of: idColumn) else { return ["no identifier column mapped"] }
        let stored = try store.fetchWells(WellFetchRequest())
        var lines: [String] = []
        if stored.count != records.count - 1 { lines.append("the store holds \(stored.count) wells, the file \(records.count - 1)") }
        let byIdentifier = Dictionary(stored.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        for row in records.dropFirst() where lines.count < limit {
            let id = row[idIndex]
            guard let well = byIdentifier[id] else { lines.append("\(id): not in the store"); continue }
            var want: [String: String] = [:]
            for (column, value) in zip(header, row) where !value.isEmpty && column != idColumn {
                guard let field = fieldOf[column] else { want["extra." + column] = value; continue }
                if let date = dates[id]?[column] {
                    if let date { want[field] = date } else { want["extra." + column] = value }
                } else {
                    want[field] = value
                }
            }
            var have: [String: WellValue] = [:]
            for (name, value) in well.properties() where !["id", "uwi", "source_x", "source_y", "source_crs", "suspect"].contains(name) {
                have[name] = value
            }
            for name in Set(have.keys).union(want.keys).sorted() {
                let value = have[name], wanted = want[name]
                if let number = value?.double, let wanted, let expected = Double(wanted), abs(number - expected) <= 1e-9 * max(1, abs(expected)) { continue }
                if value?.description == wanted { continue }
                lines.append("\(id) \(name): stored \(value?.description ?? "nothing"), source \(wanted ?? "nothing")")
            }
        }
        return Array(lines.prefix(limit))
    }

    /// `Tests/Fixtures/Dates/NAME`.
    package static func datesFixture(_ name: String) -> String {
        Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/Dates/\(name)").path
    }

    /// `ak-truth.json`: per API#, the completion date as the workbook holds it.
    package static func alaskaTruth() throws -> [String: [String: String?]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: datesFixture("ak-truth.json")))
        let truth = try JSONDecoder().decode([String: String].self, from: data)
        return truth.mapValues { value in
            let isDate = value.count == 4 ? Int(value) != nil : value.count == 10 && value.dropFirst(4).first == "-"
            return ["Completion Date": isDate ? value : nil]
        }
    }
}
