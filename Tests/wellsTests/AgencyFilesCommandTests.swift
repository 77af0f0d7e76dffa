import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// Issue 60's rows through `wells`: a GeoPackage with every field, read back by GDAL field by field;
/// units in the summary, `wells show` and `count --mean` over a list in feet and one in metres; the
/// lines skipped before a header in the load's summary.
@Suite struct AgencyFilesCommandTests {
    static func wells(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try HardeningTests.wells(arguments)
    }

    static func fixture(_ name: String) -> String {
        RepositoryData.root.appendingPathComponent("Tests/Fixtures/AgencyFiles/\(name)").path
    }

    /// The rows of CSV text, as dictionaries by its header.
    static func rows(_ csv: String) -> [[String: String]] {
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = CSVSplit.fields(lines.removeFirst())
        return lines.map { Dictionary(zip(header, CSVSplit.fields($0)), uniquingKeysWith: { a, _ in a }) }
    }

    /// `--format gpkg --fields '*'` writes the unmapped columns (blank-headed ones too) as layer
    /// fields (column_15 holds no value in Florida's list, so `*` has none of it): `ogrinfo` lists them, and every feature's every field, read by `ogr2ogr`, is the CSV's.
    @Test(.lane(.slow)) func geoPackageWritesEveryField() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-gpkg-fields") { directory in
                let store = directory.appendingPathComponent("fl.sqlite").path
                let load = try Self.wells(["load", Self.fixture("fl-orphan-wells.csv"), "--db", store, "--quiet"])
                #expect(load.status == 0, "\(load.err)")
                let csv = try Self.wells(["find", "--fields", "*", "--format", "csv", "--db", store])
                #expect(csv.status == 0, "\(csv.err)")
                let expected = Self.rows(csv.out)
                #expect(expected.count == 32)
                let columns = CSVSplit.fields(String(csv.out.prefix { $0 != "\n" }))
                #expect(columns.contains("extra.column_16") && columns.contains("extra.Measured Depth"), "\(columns)")
                let gpkg = directory.appendingPathComponent("fl.gpkg").path
                let run = try Self.wells(["find", "--fields", "*", "--format", "gpkg", "--out", gpkg, "--db", store])
                #expect(run.status == 0, "\(run.err)")
                #expect(!run.err.contains("WellKit."), "\(run.err)")
                guard let info = try GeoPackageNearTests.tool("ogrinfo", ["-so", "-al", gpkg]),
                      let dump = try GeoPackageNearTests.tool("ogr2ogr", ["-f", "CSV", "/vsistdout/", gpkg]) else { return }
                #expect(info.contains("Feature Count: 32\n"), "\(info)")
                for column in columns where column != "lat" && column != "lon" {
                    #expect(info.contains("\n\(column): "), "\(column) in \(info)")
                }
                let read = Dictionary(Self.rows(dump).map { ($0["uwi"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
                #expect(read.count == 32)
                for row in expected {
                    let feature = try #require(read[row["uwi"] ?? ""], "\(row)")
                    for column in columns where column != "lat" && column != "lon" {
                        let want = row[column] ?? "", got = feature[column] ?? ""
                        if let a = Double(want), let b = Double(got) { #expect(abs(a - b) <= 1e-9 * max(1, abs(a)), "\(column): \(got) for \(want)"); continue }
                        #expect(got == want, "\(row["uwi"]!) \(column): gpkg \(got), csv \(want)")
                    }
                }
            }
        }
    }

    /// Units: the summary says them, `wells show` says the load's, `count --mean total_depth` over a
    /// list in feet and one in metres of the same sites gives one mean; `--units` overrides and checks its words.
    @Test(.lane(.slow)) func unitsAreSaidAndComparable() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-units") { directory in
                let store = directory.appendingPathComponent("units.sqlite").path
                let feet = try Self.wells(["load", Self.fixture("nwis-pa-depths-ft.tsv"), "--db", store, "--quiet"])
                #expect(feet.status == 0, "\(feet.err)")
                #expect(feet.out.contains("units                  ground_elevation ft, total_depth ft in the source; stored in metres"), "\(feet.out)")
                let metres = try Self.wells(["load", Self.fixture("nwis-pa-depths-m.csv"), "--db", store, "--quiet", "--format", "json"])
                #expect(metres.status == 0 && metres.out.contains("\"units\""), "\(metres.err)")
                let show = try Self.wells(["show", "390158080105501", "--db", store])
                #expect(show.out.contains("source_units") && show.out.contains("ground_elevation ft, total_depth ft (load 1); stored in metres"), "\(show.out)")
                #expect(show.out.contains("33.528"), "\(show.out)")
                let both = try ["uwi beginswith M-", "uwi beginswith 3"].map { condition in
                    Double(Self.rows(try Self.wells(["count", "--where", condition, "--mean", "total_depth", "--format", "csv", "--db", store]).out)
                        .first?["mean_total_depth"] ?? "") ?? .nan
                }
                // The same sites' mean depth, in metres from either list (the metres list rounds to 0.01 m).
                #expect(abs(both[0] - both[1]) < 0.01 && both[0] > 10, "\(both)")
                let bad = try Self.wells(["load", Self.fixture("nwis-pa-depths-m.csv"), "--db", store, "--units", "depth=yards"])
                #expect(bad.status == 64 && bad.err.contains("expected depth=ft, depth=m, elevation=ft or elevation=m"), "\(bad.err)")
                let dry = try Self.wells(["load", Self.fixture("nwis-pa-depths-m.csv"), "--db", store, "--units", "depth=ft", "--dry-run"])
                #expect(dry.out.contains("unit ← Well Depth (m): total_depth in ft, stored in metres (× 0.3048) (given; override with --units depth=ft (or m))"), "\(dry.out)")
            }
        }
    }

    /// The summary of a load (not only the dry run) says how many lines came before the header, and the first.
    @Test func skippedLinesAreInTheLoadSummary() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-titles") { directory in
                let file = directory.appendingPathComponent("export.csv")
                try Data(("Colorado ECMC - Orphaned Wells Export\n\nLocationID,Latitude,Longitude,Status\n"
                    + "310932,40.38471,-102.29526,_Federal\n310933,40.37459,-102.29448,_Federal\n310934,40.37846,-102.28364,_Federal\n").utf8).write(to: file)
                let run = try Self.wells(["load", file.path, "--db", directory.appendingPathComponent("t.sqlite").path, "--quiet"])
                #expect(run.status == 0, "\(run.err)")
                #expect(run.out.contains("lines before header    2 skipped, the first: \"Colorado ECMC - Orphaned Wells Export\""), "\(run.out)")
            }
        }
    }
}
