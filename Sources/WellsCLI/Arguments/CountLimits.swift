import ArgumentParser
import WellKit

/// The ranges of the counts that `demo`, `generate` and the benchmarks take: a run must end, and its arithmetic must not overflow.
package enum CountLimits {
    /// The most runs, passes or rounds of one path.
    package static let maximumRepeats = 1_000
    /// The most rows to generate, viewports per size, whole processes or faulted rows.
    package static let maximumCount = 100_000_000

    /// Throws a usage error naming `option` unless `value` lies in `range`.
    package static func check(_ option: String, _ value: Int, in range: ClosedRange<Int>) throws {
        guard !range.contains(value) else { return }
        throw ValidationError("\(option) must be from \(grouped(range.lowerBound)) to \(grouped(range.upperBound)), got '\(value)'")
    }
}
