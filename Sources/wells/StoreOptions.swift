import ArgumentParser
import Foundation
import WellKit

/// The `--db` option shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $WELLS_DB or wells.sqlite).")
    var db: String?

    @Flag(name: .long, help: "Print each SQL statement with its bound values and timing to standard error (or set WELLS_SQL_DEBUG=1).")
    var sqlDebug = false

    var path: String { db ?? ProcessInfo.processInfo.environment["WELLS_DB"] ?? "wells.sqlite" }

    var traceEnabled: Bool { sqlDebug || ProcessInfo.processInfo.environment["WELLS_SQL_DEBUG"] == "1" }

    /// Opens the store: `.create` for loads, `.existing` for other writes, `.readOnly` for queries.
    func open(_ mode: WellStore.OpenMode) throws -> WellStore {
        var trace: (@Sendable (String) -> Void)?
        if traceEnabled {
            trace = { sql in Terminal.error("sql: \(sql)") }
        }
        return try WellStore(path: path, mode: mode, trace: trace)
    }
}
