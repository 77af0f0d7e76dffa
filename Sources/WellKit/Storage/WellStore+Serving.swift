import Foundation
import GRDB

extension WellStore {
    /// Stops the SQL statement running on the store's connections: it fails (SQLite's
    /// `SQLITE_INTERRUPT`) at its next step. A server's request timeout calls this.
    ///
    /// Safe from any thread. With no statement running it does nothing.
    package func interrupt() {
        // A PostgreSQL store's queries end by the server's statement_timeout instead (``stopStatements(after:)``).
        (engine as? SQLiteEngine)?.pool.interrupt()
    }

    /// Has the server stop any statement of this store's queries that runs longer than `timeout`:
    /// on PostgreSQL, the connection's `statement_timeout` (SQLSTATE 57014 ends the statement);
    /// a file's queries are stopped by ``interrupt()`` instead, and this does nothing.
    package func stopStatements(after timeout: Duration) throws {
        guard let postgres = engine as? PostgresEngine else { return }
        let milliseconds = max(1, Int64((timeout / .milliseconds(1)).rounded(.up)))
        try postgres.setSessionSetting("statement_timeout", "\(milliseconds)ms")
    }

    /// A reader of ``StorageEngine/changeToken()`` that keeps its connection open while held,
    /// so that each read costs one `PRAGMA data_version`, not an open.
    package func changeTokens() throws -> ChangeTokens {
        ChangeTokens(monitor: try engine.changeMonitor())
    }
}

/// The store's change token, read on demand: it changes whenever any connection, of this process
/// or another, commits to the store (a load, an optimize, a delete).
package final class ChangeTokens: Sendable {
    private let monitor: ChangeMonitor

    init(monitor: ChangeMonitor) { self.monitor = monitor }

    /// The current token; comparable only with tokens of this reader.
    package func current() throws -> Int64 { try monitor.version() }
}
