import Synchronization

/// What finished, in order, appended from any task: for tests that check an order of events
/// rather than a stopwatch.
package final class Events: Sendable {
    private let list = Mutex<[String]>([])

    package init() {}

    package func append(_ event: String) { list.withLock { $0.append(event) } }

    package var values: [String] { list.withLock { $0 } }
}
