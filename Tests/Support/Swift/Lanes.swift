import Foundation
import Testing

/// The lanes of the tests. `swift test` runs everything; `WELLS_FAST=1 swift test` is the fast
/// lane, which leaves out what needs a database server, an HTTP server, a browser or seconds of
/// work. A test or a suite joins a lane with this trait, `@Test(.lane(.slow))` or
/// `@Suite(.lane(.postgres))`, and with WELLS_FAST set it is skipped, as `.disabled(if:)` would
/// skip it, with the lane named as the reason.
///
/// The lane is one trait rather than a Swift Testing tag beside a condition: a `Tag` is read only
/// from `.tags(…)` (`Test.tags` collects `Tag.List`), so a tag and its condition would be two
/// things to write, and a test that got the one without the other would slow the fast lane down
/// unnoticed. There are no lane tags, so a lane is the only thing there is to write.
package struct Lane: TestTrait, SuiteTrait {
    package enum Name: String, Sendable, CaseIterable {
        /// Needs a PostgreSQL/PostGIS server: the tests start a throwaway cluster.
        case postgres
        /// Drives headless Chromium.
        case browser
        /// Starts `wells serve` (as a child process, or in process with HummingbirdTesting) and talks HTTP to it.
        case server
        /// Loads hundreds of thousands of wells, or runs whole processes for seconds.
        case slow
    }

    package let name: Name
    /// Where the trait is written, for the skip's report.
    package let sourceLocation: SourceLocation

    /// Whether this run is the fast lane: `WELLS_FAST` set to anything but empty or `0`.
    package static var isFastLane: Bool {
        guard let value = ProcessInfo.processInfo.environment["WELLS_FAST"] else { return false }
        return !value.isEmpty && value != "0"
    }

    /// The suite's lane holds for each of its tests.
    package var isRecursive: Bool { true }

    package func prepare(for test: Test) async throws {
        try await ConditionTrait.disabled(if: Self.isFastLane, "WELLS_FAST leaves out the \(name.rawValue) lane",
                                          sourceLocation: sourceLocation).prepare(for: test)
    }
}

extension Trait where Self == Lane {
    /// The test or suite is in lane `name`: skipped when WELLS_FAST is set.
    package static func lane(_ name: Lane.Name, sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        Lane(name: name, sourceLocation: sourceLocation)
    }
}
