import Dispatch
import Foundation
import Synchronization

/// An executor for code that blocks: each job runs on a thread of GCD's overcommitting pool (a
/// serial queue of its own), which grows when its threads wait, so a blocking wait there holds
/// none of Swift's cooperative threads (two on a two-core machine).
///
/// Why it matters here: swift-subprocess 1.0.2 ends every run through an unstructured `Task`
/// (`withUncancelledTask`, Teardown.swift), which no task executor preference reaches: it needs a
/// thread of the cooperative pool to start and to finish. A synchronous wait for a child on each of
/// the pool's threads would therefore wait forever. ``waitFor(_:)`` refuses to wait there, and
/// ``offThePool(_:)`` moves code that waits onto this executor.
package final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = BlockingExecutor()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "ProcessRunner.BlockingExecutor").async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs `body` with ``BlockingExecutor`` as its task executor preference: its synchronous waits for
/// child processes (``Command/runWaiting()``, ``RunningCommand/waitUntilExit()``) then hold no
/// thread of Swift's cooperative pool, and they are allowed.
package func offThePool<T>(_ body: () async throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(BlockingExecutor.shared) { try await body() }
}

/// Whether this thread is one of Swift's cooperative pool: in a task without an executor
/// preference, and not the main thread (a custom actor's executor is taken for the pool too).
var onTheCooperativePool: Bool {
    !Thread.isMainThread && withUnsafeCurrentTask { task in task != nil && task!.unownedTaskExecutor == nil }
}

/// Throws when this thread is one of Swift's cooperative pool, where a synchronous wait for a
/// child could hold the last thread that swift-subprocess needs to finish the run.
func refuseOnTheCooperativePool() throws {
    guard onTheCooperativePool else { return }
    throw CommandError("""
        a synchronous wait for a child process on a thread of Swift's cooperative pool, whose run needs \
        a thread of that pool to finish: await the async form, or run the caller off the pool \
        (offThePool, or the suite trait .blocking of the tests)
        """)
}

/// Runs `operation` to its end while the calling thread waits, for synchronous code: the operation
/// runs on ``BlockingExecutor``.
///
/// - Throws: what `operation` throws, or a ``CommandError`` when called on a thread of Swift's
///   cooperative pool, where the wait could hold the last thread the operation needs: call the
///   async form there, or wrap the caller in ``offThePool(_:)`` (tests: the suite trait `.blocking`).
package func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
    try refuseOnTheCooperativePool()
    let outcome = Outcome<T>()
    Task(executorPreference: BlockingExecutor.shared) {
        do { outcome.finish(.success(try await operation())) } catch { outcome.finish(.failure(error)) }
    }
    return try outcome.wait()
}

/// A value one task sets once, and that threads (``wait()``) or tasks (``value()``) wait for.
final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiters: [CheckedContinuation<T, any Error>] = []
    }
    private let state = Mutex(State())
    private let set = DispatchSemaphore(value: 0)

    /// Sets the value, if it was not set yet.
    func finish(_ result: Result<T, any Error>) {
        let waiters: [CheckedContinuation<T, any Error>]? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return }
        set.signal()
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Waits for the value, holding the calling thread.
    func wait() throws -> T {
        set.wait()
        set.signal()
        return try current!.get()
    }

    /// Waits for the value without holding a thread.
    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<T, any Error>? = state.withLock { state in
                if let result = state.result { return result }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The value, if it was set.
    var current: Result<T, any Error>? { state.withLock { $0.result } }
}
