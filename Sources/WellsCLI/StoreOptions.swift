import ArgumentParser
import Foundation
import WellKit

/// The `--db` option shared by every command that opens a store.
package struct StoreOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("The store: a file, or a PostgreSQL database as postgresql://user@host:port/db?sslmode=… (default: $WELLS_DB or wells.sqlite).",
                                            valueName: "file-or-url"))
    package var db: String?

    @Flag(name: .long, help: "Print each SQL statement with its bound values and timing to standard error (or set WELLS_SQL_DEBUG=1).")
    package var sqlDebug = false

    package var path: String { db ?? ProcessInfo.processInfo.environment["WELLS_DB"] ?? "wells.sqlite" }

    package var traceEnabled: Bool { sqlDebug || ProcessInfo.processInfo.environment["WELLS_SQL_DEBUG"] == "1" }

    /// Opens the store: `.create` for loads, `.existing` for other writes, `.readOnly` for queries.
    /// A store that may be written gets one connection (``WellStore/Writer/single``): a command
    /// that fails leaves the file byte for byte as it was.
    package func open(_ mode: WellStore.OpenMode) throws -> WellStore {
        var trace: (@Sendable (String) -> Void)?
        if traceEnabled {
            trace = { sql in Terminal.error("sql: \(sql)") }
        }
        Wells.enableEngines()
        return try WellStore(path: path, mode: mode, trace: trace, writer: .single)
    }
}
