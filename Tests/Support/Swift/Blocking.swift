import Foundation

/// Runs `body` on a thread of its own while the calling test waits suspended.
///
/// For tests whose work blocks for seconds (child processes, a CPU-bound timing): run directly, a
/// synchronous test holds one of Swift's cooperative threads (two on a two-core machine) for as
/// long as it runs, and the async tests beside it (a server's, the readers' polling) starve past
/// their time limits.
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
