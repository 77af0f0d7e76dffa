import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// Every input costs time in proportion to its size: for each hostile shape, reading, inferring
/// and validating (`WellStore.dryRun`) 4× the bytes takes under 8× the time of 1×, both measured
/// in this test (the best of three runs each, so that a busy machine slows both alike). Quadratic
/// growth gives about 16×: the quoted-field scan that grew a chunk at a time took 19.3 s on 32 MB.
/// (Under 6× failed once, at 6.1×, with two whole test runs sharing the two cores.)
@Suite(.lane(.slow)) struct LinearInputTests {
    /// The shapes, each a file of about `bytes` bytes.
    static let shapes: [(name: String, make: @Sendable (Int) -> [UInt8])] = [
        ("only quote characters", { Array(repeating: UInt8(ascii: "\""), count: $0) }),
        ("one line without a line break", { Array(repeating: UInt8(ascii: "x"), count: $0) }),
        ("four wells with one huge quoted name each", { bytes in
            var file = Array("uwi,name,lat,lon\n".utf8)
            for k in 0..<4 {
                file += Array("W\(k),\"".utf8) + Array(repeating: UInt8(ascii: "n"), count: bytes / 4) + Array("\",50.1,-114.2\n".utf8)
            }
            return file
        }),
        // Every row a copy of one well: the duplicates' grouping compared each copy with all the
        // others (100,000 copies of one identifier took minutes).
        ("one identifier on every row", { bytes in
            var file = Array("uwi,name,lat,lon\n".utf8)
            let row = Array("W1,Well,50.1,-114.2\n".utf8)
            while file.count < bytes { file += row }
            return file
        }),
        ("\(WellStore.maximumColumns) columns", { bytes in
            let columns = WellStore.maximumColumns
            var file = Array((["uwi", "name", "lat", "lon"] + (4..<columns).map { "c\($0)" }).joined(separator: ",").utf8) + [10]
            let rest = Array(String(repeating: ",x", count: columns - 4).utf8) + [10]
            var k = 0
            while file.count < bytes {
                file += Array("W\(k),Well \(k),50.\(k % 1000),-114.\(k % 997)".utf8) + rest
                k += 1
            }
            return file
        }),
    ]

    @Test(arguments: shapes.indices) func timeGrowsInProportionToTheInput(shape: Int) async throws {
        // Measured on a thread of its own; the expectation is the test's (an issue recorded on
        // that thread belonged to no test).
        let (name, small, large) = try await runBlocking { try Self.measure(shape: shape) }
        #expect(large < 8 * small, "\(name): 8 MB took \(large) s, 2 MB \(small) s (\(large / small)×)")
    }

    /// The shape's name and the least of three times to read 2 MB and 8 MB of it.
    static func measure(shape: Int) throws -> (name: String, small: Double, large: Double) {
        let (name, make) = Self.shapes[shape]
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            func file(_ bytes: Int) throws -> String {
                let path = directory.appendingPathComponent("input-\(bytes).csv").path
                try Data(make(bytes)).write(to: URL(fileURLWithPath: path))
                return path
            }
            func seconds(_ path: String) -> Double {
                let clock = ContinuousClock.now
                _ = try? WellStore.dryRun(csvAt: path)   // refused or read: either way, its cost is what counts
                return (ContinuousClock.now - clock).seconds
            }
            // The sizes take turns, so that a busy spell of the machine (other tests run beside
            // this one) slows both rather than one; the least of three runs each.
            let paths = (small: try file(2_000_000), large: try file(8_000_000))
            var runs: [(small: Double, large: Double)] = []
            for _ in 0..<3 { runs.append((seconds(paths.small), seconds(paths.large))) }
            let small = runs.map(\.small).min()!, large = runs.map(\.large).min()!
            print("LinearInputTests: \(name): 2 MB \(small) s, 8 MB \(large) s, \(large / small)×")
            return (name, small, large)
        }
    }
}
