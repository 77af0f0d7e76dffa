import Foundation
import GRDB
import Testing
@testable import WellKit

/// The query commands' writer: a table's layout, the same JSON whether a row is emitted as text or
/// appended as bytes, and rows read straight from SQLite's statement as GRDB reads them.
@Suite struct ResultWriterTests {
    /// Cells are cut to 40 characters with `…`, padded with spaces to their column, joined by two
    /// spaces, with no space at the end of a line (but the spaces of an empty first cell kept, so
    /// the columns stay in place); a line break in a cell becomes a space and a carriage return
    /// goes; widths count characters, so an emoji family is one.
    @Test func tablesLineUpCharactersAndCutLongCells() {
        var out = ""
        let writer = ResultWriter(format: .table, columns: ["id", "name"]) { out += $0 }
        writer.write([.text("  a"), .text("x")])
        writer.write([.integer(12), .text(String(repeating: "N", count: 45))])
        writer.write([.integer(3), .text("two\r\nlines")])
        writer.write([.integer(4), .text("👨‍👩‍👧 well")])
        writer.write([.null, .real(51.05)])
        writer.finish()
        let name = String(repeating: "N", count: 39) + "…"
        #expect(out == """
            id   name
            ---  ----------------------------------------
              a  x
            12   \(name)
            3    two lines
            4    👨‍👩‍👧 well
                 51.05
            (5 rows)

            """)
    }

    /// Every JSON format writes the same text through ``ResultWriter/write(_:geometry:)`` (a `String`
    /// per row, the CLI) and ``ResultWriter/write(_:geometry:appendingTo:)`` (bytes, the server).
    @Test(arguments: [OutputFormat.json, .ndjson, .geojson])
    func bytesAndTextAreTheSameDocument(_ format: OutputFormat) {
        let rows: [[WellValue]] = [
            [.integer(1), .text("A \"quoted\" \\ name\n\u{1B}"), .real(51.05000000000001), .real(-114), .blob(Data([0, 1, 2]))],
            [.integer(-9_000_000_000), .null, .real(.nan), .real(0.1), .text("油井 Émile")],
            [.integer(3), .text(""), .null, .null, .real(.infinity)],
        ]
        let columns = ["id", "name", "lat", "lon", "extra.note"]
        var text = ""
        let writer = ResultWriter(format: format, columns: columns) { text += $0 }
        for row in rows { writer.write(row) }
        writer.finish()
        var bytes: [UInt8] = []
        let other = ResultWriter(format: format, columns: columns) { bytes += $0.utf8 }
        for row in rows { other.write(row, appendingTo: &bytes) }
        other.finish()
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        // The document is JSON (one object per line for NDJSON) and holds what was written.
        let documents = format == .ndjson ? text.split(separator: "\n").map(String.init) : [text]
        for document in documents {
            #expect((try? JSONSerialization.jsonObject(with: Data(document.utf8))) != nil, "\(document)")
        }
        #expect(text.contains(#""A \"quoted\" \\ name\n\u001b""#) && text.contains(#""油井 Émile""#) && text.contains("-9000000000"))
        if format == .geojson {
            #expect(text.contains(#"{"type":"Point","coordinates":[-114,51.05000000000001]}"#) && text.contains(#""geometry":null"#))
        }
    }

    /// A row read with SQLite's C API holds what GRDB's `DatabaseValue` reads, except that a NUL
    /// inside text is kept (GRDB reads text as a C string).
    @Test func rowsReadFromTheStatementMatchGRDB() throws {
        let db = try DatabaseQueue()
        try db.read { db in
            let statement = try db.makeStatement(sql: "SELECT 7, 2.5, 'Émile', 'a' || char(0) || 'b', x'00ff', x'', NULL, 9.0, '12'")
            let rows = try Row.fetchCursor(statement)
            var seen = 0
            while let row = try rows.next() {
                seen += 1
                let ours = WellRow(row, of: statement)
                #expect(ours.values == [.integer(7), .real(2.5), .text("Émile"), .text("a\u{0}b"), .blob(Data([0, 0xFF])), .blob(Data()), .null, .real(9), .text("12")])
                for k in 0..<row.count where k != 3 {
                    #expect(ours.values[k] == WellValue(row[k] as DatabaseValue), "column \(k)")
                }
                #expect(ours[0] as Int64 == 7 && ours[1] as Double == 2.5 && ours[2] as String == "Émile")
                // Types SQLite holds otherwise are converted as GRDB converts them.
                #expect(ours[0] as Double == 7 && ours[7] as Int64 == 9 && ours[7] as Double == 9)
                #expect(ours.isNull(at: 6) && !ours.isNull(at: 5) && (ours[6] as String?) == nil)
            }
            #expect(seen == 1)
        }
    }
}
