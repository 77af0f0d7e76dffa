import Foundation
import GRDB

extension WellStore {
    /// Stops the SQL statement running on the store's connections: it fails (SQLite's
    /// `SQLITE_INTERRUPT`) at its next step; a PostgreSQL store's stop at ``stopStatements(after:)``
    /// instead. A server's request timeout calls this.
    ///
    /// Safe from any thread. With no statement running it does nothing.
    package func interrupt() {
        engine.interrupt()
    }

    /// Has any later statement of this store's queries stop once it runs longer than `timeout`:
    /// on PostgreSQL, the connection's `statement_timeout` (SQLSTATE 57014 ends the statement);
    /// a file's queries are stopped by ``interrupt()`` instead, and this does nothing.
    package func stopStatements(after timeout: Duration) throws {
        try engine.stopStatements(after: timeout)
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
