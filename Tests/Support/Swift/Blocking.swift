import Dispatch
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

/// One thread (a serial queue) that runs the jobs of the tasks that prefer it
/// (`Task(executorPreference:)`, `withTaskExecutorPreference`), off Swift's cooperative pool: what
/// other suites do to that pool in the same process (the full suite runs them side by side, and
/// some block its two threads for seconds) cannot starve them.
package final class OneThread: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue
    package init(label: String = "WellsTestSupport.OneThread") { queue = DispatchQueue(label: label) }
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
