import Foundation
import ProcessRunner
import Synchronization
import WellKit
#if canImport(Glibc)
import Glibc
#endif

// MARK: - The server

/// A PostgreSQL server for the benchmark: a throwaway cluster of pg-cluster.sh, or one given by `--server`.
final class BenchPostgres: Sendable {
    /// The URL of the administrative database, as given or as pg-cluster.sh printed it.
    let base: String
    let host: String
    let port: Int
    let user: String
    let password: String?
    /// The cluster's folder and pg-cluster.sh, for a throwaway cluster.
    let cluster: (directory: String, script: String)?
    /// The databases made by ``createDatabase(_:template:)`` and not yet dropped, and whether the server is gone.
    private let state = Mutex<(databases: [String], stopped: Bool)>(([], false))

    init(server: String) throws {
        base = server
        cluster = nil
        let parts = try Self.parts(server)
        host = parts.0
        port = parts.1
        user = parts.2
        password = parts.3
    }

    init(clusterScript: String, directory: String) async throws {
        let script = URL(fileURLWithPath: clusterScript).standardizedFileURL.path
        cluster = (directory, script)
        let output = try await Tools.run("bash", [script, "start", directory])
        base = output.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = try Self.parts(base)
        host = parts.0
        port = parts.1
        user = parts.2
        password = parts.3
    }

    private static func parts(_ url: String) throws -> (String, Int, String, String?) {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw StoreError(.invalidArgument, "not a postgresql:// URL: \(url)")
        }
        return (host.isEmpty ? "127.0.0.1" : host, components.port ?? 5432, components.user ?? NSUserName(), components.password)
    }

    /// The URL of `database` on this server.
    func url(_ database: String) -> String {
        var components = URLComponents(string: base)!
        components.path = "/" + database
        return components.string!
    }

    /// `url(database)` (the server's own database when nil) without its password, for reports.
    func displayURL(_ database: String?) -> String {
        var components = URLComponents(string: database.map(url) ?? base)!
        components.password = nil
        return components.string!
    }

    /// The libpq keyword string of `database`, for ogr2ogr's `PG:`.
    func keywords(_ database: String) -> String {
        var text = "host=\(host) port=\(port) user=\(user) dbname=\(database)"
        if let password { text += " password=\(password)" }
        return text
    }

    /// Runs `sql` in `database` (the server's own when nil) with psql: the rows, unaligned, tab-separated.
    @discardableResult
    func psql(_ database: String?, _ sql: String) async throws -> [[String]] {
        let (program, arguments) = psqlCommand(database, sql)
        return Self.rows(try await Tools.run(program, arguments).out)
    }

    private func psqlCommand(_ database: String?, _ sql: String) -> (String, [String]) {
        ("psql", ["-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", database.map(url) ?? base, "-c", sql])
    }

    private static func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// One number from `sql`.
    func number(_ database: String?, _ sql: String) async throws -> Int {
        guard let text = try await psql(database, sql).first?.first, let value = Int(text) else {
            throw StoreError(.invalidArgument, "psql gave no number for \(sql)")
        }
        return value
    }

    func createDatabase(_ name: String, template: String) async throws {
        await dropDatabase(name)
        try await psql(nil, "CREATE DATABASE \(name) TEMPLATE \(template)")
        state.withLock { $0.databases.append(name) }
    }

    func dropDatabase(_ name: String) async {
        _ = try? await psql(nil, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        state.withLock { $0.databases.removeAll { $0 == name } }
    }

    /// Stops and removes a throwaway cluster; on a given server, drops the databases made here. Runs once.
    func tearDown() async {
        for (program, arguments) in tearDownCommands() { _ = try? await Tools.run(program, arguments) }
    }

    /// ``tearDown()`` for an interrupted run's signal handler, which runs off Swift's cooperative pool.
    func tearDownWaiting() {
        for (program, arguments) in tearDownCommands() { _ = try? Tools.runWaiting(program, arguments) }
    }

    /// What ``tearDown()`` runs: nothing once it has run.
    private func tearDownCommands() -> [(String, [String])] {
        let (databases, stopped) = state.withLock { state in
            defer { state = ([], true) }
            return state
        }
        guard !stopped else { return [] }
        if let cluster { return [("bash", [cluster.script, "stop", cluster.directory])] }
        return databases.map { psqlCommand(nil, "DROP DATABASE IF EXISTS \($0) WITH (FORCE)") }
    }
}
