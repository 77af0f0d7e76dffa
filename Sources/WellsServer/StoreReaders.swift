import Foundation
import Logging
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
/// requests that need a connection; a file's small work that finds a connection idle and no one
/// waiting runs at once on its caller's thread, saving two thread hops.
/// A request's deadline counts from its arrival (``newDeadline``): waiting for the token, in the
/// line or for a PostgreSQL connection counts, and the watchdog answers work still in line at its
/// deadline (``expireOverdue(now:)``), so a lock or a stopped server holds no request past it.
/// Deadlines sit in a table that one watchdog thread scans; the change token is read from memory,
/// or through a connection of its own (``Opening/tokenStore``), with the request's deadline too.
/// A store file replaced by another at its path (an atomic `mv`) is opened anew (``Opening``),
/// checked when the token is read (``version(fresh:until:)``).
/// (Not a GCD timer per request and a shared queue for the token: they kept the server switching
/// threads, and city-box `items` far slower than an empty response; `wells-bench serve`,
/// Benchmarks/README.md's "Serving".)
final class StoreReaders: Sendable {
    /// The connections' threads, one per connection of an ``Opening``.
    private let lanes: [Lane]
    /// The connections whose thread is idle, and the work waiting for a connection: small work
    /// first, each kind in arrival order.
    private let line: Mutex<Line>
    private let timeout: Duration
    /// The store as given: a file's path, or a `postgresql://` URL.
    private let path: String
    /// The store as clients may see it named (``ServerConfiguration/storeName``): no directory,
    /// user, host or port, which the 503s of a store gone or replaced would otherwise tell.
    private let name: String
    /// Whether `path` is a file, whose identity each fresh token read checks (see ``version(fresh:until:)``).
    private let watchesFile: Bool
    /// The connections in use, the change token's reader and the last version read (see ``Watch``).
    private let watch: Mutex<Watch>
    private static let tokenReuse: Duration = .milliseconds(2)
    /// Requests in flight: their connection, deadline and whether the watchdog stopped them.
    private let inFlight = Mutex<(next: Int, reads: [Int: (store: WellStore, deadline: ContinuousClock.Instant, timedOut: Bool)])>((0, [:]))
    /// Distinguishes this run's tokens from another run's, whose data_version may repeat.
    let runID: String

    /// Where what clients are not told goes (the path and cause of a file that is not a store):
    /// standard error, for the operator.
    private static let logger = Logger(label: "wells serve")

    /// The most pieces of work of each kind that may wait in ``line``: one more is refused at once.
    private let maximumWaiting: Int

    init(path: String, name: String? = nil, count: Int, timeout: Duration, maximumWaiting: Int = 256) throws {
        self.name = name ?? WellStore.publicName(of: path)
        self.maximumWaiting = max(1, maximumWaiting)
        let count = max(1, count)
        let identity = FileIdentity(path: path)
        let opening = try Opening(number: 0, path: path, count: count, timeout: timeout, identity: identity)
        lanes = (0..<count).map { k in Lane(queue: DispatchQueue(label: "wells serve reader \(k)")) }
        line = Mutex(Line(idle: Array(lanes.indices.reversed())))
        self.timeout = timeout
        self.path = path
        watchesFile = !opening.stores[0].isPostgreSQL
        watch = Mutex(Watch(opening: opening, changes: try? opening.tokenStore?.changeTokens(), openings: 1))
        runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let check = min(timeout / 10, .milliseconds(100))
        Thread.detachNewThread { [weak self] in
            while let readers = self {
                readers.interruptOverdue()
                Thread.sleep(forTimeInterval: Double(check.components.seconds) + Double(check.components.attoseconds) / 1e18)
            }
        }
    }

    /// The store's version for tagging a fresh response: read at most ``tokenReuse`` before this
    /// call, and so before the query whose answer it tags. An answer is never older than its tag, so a
    /// client holding the tag revalidates as soon as the store changes. Nil when the store's change
    /// token cannot be read (a store in a read-only directory opened immutable): no ETag, no cache.
    ///
    /// - Throws: ``Problem`` 503 while the store's path holds no WellKit store.
    func changeToken(until deadline: ContinuousClock.Instant) throws -> StoreVersion? {
        try version(fresh: false, until: deadline)
    }

