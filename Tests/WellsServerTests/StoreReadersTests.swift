import Foundation
import Synchronization
import Testing
import WellKit
@testable import WellsServer

/// The server's reader connections: a request waits for one suspended, in line, and its SQLite work
/// runs on the connection's own thread, so that a slow query never holds the async threads that
/// answer everyone else.
@Suite struct StoreReadersTests {
    /// A store of three wells in a new folder, removed after `body`.
    static func withStore<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("readers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("w.csv").path
        try "uwi,name,lat,lon\nA,Alpha,51.0,-114.0\nB,Beta,51.1,-114.1\nC,Gamma,51.2,-114.2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("w.sqlite").path
        _ = try WellStore(path: path).load(csvAt: csv)
        return try await body(path)
    }

    /// Waits (suspended) until `condition` holds: the tasks under test start in their own time.
    static func until(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// A gate the test opens: a leased connection's work blocks on it, as a slow query would.
    final class Gate: Sendable {
        private let open = Atomic<Bool>(false)
        private let entered = Atomic<Bool>(false)
        /// Blocks until the test opens the gate, having marked that the work got its connection.
        func hold() {
            entered.store(true, ordering: .releasing)
            wait()
        }
        var isHeld: Bool { entered.load(ordering: .acquiring) }
        func release() { open.store(true, ordering: .releasing) }
        var isOpen: Bool { open.load(ordering: .acquiring) }
        func wait() { while !open.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) } }
    }

    /// The order in which leased work ran.
    final class Order: Sendable {
        private let list = Mutex<[Int]>([])
        func append(_ k: Int) { list.withLock { $0.append(k) } }
        var values: [Int] { list.withLock { $0 } }
    }

    @Test(.timeLimit(.minutes(5))) func blockedConnectionsLeaveTheAsyncThreadsFreeAndWaitersGoInOrder() async throws {
        try await Self.withStore { path in
            let readers = try StoreReaders(path: path, count: 1, timeout: .seconds(60))
            let gate = Gate()
            let order = Order()
            // The one connection, held by work that blocks until the gate opens.
            let holder = Task { try await readers.withLease { lease in gate.hold(); return try lease.read { try $0.fetchCount(WellFetchRequest()) } } }
            try await Self.until { gate.isHeld }
            // More requests than the machine has cores: each must wait suspended, holding no thread.
            var waiters: [Task<Int, any Error>] = []
            for k in 0..<(ProcessInfo.processInfo.activeProcessorCount * 4) {
                waiters.append(Task {
                    try await readers.withLease { lease in
                        order.append(k)
                        return try lease.read { try $0.fetchCount(WellFetchRequest()) }
                    }
                })
                try await Self.until { readers.waiting == k + 1 }   // in line, in this order
            }
            // With every connection busy, other async work still runs: had the waiters or the
            // blocked work held the cooperative threads, this would never finish.
            let other = await Task { (0..<1_000).reduce(0, +) }.value
            #expect(other == 499_500)
            #expect(order.values.isEmpty, "no waiter ran while the connection was held")
            gate.release()
            #expect(try await holder.value == 3)
            for waiter in waiters { #expect(try await waiter.value == 3) }
            #expect(order.values == Array(0..<waiters.count), "first come, first served")
        }
    }

    @Test(.timeLimit(.minutes(5))) func smallWorkGoesAheadOfLargeWorkInLine() async throws {
        try await Self.withStore { path in
            let readers = try StoreReaders(path: path, count: 1, timeout: .seconds(60))
            let gate = Gate()
            let order = Order()
            let holder = Task { try await readers.withLease { _ in gate.hold() } }
            try await Self.until { gate.isHeld }
            var waiters: [Task<Void, any Error>] = []
            for (k, small) in [(0, false), (1, false), (2, true), (3, false), (4, true)] {
                waiters.append(Task { try await readers.withLease(small: small) { _ in order.append(k) } })
                try await Self.until { readers.waiting == k + 1 }
            }
            gate.release()
            try await holder.value
            for waiter in waiters { try await waiter.value }
            #expect(order.values == [2, 4, 0, 1, 3], "small work first, each kind in arrival order")
        }
    }

    @Test(.timeLimit(.minutes(5))) func aRequestStillWaitingAtItsDeadlineAnswers503WithoutRunning() async throws {
        try await Self.withStore { path in
            let timeout = Duration.milliseconds(100)
            let readers = try StoreReaders(path: path, count: 1, timeout: timeout)
            let gate = Gate()
            let ran = Gate()
            let holder = Task { try await readers.withLease { _ in gate.hold() } }
            try await Self.until { gate.isHeld }
            let late = Task { try await readers.withLease { _ in ran.release() } }
            try await Self.until { readers.waiting == 1 }
            // The late request's deadline is its call's time plus the timeout, on the continuous
            // clock StoreReaders reads: its call came before it joined the line, so this instant
            // is past that deadline, and the request is still in line.
            try await ContinuousClock().sleep(until: ContinuousClock.now + timeout)
            gate.release()
            try await holder.value
            await #expect {
                try await late.value
            } throws: { error in
                (error as? Problem)?.status == .serviceUnavailable
            }
            #expect(!ran.isOpen, "the late request's work never ran")
        }
    }

    /// A store file replaced by `mv` while a request reads it: that request finishes on the old
    /// file, the next version read opens the new one, and later work reads it.
    @Test(.timeLimit(.minutes(5))) func workInFlightFinishesOnTheOldFileAndLaterWorkReadsTheNew() async throws {
        try await Self.withStore { path in
            let readers = try StoreReaders(path: path, count: 2, timeout: .seconds(60))
            let before = try #require(try readers.currentChangeToken(until: readers.newDeadline))
            let gate = Gate()
            let held = Task { try await readers.withLease { lease in gate.hold(); return try lease.read { try $0.fetchCount(WellFetchRequest()) } } }
            try await Self.until { gate.isHeld }
            // Two wells, built beside the store and renamed over it.
            let directory = (path as NSString).deletingLastPathComponent
            let csv = directory + "/new.csv", replacement = directory + "/new.sqlite"
            try "uwi,name,lat,lon\nD,Delta,52.0,-115.0\nE,Echo,52.1,-115.1\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let writer = try WellStore(path: replacement)
            _ = try writer.load(csvAt: csv)
            try writer.close()
            #expect(rename(replacement, path) == 0)
            let after = try #require(try readers.currentChangeToken(until: readers.newDeadline))
            #expect(after.opening == before.opening + 1 && after.file != before.file)
            // Small work, on the connection that large work leaves free.
            #expect(try await readers.withLease(small: true) { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } } == 2)
            gate.release()
            #expect(try await held.value == 3, "the request in flight read the old file")
        }
    }

    /// The line is bounded per kind: with the one connection held and `maximumWaiting` large
    /// pieces in line, one more is refused at once with 503 and `Retry-After`, while small work
    /// still joins its own line.
    @Test(.timeLimit(.minutes(5))) func aFullLineRefusesAtOnceWithRetryAfter() async throws {
        try await Self.withStore { path in
            let readers = try StoreReaders(path: path, count: 1, timeout: .seconds(60), maximumWaiting: 3)
            let gate = Gate()
            let holder = Task { try await readers.withLease { lease in gate.hold(); return try lease.read { try $0.fetchCount(WellFetchRequest()) } } }
            try await Self.until { gate.isHeld }
            var waiters: [Task<Int, any Error>] = []
            for k in 0..<3 {
                waiters.append(Task { try await readers.withLease { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } } })
                try await Self.until { readers.waiting == k + 1 }
            }
            await #expect(throws: Problem.self) {
                do {
                    _ = try await readers.withLease { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } }
                } catch let problem as Problem {
                    #expect(problem.status == .serviceUnavailable && problem.retryAfter == 1)
                    throw problem
                }
            }
            let small = Task { try await readers.withLease(small: true) { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } } }
            try await Self.until { readers.waiting == 4 }
            gate.release()
            #expect(try await holder.value == 3)
            #expect(try await small.value == 3)
            for waiter in waiters { #expect(try await waiter.value == 3) }
        }
    }

    /// Large work never takes the last connection: with two, while one is held by a sort of the
    /// whole store and more sorts wait, a box's page runs on the other at once.
    @Test(.timeLimit(.minutes(5))) func largeWorkLeavesAConnectionForSmallWork() async throws {
        try await Self.withStore { path in
            let readers = try StoreReaders(path: path, count: 2, timeout: .seconds(60))
            let gate = Gate()
            let holder = Task { try await readers.withLease { lease in gate.hold(); return try lease.read { try $0.fetchCount(WellFetchRequest()) } } }
            try await Self.until { gate.isHeld }
            let sorts = (0..<3).map { _ in Task { try await readers.withLease { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } } } }
            try await Self.until { readers.waiting == 3 }
            // Answered while the sort holds its connection and three more wait for theirs.
            #expect(try await readers.withLease(small: true) { lease in try lease.read { try $0.fetchCount(WellFetchRequest()) } } == 3)
            #expect(readers.waiting == 3 && !gate.isOpen)
            gate.release()
            #expect(try await holder.value == 3)
            for sort in sorts { #expect(try await sort.value == 3) }
        }
    }
}
