import Foundation
import Synchronization
import WellKit

/// The server's read-only connections to the store, used side by side, with the request
/// timeout and the change token that ETags are made of.
///
/// A request's SQLite work (``withLease(small:_:)``) joins a line while its task waits suspended,
/// holding no thread: small work (a box's page, one well) first, each kind first come first served.
/// Each connection has a thread of its own that takes the next piece of work from the line as soon
/// as it is done with the last (it sleeps only when the line is empty). So unbounded work never
/// runs on the async threads that answer the other requests, and a slow query delays only the
/// requests that need a connection; small work that finds a connection idle and no one waiting
/// runs at once on its caller's thread, saving two thread hops.
/// Deadlines sit in a table that one watchdog thread scans; the change token is read from memory,
/// or through a connection of its own, with the request's deadline too.
/// (A GCD timer per request and a shared queue for the token kept the server switching threads:
/// city-box `items` ran at 1,446 requests/s under wrk with 16 connections, against 21,500 for an
/// empty response; see the README.)
final class StoreReaders: Sendable {
    /// The connections, each with the thread its queries run on.
    private let lanes: [Lane]
    /// The connections whose thread is idle, and the work waiting for a connection: small work
    /// first, each kind in arrival order.
    private let line: Mutex<Line>
    private let timeout: Duration
    /// Nil when the store's change token cannot be read (a store in a read-only directory opened
    /// immutable): responses then carry no ETag.
    private let changes: ChangeTokens?
    /// The store `changes` reads through (PostgreSQL's token is a query): not a lane's, so that
    /// the watchdog's interrupt of an overdue token read stops no lane's query.
    private let tokenStore: WellStore?
    /// The last token read and when: reused for at most ``tokenReuse`` to tag fresh responses.
    private let lastToken = Mutex<(token: Int64?, read: ContinuousClock.Instant)>((nil, .now - .seconds(1)))
    private static let tokenReuse: Duration = .milliseconds(2)
    /// Requests in flight: their connection, deadline and whether the watchdog stopped them.
    private let inFlight = Mutex<(next: Int, reads: [Int: (store: WellStore, deadline: ContinuousClock.Instant, timedOut: Bool)])>((0, [:]))
    /// Distinguishes this run's tokens from another run's, whose data_version may repeat.
    let runID: String

    init(path: String, count: Int, timeout: Duration) throws {
        // The watchdog's interrupt stops a PostgreSQL query by closing its connection; the
        // server's statement_timeout stops the statement there too, which the closed connection's
        // backend would otherwise run to its end.
        func open() throws -> WellStore {
            let store = try WellStore(path: path, mode: .readOnly)
            try store.stopStatements(after: timeout)
            return store
        }
        lanes = try (0..<max(1, count)).map { k in Lane(store: try open(), queue: DispatchQueue(label: "wells serve reader \(k)")) }
        line = Mutex(Line(idle: Array(lanes.indices.reversed())))
        self.timeout = timeout
        tokenStore = try? open()
        changes = try? tokenStore?.changeTokens()
        runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let check = min(timeout / 10, .milliseconds(100))
        Thread.detachNewThread { [weak self] in
            while let readers = self {
                readers.interruptOverdue()
                Thread.sleep(forTimeInterval: Double(check.components.seconds) + Double(check.components.attoseconds) / 1e18)
            }
        }
    }

    /// The deadline of a request that starts now: its token read (``changeToken(until:)``) and
    /// its work (``withLease(small:deadline:_:)``) share it.
    var newDeadline: ContinuousClock.Instant { .now + timeout }

    /// The store's change token for tagging a fresh response: read at most 2 ms before this call,
    /// and so before the query whose answer it tags. An answer is never older than its tag, so a
    /// client holding the tag revalidates as soon as the store changes.
    func changeToken(until deadline: ContinuousClock.Instant) throws -> Int64? {
        let now = ContinuousClock.now
        if let cached = lastToken.withLock({ now - $0.read < Self.tokenReuse ? $0.token : nil }) { return cached }
        return try currentChangeToken(until: deadline)
    }

    /// The store's change token read now, for answering `If-None-Match`: a 304 must not hide a commit.
    /// Nil when it cannot be read (the response then has no ETag); a read still running at
    /// `deadline` (a PostgreSQL server that stopped answering) is interrupted and throws a 503.
    func currentChangeToken(until deadline: ContinuousClock.Instant) throws -> Int64? {
        guard let changes, let tokenStore else { return nil }
        let now = ContinuousClock.now
        let token: Int64?
        do {
            token = try run(tokenStore, deadline: deadline) { _ in try changes.current() }
        } catch is Problem {
            throw Problem(.serviceUnavailable, "the store did not answer within the server's limit of \(timeout); try again")
        } catch {
            token = nil
        }
        lastToken.withLock { $0 = (token, now) }
        return token
    }

    /// The pieces of work waiting for a connection (the server's tests wait on it).
    var waiting: Int {
        line.withLock { $0.small.count + $0.large.count }
    }

