import Foundation
import Testing
@testable import WellKit
import WellsTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 61 on a real PostgreSQL server, with `wells serve` in a child process
/// (`WELLS_UNDER_TEST` runs them against another build of `wells`):
///
/// - A deadline is the request's, from its arrival: with another session holding `pins` locked,
///   20 small boxes at once with `--timeout 3` got their 503s two at a time, the last after 24 s
///   (each request's clock started when it got a connection, and a query waiting on the lock held
///   one of the two cooperative threads); with the database stopped, 12 requests took up to 18 s.
///   Each now answers 503 with `Retry-After` by its deadline (a guard of the timeout and half a
///   second, as the issue asks, not a benchmark), and the connections come back.
/// - The documents name the database, never the user, host or port of the URL.
@Suite(.serialized, .lane(.postgres), .blocking) struct ServeDeadlineTests {
    /// A GET of `path` on `served`, timed from when it is sent: the status, `Retry-After` and the body.
    static func timedGet(_ served: ServedWells, _ path: String) async throws -> (status: Int, retryAfter: String?, body: String, took: Duration) {
        var request = URLRequest(url: URL(string: served.url + path)!)
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        request.timeoutInterval = 60
        let clock = ContinuousClock.now
        let (data, response) = try await ServedWells.parallel.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), String(decoding: data, as: UTF8.self), ContinuousClock.now - clock)
    }

    /// `count` small boxes (one well's neighbourhood each: the R*Tree's small work) at once.
    static func boxesAtOnce(_ served: ServedWells, count: Int) async throws -> [(status: Int, retryAfter: String?, body: String, took: Duration)] {
        try await withThrowingTaskGroup(of: (status: Int, retryAfter: String?, body: String, took: Duration).self) { group in
            for k in 0..<count {
                let lon = -85.6 + Double(k) * 0.01
                group.addTask { try await timedGet(served, "collections/wells/items?bbox=\(lon),36.0,\(lon + 0.05),36.05&limit=10") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Ends the sessions that hold `pins` locked in `database` (their transactions roll back).
    static func releasePins(_ database: String) throws {
        _ = try PostGIS.psql("SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'pins' AND l.mode = 'AccessExclusiveLock' AND l.granted",
                             database: database)
    }

    /// The leased connections `/metrics` reports, summed over the pools.
    static func leased(_ served: ServedWells) async throws -> Int? {
        let metrics = try await timedGet(served, "metrics").body
        return metrics.split(separator: "\n").first { $0.hasPrefix(#"wells_postgres_connections{state="leased"}"#) }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }.map { Int($0) }
    }

    @Test(.timeLimit(.minutes(10))) func twentySmallBoxesBehindALockAnswer503ByTheirDeadline() async throws {
        let url = try PostGIS.makeDatabase()
        let database = String(url.split(separator: "/").last!)
        _ = try WellStore(path: url).load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        let served = try await ServedWells(arguments: ["serve", "--db", url, "--port", "0", "--timeout", "3", "--exit-with-stdin"])
        #expect(try await Self.timedGet(served, "collections/wells/items?bbox=-85.6,36.0,-85.3,36.3&limit=5").status == 200)

        let holder = Thread { _ = PostGIS.run(["psql", url, "-c", "BEGIN; LOCK TABLE pins IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(600); COMMIT;"]) }
        holder.start()
        var locked = false
        for _ in 0..<500 where !locked {
            locked = try PostGIS.psql(PostGIS.pinsLocked, database: database) != "0"
            if !locked { try await Task.sleep(for: .milliseconds(10)) }
        }
        try #require(locked)
        let answers = try await Self.boxesAtOnce(served, count: 20)
        let times = answers.map(\.took).sorted()
        print("wells serve --timeout 3, pins locked: 20 small boxes answered after \(times.map { String(format: "%.2f", Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) })")
        for answer in answers {
            #expect(answer.status == 503 && answer.retryAfter != nil, "\(answer.status) \(answer.body)")
            #expect(answer.body.contains("\"status\":503"), "a problem document: \(answer.body)")
            #expect(answer.took < .milliseconds(3_500), "answered after \(answer.took)")
        }
        // Documents that read no table still answer while the lock is held.
        #expect(try await Self.timedGet(served, "conformance").status == 200)
        #expect(try PostGIS.psql(PostGIS.pinsLocked, database: database) != "0", "the lock was held throughout")

        // The connections the timed-out requests held are back in their pools (or closed), and
        // once the lock goes the same boxes are answered.
        var leased = try await Self.leased(served)
        for _ in 0..<100 where leased != 0 {
            try await Task.sleep(for: .milliseconds(50))
            leased = try await Self.leased(served)
        }
        #expect(leased == 0, "connections still lent after every request answered: \(leased.map(String.init) ?? "none reported")")
        try Self.releasePins(database)
        for answer in try await Self.boxesAtOnce(served, count: 20) {
            #expect(answer.status == 200, "\(answer.body)")
        }
    }

    /// The database stopped (a fast shutdown: connections are refused, and postgres-nio's pool
    /// retries connecting): every request that needs it answers 503 by its deadline, the token's
    /// reads included. A cluster of its own, as stopping the shared one would stop the other tests.
    @Test(.timeLimit(.minutes(3))) func requestsAnswer503ByTheirDeadlineWhileTheDatabaseIsStopped() async throws {
        let directory = "/tmp/wellkit-pg-down-\(getpid())"
        let url = try PostGIS.startCluster(in: directory).get()
        defer { _ = PostGIS.run(["bash", PostGIS.script, "stop", directory]) }
        _ = try WellStore(path: url).load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        let served = try await ServedWells(arguments: ["serve", "--db", url, "--port", "0", "--timeout", "3", "--exit-with-stdin"])
        #expect(try await Self.timedGet(served, "collections/wells/items?bbox=-85.6,36.0,-85.3,36.3&limit=5").status == 200)

        let pidFile = try String(contentsOfFile: directory + "/postmaster.pid", encoding: .utf8)
        let postmaster = try #require(pid_t(pidFile.split(separator: "\n")[0]))
        try #require(kill(postmaster, SIGINT) == 0)
        for _ in 0..<600 where kill(postmaster, 0) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(kill(postmaster, 0) != 0, "the server stopped")

        try await Task.sleep(for: .milliseconds(50))
        let answers = try await withThrowingTaskGroup(of: (path: String, answer: (status: Int, retryAfter: String?, body: String, took: Duration)).self) { group in
            for k in 0..<12 {
                let path = k % 4 == 3 ? "ready" : "collections/wells/items?bbox=\(-85.6 + Double(k) * 0.01),36.0,-85.3,36.3&limit=5"
                group.addTask { (path, try await Self.timedGet(served, path)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        print("wells serve --timeout 3, database stopped: 12 requests answered after \(answers.map(\.answer.took).sorted())")
        for (path, answer) in answers {
            #expect(answer.status == 503 && answer.retryAfter != nil, "\(path): \(answer.status) \(answer.body)")
            #expect(answer.took < .milliseconds(3_500), "\(path) answered after \(answer.took)")
        }
    }

    /// Issue 61: the landing page said `postgresql://wells@127.0.0.1:55432/wells`. The documents,
    /// 503s, headers and metrics name the database (or `--name`), with no user, host or port.
    @Test func theDocumentsNameTheDatabaseAndNothingOfTheHost() async throws {
        let url = try PostGIS.makeDatabase()
        let database = String(url.split(separator: "/").last!)
        let port = try #require(URLComponents(string: url)?.port)
        _ = try WellStore(path: url).load(csvAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        for (arguments, name) in [([String](), database), (["--name", "Tennessee wells"], "Tennessee wells")] {
            // With a parameter, as operators write URLs: the name shown was then the URL's user, host and port.
            let served = try await ServedWells(arguments: ["serve", "--db", url + "?sslmode=disable", "--port", "0", "--timeout", "1", "--exit-with-stdin"] + arguments)
            var texts: [String: String] = [:]
            for path in ["", "?f=json", "collections", "collections/wells", "api", "conformance", "ready", "metrics", "collections/wells/items?limit=2"] {
                var request = URLRequest(url: URL(string: served.url + path)!)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                let (data, response) = try await URLSession.shared.data(for: request)
                let headers = (response as! HTTPURLResponse).allHeaderFields.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
                texts[path] = headers + "\n" + String(decoding: data, as: UTF8.self)
            }
            // A 503: a query stopped behind another session's lock.
            try PostGIS.lockPins(url, database: database, seconds: 3)
            let locked = try await Self.timedGet(served, "collections/wells/items?bbox=-85.5,36.1,-85.4,36.2")
            #expect(locked.status == 503)
            texts["503"] = locked.body
            try Self.releasePins(database)
            #expect(texts["?f=json"]?.contains("Wells of \(name) served by wells serve") == true, "\(texts["?f=json"] ?? "")")
            // Links name the server as the client addressed it (its Host header): that is no secret.
            let authority = String(served.url.dropFirst("http://".count).dropLast())
            for (path, text) in texts.mapValues({ $0.replacingOccurrences(of: authority, with: "") }) {
                for secret in ["postgresql://", "wells@", "127.0.0.1", "localhost", ":\(port)", "port \(port)"] {
                    #expect(!text.contains(secret), "\(path) names \(secret): \(text.prefix(600))")
                }
            }
        }
    }
}
