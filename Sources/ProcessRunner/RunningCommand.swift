import Foundation
import Subprocess
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension Command {
    /// Starts the command and returns once the child runs: a ``RunningCommand`` that the caller
    /// keeps (a server for a suite, a load to interrupt). Its standard output and error are
    /// captured (``Command/output`` and ``Command/errors`` must be `.capture`); with
    /// `keepingErrors`, only about the last that many bytes of standard error are kept.
    ///
    /// The child runs in a task on ``BlockingExecutor``, so starting it never waits for Swift's
    /// cooperative pool, and this may be called from anywhere.
    ///
    /// - Throws: a ``CommandError`` when it cannot start.
    package func start(keepingErrors limit: Int? = nil) throws -> RunningCommand {
        guard case .capture = output, case .capture = errors else {
            preconditionFailure("a started command's standard output and error are captured")
        }
        let captured = Captured(errorLimit: limit), input = InputGate(), started = Outcome<pid_t>(), ended = Outcome<CommandResult>()
        let start = ContinuousClock.now
        Task(executorPreference: BlockingExecutor.shared) {
            do {
                let status = try await launch { pid, streams, _ in
                    started.finish(.success(pid))
                    try await withThrowingTaskGroup(of: Bool.self) { group in
                        group.addTask { try await captured.read(streams); return true }
                        if let writer = streams.input {
                            group.addTask {
                                await input.waitUntilClosed()
                                try? await writer.finish()
                                return false
                            }
                        }
                        // The child ended (its output did): its input is no longer waited for.
                        while let finished = try await group.next(), !finished {}
                        group.cancelAll()
                    }
                }
                ended.finish(.success(CommandResult(status, stdout: captured.output, stderr: captured.errors,
                                                    seconds: (ContinuousClock.now - start).seconds)))
            } catch {
                started.finish(.failure(error))
                ended.finish(.failure(error))
            }
        }
        return RunningCommand(processIdentifier: try started.wait(), captured: captured, input: input, ended: ended)
    }
}

/// A child process that ``Command/start(keepingErrors:)`` started: its id, its output so far, its
/// input (closed when this goes), and how it ended.
package final class RunningCommand: Sendable {
    package let processIdentifier: pid_t
    private let captured: Captured
    private let input: InputGate
    private let ended: Outcome<CommandResult>

    fileprivate init(processIdentifier: pid_t, captured: Captured, input: InputGate, ended: Outcome<CommandResult>) {
        self.processIdentifier = processIdentifier
        self.captured = captured
        self.input = input
        self.ended = ended
    }

    deinit { input.close() }

    /// Whether the child has not been reaped yet.
    package var isRunning: Bool { ended.current == nil }

    /// Standard output so far.
    package var output: Data { captured.output }

    /// Standard error so far, as text.
    package var errorOutput: String { String(decoding: captured.errors, as: UTF8.self) }

    /// Standard error as text once it contains `marker` (a server's line saying where it listens),
    /// or once the child's output has ended.
    package func errorOutput(containing marker: String) async -> String {
        await captured.errors(containing: marker)
    }

    /// Closes the child's standard input, when it is ``Command/Input/keptOpen``.
    package func closeInput() { input.close() }

    /// Sends `signal` to the child, if it has not been reaped; whether it was sent.
    @discardableResult
    package func send(_ signal: Int32) -> Bool {
        isRunning && kill(processIdentifier, signal) == 0
    }

    /// Waits for the child to end: how it ended, with all it wrote.
    package func wait() async throws -> CommandResult {
        try await ended.value()
    }

    /// ``wait()`` for synchronous code.
    ///
    /// - Throws: a ``CommandError`` on a thread of Swift's cooperative pool, as ``waitFor(_:)``.
    package func waitUntilExit() throws -> CommandResult {
        try refuseOnTheCooperativePool()
        return try ended.wait()
    }
}

/// The standard input a started command holds open: closed once, by ``close()`` or when its
/// ``RunningCommand`` goes.
final class InputGate: Sendable {
    private enum State { case open, waiting(CheckedContinuation<Void, Never>), closed }
    private let state = Mutex(State.open)

    func close() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            defer { state = .closed }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        waiter?.resume()
    }

    /// Returns once ``close()`` has run, or the task is cancelled.
    func waitUntilClosed() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let closed = state.withLock { state in
                    if case .open = state, !Task.isCancelled {
                        state = .waiting(continuation)
                        return false
                    }
                    return true
                }
                if closed { continuation.resume() }
            }
        } onCancel: {
            close()
        }
    }
}
