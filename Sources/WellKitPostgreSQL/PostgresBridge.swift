import WellKit
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// The one bridge from the storage seam's synchronous calls to the engine's async work: the
/// caller's thread waits while the work runs as a task on an event loop.
///
/// The task runs with the event loop as its executor, never on Swift's cooperative pool: a
/// caller that blocks a cooperative thread (a test, a server's request) cannot then starve the
/// work it waits for, which on two cores it otherwise did. Async callers (``WellStore``'s
/// `pins(matching:)` and its siblings) call the engine's async methods and block nothing.
final class EventLoopBridge: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` on the event loop and waits for its result: the caller's thread blocks on a
    /// condition until the task has finished. The task is the call's own, so ``PostgresPool/interrupt()``
    /// may cancel it (``PostgresPool/bridged``).
    func wait<T>(_ body: () async throws -> T) throws -> T {
        precondition(!loop.inEventLoop, "WellKit's PostgreSQL engine was called on its own event loop")
        return try withoutActuallyEscaping(body) { body in
            let call = UncheckedBox<(() async throws -> T)?>(body)
            let outcome = UncheckedBox<Result<T, any Error>?>(nil)
            let done = ConditionLock(value: false)
            Task(executorPreference: self) {
                await PostgresPool.$bridged.withValue(true) { await Self.run(call, into: outcome) }
                done.lock()
                done.unlock(withValue: true)
            }
            done.lock(whenValue: true)
            done.unlock()
            return try outcome.value!.get()
        }
    }

    /// Runs the call in `call` and lets go of it before returning, so that it does not outlive
    /// ``wait(_:)``, which lent it without letting it escape.
    private static func run<T>(_ call: UncheckedBox<(() async throws -> T)?>, into outcome: UncheckedBox<Result<T, any Error>?>) async {
        let body = call.value!
        call.value = nil
        do { outcome.value = .success(try await body()) } catch { outcome.value = .failure(error) }
    }
}

/// Hands a value across a hand-off that orders its two sides (the bridge's condition, a row
/// callback's future): one side uses it at a time.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension Logger {
    /// postgres-nio's logger for WellKit: quiet but for critical events (errors reach the caller as
    /// ``StoreError``), unless `WELLKIT_POSTGRES_LOG` names a level (`trace`, `debug`, `info`, …):
    /// then the pool's connections (made, failed, leased, released, closed) and the queries are
    /// told on standard error, for finding out why a call waits.
    static let wellKitPostgres: Logger = {
        var logger = Logger(label: "WellKit.PostgreSQL")
        logger.logLevel = ProcessInfo.processInfo.environment["WELLKIT_POSTGRES_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }()
}

extension PostgresEngine {
    /// Opens a connection to `location`, outside the pool, translating failures into
    /// ``StoreError``s that name the server and the cause, never the password; and the TLS that
    /// worked, for the pool's connections.
    ///
    /// The store's open makes its checks on it: postgres-nio's pool retries a connection that
    /// fails (for up to a minute) instead of failing the query that waits for it, so a wrong
    /// password, a TLS failure or a server that does not listen is told here, at once.
    ///
    /// TLS as the location's `sslmode` says (``PostgresLocation/tls(retry:)``); `allow` connects
    /// again with TLS when the server refuses a connection without it, as libpq does.
    static func connect(_ location: PostgresLocation) async throws -> (PostgresConnection, PostgresLocation.TLSUse) {
        let tls = try location.tls()
        do {
            return (try await connect(location, tls: tls), tls)
        } catch where location.tlsMode == .allow && location.socketDirectory == nil && serverError(error)?.state == "28000" {
            return try await connectWithTLS(location, refused: error)
        } catch {
            throw translate(error, location, connecting: true)
        }
    }

    /// `sslmode=allow`'s second try, with TLS, after the server `refused` a connection without;
    /// when it fails too, both reasons are told, as libpq does.
    private static func connectWithTLS(_ location: PostgresLocation, refused: any Error) async throws -> (PostgresConnection, PostgresLocation.TLSUse) {
        do {
            let tls = try location.tls(retry: true)
            return (try await connect(location, tls: tls), tls)
        } catch {
            let first = translate(refused, location, connecting: true), second = translate(error, location, connecting: true)
            guard let first = first as? StoreError, let second = second as? StoreError else { throw first }
            throw StoreError(first.code, first.reason + "; and with TLS (sslmode=allow's second try): " + second.reason,
                             remedy: first.remedy, path: first.path)
        }
    }

    private static func connect(_ location: PostgresLocation, tls: PostgresLocation.TLSUse) async throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        if let directory = location.socketDirectory {
            configuration = .init(unixSocketPath: location.socketPath(directory), username: location.user,
                                  password: location.password, database: location.database)
        } else {
            configuration = .init(host: location.host!, port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: tls.connection)
        }
        configuration.options.connectTimeout = TimeAmount.nanoseconds(Int64(connectTimeout(location) / .nanoseconds(1)))
        configuration.options.additionalStartupParameters = [("application_name", location.applicationName)]
        return try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration,
                                                    id: 0, logger: .wellKitPostgres)
    }

    /// The pool's configuration: the same server, user, TLS and session name as ``connect(_:)``'s.
    static func clientConfiguration(_ location: PostgresLocation, tls: PostgresLocation.TLSUse) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let directory = location.socketDirectory {
            configuration = .init(unixSocketPath: location.socketPath(directory), username: location.user,
                                  password: location.password, database: location.database)
        } else {
            configuration = .init(host: location.host!, port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: tls.client)
        }
        configuration.options.connectTimeout = connectTimeout(location)
        configuration.options.additionalStartupParameters = [("application_name", location.applicationName)]
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = location.maximumConnections
        // No keep-alive. postgres-nio queues a call behind a connection running its keep-alive
        // query (after each stretch of idleness); when the server closes that connection (a restart, a
        // failover) the keep-alive fails and, with no minimum of connections, the pool neither
        // connects anew for the queued call nor fails it: the call waited forever
        // (PostgresPoolQueueTests). Without it an idle connection is closed after
        // `connectionIdleTimeout`, and one the server closed fails the one call it is lent to.
        configuration.options.keepAliveBehavior = nil
        return configuration
    }

    /// postgres-nio always has a limit: no limit is a year. (Its limit covers the startup and
    /// authentication too, as libpq's connect_timeout does, not only the TCP connect.)
    private static func connectTimeout(_ location: PostgresLocation) -> Duration {
        location.connectTimeout ?? .seconds(365 * 24 * 3600)
    }

    /// The server's SQLSTATE and message of `error`, also inside a transaction's error.
    static func serverError(_ error: any Error) -> (state: String?, message: String)? {
        if let transaction = error as? PostgresTransactionError, let cause = transaction.cause { return serverError(cause) }
        if let psql = error as? PSQLError, psql.code == .server {
            return (psql.serverInfo?[.sqlState], psql.serverInfo?[.message] ?? "\(psql.code)")
        }
        return nil
    }

    /// A ``StoreError`` for a PostgreSQL failure: the server's message and SQLSTATE, or the
    /// network's cause, with what to do.
    static func translate(_ error: any Error, _ location: PostgresLocation, connecting: Bool = false, during: String? = nil) -> any Error {
        if error is StoreError || error is QueryError || error is WellEditError || error is ReleaseError || error is CancellationError { return error }
        if let transaction = error as? PostgresTransactionError, let cause = transaction.cause {
            return translate(cause, location, connecting: connecting, during: during)
        }
        if connecting, let failure = location.tlsFailure(error) { return failure }
        let path = location.description
        let doing = during.map { " while \($0)" } ?? ""
        if let (state, message) = serverError(error) {
            switch state {
            case "28P01"?, "28000"?:
                return StoreError(.authenticationFailed, "PostgreSQL at \(location.server) refused user \(location.user): \(message); "
                                    + "check the user and the password (in the URL or $PGPASSWORD) and the server's pg_hba.conf", path: path)
            case "3D000"?:
                return StoreError(.notFound, "PostgreSQL at \(location.server) has no database \(location.database); create it with: createdb \(location.database)", path: path)
            case "57P01"?, "57P02"?, "57P03"?:
                return StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) was closed\(doing) (\(message))", path: path)
            case let state? where state.hasPrefix("08"):
                return StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) failed\(doing): \(message)", path: path)
            case "25006"?:
                return StoreError(.readOnly, "PostgreSQL at \(location.server) is read-only (a hot standby?)\(doing): \(message); load into the primary", path: path)
            case "42501"?:
                return StoreError(.readOnly, "PostgreSQL at \(location.server) denied user \(location.user)\(doing): \(message)", path: path)
            case "53100"?:
                return StoreError(.diskFull, "PostgreSQL at \(location.server) is out of disk space\(doing): \(message); nothing was changed", path: path)
            default:
                return StoreError(.serverError, "PostgreSQL at \(location.server)\(doing): \(message)\(state.map { " (SQLSTATE \($0))" } ?? "")", path: path)
            }
        }
        guard let psql = error as? PSQLError else {
            return StoreError(connecting ? .connectionFailed : .connectionLost, "PostgreSQL at \(location.server)\(doing): \(error)", path: path)
        }
        switch psql.code {
        case .authMechanismRequiresPassword:
            return StoreError(.authenticationFailed, "PostgreSQL at \(location.server) wants a password for user \(location.user); "
                                + "give it in the URL (postgresql://user:password@host/db) or in $PGPASSWORD", path: path)
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            return StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) was closed\(doing) (\(psql.code))", path: path)
        case .poolClosed:
            return StoreError(.connectionLost, "the store's connections to PostgreSQL at \(location.server) were closed\(doing) (the store was closed)", path: path)
        case .connectionError:
            let cause = psql.underlying.map { "\($0)" } ?? "\(psql.code)"
            return StoreError(connecting ? .connectionFailed : .connectionLost,
                              "cannot \(connecting ? "connect to" : "reach") PostgreSQL at \(location.server)\(doing): \(cause); is the server running, and does it listen there?",
                              path: path)
        default:
            return StoreError(.connectionLost, "PostgreSQL at \(location.server)\(doing): \(psql.code)\(psql.underlying.map { " (\($0))" } ?? "")", path: path)
        }
    }
}

extension PostgresTransactionError {
    /// What failed: the transaction's work, else its `BEGIN` or its `COMMIT`.
    var cause: (any Error)? { closureError ?? beginError ?? commitError }
}

/// NIO's singleton event loop group, handing out its loops in turn to the pool's connections.
///
/// `PostgresClient` opens each connection on `eventLoopGroup.any()`, which a
/// `MultiThreadedEventLoopGroup` answers with the current loop when asked from one of its own.
/// The pool runs on the bridge's loop (``PostgresPool``), so every connection was opened on that
/// one loop, and every row of every client was decoded on one thread: city boxes from 4 clients
/// kept one core busy and left a quarter of the machine idle (`perf record -a`, 2 cores). Here
/// `any()` is `next()`, so the connections, and the work of reading their rows, go round the loops.
final class RoundRobinEventLoopGroup: EventLoopGroup, Sendable {
    let base: MultiThreadedEventLoopGroup

    init(base: MultiThreadedEventLoopGroup) { self.base = base }

    func next() -> any EventLoop { base.next() }
    func any() -> any EventLoop { base.next() }
    func makeIterator() -> EventLoopIterator { base.makeIterator() }
    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        base.shutdownGracefully(queue: queue, callback)
    }
}