    /// The store's version read now, for answering `If-None-Match`: a 304 must not hide a commit,
    /// nor a store file replaced by another.
    func currentChangeToken(until deadline: ContinuousClock.Instant) throws -> StoreVersion? {
        try version(fresh: true, until: deadline)
    }

    /// The deadline of the request being answered: its arrival (``arrival``, which
    /// ``OperationsResponder`` sets) plus the timeout, or now plus the timeout outside a request.
    /// Its version read (``changeToken(until:)``) and its work (``withLease(small:deadline:_:)``)
    /// share it, so waiting for either counts against `--timeout`.
    var newDeadline: ContinuousClock.Instant { (Self.arrival ?? .now) + timeout }

    /// When the request being answered arrived: set around the whole responder, so that time
    /// spent before a handler asks for its deadline counts too.
    @TaskLocal static var arrival: ContinuousClock.Instant?

    /// How the 503 of a version read that outlasted its deadline begins.
    static let notAnswering = "the store did not answer within the server's limit"

    /// ``changeToken(until:)`` (or, `fresh`, ``currentChangeToken(until:)``) without blocking the
    /// caller's thread on a PostgreSQL server: a read that must reach the server runs on
    /// ``tokenQueue`` while the caller's task waits suspended (``sharedVersion(fresh:until:askedAt:)``).
    /// A server that stopped answering then holds the token's own thread, not one of Swift's
    /// cooperative threads, which answer every other request (on two cores, two blocked threads
    /// held every request past its deadline). A file's token is read from memory, on the caller's thread.
    func tag(fresh: Bool, until deadline: ContinuousClock.Instant) async throws -> StoreVersion? {
        if watchesFile { return try version(fresh: fresh, until: deadline) }
        let asked = ContinuousClock.now
        if !fresh, let reused = watch.withLock({ watch -> StoreVersion?? in
            asked - watch.read < Self.tokenReuse && watch.failure == nil ? .some(watch.version) : nil
        }) {
            return reused
        }
        return try await withCheckedThrowingContinuation { continuation in
            tokenQueue.async { continuation.resume(with: Result { try self.sharedVersion(fresh: fresh, until: deadline, askedAt: asked) }) }
        }
    }

    /// A PostgreSQL store's version, on ``tokenQueue``, one read at a time, with ``watch`` unlocked
    /// while the server is asked (a PostgreSQL store is never reopened, so nothing else changes it).
    /// A read that ended after this request `asked` answers it: its version (for a fresh read, one
    /// that began after), or its failure, so that the requests in line behind a server that does
    /// not answer get their 503 with the first, not each a deadline later.
    private func sharedVersion(fresh: Bool, until deadline: ContinuousClock.Instant, askedAt asked: ContinuousClock.Instant) throws -> StoreVersion? {
        let (opening, changes, answer) = try watch.withLock { watch throws(Problem) -> (Opening, ChangeTokens?, StoreVersion??) in
            if watch.readEnd >= asked, let failure = watch.failure { throw failure }
            guard let opening = watch.opening else { throw watch.problem ?? Problem(.serviceUnavailable, "the store cannot be read") }
            let answered = fresh ? watch.read >= asked : watch.readEnd >= asked || asked - watch.read < Self.tokenReuse
            return (opening, watch.changes, answered ? .some(watch.version) : nil)
        }
        if let answer { return answer }
        let started = ContinuousClock.now
        var version: StoreVersion?, failure: Problem?
        if let changes, let tokenStore = opening.tokenStore {
            do {
                version = StoreVersion(opening: opening.number, file: "", token: try run(tokenStore, deadline: deadline) { _ in try changes.current() })
            } catch is Problem {
                failure = Problem(.serviceUnavailable, Self.notAnswering + " of \(timeout); try again", retryAfter: 1)
            } catch {
                // A token that cannot be read: responses carry no ETag.
            }
        }
        watch.withLock { watch in
            (watch.version, watch.failure, watch.read, watch.readEnd) = (version, failure, started, ContinuousClock.now)
        }
        if let failure { throw failure }
        return version
    }

