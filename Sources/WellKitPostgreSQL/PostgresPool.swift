import WellKit
import NIOCore
import PostgresNIO
import Synchronization

/// The engine's connections: postgres-nio's `PostgresClient`, a pool run for the engine's
/// lifetime, with what the engine adds around each lease.
///
/// - **Calls at once.** Each call leases a connection of its own (``withConnection(_:)``), so
///   calls from several threads or tasks run on several connections at once, up to
///   ``PostgresLocation/maximumConnections``; more wait for a lease. A connection the server
///   closed (a restart, `pg_terminate_backend`, a failover) fails the call that had it, and the
///   pool connects anew for the next.
/// - **Session settings** (``set(_:_:)``, the `statement_timeout` of ``PostgresEngine/stopStatements(after:)``)
///   are made on each connection at its first lease after they changed, so every connection,
///   new ones included, has them.
/// - **Interrupts.** ``interrupt()`` stops every call in progress: a call running a query has
///   its connection closed (the wait fails; the pool replaces the connection), and a call waiting
///   for a lease, from the synchronous seam, is cancelled. A server that stopped answering
///   (`kill -STOP`, a partition) enforces no `statement_timeout`, so this is what bounds a
///   `wells serve` request then.
/// - **Statistics** for a server's metrics (``statistics``).
final class PostgresPool: Sendable {
    let client: PostgresClient
    /// `client.run()`, for the pool's lifetime; cancelled by ``close()``, which does not wait for it
    /// to end (see there).
    private let running: Task<Void, Never>
    /// The calls in progress, which ``interrupt()`` stops. Guards their lifetime: a call leaves it
    /// before its task ends, so an interrupt that finds it may cancel its task.
    private let calls = Mutex<[ObjectIdentifier: Call]>([:])
    /// The connections the pool has lent, their settings and the statistics.
    private let sessions = Mutex(Sessions())
    /// Connections a call saw the server close (their calls failed as lost connections): one may
    /// be back in the pool before the pool has seen its close. Never lent to a body again.
    /// (postgres-nio never reuses an id; an entry is a few bytes for each connection so lost.)
    private let closed = Mutex<Set<PostgresConnection.ID>>([])
    /// Where the pool's own tasks run (``PostgresEngine``'s bridge).
    private let executor: EventLoopBridge
    /// What an interrupted call throws.
    let interruptedError: StoreError
    /// What a call lent a connection the server has closed throws.
    private let closedError: StoreError

    /// Whether the current task is one that ``EventLoopBridge/wait(_:)`` started for a call of the
    /// synchronous seam, which ``interrupt()`` may cancel (an async caller's own task it never cancels).
    @TaskLocal static var bridged = false

