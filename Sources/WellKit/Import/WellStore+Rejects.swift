import Foundation
import GRDB

extension WellStore {
    /// Writes the rejects of one load to a CSV file with the columns `line,column,reason,raw`.
    ///
    /// - Throws: `DatabaseError`, or a Foundation error when the file cannot be written.
    public func writeRejects(ofLoad loadID: Int64, toCSVAt path: String) throws {
        var text = CSVWriter.line(["line", "column", "reason", "raw"]) + "\n"
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT line, \"column\", reason, raw FROM rejects WHERE load_id = ? ORDER BY line", arguments: [loadID])
            while let row = try rows.next() {
                let raw = (row["raw"] as String).trimmingCharacters(in: .newlines)
                text += CSVWriter.line([String(row["line"] as Int), row["column"] ?? "", row["reason"], raw]) + "\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
