import ArgumentParser
import Foundation
import WellKit

extension Wells {
    /// `wells generate`: writes a deterministic synthetic Alberta-like well list as CSV.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a synthetic Alberta-like well list as CSV, byte-identical for the same count and seed.")

        @Option(help: "The number of data rows to write.")
        var count: Int = WellGenerator.defaultCount

        @Option(help: "The seed of the pseudo-random stream.")
        var seed: UInt64 = 1

        @Flag(help: "Corrupt about 1% of rows, leave a quote unclosed at the end, and print the counts on standard error.")
        var dirty = false

        @Option(help: "The output file, which is replaced if it exists; standard output when omitted.")
        var out: String?

        func validate() throws {
            guard count >= 1 else {
                throw ValidationError("--count must be at least 1, got '\(count)'.")
            }
        }

        func run() async throws {
            let generator = WellGenerator(count: count, seed: seed, dirty: dirty)
            let report: WellGenerator.DirtyReport
            if let out {
                report = try generator.write(toFileAt: out)
            } else {
                report = try generator.writeToStandardOutput()
            }
            if dirty {
                let line = "dirty rows injected: \(report)\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
        }
    }
}