    /// Runs `body` with a connection of its own, on that connection's thread: the caller's task waits
    /// suspended until `body` has run. The timeout counts from this call, or `deadline` is the
    /// request's (``newDeadline``): work still waiting for a connection at its deadline answers 503
    /// without running, and a statement of `body` that runs past it is interrupted, with a 503 too.
    ///
    /// - Parameter small: Work whose cost the request bounds, such as a box's first page: when a
    ///   connection is idle and no one is in line, it runs at once on the caller's thread instead.
    ///   The hop to a connection's thread and back cost a quarter of the uncached city boxes per
    ///   second; work of unbounded cost (a sort of the whole store) always takes the line, since on
    ///   the caller's thread it would hold an async thread for as long as it runs.
    func withLease<T: Sendable>(small: Bool = false, deadline: ContinuousClock.Instant? = nil,
                                _ body: @escaping @Sendable (Lease) throws -> T) async throws -> T {
        let deadline = deadline ?? newDeadline
        if small, let index = line.withLock({ $0.isEmpty ? $0.idle.popLast() : nil }) {
            defer { resume(index) }
            return try body(Lease(readers: self, index: index, deadline: deadline))
        }
        return try await withCheckedThrowingContinuation { continuation in
            let work = Work(deadline: deadline) { lease in
                guard let lease else {
                    continuation.resume(throwing: Problem(.serviceUnavailable, "the server was busy with other queries for longer than its limit of \(self.timeout); try again"))
                    return
                }
                continuation.resume(with: Result { try body(lease) })
            }
            let wake: Int? = line.withLock { state in
                if small { state.small.append(work) } else { state.large.append(work) }
                return state.idle.popLast()
            }
            if let wake { lanes[wake].queue.async { self.drain(wake) } }
        }
    }

    /// After work that ran on its caller's thread: connection `index` serves the line if anyone joined it meanwhile.
    private func resume(_ index: Int) {
        let waiting = line.withLock { state in
            guard !state.isEmpty else {
                state.idle.append(index)
                return false
            }
            return true
        }
        if waiting { lanes[index].queue.async { self.drain(index) } }
    }

    /// Runs the line's work on connection `index` until the line is empty, then marks it idle.
    private func drain(_ index: Int) {
        while let work = line.withLock({ state -> Work? in
            guard let work = state.small.popFirst() ?? state.large.popFirst() else {
                state.idle.append(index)
                return nil
            }
            return work
        }) {
            work.run(ContinuousClock.now < work.deadline ? Lease(readers: self, index: index, deadline: work.deadline) : nil)
        }
    }

    /// The connections' state: which are idle, and the work waiting for one.
    private struct Line {
        var idle: [Int]
        /// Work of bounded cost, served before `large`: a city box waits for at most the queries
        /// already running, not for every sort of the whole store in line before it.
        var small = FIFO()
        var large = FIFO()
        var isEmpty: Bool { small.isEmpty && large.isEmpty }
    }

    /// A first-in first-out line of work: an array read from `next`, compacted now and then.
    private struct FIFO {
        private var items: [Work] = []
        private var next = 0

        var isEmpty: Bool { next == items.count }
        var count: Int { items.count - next }

        mutating func append(_ work: Work) { items.append(work) }

        mutating func popFirst() -> Work? {
            guard next < items.count else { return nil }
            let work = items[next]
            next += 1
            if next == items.count {
                items.removeAll(keepingCapacity: true)
                next = 0
            } else if next >= 1_024 && next * 2 >= items.count {
                items.removeFirst(next)
                next = 0
            }
            return work
        }
    }

    /// A request's work in the line: `run` gets a lease, or nil when its deadline passed in line.
    private struct Work: Sendable {
        let deadline: ContinuousClock.Instant
        let run: @Sendable (Lease?) -> Void
    }

    /// A connection held by one request, on its thread (see ``withLease(_:)``).
    struct Lease {
        fileprivate let readers: StoreReaders
        fileprivate let index: Int
        fileprivate let deadline: ContinuousClock.Instant

        /// Runs `body` on the leased connection, with the request's deadline.
        func read<T>(_ body: (WellStore) throws -> T) throws -> T {
            try readers.run(readers.lanes[index].store, deadline: deadline, body)
        }
    }

    /// Runs `body` with `store` in the table of reads in flight, which the watchdog interrupts at `deadline`.
    private func run<T>(_ store: WellStore, deadline: ContinuousClock.Instant, _ body: (WellStore) throws -> T) throws -> T {
        let id = inFlight.withLock { state in
            state.next += 1
            state.reads[state.next] = (store, deadline, false)
            return state.next
        }
        defer { inFlight.withLock { _ = $0.reads.removeValue(forKey: id) } }
        do {
            return try body(store)
        } catch where inFlight.withLock({ $0.reads[id].map { $0.timedOut || $0.deadline <= .now } ?? false }) {
            // Interrupted by the watchdog, or stopped by PostgreSQL's statement_timeout, which
            // counts from the statement's start and so ends after the request's deadline.
            throw Problem(.serviceUnavailable, "the query ran longer than the server's limit of \(timeout) and was stopped; ask for a smaller box or fewer wells")
        }
    }

    /// Interrupts the connections whose request is past its deadline. The interrupt happens while
    /// the table is locked, so the request cannot have moved on to another request's work meanwhile.
    /// It is repeated at each scan until the read ends: an interrupt stops only what runs at that
    /// moment (SQLite's statement; PostgreSQL's wait for a query or for a connection), so a read
    /// between two statements, or one waiting for the token store behind another read, is stopped
    /// at the next scan.
    private func interruptOverdue() {
        let now = ContinuousClock.now
        inFlight.withLock { state in
            for (id, read) in state.reads where read.deadline < now {
                state.reads[id]?.timedOut = true
                read.store.interrupt()
            }
        }
    }
}

/// One connection, and the thread its queries run on.
private final class Lane: Sendable {
    let store: WellStore
    let queue: DispatchQueue

    init(store: WellStore, queue: DispatchQueue) {
        self.store = store
        self.queue = queue
    }
}
