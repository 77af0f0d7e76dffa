import CSpatiaLite

extension WellStore {
    /// Turns off SQLite's process-wide memory statistics, which cost every SQLite allocation and
    /// free a global mutex: a load of 244,292 wells spends about 3% of its CPU time there.
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
