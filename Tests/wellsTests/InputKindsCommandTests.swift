import Foundation
import Testing
import WellsTestSupport
@testable import WellsCLI
@testable import WellKit

/// `wells load` of a workbook and an archive: `--sheet` and `--member`, the summary naming every
/// sheet (text and JSON), and the documented exit codes for what it cannot load.
@Suite(.blocking) struct InputKindsCommandTests {
    static let florida = RepositoryData.realList("fl-orphan-wells.xlsx")

    @Test func helpNamesTheKindsAndTheirFlags() {
        let help = Wells.helpMessage(for: Wells.Load.self)
        for text in ["--sheet", "--member", ".xlsx workbook", "GeoJSON", "shapefile"] {
            #expect(help.contains(text), "wells load --help lacks \(text)")
        }
    }

    @Test func aWorkbookLoadsNamingEverySheet() throws {
        let directory = try Fixtures.temporaryDirectory()
        let db = directory.appendingPathComponent("fl.sqlite").path
        let run = try HardeningTests.wells(["load", Self.florida, "--db", db, "-q"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("sheet \"export_OrphanWellsCurrenlyWorki\": 32 rows, 32 wells, 0 rejected"), "\(run.out)")
        #expect(run.out.contains("sheet \"Sheet1\": 24 rows, 0 wells, 0 rejected, 24 merged"), "\(run.out)")
        let json = try HardeningTests.wells(["load", Self.florida, "--dry-run", "--format", "json", "--sheet", "Sheet1"])
        #expect(json.status == 0, "\(json.err)")
        let summary = try JSONDecoder().decode(LoadSummary.self, from: Data(json.out.utf8))
        #expect(summary.sources.map { $0.name ?? "" } == ["Sheet1"] && summary.inserted == 24)
        #expect(summary.file == Self.florida)
        let missing = try HardeningTests.wells(["load", Self.florida, "--dry-run", "--sheet", "Wells"])
        #expect(missing.status == 64 && missing.err.contains("--sheet export_OrphanWellsCurrenlyWorki"), "\(missing.err)")
    }

    @Test func archivesLoadByMemberAndDamageIsExit65() throws {
        let directory = try Fixtures.temporaryDirectory()
        try Data("uwi,lat,lon\nA1,36.1,-85.2\nA2,36.2,-85.3\nA3,36.3,-85.4\n".utf8).write(to: directory.appendingPathComponent("a.csv"))
        try Data("uwi,lat,lon\nB1,35.1,-86.2\nB2,35.2,-86.3\n".utf8).write(to: directory.appendingPathComponent("b.csv"))
        let zip = try Command("/usr/bin/zip", ["-q", "two.zip", "a.csv", "b.csv"], workingDirectory: directory.path).runWaiting()
        try #require(zip.status == 0, "\(zip.err)")
        let path = directory.appendingPathComponent("two.zip").path
        let db = directory.appendingPathComponent("w.sqlite").path
        let one = try HardeningTests.wells(["load", path, "--member", "b.csv", "--db", db, "-q"])
        #expect(one.status == 0 && one.out.contains("member \"b.csv\": 2 records, 2 wells"), "\(one.out)\(one.err)")
        let absent = try HardeningTests.wells(["load", path, "--member", "c.csv", "--db", db, "-q"])
        #expect(absent.status == 64 && absent.err.contains("--member a.csv"), "\(absent.err)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = directory.appendingPathComponent("cut.zip").path
        try bytes.prefix(bytes.count - 30).write(to: URL(fileURLWithPath: cut))
        let damaged = try HardeningTests.wells(["load", cut, "--db", db, "-q"])
        #expect(damaged.status == 65 && damaged.err.contains("cut.zip") && damaged.err.contains("again"), "\(damaged.err)")
    }
}
