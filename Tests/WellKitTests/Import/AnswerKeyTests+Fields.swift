import Foundation
@testable import WellKit
@testable import WellKitSynthetic

extension AnswerKeyTests {
    /// How the wells of `store` differ from those of an answer key, field by field, as lines
    /// (`"42-001-00012 spud_date: stored 1982-07-03, key 1982-03-07"`); empty when the store holds
    /// exactly the key's wells, each with exactly the key's properties. `lat` and `lon` agree within
    /// 1e-6°, other numbers within 1e-9 of their size; everything else as text.
    static func fieldDifferences(_ store: WellStore, _ expected: [AgencyList.AnswerKey.WellFields], limit: Int = 20) throws -> [String] {
        var lines: [String] = []
        let ignored: Set<String> = ["id", "uwi", "source_x", "source_y", "source_crs", "suspect"]
        let stored = try store.fetchWells(WellFetchRequest())
        if stored.count != expected.count { lines.append("the store holds \(stored.count) wells, the key \(expected.count)") }
        let byIdentifier = Dictionary(stored.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        for answer in expected {
            guard lines.count < limit else { break }
            guard let well = byIdentifier[answer.identifier] else {
                lines.append("\(answer.identifier): not in the store")
                continue
            }
            var properties: [String: WellValue] = [:]
            for (name, value) in well.properties() where !ignored.contains(name) { properties[name] = value }
            for name in Set(properties.keys).union(answer.fields.keys).sorted() {
                let value = properties[name], want = answer.fields[name]
                if agrees(value, want, tolerance: ["lat", "lon"].contains(name) ? 1e-6 : nil) { continue }
                lines.append("\(answer.identifier) \(name): stored \(value?.description ?? "nothing"), key \(want ?? "nothing")")
            }
        }
        return Array(lines.prefix(limit))
    }

    private static func agrees(_ value: WellValue?, _ want: String?, tolerance: Double?) -> Bool {
        guard let value, let want else { return value?.description == nil && want == nil }
        if let number = value.double, let wanted = Double(want) {
            return abs(number - wanted) <= (tolerance ?? 1e-9 * max(1, abs(wanted)))
        }
        return value.description == want
    }
}
