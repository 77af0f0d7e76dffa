import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// A load that would need more memory than the machine has is refused before it reads the file.
@Suite struct LoadMemoryTests {
    @Test func shortfallNamesWhatIsNeededAndWhatIsFree() throws {
        #expect(LoadMemory.shortfall(wells: 1_000_000, available: 1 << 30) == nil)
        let message = try #require(LoadMemory.shortfall(wells: 10_000_000, available: 1 << 30))
        #expect(message.contains("about 1,081 MB of memory besides the file itself"))
        #expect(message.contains("about 10,000,000 wells at 100 bytes each), and 1,024 MB is available"))
        #expect(message.contains("nothing was changed"))
        #expect(LoadMemory.shortfall(wells: Int.max / 2, available: Int.max - 1) != nil)
        #expect(LoadMemory.shortfall(wells: Int.max / 2, available: nil) == nil)
        #expect((LoadMemory.available() ?? 0) > 0)
    }

    /// A sparse file of 3,000 real records (more than the sniffed bytes and the inference sample)
    /// and a terabyte of nothing after them: some 40 billion wells by the records' length, which no
    /// machine here holds; exit 71 with the message, before the NULs are read, and no store is left.
    @Test(.blocking) func aFileTooBigForMemoryIsRefusedBeforeItIsRead() throws {
        try withTemporaryDirectory("wells-memory") { directory in
            let csv = directory.appendingPathComponent("huge.csv").path
            let db = directory.appendingPathComponent("wells.sqlite").path
            let records = (0..<3_000).map { "A\($0),Well \($0),36.\(1000 + $0),-85.5\n" }.joined()
            try ("api,name,lat,lon\n" + records).write(toFile: csv, atomically: true, encoding: .utf8)
            #expect(truncate(csv, 1 << 40) == 0)
            let result = try HardeningTests.wells(["load", csv, "--db", db])
            #expect(result.status == 71, "\(result.err)")
            #expect(result.err.contains("loading this file needs about"))
            #expect(result.err.contains("split the file and load the parts one after another"))
            #expect(!FileManager.default.fileExists(atPath: db))
        }
    }
}
