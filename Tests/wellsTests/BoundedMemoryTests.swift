import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// Rejected rows cost no memory each: the peak resident set of `wells load` (`wait4`'s
/// `ru_maxrss`) on 2,000,000 rows of `,,,` is within 112 MB of its peak on 250,000 (64 bytes a
/// reject; a `Reject` each held in memory cost about 220, which made it some 385 MB more), the
/// two sizes measured one after the other in this test.
@Suite(.lane(.slow), .serialized, .blocking) struct BoundedMemoryTests {
    /// A first line of 2 MiB with no line break (no header is so long) is refused before its
    /// "names" go through the inference, which on a 40 MB line took 25 s; it names the file and line.
    @Test func aHeaderLongerThanTheLimitIsRefused() throws {
        try withTemporaryDirectory("wells-long-header") { directory in
            let path = directory.appendingPathComponent("one-line.csv").path
            try Data(repeating: UInt8(ascii: "x"), count: 2 << 20).write(to: URL(fileURLWithPath: path))
            let store = directory.appendingPathComponent("s.sqlite").path
            let run = try LoadSafetyTests.wells(["load", path, "--db", store, "--quiet"])
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("wells: error: \(path):1: the header is 2,097,152 bytes long, more than the 1,048,576"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: store))
        }
    }

    @Test func rejectedRowsDoNotGrowTheLoadsMemory() throws {
        try withTemporaryDirectory("wells-memory") { directory in
            func peak(rows: Int) throws -> Int {
                let path = directory.appendingPathComponent("empty-\(rows).csv").path
                try Data(("id,name,lat,lon\n" + String(repeating: ",,,\n", count: rows)).utf8).write(to: URL(fileURLWithPath: path))
                let store = directory.appendingPathComponent("s.sqlite").path
                let run = try Measuring.run(InterruptedLoadTests.wells, ["load", path, "--db", store, "--quiet"])
                #expect(run.status == 65, "\(run.stderr)")
                #expect(run.stderr.contains("none of the \(grouped(rows)) records loaded"), "\(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: store))
                return run.peakResidentBytes
            }
            let small = try peak(rows: 250_000), large = try peak(rows: 2_000_000)
            print("BoundedMemoryTests: peak \(small / 1_048_576) MB for 250,000 rejected rows, \(large / 1_048_576) MB for 2,000,000")
            #expect(large - small < 1_750_000 * 64, "peak \(small) bytes for 250,000 rejected rows, \(large) for 2,000,000")
        }
    }

    /// Duplicates are rejected after the file is read, each a record the load holds anyway (some
    /// 40 bytes in `ScannedRecords`): their rejects go to disk too. 2,000,000 copies of one well
    /// peak within 250 bytes a copy of 250,000 (measured: 168; a `Reject` each in memory cost about 400 more:
    /// its reason names the identifier and the line kept).
    @Test func duplicateRowsDoNotGrowTheLoadsMemoryByTheirRejects() throws {
        try withTemporaryDirectory("wells-memory-duplicates") { directory in
            func peak(rows: Int) throws -> Int {
                let path = directory.appendingPathComponent("copies-\(rows).csv").path
                try Data(("id,name,lat,lon\n" + String(repeating: "W1,Well,50.1,-114.2\n", count: rows)).utf8).write(to: URL(fileURLWithPath: path))
                let store = directory.appendingPathComponent("s-\(rows).sqlite").path
                let run = try Measuring.run(InterruptedLoadTests.wells, ["load", path, "--db", store, "--quiet"])
                #expect(run.status == 0, "\(run.stderr)")
                return run.peakResidentBytes
            }
            let small = try peak(rows: 250_000), large = try peak(rows: 2_000_000)
            print("BoundedMemoryTests: peak \(small / 1_048_576) MB for 250,000 copies of one well, \(large / 1_048_576) MB for 2,000,000")
            #expect(large - small < 1_750_000 * 250, "peak \(small) bytes for 250,000 copies, \(large) for 2,000,000")
        }
    }
}
