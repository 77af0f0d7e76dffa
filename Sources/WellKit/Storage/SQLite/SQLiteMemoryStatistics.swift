import CSpatiaLite

extension WellStore {
    /// Turns off SQLite's process-wide memory statistics, which cost every SQLite allocation and
    /// free a global mutex, a share of a load's CPU time that buys nothing when no one reads them.
    ///
    /// Call it before the process opens any SQLite database (the `wells` tool calls it first
    /// thing). It changes SQLite for the whole process: `sqlite3_memory_used()`,
    /// `sqlite3_memory_highwater()`, `sqlite3_status64()` and the soft and hard heap limits stop
    /// working, so an app that uses them should not call it.
    ///
    /// - Returns: Whether it took effect: false once SQLite is initialised (a database was opened).
    @discardableResult
    public static func disableSQLiteMemoryStatistics() -> Bool {
        wk_sqlite_disable_memory_statistics() == SQLITE_OK
    }
}
