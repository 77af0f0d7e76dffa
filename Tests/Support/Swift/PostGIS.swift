import Foundation
import Synchronization
import Testing
import WellKit
import WellKitPostgreSQL

/// A throwaway PostgreSQL/PostGIS cluster for the tests, started once per test process by
/// `Tests/Support/pg-cluster.sh` (initdb into a temporary directory, loopback, a non-root server
/// user) and stopped when the process exits; or the server of `$WELLKIT_TEST_POSTGRES`.
///
/// Nothing is skipped: when no server can be started the tests that need one fail, naming why.
package enum PostGIS {
    /// The script that starts and stops clusters.
    package static let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Support/pg-cluster.sh").path

    /// The cluster's superuser URL to the `wells` database; started on first use.
    package static let serverURL: Result<String, PostGISUnavailable> = {
        guard let directory else {
            WellStore.enablePostgreSQL()
            return .success(ProcessInfo.processInfo.environment["WELLKIT_TEST_POSTGRES"]!)
        }
        return startCluster(in: directory)
    }()

    /// Starts a throwaway cluster in `directory` (stopped when the process exits): its superuser
    /// URL to the `wells` database.
    package static func startCluster(in directory: String) -> Result<String, PostGISUnavailable> {
        WellStore.enablePostgreSQL()
        stopAtExit(directory)
        let (status, out, err) = run(["bash", script, "start", directory])
        guard status == 0, let url = out.split(separator: "\n").last.map(String.init), url.hasPrefix("postgresql://") else {
            return .failure(PostGISUnavailable(reason: "pg-cluster.sh start failed (\(status)): \(err.suffix(2000))"))
        }
        return .success(url)
    }

    /// The directory of the cluster ``serverURL`` starts; nil with `$WELLKIT_TEST_POSTGRES`.
    package static let directory: String? = ProcessInfo.processInfo.environment["WELLKIT_TEST_POSTGRES"] == nil ? "/tmp/wellkit-pg-\(getpid())" : nil

    /// The clusters this process starts (the tests', a standby, the TLS one): see ``stopAtExit(_:)``.
    private static let clusters = Mutex<[String]>([])
    private static let stopsAtExit: Void = {
        // ``Command/runAtExit()``: swift-subprocess stops its own threads at exit, maybe before this runs.
        atexit { for directory in PostGIS.clusters.withLock({ $0 }) { _ = try? Command("bash", [PostGIS.script, "stop", directory]).runAtExit() } }
    }()

    /// Stops the cluster in `directory`, and removes it, when the test process exits; called before
    /// it starts, so that a start that fails halfway leaves nothing either.
    package static func stopAtExit(_ directory: String) {
        _ = stopsAtExit
        clusters.withLock { $0.append(directory) }
    }

    /// The URL of database `name` on the test server.
    package static func url(database name: String) throws -> String {
        let base = try serverURL.get()
        return String(base[..<base.lastIndex(of: "/")!]) + "/" + name
    }

    /// A new empty database with PostGIS (made from `wellkit_template`), its URL.
    package static func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(20)
        try psql("CREATE DATABASE \(name) TEMPLATE wellkit_template")
        return try url(database: String(name))
    }

    /// A new PostgreSQL store in a new database.
    package static func makeStore() throws -> WellStore {
        try WellStore(path: try makeDatabase())
    }

    /// How many sessions hold `pins` locked exclusively (run in the store's database, whose `pins` it names).
    package static let pinsLocked = """
        SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
        WHERE c.relname = 'pins' AND l.mode = 'AccessExclusiveLock' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        """

    /// Holds `pins` of the store at `url` locked in another session for `seconds`, from when it
    /// returns (it waits up to 5 s to see the lock taken, and throws if it never is).
    @discardableResult
    package static func lockPins(_ url: String, database: String, seconds: Int) throws -> Thread {
        let holder = Thread { _ = run(["psql", url, "-c", "BEGIN; LOCK TABLE pins IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(\(seconds)); COMMIT;"]) }
        holder.start()
        for _ in 0..<500 {
            if try psql(pinsLocked, database: database) != "0" { return holder }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw PostGISUnavailable(reason: "the lock on pins was never taken")
    }

    /// Closes every other session on `database`, as a restart or a failover would; how many.
    @discardableResult
    package static func terminateSessions(database: String) throws -> String {
        try psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()",
                 database: database)
    }

    /// Runs `sql` with psql on `database` (default: `wells`) and returns its unaligned output.
    @discardableResult
    package static func psql(_ sql: String, database: String = "wells") throws -> String {
        let (status, out, err) = run(["psql", try url(database: database), "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
        guard status == 0 else { throw PostGISUnavailable(reason: "psql failed: \(err)") }
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a program (looked up on PATH) to its end and returns its status and output.
    ///
    /// The cluster script leaves a server running: ``Command`` closes every descriptor of this
    /// process in the child, so the server keeps no other test's pipes, and starts it with no signal
    /// blocked (pg_ctl waits with signals). Synchronous: call it off Swift's cooperative pool (the
    /// suite trait `.blocking`, or ``runBlocking(_:)``).
    package static func run(_ arguments: [String]) -> (Int32, String, String) {
        do {
            let result = try Command("/usr/bin/env", arguments).runWaiting()
            return (result.status, result.out, result.err)
        } catch {
            return (-1, "", "\(error)")
        }
    }
}

/// Why the tests have no PostgreSQL server.
package struct PostGISUnavailable: Error, CustomStringConvertible {
    package var reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { "no PostgreSQL/PostGIS server for the tests: \(reason); run bash .ci/setup" }
}

/// The storage engines the engine-independent tests run against.
package enum Engine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file, postgis

    package var testDescription: String { rawValue }

    /// A new empty store of this engine.
    package func makeStore() throws -> WellStore {
        switch self {
        case .file: try Fixtures.makeStore()
        case .postgis: try PostGIS.makeStore()
        }
    }
}
