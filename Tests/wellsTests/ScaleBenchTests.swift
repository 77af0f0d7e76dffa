import Foundation
import Testing
import WellsTestSupport
@testable import wells_bench

/// `wells-bench scale`: well lists of several sizes loaded by `wells load` and the C reference loader, as whole processes.
@Suite(.blocking) struct ScaleBenchTests {
    /// The repository root, from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The C reference loader that writes WellKit's schema, `Benchmarks/Reference/limit_load_wellkit.c`,
    /// built with gcc into `directory`.
    static func buildLimitLoad(into directory: URL) throws -> String {
        let source = repositoryRoot.appendingPathComponent("Benchmarks/Reference/limit_load_wellkit.c").path
        try #require(FileManager.default.fileExists(atPath: source), "missing \(source)")
        let binary = directory.appendingPathComponent("limit_load").path
        let gcc = try Command("/usr/bin/env", ["gcc", "-O2", "-o", binary, source, "-lsqlite3", "-lm"]).runWaiting()
        try #require(gcc.status == 0, "gcc could not build limit_load.c (gcc and libsqlite3-dev are installed by .ci/setup): \(gcc.err)")
        return binary
    }

    static func modificationDate(_ path: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }

    @Test func reportsEachSizeBesideTheCReference() throws {
        try withTemporaryDirectory("wells-scale") { directory in
            let limitLoad = try Self.buildLimitLoad(into: directory)
            let work = directory.appendingPathComponent("work")
            let run = try HardeningTests.wells(["bench", "scale", "--sizes", "2000,500", "--rounds", "1", "--format", "json",
                                                "--reference-load", limitLoad, "--work", work.path])
            #expect(run.status == 0, "\(run.err)")
            let report = try JSONDecoder().decode(ScaleBenchmark.Report.self, from: Data(run.out.utf8))
            #expect(report.rounds == 1)
            #expect(report.reference?.hasPrefix(limitLoad + " --journal wal --order hilbert --rtree packed --uwi-index") == true, "\(report.reference ?? "")")
            #expect(report.spawnFloorBytes > 0)
            // Ascending, whatever the order given.
            #expect(report.sizes.map(\.label) == ["500", "2000"])
            #expect(report.sizes.map(\.count) == [500, 2000])
            for size in report.sizes {
                // The generator writes clean lists: every record loads, and the C loader loads as many.
                #expect(size.rows == size.count && size.records == size.count && size.rejected == 0, "\(size)")
                let csv = work.appendingPathComponent("wells-\(size.label)-seed1.csv").path
                #expect(size.file == csv)
                #expect(size.csvBytes == (try FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int), "the CSV is cached in --work")
                #expect(size.seconds > 0 && size.peakRSSBytes > 0 && size.storeBytes > 0, "\(size)")
                #expect(abs(size.microsecondsPerWell - size.seconds / Double(size.rows) * 1e6) < 1e-6)
                #expect(abs(size.peakRSSBytesPerWellAboveCSV - Double(size.peakRSSBytes - size.csvBytes) / Double(size.rows)) < 1e-6)
                #expect(abs(size.storeBytesPerWell - Double(size.storeBytes) / Double(size.rows)) < 1e-6)
                #expect(!size.phases.isEmpty && size.phases.values.allSatisfy { $0 >= 0 && $0.isFinite }, "\(size.phases)")
                let c = try #require(size.reference)
                #expect(c.rows == size.rows)
                #expect(c.seconds > 0 && c.peakRSSBytes > 0 && c.storeBytes > 0, "\(c)")
                #expect(abs(c.wellsRatio - size.seconds / c.seconds) < 1e-9, "one round: the ratio of its two times")
            }
            #expect(report.sizes[0].timeRatio == 1 && report.sizes[0].rowsRatio == 1)
            #expect(report.sizes[1].rowsRatio == 4)
            #expect(abs(report.sizes[1].timeRatio - report.sizes[1].seconds / report.sizes[0].seconds) < 1e-9)
            // Every process measured, one per size, round and tool.
            #expect(report.runs.map { "\($0.size) \($0.tool) \($0.round)" }.sorted() == ["2000 C 1", "2000 wells 1", "500 C 1", "500 wells 1"])
            #expect(report.runs.filter { $0.tool == "wells" }.allSatisfy { $0.phases?.isEmpty == false })
            // The stores are gone without --keep-stores; the generated lists stay in --work for the next run.
            let left = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
            #expect(left == ["wells-2000-seed1.csv", "wells-500-seed1.csv"])
            #expect(report.keptStores.isEmpty)
        }
    }