    /// Where PostgreSQL's token is read (see ``tag(fresh:until:)``).
    private let tokenQueue = DispatchQueue(label: "wells serve change token")

    /// The version, read anew when `fresh` or when the last read is older than ``tokenReuse``: then
    /// a file store's identity (`stat`: device and inode) is checked first, and when another file
    /// took the path (an atomic `mv` of a new store over it), the connections are opened anew on it.
    ///
    /// The check rides on the token's reuse rather than running on every request: a
    /// conditional request always checks, so a `304` never vouches for a replaced file; a plain
    /// request may be answered from the old file for at most ``tokenReuse`` after the `mv`, as it
    /// may miss a commit for that long. The read happens under ``watch``'s lock: the change token's reader is
    /// shared per path (``ChangeTokens``), so the old file's must be released, with no read
    /// holding it, before the new file's is made, or the new one would be the old one.
    ///
    /// The token is read through the opening's ``Opening/tokenStore`` with `deadline` in the
    /// watchdog's table: a PostgreSQL server that stops answering is interrupted at the deadline
    /// and the request answers 503, as its query would.
    private func version(fresh: Bool, until deadline: ContinuousClock.Instant) throws -> StoreVersion? {
        let now = ContinuousClock.now
        return try watch.withLock { watch throws(Problem) -> StoreVersion? in
            if fresh || now - watch.read >= Self.tokenReuse {
                if watchesFile { reopenIfReplaced(&watch) }
                watch.version = nil
                if let opening = watch.opening, let changes = watch.changes, let tokenStore = opening.tokenStore {
                    do {
                        let token = try run(tokenStore, deadline: deadline) { _ in try changes.current() }
                        watch.version = StoreVersion(opening: opening.number, file: opening.identity?.text ?? "", token: token)
                    } catch is Problem {
                        throw Problem(.serviceUnavailable, Self.notAnswering + " of \(timeout); try again", retryAfter: 1)
                    } catch {
                        // A token that cannot be read: responses carry no ETag.
                    }
                }
                watch.read = now
            }
            guard watch.opening != nil else { throw watch.problem ?? Problem(.serviceUnavailable, "the store cannot be read") }
            return watch.version
        }
    }

    /// Opens the connections anew when the file at ``path`` is not the one they read: another
    /// file, or one that failed to open before. Work already running keeps the old connections
    /// (its ``Lease`` holds them) and finishes on the old file, which stays readable while open.
    /// A path that holds no WellKit store leaves no connections, and the requests answer 503 until
    /// a later check finds a store there.
    private func reopenIfReplaced(_ watch: inout Watch) {
        let identity = FileIdentity(path: path)
        if let identity, identity == watch.opening?.identity { return }
        let missing = identity == nil ? String(cString: strerror(errno)) : ""
        watch.opening = nil
        watch.changes = nil  // the old file's token reader goes first: see version(fresh:until:)
        guard let identity else {
            watch.problem = Problem(.serviceUnavailable, "the store \(name) is gone (\(missing)); the server answers again once a WellKit store is at that path")
            return
        }
        do {
            let opening = try Opening(number: watch.openings, path: path, count: lanes.count, timeout: timeout, identity: identity)
            let changes = try? opening.tokenStore?.changeTokens()
            // Replaced again while opening: the connections may read either file; the next check opens anew.
            guard FileIdentity(path: path) == identity else {
                watch.problem = Problem(.serviceUnavailable, "the store \(name) was being replaced; try again")
                return
            }
            watch.openings += 1
            (watch.opening, watch.changes, watch.problem) = (opening, changes, nil)
        } catch {
            // The error names the file's path: the operator's log has it, a client gets its kind.
            Self.logger.warning("the file now at \(WellStore.displayName(of: path)) is not a WellKit store the server can read: \(error)")
            let kind = (error as? StoreError).map { " (\($0.code))" } ?? ""
            watch.problem = Problem(.serviceUnavailable, "the file now at \(name) is not a WellKit store the server can read\(kind); the server answers again once a store is there (`wells load` makes one; replace the file with `mv`)")
        }
    }

