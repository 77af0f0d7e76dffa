import WellKit
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Runs postgres-nio's async calls for the engine's synchronous API: the caller's thread waits
/// while the call runs on the connection's event loop.
///
/// The task runs with the event loop as its executor, never on Swift's cooperative pool: a
/// caller that blocks a cooperative thread (a test, a server's request) cannot then starve the
/// call it waits for, which on two cores it otherwise did.
final class EventLoopBridge: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` on the event loop and waits for its result.
    func wait<T>(_ body: () async throws -> T) throws -> T {
        precondition(!loop.inEventLoop, "WellKit's PostgreSQL engine was called on its own event loop")
        return try withoutActuallyEscaping(body) { body in
            let call = UncheckedBox<(() async throws -> T)?>(body)
            let outcome = UncheckedBox<Result<T, any Error>?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task(executorPreference: self) {
                await Self.run(call, into: outcome)
                done.signal()
            }
            done.wait()
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

extension EventLoopBridge {
    /// Starts `body` on the event loop and returns at once: ``Pending/wait()`` waits for its result.
    func start<T>(_ body: @escaping @Sendable () async throws -> T) -> Pending<T> {
        precondition(!loop.inEventLoop, "WellKit's PostgreSQL engine was called on its own event loop")
        let pending = Pending<T>()
        pending.task = Task(executorPreference: self) {
            do { pending.complete(.success(try await body())) } catch { pending.complete(.failure(error)) }
        }
        return pending
    }
}

/// The result of a call ``EventLoopBridge/start(_:)`` started, once it finishes, or once its
/// waiter gives up on it (``abandon(with:discard:)``).
final class Pending<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Guards `outcome`, `discard` and `task`.
    private let lock = NSLock()
    /// The call's result, or the error it was abandoned with.
    private var outcome: Result<T, any Error>?
    /// Set when the call was abandoned: takes what the call returns after all.
    private var discard: ((T) -> Void)?
    /// The call's task, cancelled when it is abandoned.
    fileprivate var task: Task<Void, Never>? {
        get { lock.withLock { storedTask } }
        set { lock.withLock { storedTask = newValue } }
    }
    private var storedTask: Task<Void, Never>?

    /// Whether the call has finished, with a result or an error, or was abandoned.
    var isFinished: Bool { lock.withLock { outcome != nil } }

    fileprivate func complete(_ result: Result<T, any Error>) {
        let discard: ((T) -> Void)? = lock.withLock {
            if self.discard == nil { outcome = result }
            return self.discard
        }
        if let discard {
            if case .success(let value) = result { discard(value) }
        } else {
            done.signal()
        }
    }

    /// Ends the wait with `error` now, if the call has not finished, and cancels its task (which
    /// postgres-nio's connect heeds by closing its socket); a value the call returns after all
    /// goes to `discard` (a connection to close). From any thread; never blocks.
    func abandon(with error: any Error, discard: @escaping (T) -> Void) {
        let task: Task<Void, Never>?? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = .failure(error)
            self.discard = discard
            return .some(storedTask)
        }
        guard let task else { return }
        task?.cancel()
        done.signal()
    }

    /// Waits up to `seconds` for the call to finish; false if it has not.
    func wait(seconds: Double) -> Bool {
        guard done.wait(timeout: .now() + seconds) == .success else { return false }
        done.signal()
        return true
    }

    /// Waits for the call to finish and returns its result or throws its error.
    func wait() throws -> T {
        done.wait()
        done.signal()
        return try lock.withLock { outcome! }.get()
    }
}

/// Hands a value to the task that ``EventLoopBridge/wait(_:)`` starts while the caller waits for
/// it: one side uses it at a time, ordered by the semaphore.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension Logger {
    /// postgres-nio's logger for WellKit: quiet but for critical events (errors reach the caller as ``StoreError``).
    static let wellKitPostgres: Logger = {
        var logger = Logger(label: "WellKit.PostgreSQL")
        logger.logLevel = .critical
        return logger
    }()
}

extension PostgresEngine {
    /// Opens a connection to `location` on `loop`, translating failures into ``StoreError``s that
    /// name the server and the cause, never the password.
    ///
    /// TLS as the location's `sslmode` says (``PostgresLocation/tls(retry:)``); `allow` connects
    /// again with TLS when the server refuses a connection without it, as libpq does.
    ///
    /// With `interruption`, the attempt is one that ``PostgresEngine/interrupt()`` stops: a server
    /// that accepts the socket but never answers the startup (a stopped postmaster) otherwise
    /// holds the caller until `connect_timeout`, which by default is a year.
    static func connect(_ location: PostgresLocation, on loop: any EventLoop, bridge: EventLoopBridge,
                        interruption: Interruption? = nil) throws -> PostgresConnection {
        do {
            return try connect(location, tls: try location.tls(), on: loop, bridge: bridge, interruption: interruption)
        } catch where location.tlsMode == .allow && location.socketDirectory == nil && serverError(error)?.state == "28000" {
            return try connectWithTLS(location, refused: error, on: loop, bridge: bridge, interruption: interruption)
        } catch {
            throw translate(error, location, connecting: true)
        }
    }

    /// `sslmode=allow`'s second try, with TLS, after the server `refused` a connection without;
    /// when it fails too, both reasons are told, as libpq does.
    private static func connectWithTLS(_ location: PostgresLocation, refused: any Error, on loop: any EventLoop,
                                       bridge: EventLoopBridge, interruption: Interruption?) throws -> PostgresConnection {
        do {
            return try connect(location, tls: try location.tls(retry: true), on: loop, bridge: bridge, interruption: interruption)
        } catch {
            let first = translate(refused, location, connecting: true), second = translate(error, location, connecting: true)
            guard let first = first as? StoreError, let second = second as? StoreError else { throw first }
            throw StoreError(first.code, first.reason + "; and with TLS (sslmode=allow's second try): " + second.reason,
                             remedy: first.remedy, path: first.path)
        }
    }

    private static func connect(_ location: PostgresLocation, tls: PostgresConnection.Configuration.TLS, on loop: any EventLoop,
                                bridge: EventLoopBridge, interruption: Interruption?) throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        if let directory = location.socketDirectory {
            configuration = .init(unixSocketPath: location.socketPath(directory), username: location.user,
                                  password: location.password, database: location.database)
        } else {
            configuration = .init(host: location.host!, port: location.port, username: location.user,
                                  password: location.password, database: location.database, tls: tls)
        }
        // postgres-nio always has a limit: no limit is a year. (Its limit covers the startup and
        // authentication too, as libpq's connect_timeout does, not only the TCP connect.)
        configuration.options.connectTimeout = location.connectTimeout.map { TimeAmount.nanoseconds(Int64($0 / .nanoseconds(1))) } ?? .hours(24 * 365)
        configuration.options.additionalStartupParameters = [("application_name", location.applicationName)]
        let id = nextConnectionID()
        let attempt = bridge.start { [configuration] in
            try await PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: .wellKitPostgres)
        }
        return try interruption?.wait(for: attempt) ?? attempt.wait()
    }

    private static let connectionIDs = Atomic<Int>(0)
    private static func nextConnectionID() -> Int { connectionIDs.add(1, ordering: .relaxed).newValue }

    /// The server's SQLSTATE and message of `error`, from either of postgres-nio's error types:
    /// its prepared statements (`PostgresDatabase.prepare`) report the older `PostgresError`.
    static func serverError(_ error: any Error) -> (state: String?, message: String)? {
        if let psql = error as? PSQLError, psql.code == .server {
            return (psql.serverInfo?[.sqlState], psql.serverInfo?[.message] ?? "\(psql.code)")
        }
        if case .server(let notice)? = error as? PostgresError {
            return (notice.fields[.sqlState], notice.fields[.message] ?? "\(notice)")
        }
        return nil
    }

    /// A ``StoreError`` for a PostgreSQL failure: the server's message and SQLSTATE, or the
    /// network's cause, with what to do.
    static func translate(_ error: any Error, _ location: PostgresLocation, connecting: Bool = false, during: String? = nil) -> any Error {
        if error is StoreError || error is QueryError { return error }
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
        if case .connectionClosed? = error as? PostgresError {
            return StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) was closed\(doing)", path: path)
        }
        guard let psql = error as? PSQLError else {
            return StoreError(connecting ? .connectionFailed : .connectionLost, "PostgreSQL at \(location.server)\(doing): \(error)", path: path)
        }
        switch psql.code {
        case .authMechanismRequiresPassword:
            return StoreError(.authenticationFailed, "PostgreSQL at \(location.server) wants a password for user \(location.user); "
                                + "give it in the URL (postgresql://user:password@host/db) or in $PGPASSWORD", path: path)
        case .serverClosedConnection, .uncleanShutdown:
            return StoreError(.connectionLost, "the connection to PostgreSQL at \(location.server) was closed\(doing) (\(psql.code))", path: path)
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
