import Foundation
import ProcessRunner
import Synchronization
import Testing

/// For a suite whose tests wait for child processes synchronously (``Command/runWaiting()``, the
/// helpers built on it): each test case runs off Swift's cooperative pool (``offThePool(_:)``),
/// and, as on that pool's threads, no more of them at once than the machine has cores.
///
/// A synchronous test runs on a thread of the cooperative pool, and swift-subprocess needs a thread
/// of that pool to finish each run: two such tests waiting at once on a two-core machine would wait
/// forever, which is why ``Command/runWaiting()`` refuses to wait there. Tests that `await` the
/// runner (``Command/run()``) or run in ``runBlocking(_:)`` need no trait.
package struct BlockingTrait: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    /// One scope per test case, none for the suite (which would hold a place for all its tests).
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.places.take()
        defer { Self.places.give() }
        try await offThePool { try await function() }
    }

    /// As many places as the cooperative pool has threads.
    private static let places = Places(ProcessInfo.processInfo.activeProcessorCount)
}

extension Trait where Self == BlockingTrait {
    /// The suite's tests wait for child processes synchronously: see ``BlockingTrait``.
    package static var blocking: Self { BlockingTrait() }
}

/// A counting semaphore that tasks wait on without holding a thread.
private final class Places: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: max(1, count))) }

    func take() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func give() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
