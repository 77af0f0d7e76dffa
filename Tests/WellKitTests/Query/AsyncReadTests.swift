import Dispatch
import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Where the async reads of a store file run: on GRDB's reader connections, never holding a thread
/// of Swift's cooperative pool, and cancelled with their task.
@Suite struct AsyncReadTests {
    /// A store of a few wells, and its pool's readers all held by threads of the test until released.
    final class HeldReaders: Sendable {
        let store: WellStore
        private let release = DispatchSemaphore(value: 0)
        private let readers: Int

        init(readers: Int = Configuration().maximumReaderCount) async throws {
            store = try Fixtures.makeStore()
            var csv = "uwi,name,lat,lon\n"
            for k in 0..<50 { csv += "W\(k),Well \(k),\(50 + Double(k) / 100),-114\n" }
            _ = try store.load(csvAt: try Fixtures.file(csv))
            self.readers = readers
            let (held, signal) = AsyncStream.makeStream(of: Void.self)
            for _ in 0..<readers {
                Thread.detachNewThread { [store, release] in
                    try? store.pool.read { _ in
                        signal.yield()
                        release.wait()
                    }
                }
            }
            // Every reader is taken once each thread has said so from inside its read.
            var count = 0
            for await _ in held {
                count += 1
                if count == readers { break }
            }
        }

        func releaseAll() { for _ in 0..<readers { release.signal() } }
    }

    /// With every reader busy, many async reads wait, all started from one thread, and that thread
    /// still runs other work; released, each gets its answer. (Reads that blocked their thread
    /// would leave none for the probe task, queued after them.)
    @Test(.timeLimit(.minutes(5))) func waitingReadsLeaveTheirThreadFree() async throws {
        let held = try await HeldReaders()
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)], limit: 5)
        let waiting = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let thread = OneThread(label: "AsyncReadTests.OneThread")
        try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<waiting { group.addTask(executorPreference: thread) { try await held.store.ids(matching: request) } }
            let probe = DispatchSemaphore(value: 0)
            Task(executorPreference: thread) { probe.signal() }
            // Watched from a thread of its own, since the pool may have none left: whether the probe
            // ran within 10 s; then the readers go, which frees blocked threads too.
            let poolWasFree = try await runBlocking {
                let ran = probe.wait(timeout: .now() + 10) == .success
                held.releaseAll()
                return ran
            }
            #expect(poolWasFree, "the waiting reads held the thread they were started from")
            var answers: [[Int64]] = []
            for try await ids in group { answers.append(ids) }
            let expected = try held.store.fetchIDs(request)
            #expect(expected.count == 5)
            #expect(answers == Array(repeating: expected, count: waiting))
        }
    }

    /// A read cancelled while it waits for a reader throws `CancellationError` instead of running.
    @Test(.timeLimit(.minutes(5))) func cancellingTheTaskStopsTheRead() async throws {
        let held = try await HeldReaders()
        let read = Task { try await held.store.count(matching: WellFetchRequest()) }
        read.cancel()
        held.releaseAll()
        await #expect(throws: CancellationError.self) { try await read.value }
        #expect(try await held.store.count(matching: WellFetchRequest()) == 50)
    }
}