    /// The connection pools of a PostgreSQL store's connections that new work gets (each
    /// connection of an ``Opening`` is a ``WellStore`` with a pool of its own), added up; nil for
    /// a store file.
    var poolStatistics: StorePoolStatistics? {
        guard let opening = watch.withLock({ $0.opening }) else { return nil }
        let pools = (opening.stores + [opening.tokenStore].compactMap { $0 }).compactMap(\.poolStatistics)
        return pools.isEmpty ? nil : pools.dropFirst().reduce(pools[0], +)
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
    /// - Parameter small: Work whose cost the request bounds, such as a box's first page: on a
    ///   store file, when a connection is idle and no one is in line, it runs at once on the
    ///   caller's thread instead (never on PostgreSQL, whose query may wait on a lock).
    ///   The hop to a connection's thread and back would cost the uncached city boxes much of
    ///   their rate (Benchmarks/README.md's "Serving"); work of unbounded cost (a sort of the whole
    ///   store) always takes the line, since on the caller's thread it would hold an async thread
    ///   for as long as it runs.
    ///
    /// The work reads the store as it is opened at this call: after a store file is replaced, work
    /// in line or running finishes on the old file, and later work reads the new one.
    func withLease<T: Sendable>(small: Bool = false, deadline: ContinuousClock.Instant? = nil,
                                _ body: @escaping @Sendable (Lease) throws -> T) async throws -> T {
        let deadline = deadline ?? newDeadline
        let opening = try watch.withLock { watch throws(Problem) -> Opening in
            guard let opening = watch.opening else { throw watch.problem ?? Problem(.serviceUnavailable, "the store cannot be read") }
            return opening
        }
        guard ContinuousClock.now < deadline else { throw busy }
        // Only a file's small work runs on the caller's thread: a PostgreSQL query may wait on
        // another session's lock or a server that stopped answering until its deadline, and the
        // caller's thread is one of Swift's few cooperative threads, which every request needs.
        if small, watchesFile, let index = line.withLock({ $0.isEmpty ? $0.idle.popLast() : nil }) {
            defer { resume(index) }
            return try body(Lease(readers: self, store: opening.stores[index], deadline: deadline))
        }
        return try await withCheckedThrowingContinuation { continuation in
            let work = Work(deadline: deadline, opening: opening) { lease in
                guard let lease else {
                    continuation.resume(throwing: self.busy)
                    return
                }
                continuation.resume(with: Result { try body(lease) })
            }
            // The line is bounded: a server that cannot keep up refuses at once, with a time to
            // come back, rather than holding more requests than it can answer before their deadline.
            let admitted: (wake: Int?, full: Bool) = line.withLock { state in
                if small {
                    guard state.small.count < maximumWaiting else { return (nil, true) }
                    state.small.append(work)
                } else {
                    guard state.large.count < maximumWaiting else { return (nil, true) }
                    state.large.append(work)
                }
                return (state.idle.popLast(), false)
            }
            if admitted.full {
                continuation.resume(throwing: Problem(.serviceUnavailable, "the server has \(maximumWaiting) requests like this one waiting for the store already; try again shortly",
                                                      retryAfter: 1))
                return
            }
            if let wake = admitted.wake { lanes[wake].queue.async { self.drain(wake) } }
        }
    }

    /// The 503 of work whose deadline came before a connection did.
    private var busy: Problem {
        Problem(.serviceUnavailable, "the server was busy with other queries for longer than its limit of \(timeout); try again", retryAfter: 1)
    }

    /// Answers the work still waiting for a connection at its deadline with ``busy``, from the
    /// watchdog, so that no request waits past its deadline even while every connection is held
    /// (by queries the watchdog interrupts too, which free them only once the engine lets go).
    /// The line is in arrival order and every deadline is its arrival plus the same timeout, so
    /// the overdue work is at its front.
    private func expireOverdue(now: ContinuousClock.Instant) {
        let overdue = line.withLock { state -> [Work] in
            var overdue: [Work] = []
            while let work = state.small.first, work.deadline <= now { overdue.append(state.small.popFirst()!) }
            while let work = state.large.first, work.deadline <= now { overdue.append(state.large.popFirst()!) }
            return overdue
        }
        for work in overdue { work.run(nil) }
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
    /// Large work takes a connection only while another stays free of it (``Line/largeLimit``), so
    /// a box's page never waits behind sorts of the whole store: it finds that connection idle, or
    /// busy with small work only.
    private func drain(_ index: Int) {
        while let (work, large) = line.withLock({ state -> (Work, Bool)? in
            if let work = state.small.popFirst() { return (work, false) }
            if state.runningLarge < state.largeLimit, let work = state.large.popFirst() {
                state.runningLarge += 1
                return (work, true)
            }
            state.idle.append(index)
            return nil
        }) {
            work.run(ContinuousClock.now < work.deadline ? Lease(readers: self, store: work.opening.stores[index], deadline: work.deadline) : nil)
            if large { line.withLock { $0.runningLarge -= 1 } }
        }
    }

    /// The connections' state: which are idle, and the work waiting for one.
    private struct Line {
        var idle: [Int]
        /// Work of bounded cost, served before `large`: a city box waits for at most the small
        /// queries already running, not for any sort of the whole store.
        var small = FIFO()
        var large = FIFO()
        /// Connections running large work, and how many may: all but one (with one connection, it).
        var runningLarge = 0
        let largeLimit: Int
        var isEmpty: Bool { small.isEmpty && large.isEmpty }

        init(idle: [Int]) {
            self.idle = idle
            largeLimit = max(1, idle.count - 1)
        }
    }

    /// A first-in first-out line of work: an array read from `next`, compacted now and then.
    private struct FIFO {
        private var items: [Work] = []
        private var next = 0

        var isEmpty: Bool { next == items.count }
        var count: Int { items.count - next }

        mutating func append(_ work: Work) { items.append(work) }

        var first: Work? { next < items.count ? items[next] : nil }

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
        /// The connections of the store as opened when the work joined the line.
        let opening: Opening
        let run: @Sendable (Lease?) -> Void
    }

    /// A connection held by one request, on its thread (see ``withLease(_:)``): connection `k` of
    /// an ``Opening`` is only used by the work that holds lane `k`, one piece at a time.
    struct Lease {
        fileprivate let readers: StoreReaders
        fileprivate let store: WellStore
        fileprivate let deadline: ContinuousClock.Instant

        /// Runs `body` on the leased connection, with the request's deadline.
        func read<T>(_ body: (WellStore) throws -> T) throws -> T {
            try readers.run(store, deadline: deadline, body)
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
            throw Problem(.serviceUnavailable, "the query ran longer than the server's limit of \(timeout) and was stopped; ask for a smaller box or fewer wells",
                          retryAfter: 1)
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
        expireOverdue(now: now)
        inFlight.withLock { state in
            for (id, read) in state.reads where read.deadline < now {
                state.reads[id]?.timedOut = true
                read.store.interrupt()
            }
        }
    }
}

/// The thread of one connection: connection `k` of whichever ``Opening`` a piece of work reads
/// runs on lane `k`'s queue or, for small work, on its caller's thread while it holds lane `k`.
private final class Lane: Sendable {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }
}

/// The state that a version read checks and updates (see ``StoreReaders/version(fresh:until:)``).
private struct Watch: Sendable {
    /// The connections new work gets; nil while the store's path holds no store.
    var opening: Opening?
    /// Why there is no opening: a 503 to answer.
    var problem: Problem?
    /// The reader of the opening's change token.
    var changes: ChangeTokens?
    /// Openings made so far: the next one's number.
    var openings: Int
    /// The last version read and when.
    var version: StoreVersion?
    var read: ContinuousClock.Instant = .now - .seconds(1)
    /// When the last read of a PostgreSQL store's token ended, and its 503 when it outlasted its
    /// deadline, which the requests in line behind it on the token queue answer with at once
    /// rather than each waiting as long again (``StoreReaders/sharedVersion(fresh:until:askedAt:)``).
    var readEnd: ContinuousClock.Instant = .now - .seconds(1)
    var failure: Problem?

    init(opening: Opening, changes: ChangeTokens?, openings: Int) {
        self.opening = opening
        self.changes = changes
        self.openings = openings
    }
}
