import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

@Suite struct WellStoreImportTests {
    // MARK: - Real well lists

    @Test(arguments: [
        ("tn-oilgas-wells.csv", 16_464),
        ("usgs-nwis-pa-gw-sites.tsv", 46_754),
        ("al-sogb-wells-multiline.csv", 25),
    ])
    func loadsRealFile(name: String, wells: Int) throws {
        let path = Fixtures.sharedData(name)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        #expect(summary.inserted == wells)
        #expect(summary.loaded + summary.rejected == summary.records)
        // A first load commits through a rollback journal, and leaves the file in WAL mode
        // (header bytes 18 and 19, the file format versions, are 2 for WAL).
        #expect(summary.journal == "delete")
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: store.path)).read(upToCount: 20) ?? Data()
        #expect(Array(header.suffix(2)) == [2, 2])
        #expect(summary.records == (try Fixtures.naiveRecordCount(path)))
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pins") == wells)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details") == wells)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            let load = try Row.fetchOne(db, sql: "SELECT records, inserted, sha256 FROM loads")
            #expect(load?["records"] == summary.records)
            #expect((load?["sha256"] as String?)?.count == 64)
        }
    }

    @Test func tennesseeKeepsZeroPaddedIdentifiersAsText() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        #expect(try store.well(identifier: "41-133-21968")?.detail.extra["other_id"] == "0010446")
    }

    @Test func alabamaKeepsMultiLineCommentsIntact() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: Fixtures.sharedData("al-sogb-wells-multiline.csv"))
        #expect(try store.well(identifier: "01-075-20948-00-00")?.detail.extra["Comment"] == "BOARD ORDERS: 2001-5 Est Field, 1/12/01; 2001-7 Reform 40-ac to 80-ac PR unit, 1/12/01; \r\n*AR LOGS NOT RECEIVED UNTIL 4/28/00 JTP")
    }

    @Test func indianaUTMOnlyFileFailsClearly() throws {
        let store = try Fixtures.makeStore()
        do {
            _ = try store.load(csvAt: Fixtures.sharedData("in-igs-orphan-wells-utm16n.csv"))
            Issue.record("a file without latitude/longitude loaded")
        } catch let error as ImportError {
            #expect(error.code == .noCoordinateColumns)
            #expect(error.description.contains("Utmx"))
            #expect(error.description.contains("LoadOptions.coordinates.crs"))
        }
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") } == 0)
    }

    // MARK: - Idempotence

    /// Progress goes through the file in bytes, then through the wells, then the 3 indexing steps, each to its end.
    @Test func progressReportsReadingThenWriting() throws {
        final class Events: @unchecked Sendable {
            let lock = NSLock()
            var list: [LoadProgress] = []
        }
        let events = Events()
        var options = LoadOptions()
        options.progress = { progress in
            events.lock.lock()
            events.list.append(progress)
            events.lock.unlock()
        }
        let path = Fixtures.sharedData("tn-oilgas-wells.csv")
        let summary = try Fixtures.makeStore().load(csvAt: path, options: options)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let reading = events.list.prefix { $0.phase == .reading }
        let writing = events.list.dropFirst(reading.count).prefix { $0.phase == .writing }
        let indexing = events.list.dropFirst(reading.count + writing.count)
        #expect(reading.count > 1 && writing.count > 1)
        #expect(writing.allSatisfy { $0.total == summary.loaded })
        #expect(reading.allSatisfy { $0.total == size })
        #expect(indexing.map(\.done) == [0, 1, 2, 3] && indexing.allSatisfy { $0.phase == .indexing && $0.total == 3 })
        for list in [Array(reading), Array(writing)] {
            #expect(zip(list, list.dropFirst()).allSatisfy { $0.done <= $1.done })
            #expect(list.last.map { $0.done == $0.total } == true)
        }
    }

    /// A reader connection open on the empty store may keep the first load in WAL; either way it loads.
    @Test func firstLoadWithAReaderOpenStillLoads() throws {
        let store = try Fixtures.makeStore()
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pins") } == 0)
        let summary = try store.load(csvAt: Fixtures.sharedData("al-sogb-wells-multiline.csv"))
        #expect(summary.inserted == 25 && summary.journal != nil)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pins") } == 25)
        #expect(try store.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test(.lane(.slow)) func loadingTwiceUpdatesInsteadOfDuplicating() throws {
        let store = try Fixtures.makeStore()
        let path = Fixtures.sharedData("tn-oilgas-wells.csv")
        let first = try store.load(csvAt: path)
        let ids = try store.pool.read { try Int64.fetchAll($0, sql: "SELECT pin_id FROM details ORDER BY uwi") }
        let second = try store.load(csvAt: path)
        #expect(second.inserted == 0)
        #expect(second.updated == first.inserted)
        #expect(first.journal == "delete" && second.journal == "wal")
        #expect(second.sha256 == first.sha256)
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pins") == first.inserted)
            #expect(try Int64.fetchAll(db, sql: "SELECT pin_id FROM details ORDER BY uwi") == ids)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM loads") == 2)
        }
    }

    @Test func reloadMovesAPinAndItsIndexEntry() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,51,-114\nB,52,-115\n"))
        let summary = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,40,-100\nC,41,-101\n"))
        #expect((summary.inserted, summary.updated) == (1, 1))
        try store.pool.read { (db: Database) throws -> Void in
            let box = try Row.fetchOne(db, sql: "SELECT r.xmin, r.ymin FROM idx_pins_geom r JOIN details d ON d.pin_id = r.pkid WHERE d.uwi = 'A'")
            #expect(abs((box?["xmin"] ?? 0.0) + 100) < 1e-4)
            #expect(abs((box?["ymin"] ?? 0.0) - 40) < 1e-4)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pins") == 3)
        }
    }

    /// A reload leaves each updated well exactly as a first load of the new file would: every
    /// detail value replaced, emptied ones null, unparseable ones and unmapped columns in `extra`.
    @Test func reloadReplacesEveryDetailValue() throws {
        let header = "uwi,name,lat,lon,operator,spud_date,total_depth,comment\n"
        let old = header + "A,Old A,51,-114,Acme,2001-01-12,1200,first\nB,Old B,52,-115,Acme,1/2/2003,900,\n"
        let new = header + "A,New A,51.5,-114,,2002-02-02,NA,second\nB,,52,-115,\"Beta, Inc.\",,950.5,\"x\ny\"\n"
        let reloaded = try Fixtures.makeStore(), fresh = try Fixtures.makeStore()
        _ = try reloaded.load(csvAt: try Fixtures.file(old))
        let summary = try reloaded.load(csvAt: try Fixtures.file(new))
        #expect((summary.inserted, summary.updated, summary.badValues) == (0, 2, 1))
        _ = try fresh.load(csvAt: try Fixtures.file(new))
        // Each value as it reads back (names and dates decoded: the stores' codes may differ).
        let columns = (["p.name", "p.lat", "p.lon"] + zip(DetailColumn.all, DetailColumn.sqliteSelection).filter { $0.0.content != .loadID }.map(\.1))
            .joined(separator: ", ")
        func wells(_ store: WellStore) throws -> [[String]] {
            try store.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(columns) FROM pins p JOIN details d ON d.pin_id = p.id ORDER BY d.uwi")
                    .map { row in row.databaseValues.map(\.description) }
            }
        }
        #expect(try wells(reloaded) == (try wells(fresh)))
        #expect(try wells(reloaded).count == 2)
    }

    // MARK: - Validation

    /// A row without its trailing empty fields (as spreadsheets write them) loads, with those fields
    /// empty and a warning; a row with more fields than the header is still rejected.
    @Test func shortRowsLoadWithTheirTrailingFieldsEmpty() throws {
        let csv = "uwi,name,lat,lon,total_depth,spud_date\nW1,Full,51.5,-114.5,1200,2001-05-06\nW2,Short,51.6,-114.6\nW3,Shorter,51.7,-114.7,900\n"
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(csv))
        #expect(summary.inserted == 3 && summary.rejected == 0)
        #expect(summary.warnings.contains { $0.hasPrefix("2 records had fewer fields than the header (the first on line 3)") }, "\(summary.warnings)")
        let depth = try store.pool.read { try Double.fetchOne($0, sql: "SELECT total_depth FROM details WHERE uwi = 'W3'") }
        #expect(depth == 900)
    }

    @Test func rejectsEachBadRowWithLineColumnAndReason() throws {
        let csv = """
            uwi,name,lat,lon,total_depth,spud_date
            W1,Good,51.5,-114.5,1200,2001-05-06
            W2,No lat,,-114.5,1200,2001-05-06
            W3,Text lat,36.9x,-114.5,1200,2001-05-06
            W4,Null island,0,0,1200,2001-05-06
            W5,Swapped,-114.5,51.5,1200,2001-05-06
            W6,Far east,51.5,200,1200,2001-05-06
            W7,Long row,51.5,-114.5,1200,2001-05-06,extra
            W8,Bad "quote",51.5,-114.5,1200,2001-05-06
            W9,Bad depth,51.5,-114.5,NA,2001-13-45
            W1,Again,51.6,-114.6,1300,2002-01-01

            """
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(csv))
        #expect(summary.records == 10)
        #expect(summary.inserted == 2)
        #expect(summary.rejected == 8)
        #expect(summary.badValues == 2)
        #expect(summary.badValuesByField == ["total_depth": 1, "spud_date": 1])
        let rejects = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT line, \"column\", reason FROM rejects ORDER BY line")
        }
        let expected: [(Int, String?, String)] = [
            (3, "lat", "latitude is empty"),
            (4, "lat", "\"36.9x\" is not a number; expected decimal degrees"),
            (5, "lat", "both 0"),
            (6, "lat", "look swapped"),
            (7, "lon", "longitude 200 is outside -180…180"),
            (8, nil, "expected 6 fields as in the header, found 7"),
            (9, "name", "a quote (\") inside an unquoted field"),
            (11, "uwi", "already appears on line 2"),
        ]
        #expect(rejects.count == expected.count)
        for (row, (line, column, reason)) in zip(rejects, expected) {
            #expect(row["line"] == line)
            #expect(row["column"] == column)
            #expect((row["reason"] as String).contains(reason), "line \(line): \(row["reason"] as String)")
        }
        #expect(try store.well(identifier: "W9")?.detail.extra == ["total_depth": "NA", "spud_date": "2001-13-45"])
    }

    @Test func duplicateRuleLastKeepsTheLaterRow() throws {
        let file = try Fixtures.file("uwi,name,lat,lon\nA,first,51,-114\nB,other,52,-114\nA,second,51.5,-114.5\n")
        var options = LoadOptions()
        options.onDuplicate = .last
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: file, options: options)
        #expect(summary.duplicates == 1)
        #expect(summary.inserted == 2)
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT name FROM pins JOIN details ON pin_id = id WHERE uwi = 'A'") == "second")
            let reject = try Row.fetchOne(db, sql: "SELECT line, reason, raw FROM rejects")
            #expect(reject?["line"] == 2)
            #expect((reject?["reason"] as String?)?.contains("line 4") == true)
            #expect(reject?["raw"] == "A,first,51,-114\n")
        }
    }

    @Test func missingIdentifiersAreGeneratedOrRejected() throws {
        let file = try Fixtures.file("uwi,lat,lon\n,51,-114\nB,52,-114\n", name: "ids.csv")
        let store = try Fixtures.makeStore()
        let generated = try store.load(csvAt: file)
        #expect(generated.generatedIdentifiers == 1)
        #expect(try store.pool.read { try String.fetchOne($0, sql: "SELECT uwi FROM details ORDER BY uwi LIMIT 1") } == "B")
        #expect(try store.pool.read { try Bool.fetchOne($0, sql: "SELECT EXISTS(SELECT 1 FROM details WHERE uwi = ?)", arguments: [
            "ids.csv@" + RecordValidator.fileTag(header: ["uwi", "lat", "lon"], firstRecord: ["", "51", "-114"]) + ":2"]) } == true)
        var options = LoadOptions()
        options.onMissingIdentifier = .reject
        let rejected = try Fixtures.makeStore().load(csvAt: file, options: options)
        #expect(rejected.rejectReasons == ["missing identifier": 1])
    }

    @Test func dryRunWritesNothing() throws {
        let storePath = try Fixtures.storePath()
        let summary = try WellStore.dryRun(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        #expect(summary.mapping["uwi"] == "api_num")
        #expect(summary.mapping["lat"] == "latitude")
        #expect(summary.preview.count == 5)
        #expect(summary.preview.first?["uwi"] == "41-133-21968")
        #expect(!FileManager.default.fileExists(atPath: storePath))
    }

    @Test func mapOverridesAutomaticMapping() throws {
        let file = try Fixtures.file("ID,SURF_Y,SURF_X,Company\nA,51,-114,Acme\n")
        var options = LoadOptions()
        options.mapping = ["uwi": "ID", "lat": "SURF_Y", "lon": "SURF_X", "operator": "Company"]
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: file, options: options)
        let well = try store.fetchWells(WellFetchRequest()).first
        #expect(well?.detail.identifier == "A")
        #expect(well?.detail[.operator] == "Acme")
        #expect(well?.pin.latitude == 51.0)
    }
}
