import Foundation
import GRDB

extension WellStore {
    /// Stops the store's call in progress. A server's request timeout calls this.
    ///
    /// - A file: the SQL statement running fails (SQLite's `SQLITE_INTERRUPT`) at its next step.
    /// - PostgreSQL: the wait for the server ends, also when the server has stopped answering
    ///   (a stopped or partitioned host, which enforces no ``stopStatements(after:)``), for every
    ///   call in progress on the store's pool: a query's connection is closed and the call throws
    ///   ``StoreError/Code/connectionLost``; a synchronous call waiting for a connection (while the
    ///   pool connects anew) stops waiting, with the same error. The pool connects anew for the
    ///   next call. The server's backend stops the statement at its `statement_timeout`.
    ///
    /// Safe from any thread, even while the call holds the store; never blocks. With no call in
    /// progress it does nothing: it never stops a later one.
    package func interrupt() {
        engine.interrupt()
    }

    /// Has any later statement of this store's queries stop once it runs longer than `timeout`:
    /// on PostgreSQL, the `statement_timeout` of every connection of the store's pool (SQLSTATE 57014 ends the statement);
    /// a file's queries are stopped by ``interrupt()`` instead, and this does nothing.
    package func stopStatements(after timeout: Duration) throws {
        try engine.stopStatements(after: timeout)
    }

    /// The store's connection pool now: connections open and lent, leases so far and those that
    /// waited; nil for a store file, which has none. A server's `/metrics` publish it.
    package var poolStatistics: StorePoolStatistics? {
        engine.poolStatistics
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