    init(client: PostgresClient, executor: EventLoopBridge, location: PostgresLocation) {
        self.client = client
        self.executor = executor
        running = Task(executorPreference: executor) { await client.run() }
        interruptedError = StoreError(.connectionLost, "stopped waiting for PostgreSQL at \(location.server): interrupted (a server's request timeout); "
                                        + "the connection was closed, and the next call connects anew", path: location.description)
        closedError = StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) was closed by the server; the next call connects anew",
                                 path: location.description)
    }

    deinit {
        running.cancel()
    }

    /// Closes the connections and ends the pool; waits until the connections it lent are closed.
    /// Later calls fail.
    ///
    /// Cancelling `client.run()` closes every connection at once (a lent one fails its call) and
    /// fails the calls waiting for a lease; each connection closes on its event loop, which this
    /// waits for. It does not wait for `run()` itself to end: `run()` returns only once each of the
    /// pool's timers (a connection's keep-alive and idle timeout) has ended, and a timer is a
    /// `Task.sleep`, whose cancellation is run by Swift's cooperative pool, whatever the task's
    /// executor. The synchronous seam's callers block cooperative threads (a test, a server's
    /// request: ``EventLoopBridge``), two on two cores: when every cooperative thread waited in
    /// `close()` for `run()`, the timers never ended and the closes never returned (PostGISTests
    /// and PostgresTLSTests hung so, with every connection closed). `run()` ends on its own once a
    /// cooperative thread is free. (A connection still connecting when the pool closes is closed
    /// by the pool when it is made, unwaited.)
    func close() async {
        running.cancel()
        let lent = sessions.withLock { $0.connections.values.map(\.connection) }
        for connection in lent { try? await connection.closeFuture.get() }
    }

    /// What the pool lent and holds, and the session settings (see ``set(_:_:)``).
    private struct Sessions {
        /// Each open connection lent so far, with the ``generation`` of settings it has.
        var connections: [PostgresConnection.ID: (connection: PostgresConnection, generation: Int)] = [:]
        var settings: [(name: String, value: String)] = []
        /// Advances with each change of `settings`.
        var generation = 0
        var leased = 0
        var leases = 0
        var waits = 0
    }

    /// A call in progress: its connection once leased, and whether it was stopped.
    private final class Call: Sendable {
        struct State {
            var connection: PostgresConnection?
            var interrupted = false
            var cancelled = false
        }
        let state = Mutex(State())
        /// The call's task, when it is the bridge's own (``PostgresPool/bridged``).
        let task: TaskHandle?

        init(task: TaskHandle?) { self.task = task }

        /// Keeps `connection` as the call's; false (and the connection closed) if the call was stopped already.
        func attach(_ connection: PostgresConnection) -> Bool {
            let stopped = state.withLock { state in
                if !(state.interrupted || state.cancelled) { state.connection = connection }
                return state.interrupted || state.cancelled
            }
            if stopped { connection.closeNow() }
            return !stopped
        }

        /// Marks the call stopped and closes its connection, if it has one; never blocks.
        func stop(interrupted: Bool) {
            let connection = state.withLock { state in
                if interrupted { state.interrupted = true } else { state.cancelled = true }
                return state.connection
            }
            connection?.closeNow()
        }
    }

    /// A task that ``interrupt()`` may cancel, valid while its call is in ``calls``.
    private struct TaskHandle: @unchecked Sendable {
        let task: UnsafeCurrentTask
    }

    /// Runs `body` with a connection leased from the pool, as one call that ``interrupt()`` and
    /// the task's cancellation stop: an interrupted call throws ``interruptedError``, a cancelled
    /// one `CancellationError`. The connection has the session's settings.
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let call = Call(task: Self.bridged ? withUnsafeCurrentTask { $0.map(TaskHandle.init) } : nil)
        let key = ObjectIdentifier(call)
        calls.withLock { $0[key] = call }
        defer { calls.withLock { _ = $0.removeValue(forKey: key) } }
        sessions.withLock { sessions in
            if sessions.leased >= sessions.connections.count { sessions.waits += 1 }
            sessions.leases += 1
        }
        do {
            return try await withoutActuallyEscaping(body) { body in
                // Boxed: the pool's `withConnection` hands back its result as `sending`.
                let lent: (PostgresConnection) async throws -> UncheckedBox<T> = { connection in
                    guard call.attach(connection) else { throw CancellationError() }
                    // A connection whose close an earlier call saw, lent before the pool saw it
                    // too: a query sent on it while it closes was never answered (postgres-nio).
                    // Nothing was sent on it, so another is leased (a failed load's, closed to roll it back, came back so).
                    // Its close is awaited first: the pool, lent it back at once, would lend it again.
                    if connection.isClosed || self.closed.withLock({ $0.contains(connection.id) }) {
                        try? await connection.close()
                        throw StaleConnection()
                    }
                    self.sessions.withLock { $0.leased += 1 }
                    defer { self.sessions.withLock { $0.leased -= 1 } }
                    try await self.prepare(connection)
                    do {
                        return UncheckedBox(try await body(connection))
                    } catch {
                        // The server closed it (a terminated backend, a restart): the connection
                        // may be back in the pool before its channel has seen the close, and be
                        // lent again at once: it is marked, and closed here.
                        if Self.closedByServer(error) {
                            self.closed.withLock { _ = $0.insert(connection.id) }
                            try? await connection.close()
                        }
                        throw error
                    }
                }
                let operation: () async throws -> UncheckedBox<T> = {
                    for _ in 0..<Self.staleLeases {
                        do { return try await self.client.withConnection { try await lent($0) } } catch is StaleConnection { continue }
                    }
                    throw self.closedError
                }
                return try await withTaskCancellationHandler(operation: operation, onCancel: { call.stop(interrupted: false) }).value
            }
        } catch {
            let (interrupted, cancelled) = call.state.withLock { ($0.interrupted, $0.cancelled) }
            if interrupted { throw interruptedError }
            if cancelled { throw CancellationError() }
            throw error
        }
    }

    /// Closes `connection` without waiting and has the pool lend it no more: a call that gets it
    /// back from the pool before its channel has closed takes another (a failed transaction's,
    /// closed to roll it back: ``PostgresEngine/inTransaction(_:on:_:)``).
    func close(_ connection: PostgresConnection) {
        closed.withLock { _ = $0.insert(connection.id) }
        connection.closeNow()
    }

    /// A leased connection found closed before anything was sent on it.
    private struct StaleConnection: Error {}

    /// How many closed connections a call takes from the pool, one after another, before it fails:
    /// each failed call closes at most its own.
    static let staleLeases = 4

    /// Whether `error` says that the server closed the connection or that it broke: a lost
    /// connection's errors (``PostgresEngine/translate(_:_:connecting:during:)``), not a query's.
    static func closedByServer(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError, let cause = transaction.cause { return closedByServer(cause) }
        guard let psql = error as? PSQLError else { return false }
        switch psql.code {
        case .serverClosedConnection, .uncleanShutdown, .connectionError: return true
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P0") || state.hasPrefix("08")
        default: return false
        }
    }

    /// Makes the session's settings on `connection` if it has not the latest, and keeps track of
    /// it until it closes.
    private func prepare(_ connection: PostgresConnection) async throws {
        let id = connection.id
        let (known, settings, generation) = sessions.withLock { sessions in
            (sessions.connections[id]?.generation, sessions.settings, sessions.generation)
        }
        if known == nil {
            sessions.withLock { $0.connections[id] = (connection, 0) }
            connection.closeFuture.whenComplete { [weak self] _ in
                self?.sessions.withLock { _ = $0.connections.removeValue(forKey: id) }
                self?.leaseForWaitingCalls()
            }
        }
        guard (known ?? 0) != generation else { return }
        for setting in settings {
            // The statement runs under the connection's old settings: after a timeout of a few
            // milliseconds, the statement that raises it may itself be stopped by it on a busy
            // machine (PostgresPoolTests saw it once in five runs beside a loaded CPU). Tried again
            // then: the setting was not made, and each try is as likely to pass.
            for attempt in 1... {
                do {
                    try await connection.query("SELECT set_config(\(setting.name), \(setting.value), false)", logger: .wellKitPostgres)
                    break
                } catch where attempt < 5 && PostgresEngine.serverError(error)?.state == "57014" {}
            }
        }
        sessions.withLock { sessions in
            if sessions.connections[id] != nil { sessions.connections[id]?.generation = generation }
        }
    }

    /// When calls wait for a lease as a connection closes, asks the pool for one more lease.
    ///
    /// postgres-nio's pool, which keeps no minimum of connections here, makes no new connection for
    /// the calls it holds in its queue when its last connections close (the server closed them
    /// while more calls than `max_connections` were made): they waited until another call came,
    /// forever in a process that makes none (PostgresPoolQueueTests). A new lease makes the pool
    /// connect, and the calls in the queue, first in line, take the new connections. This runs
    /// after the pool has seen the close (its handler on `closeFuture` was added first).
    private func leaseForWaitingCalls() {
        let inCalls = calls.withLock { $0.count }, leased = sessions.withLock { $0.leased }
        guard inCalls > leased else { return }
        let client = self.client
        Task(executorPreference: executor) { try? await client.withConnection { _ in } }
    }

    /// Sets a setting of the sessions: each connection makes it at its next lease.
    func set(_ name: String, _ value: String) {
        sessions.withLock { sessions in
            sessions.settings.removeAll { $0.name == name }
            sessions.settings.append((name, value))
            sessions.generation += 1
        }
    }

    /// Stops every call in progress (see the type's description). From any thread; never blocks.
    /// With no call in progress it does nothing, so it never stops a later call.
    func interrupt() {
        calls.withLock { calls in
            for call in calls.values {
                call.stop(interrupted: true)
                // Under `calls`' lock, so the task is still the call's; its cancellation handler
                // takes only the call's own lock.
                call.task?.task.cancel()
            }
        }
    }

    /// Connections open (lent at least once, not yet closed), leased now, leases so far, and the
    /// leases that found every open connection leased (they waited for one to be returned or made).
    var statistics: StorePoolStatistics {
        sessions.withLock { StorePoolStatistics(open: $0.connections.count, leased: $0.leased, leases: $0.leases, waits: $0.waits) }
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting: its channel closes, and every wait on it fails as
    /// for a connection the server closed. The connection is kept until it has closed (postgres-nio
    /// asserts that a connection is closed when it goes).
    func closeNow() {
        let closed: EventLoopFuture<Void> = close()
        closed.whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
