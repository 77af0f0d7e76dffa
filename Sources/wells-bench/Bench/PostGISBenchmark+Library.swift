#if canImport(PostgresNIO)
import Foundation
import Logging
import PostgresNIO
import Synchronization
import WellKit

/// postgres-nio on its own: the city-box statement WellKit sends, through a `PostgresClient` with
/// nothing of WellKit's between, each row decoded to the pin's four values. It is the floor of any
/// engine built on this library, measured beside pgbench in the same run: if the library alone
/// cannot come near pgbench, no engine on it can.
extension PostGISBenchmark {
    struct LibraryRun: Codable {
        /// `unnamed` (`client.query`, the extended protocol with an unnamed statement, as WellKit
        /// sends) or `prepared` (`client.execute` of a `PostgresPreparedStatement`, named and
        /// prepared once per connection, as pgbench `-M prepared`).
        var mode: String
        var p50Ms: Double
        var p99Ms: Double
        var throughput: [LibraryThroughput]
    }

    struct LibraryThroughput: Codable {
        var clients: Int
        var queriesPerSecond: Double
        var queries: Int
    }

    /// The box statement for `BoxStatement.sql`, which the protocol wants static: set once per run, before use.
    private static let boxSQL = Mutex<String>("")

    /// The box statement as a postgres-nio prepared statement; the pin's id, name, lat, lon per row.
    private struct BoxStatement: PostgresPreparedStatement {
        typealias Row = (Int64, String?, Double, Double)
        static var sql: String { PostGISBenchmark.boxSQL.withLock { $0 } }
        var values: [Double]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: values.count)
            for value in values { bindings.append(value) }
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Runs the box statement (`sql` with `$n` placeholders, `values` per call) through postgres-nio
    /// alone: latency from one task (`passes` passes over the values), then throughput from each
    /// count of `clients` tasks for `seconds`; unnamed and prepared.
    func libraryFloor(database: String, sql: String, values: [[Double]], clients: [Int], seconds: Double) async throws -> [LibraryRun] {
        Self.boxSQL.withLock { $0 = sql }
        var configuration = PostgresClient.Configuration(host: postgres.host, port: postgres.port, username: postgres.user,
                                                         password: postgres.password, database: database, tls: .disable)
        configuration.options.maximumConnections = max(4, clients.max() ?? 1)
        let client = PostgresClient(configuration: configuration)
        let passes = self.passes
        return try await withThrowingTaskGroup(of: [LibraryRun]?.self) { group in
            group.addTask { await client.run(); return nil }
            group.addTask {
                var runs: [LibraryRun] = []
                for prepared in [false, true] {
                    @Sendable func one(_ k: Int) async throws -> Int {
                        var count = 0
                        if prepared {
                            for try await _ in try await client.execute(BoxStatement(values: values[k % values.count])) { count += 1 }
                        } else {
                            var bindings = PostgresBindings(capacity: values[k % values.count].count)
                            for value in values[k % values.count] { bindings.append(value) }
                            for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings)) {
                                _ = try row.decode(BoxStatement.Row.self)
                                count += 1
                            }
                        }
                        return count
                    }
                    // A warm-up pass, which also prepares the statement on the connection.
                    for k in values.indices { _ = try await one(k) }
                    var times: [Double] = []
                    for _ in 0..<passes {
                        for k in values.indices {
                            let start = ContinuousClock.now
                            _ = try await one(k)
                            times.append((ContinuousClock.now - start).seconds * 1000)
                        }
                    }
                    var rates: [LibraryThroughput] = []
                    for count in clients {
                        let start = ContinuousClock.now, deadline = start + .milliseconds(Int(seconds * 1000))
                        let total = try await withThrowingTaskGroup(of: Int.self) { tasks in
                            for c in 0..<count {
                                tasks.addTask {
                                    var k = c * values.count / count, done = 0
                                    while ContinuousClock.now < deadline {
                                        _ = try await one(k)
                                        k += 1
                                        done += 1
                                    }
                                    return done
                                }
                            }
                            return try await tasks.reduce(0, +)
                        }
                        rates.append(LibraryThroughput(clients: count, queriesPerSecond: Double(total) / (ContinuousClock.now - start).seconds, queries: total))
                    }
                    runs.append(LibraryRun(mode: prepared ? "prepared" : "unnamed", p50Ms: Statistics.median(times),
                                           p99Ms: Statistics.percentile(times, 0.99), throughput: rates))
                }
                return runs
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let runs = result { return runs }
            }
            return []
        }
    }
}
#endif
