import Foundation
import Testing
import WellsTestSupport

/// `wells find --where` on inputs that crashed the parser or reached SQLite: usage errors, exit 64.
@Suite(.blocking) struct WhereLimitTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let run = try Command(InterruptedLoadTests.wells, arguments, output: .discard).runWaiting()
        return (run.status, run.err)
    }

    @Test func deepWideAndMistypedConditionsExit64() throws {
        try withTemporaryDirectory("wells-where") { directory in
            let csv = directory.appendingPathComponent("wells.csv")
            try Data("uwi,name,lat,lon,total_depth\n1,A,36.1,-85.1,1200\n".utf8).write(to: csv)
            let store = directory.appendingPathComponent("wells.sqlite").path
            #expect(try run(["load", csv.path, "--db", store, "--quiet"]).status == 0)
            for (condition, says) in [
                (String(repeating: "not ", count: 20_000) + "name = a", "nests deeper than 32 levels"),  // was a segmentation fault
                (String(repeating: "not ", count: 1_000) + "name = a", "nests deeper than 32 levels"),   // was SQLite's error, exit 70
                ((0..<5_000).map { "name = w\($0)" }.joined(separator: " or "), "more than 500 comparisons"),
                ("total_depth > abc", "total_depth is a number"),                                         // was 0 rows, exit 0
            ] {
                let result = try run(["find", "--where", condition, "--db", store])
                #expect(result.status == 64, "\(condition.prefix(30)): \(result.stderr.prefix(300))")
                #expect(result.stderr.contains(says), "\(result.stderr.prefix(300))")
                #expect(result.stderr.count < 1_000, "the message repeats the condition or the SQL")
            }
        }
    }
}
