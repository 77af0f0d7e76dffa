import Foundation

/// The header's names as a load uses them: every column named, and no two alike.
///
/// Spreadsheets save blank header cells (Florida's orphan-well workbook has seven, over a side
/// table) and repeat names (`County` twice); a column is its name everywhere after the header (the
/// mapping, `details.extra`'s keys, `extra.NAME` in queries and exports), so seven columns named `""`
/// kept one value of seven. A blank cell is named by its 1-based position (`column_15`), a repeated
/// name gets its occurrence (`County_2`, `County_3`), each skipping a name the header already has.
struct HeaderNames: Equatable {
    /// The names, one per column.
    let names: [String]
    /// The blank cells named by position, as (position, name).
    let blank: [(position: Int, name: String)]
    /// The repeated names kept apart, as (the published name, the name given).
    let repeated: [(published: String, name: String)]

    init(_ published: [String]) {
        var taken = Set(published)
        var seen: [String: Int] = [:]
        var names: [String] = [], blank: [(position: Int, name: String)] = [], repeated: [(published: String, name: String)] = []
        for (index, cell) in published.enumerated() {
            if cell.trimmingCharacters(in: .whitespaces).isEmpty {
                var name = "column_\(index + 1)", k = 1
                while taken.contains(name) { k += 1; name = "column_\(index + 1)_\(k)" }
                taken.insert(name)
                names.append(name)
                blank.append((index + 1, name))
                continue
            }
            let occurrence = (seen[cell] ?? 0) + 1
            seen[cell] = occurrence
            guard occurrence > 1 else { names.append(cell); continue }
            var k = occurrence, name = "\(cell)_\(k)"
            while taken.contains(name) { k += 1; name = "\(cell)_\(k)" }
            taken.insert(name)
            names.append(name)
            repeated.append((cell, name))
        }
        self.names = names
        self.blank = blank
        self.repeated = repeated
    }

    /// Whether every published name was used as it is.
    var unchanged: Bool { blank.isEmpty && repeated.isEmpty }

    /// What the load says it did, for the summary's inferences and the dry run.
    var inference: Inference? {
        guard !unchanged else { return nil }
        var parts: [String] = []
        if !blank.isEmpty {
            parts.append("\(blank.count) blank header cell\(blank.count == 1 ? "" : "s") named by position: "
                + Self.listing(blank.map(\.name)))
        }
        if !repeated.isEmpty {
            parts.append("\(repeated.count) repeated name\(repeated.count == 1 ? "" : "s") kept apart: "
                + Self.listing(repeated.map { "\($0.published) → \($0.name)" }))
        }
        return Inference(subject: "header", column: nil, value: parts.joined(separator: "; "),
                         evidence: "a column is its name in the mapping, details.extra and queries, so every column needs its own",
                         override: "")
    }

    static func == (a: HeaderNames, b: HeaderNames) -> Bool { a.names == b.names }

    private static func listing(_ items: [String]) -> String {
        items.count <= 8 ? items.joined(separator: ", ") : items.prefix(8).joined(separator: ", ") + ", … (\(items.count) in all)"
    }
}
