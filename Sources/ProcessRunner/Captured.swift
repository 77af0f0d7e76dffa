import Foundation
import Subprocess
import Synchronization

/// What a child wrote to its standard output and error, read from both pipes at once as it writes
/// (a child that fills one while this process waits on the other would stall).
final class Captured: Sendable {
    private struct State {
        var output = Data()
        var errors = Data()
        /// Both streams have ended.
        var ended = false
        /// Waiters for a text in standard error (``errors(containing:)``).
        var waiters: [(marker: String, continuation: CheckedContinuation<String, Never>)] = []
    }

    private let state = Mutex(State())
    /// When standard error grows past this many bytes, only its last half of them is kept.
    private let errorLimit: Int?

    init(errorLimit: Int? = nil) {
        self.errorLimit = errorLimit
    }

    /// Standard output so far.
    var output: Data { state.withLock { $0.output } }
    /// Standard error so far.
    var errors: Data { state.withLock { $0.errors } }

    /// Reads the streams of `streams` that the command captures, both at once, to their ends.
    func read(_ streams: Streams) async throws {
        defer { end() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let output = streams.output {
                group.addTask { for try await chunk in output { self.append(chunk, toErrors: false) } }
            }
            if let errors = streams.errors {
                group.addTask { for try await chunk in errors { self.append(chunk, toErrors: true) } }
            }
            try await group.waitForAll()
        }
    }

    /// Standard error as text once it contains `marker`, or once the child's streams have ended.
    func errors(containing marker: String) async -> String {
        await withCheckedContinuation { continuation in
            let ready: String? = state.withLock { state in
                let text = String(decoding: state.errors, as: UTF8.self)
                if state.ended || text.contains(marker) { return text }
                state.waiters.append((marker, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func append(_ chunk: SubprocessOutputSequence.Buffer, toErrors: Bool) {
        let ready: [(CheckedContinuation<String, Never>, String)] = state.withLock { state in
            chunk.withUnsafeBytes { bytes in
                if toErrors { state.errors.append(contentsOf: bytes) } else { state.output.append(contentsOf: bytes) }
            }
            if toErrors, let errorLimit, state.errors.count > errorLimit {
                state.errors = Data(state.errors.suffix(errorLimit / 2))
            }
            guard toErrors, !state.waiters.isEmpty else { return [] }
            let text = String(decoding: state.errors, as: UTF8.self)
            let (met, waiting) = (state.waiters.filter { text.contains($0.marker) }, state.waiters.filter { !text.contains($0.marker) })
            state.waiters = waiting
            return met.map { ($0.continuation, text) }
        }
        for (continuation, text) in ready { continuation.resume(returning: text) }
    }

    private func end() {
        let (waiters, text) = state.withLock { state in
            state.ended = true
            defer { state.waiters = [] }
            return (state.waiters, String(decoding: state.errors, as: UTF8.self))
        }
        for waiter in waiters { waiter.continuation.resume(returning: text) }
    }
}
