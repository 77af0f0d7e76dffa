import ArgumentParser
import Foundation
import Synchronization
import WellKit

/// The `--db` option shared by every command that opens a store.
package struct StoreOptions: ParsableArguments {
    package init() {}

    @Option(name: .long, help: ArgumentHelp("The store: a file, or a PostgreSQL database as postgresql://user@host:port/db?sslmode=… (default: $WELLS_DB or wells.sqlite).",
                                            valueName: "file-or-url"))
    package var db: String?

    @Flag(name: .long, help: "Print each SQL statement with its bound values and timing to standard error (or set WELLS_SQL_DEBUG=1).")
    package var sqlDebug = false

    // `getenv` rather than `ProcessInfo.environment`, which copies the whole environment into a
    // dictionary: every query command reads these two (part of the start-up `QuickCommandLine` saves).
    package var path: String { db ?? getenv("WELLS_DB").map { String(cString: $0) } ?? "wells.sqlite" }

    package var traceEnabled: Bool { sqlDebug || getenv("WELLS_SQL_DEBUG").map { String(cString: $0) } == "1" }

    /// Opens the store: `.create` for loads, `.existing` for other writes, `.readOnly` for queries.
    /// A store that may be written gets one connection (``WellStore/Writer/single``): a command
    /// that fails leaves the file byte for byte as it was.
    package func open(_ mode: WellStore.OpenMode) throws -> WellStore {
        var trace: (@Sendable (String) -> Void)?
        if traceEnabled {
            trace = { sql in Terminal.error("sql: \(sql)") }
        }
        Wells.enableEngines()
        let store = try WellStore(path: path, mode: mode, trace: trace, writer: .single)
        if mode == .readOnly && !store.isPostgreSQL { Self.openUntilExit.withLock { $0.append(store) } }
        return store
    }

    /// The store files opened read-only, kept open until the process exits.
    ///
    /// A query ends in `exit`, which closes the file anyway (a read-only connection neither
    /// checkpoints nor removes the WAL's files). Releasing the store first would tear down GRDB's
    /// queue, whose disposal starts one of libdispatch's worker threads, and SQLite's connection:
    /// work that only delays a city box's answer (Benchmarks/README.md's "Start-up").
    /// Writers close as before, and so does a PostgreSQL store, whose connections say goodbye to the server.
    private static let openUntilExit = Mutex<[WellStore]>([])
}
