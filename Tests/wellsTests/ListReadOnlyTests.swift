import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// `wells list` reads: it opens the store read-only and creates no index; `wells index` does.
@Suite(.blocking) struct ListReadOnlyTests {
    /// The bytes of the store file and of its `-wal` (empty when there is none).
    static func digest(_ db: String) throws -> [Data] {
        try [db, db + "-wal"].map { path in
            FileManager.default.fileExists(atPath: path) ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()
        }
    }

    /// Old code: `list` ran `CREATE INDEX IF NOT EXISTS wellkit_sort_…` first, so the store file grew by the index.
    @Test func listLeavesTheStoreByteIdenticalAndIndexSilencesTheNote() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("wells.csv").path, db = directory.appendingPathComponent("wells.sqlite").path
        var text = "api,name,lat,lon,status,spud_date\n"
        for k in 0..<50 { text += "W\(k),Well \(k),\(36 + Double(k) / 100),-85.5,\(["Active", "Plugged", "Shut-in"][k % 3]),20\(10 + k % 10)-0\(1 + k % 9)-1\(k % 10)\n" }
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        let load = try HardeningTests.wells(["load", csv, "--db", db, "--quiet"])
        #expect(load.status == 0, "\(load.err)")

        let before = try Self.digest(db)
        let list = try HardeningTests.wells(["list", "--sort", "detail.spud_date:desc", "--section", "status", "--db", db])
        #expect(list.status == 0, "\(list.err)")
        #expect(try Self.digest(db) == before, "wells list changed the store")
        #expect(list.err.contains("note: this sort would be faster with an index; create it with `wells index --sort status --sort spud_date:desc --db \(db)`"), "\(list.err)")
        #expect(list.out.contains("== Active (17 wells) =="), "\(list.out)")

        let index = try HardeningTests.wells(["index", "--sort", "detail.spud_date:desc", "--section", "status", "--db", db])
        #expect(index.status == 0 && index.out == "wellkit_sort_status_asc_spud_date_desc\n", "\(index.out) \(index.err)")
        let again = try HardeningTests.wells(["list", "--sort", "detail.spud_date:desc", "--section", "status", "--db", db])
        #expect(again.status == 0 && !again.err.contains("note:"), "\(again.err)")
        #expect(again.out == list.out)
    }
}
