import Foundation
import GRDB
import Testing
@testable import WellKit
@testable import WellKitSynthetic
import WellsTestSupport

/// The load path goes one way: one definition of a detail row, the write phase as one call over a
/// ``PreparedLoad``, the rejects handed over from memory, the coordinate options checked in one place.
struct LoadPathTests {
    /// The v1 migration's `CREATE TABLE details`, as written before it was rendered from ``DetailColumn``.
    /// Stores made by earlier builds have exactly this text; a new store gets it from the v1
    /// migration, then the compact layout of version 3 (``DetailColumn/createTable(named:compact:)``).
    static let detailsV1 = """
        CREATE TABLE details(
          pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,
          uwi TEXT NOT NULL,
          "operator" TEXT, status TEXT, "type" TEXT, fluid TEXT, field TEXT, formation TEXT,
          county TEXT, state TEXT, licence TEXT,
          spud_date TEXT, completion_date TEXT, plug_date TEXT,
          total_depth REAL, ground_elevation REAL, kb_elevation REAL,
          source_x REAL, source_y REAL, source_crs TEXT,
          extra TEXT,
          load_id INTEGER REFERENCES loads(id));
        """

    @Test func detailsSchemaTextIsTheV1Text() throws {
        #expect(DetailColumn.createTable == Self.detailsV1)
        let store = try Fixtures.makeStore()
        let sql = try store.pool.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'details'") }
        // "v3-details" renamed its compact table to details: SQLite quotes the new name.
        #expect(sql.map { $0 + ";" } == DetailColumn.createTable(named: "\"details\"", compact: true))
    }

    @Test func writerAndReaderUseTheTableOrder() throws {
        #expect(WellDetail.columns == DetailColumn.all.map(\.name))
        #expect(DetailColumn.all.last?.content == .loadID)
        #expect(RowBatch.Column.width == 3 + DetailColumn.all.count - 1)
        #expect(RowBatch.Column.identifier == 3 && RowBatch.Column.values == 4)
        // The builder appends a row's cells in that order: a pin's 3, then one per detail column but load_id.
        let path = try Fixtures.file("uwi,name,lat,lon,status,total_depth,x_note\nA1,One,36.1,-86.7,Active,1234.5,hello\n")
        let scan = try WellStore.scan(csvAt: path, options: LoadOptions())
        let builder = scan.makeBuilder()
        try RowPipeline.run(scan.records, count: 1, order: { _ in 0 }, builder: builder) { batch in
            #expect(batch.cells.count == RowBatch.Column.width)
            let row = batch.row(0)
            #expect(batch.text(of: row[RowBatch.Column.identifier]) == "A1")
            let depth = RowBatch.Column.detail + DetailColumn.index(of: .value(.totalDepth))
            #expect(batch.text(of: row[depth]) == "1234.5")
            #expect(batch.text(of: row[RowBatch.Column.extra]) == #"{"x_note":"hello"}"#)
        }
        // And what is written is what a full fetch reads back.
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: path)
        let detail = try #require(try store.fetchWells(WellFetchRequest()).first?.detail)
        #expect(detail.identifier == "A1" && detail[.status] == "Active" && detail[.totalDepth] == "1234.5" && detail.extra == ["x_note": "hello"])
        #expect(detail.loadID == 1)
    }

    /// `--rejects` from memory writes what the old round trip through the store wrote, byte for byte.
    @Test func rejectsFromMemoryMatchTheStoreRoundTrip() throws {
        let dir = try Fixtures.temporaryDirectory()
        let input = dir.appendingPathComponent("dirty.csv").path
        _ = try WellGenerator(count: 20_000, seed: 3, dirty: true).write(toFileAt: input)
        let store = try Fixtures.makeStore()
        let fromMemory = dir.appendingPathComponent("memory.csv").path, fromStore = dir.appendingPathComponent("store.csv").path
        var handed = 0
        var options = LoadOptions()
        options.rejectSuspects = true
        let summary = try store.load(csvAt: input, options: options) { rejects in
            handed = rejects.count
            #expect(rejects.map(\.line) == rejects.map(\.line).sorted())
            try Reject.writeCSV(rejects, toCSVAt: fromMemory)
        }
        #expect(handed == summary.rejected && handed > 100)
        // The old path: the rejects read back from the store's table (which keeps no kind; the CSV has none).
        let loadID = try #require(summary.loadID)
        let stored = try DatabaseQueue(path: store.path).read { db in
            try Row.fetchAll(db, sql: "SELECT line, \"column\", reason, raw FROM rejects WHERE load_id = ? ORDER BY line", arguments: [loadID])
                .map { Reject(line: $0["line"], column: $0["column"], kind: .wrongFieldCount, reason: $0["reason"], raw: $0["raw"]) }
        }
        try Reject.writeCSV(stored, toCSVAt: fromStore)
        let a = try Data(contentsOf: URL(fileURLWithPath: fromMemory)), b = try Data(contentsOf: URL(fileURLWithPath: fromStore))
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).hasPrefix("line,column,reason,raw\n"))
    }

    @Test func prepareThenWriteIsALoad() throws {
        let path = try Fixtures.file("uwi,name,lat,lon\nA1,One,36.1,-86.7\nA2,Two,95,-86.7\nA3,Three,36.2,-86.8\n")
        let store = try Fixtures.makeStore()
        let prepared = try WellStore.prepareLoad(csvAt: path, options: LoadOptions())
        #expect(prepared.scan.records.count == 2 && prepared.scan.rejects.count == 1)
        let summary = try SQLiteBulkWrite.write(prepared, to: store.pool, path: store.path)
        #expect(summary.loadID == 1 && summary.inserted == 2 && summary.rejected == 1)
        let again = try SQLiteBulkWrite.write(try WellStore.prepareLoad(csvAt: path, options: LoadOptions()), to: store.pool, path: store.path)
        #expect(again.loadID == 2 && again.updated == 2)
        let ids = try store.pool.read { try Int64.fetchAll($0, sql: "SELECT DISTINCT load_id FROM rejects ORDER BY 1") }
        #expect(ids == [1, 2])
    }

    @Test func coordinateOptionsAreCheckedOnce() throws {
        #expect(CoordinateOptions(xColumn: "E").inconsistency?.remedy == .giveBothXAndY)
        #expect(CoordinateOptions(xColumn: "E", yColumn: "N").inconsistency?.remedy == .crsForXY)
        #expect(CoordinateOptions(crs: "EPSG:26916", xColumn: "E", yColumn: "N").inconsistency == nil)
        let path = try Fixtures.file("uwi,E,N\nA1,500000,4000000\n")
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(xColumn: "E", yColumn: "N")
        #expect(throws: ImportError.self) { try WellStore.dryRun(csvAt: path, options: options) }
    }

    @Test func mappingTextIsOneFormat() throws {
        let mapping = try ColumnMapping(header: ["API", "STATUS", "LAT", "LON", "note"])
        var summary = LoadSummary(file: "f", sha256: "")
        summary.mapping = Dictionary(uniqueKeysWithValues: mapping.fieldColumns.map { ($0.field, $0.column) })
        summary.extraColumns = ["note"]
        // The summary's in field-name order (what `--dry-run` prints), the mapping's in field order; one format.
        #expect(summary.mappingDescription == "  lat               ← LAT\n  lon               ← LON\n  status            ← STATUS\n  uwi               ← API\n  (kept as JSON)    ← note")
        #expect(mapping.description == "  lat               ← LAT\n  lon               ← LON\n  uwi               ← API\n  status            ← STATUS\n  (kept as JSON)    ← note")
    }
}
