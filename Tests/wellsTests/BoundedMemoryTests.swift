import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// Rejected rows cost no memory each: the peak resident set of `wells load` (`wait4`'s
/// `ru_maxrss`) on 1,000,000 rows of `,,,` is within 48 MB of its peak on 250,000 (64 bytes a
/// reject; a `Reject` each held in memory cost about 220, which made it 165 MB more), the
/// two sizes measured one after the other in this test.
@Suite(.lane(.slow), .serialized) struct BoundedMemoryTests {
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
            let small = try peak(rows: 250_000), large = try peak(rows: 1_000_000)
            print("BoundedMemoryTests: peak \(small / 1_048_576) MB for 250,000 rejected rows, \(large / 1_048_576) MB for 1,000,000")
            #expect(large - small < 750_000 * 64, "peak \(small) bytes for 250,000 rejected rows, \(large) for 1,000,000")
        }
    }
}