    @Test func reusesCachedListsKeepsStoresAndLeavesOutTheCColumnsWithoutAReference() throws {
        try withTemporaryDirectory("wells-scale") { directory in
            let work = directory.appendingPathComponent("work")
            let arguments = ["bench", "scale", "--sizes", "300", "--rounds", "2", "--work", work.path]
            let first = try HardeningTests.wells(arguments + ["--format", "json"])
            #expect(first.status == 0, "\(first.err)")
            let csv = work.appendingPathComponent("wells-300-seed1.csv").path
            let generated = try Self.modificationDate(csv)
            let report = try JSONDecoder().decode(ScaleBenchmark.Report.self, from: Data(first.out.utf8))
            #expect(report.reference == nil && report.sizes.count == 1 && report.sizes[0].reference == nil)
            #expect(!first.out.contains("\"reference\""), "no C fields without --reference-load")
            #expect(report.runs.count == 2 && report.runs.allSatisfy { $0.tool == "wells" && $0.rows == 300 })

            let second = try HardeningTests.wells(arguments + ["--keep-stores"])
            #expect(second.status == 0, "\(second.err)")
            #expect(try Self.modificationDate(csv) == generated, "a list already in --work is not generated again")
            let store = work.appendingPathComponent("store-300-wells.sqlite").path
            #expect(FileManager.default.fileExists(atPath: store))
            #expect(second.err.contains("kept stores:\n  \(store)"), "\(second.err)")
            let lines = second.out.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("size ") && $0.contains("µs/well") && $0.contains("B/well > CSV") && !$0.contains("wells ÷ C") }, "\(second.out)")
            #expect(lines.contains { $0.hasPrefix("300 ") }, "\(second.out)")
            #expect(second.out.contains("Phases of wells load"), "\(second.out)")
        }
    }

    @Test func loadsGivenFiles() throws {
        try withTemporaryDirectory("wells-scale") { directory in
            let csv = directory.appendingPathComponent("four.csv").path
            try "api,name,lat,lon\nA1,Alpha,36.160,-85.500\nA2,Beta,36.161,-85.501\nA3,Gamma,36.170,-85.510\nA4,Delta,,\n"
                .write(toFile: csv, atomically: true, encoding: .utf8)
            let run = try HardeningTests.wells(["bench", "scale", "--file", csv, "--rounds", "1", "--format", "json"])
            #expect(run.status == 0, "\(run.err)")
            let report = try JSONDecoder().decode(ScaleBenchmark.Report.self, from: Data(run.out.utf8))
            let size = try #require(report.sizes.first)
            // Rows are what the load summary reports loaded: the row without coordinates is rejected.
            #expect(size.label == "four.csv" && size.count == nil && size.records == 4 && size.rejected == 1 && size.rows == 3, "\(size)")
        }
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let cases: [([String], Int32, String)] = [
            (["--sizes", "0"], 64, "--sizes must be from 1 to 9,999,998, got '0'"),
            (["--sizes", "500,100000001"], 64, "--sizes must be from 1 to 9,999,998, got '100000001'"),
            (["--sizes", "abc"], 64, #"--sizes must be whole numbers of wells, comma-separated, such as 24429,244292; "abc" is not"#),
            (["--sizes", "500,,2000"], 64, #"--sizes must be whole numbers of wells, comma-separated, such as 24429,244292; "" is not"#),
            (["--sizes", "1e3"], 64, #""1e3" is not"#),
            (["--rounds", "0"], 64, "--rounds must be from 1 to 1,000, got '0'"),
            (["--rounds", "9223372036854775807"], 64, "--rounds must be from 1 to 1,000"),
            (["--sizes", "500", "--file", "x.csv"], 64, "give --sizes or --file, not both"),
            (["--file", "/nonexistent/wells.csv"], 66, #"--file "/nonexistent/wells.csv": no readable file there"#),
            (["--sizes", "500", "--reference-load", "/nonexistent/limit_load"], 66,
             #"--reference-load "/nonexistent/limit_load": no executable there"#),
        ]
        for (arguments, status, message) in cases {
            let run = try HardeningTests.wells(["bench", "scale"] + arguments)
            #expect(run.status == status, "\(arguments): \(run.err)")
            #expect(run.err.contains(message), "\(arguments): \(run.err)")
            #expect(run.out.isEmpty, "\(arguments): \(run.out)")
        }
        let help = try HardeningTests.wells(["bench", "scale", "--help"])
        #expect(help.status == 0 && help.out.contains("Peak RSS: ru_maxrss") && help.out.contains("Examples:"), "\(help.out)")
    }
}
