import Foundation
import GRDB
import GRDBSQLite

/// The write phase of a load into a SQLite and SpatiaLite store: one call that takes a
/// ``PreparedLoad`` and writes its wells, rejects, suspects and `loads` row in one transaction.
///
/// The storage engine's bulk write forwards here. Everything before it (reading, inference,
/// validation, CRS, duplicates, rejects) is engine-independent and done by
/// ``WellStore/prepareLoad(csvAt:options:)``.
enum SQLiteBulkWrite {
    /// Writes `load` into the store at `path` through `pool`, and returns the load's summary with
    /// its id, counts, journal and phase times.
    ///
    /// If the write fails or the process dies part-way, the transaction rolls back and the store
    /// is left as it was. The first load into an empty store commits through a rollback journal
    /// rather than WAL (see the comment in the body); ``LoadSummary/journal`` says which.
    ///
    /// - Throws: ``StoreError`` when the disk is clearly too full or SQLite fails.
    static func write(_ load: PreparedLoad, to pool: any DatabaseWriter, path: String) throws -> LoadSummary {
        let scan = load.scan, options = load.options, clock = load.clock
        var summary = scan.summary
        var commitStart = ContinuousClock.now
        try checkFreeSpace(for: scan, path: path)
        var committed = false
        // A failed load rolls back; its pages in the WAL are then given back, so that the file does
        // not stay as large as the load that failed (when the disk has room for SQLite to do it).
        defer { if !committed { _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) } } }
        try StoreError.translating(path: path) { try pool.barrierWriteWithoutTransaction { db in
            // Foreign keys hold by construction here: each pin is written before its detail, with
            // an id the writer allocated, and the load's row before both, so checking them per row
            // would be pure cost. The pragma only works outside a transaction.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            // The first load into an empty store commits through a rollback journal. It is as
            // atomic as WAL: a crash leaves a journal of the few pages the empty store had, and
            // the next open restores them and cuts the file back. But each new page is written
            // once, to the file, where WAL writes it to the log and again at the checkpoint
            // (Benchmarks/README.md's "Loading"). synchronous=FULL syncs the journal before
            // the file is touched, so a power loss cannot corrupt it either. The store goes back
            // to WAL after the commit. If another connection has the file open, SQLite keeps
            // WAL, and the load simply runs in WAL.
            let firstLoad = try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pins)")!
            let rollbackJournal = firstLoad && leaveWAL(db)
            if rollbackJournal { try db.execute(sql: "PRAGMA synchronous = FULL") }
            defer {
                if rollbackJournal {
                    try? db.execute(sql: "PRAGMA synchronous = NORMAL")
                    // Gives up the exclusive lock (it goes at the next access), then returns to WAL.
                    try? db.execute(sql: "PRAGMA locking_mode = NORMAL")
                    _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                }
            }
            summary.journal = rollbackJournal ? "delete" : "wal"
            // Another process's load holds the write lock until it commits: wait for it, up to
            // ``loadLockTimeout``, rather than the ``WellStore/busyTimeout`` that queries wait.
            sqlite3_busy_timeout(db.sqliteConnection, Int32(loadLockTimeout * 1000))
            defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(WellStore.busyTimeout * 1000)) }
            try db.inTransaction(.immediate) {
                // A store made by an earlier build is upgraded here, so that it stays as it was
                // unless the load commits (``SQLiteEngine``'s `upgradePending`).
                try Schema.upgrade(db)
                // A release copies its source's wells aside before the write, to compare them after it.
                let releaseStart = ContinuousClock.now
                let release = try options.release.map { try ReleaseWriter(db, options: $0, file: summary.file) }
                if release != nil { summary.phases["release"] = (ContinuousClock.now - releaseStart).seconds }
                var writer = BulkWriter(db)
                let written = try writer.write(scan, edit: load.edit, skipUnchanged: release != nil, progress: options.progress)
                summary.inserted = written.inserted
                summary.updated = written.updated
                summary.deleted = written.deleted
                if let edit = load.edit { summary.inferences.append(edit.record(inserted: written.inserted, updated: written.updated)) }
                summary.count(badValues: written.badValues)
                summary.warnings += scan.emptyColumnWarnings(filled: written.filled, describe: options.describeRemedy)
                summary.phases.merge(writer.phases) { $1 }
                if let release {
                    let recordStart = ContinuousClock.now
                    let recorded = try release.record(loadID: written.loadID, matched: writer.matched, summary: summary)
                    summary.phases["release", default: 0] += (ContinuousClock.now - recordStart).seconds
                    summary.release = LoadedRelease(source: release.source, number: recorded.release, summary: recorded.summary)
                }
                summary.seconds = (ContinuousClock.now - clock).seconds
                try writer.record(summary, loadID: written.loadID, startedAt: load.startedAt, rejects: scan.rejects)
                summary.loadID = written.loadID
                options.progress?(LoadProgress(phase: .indexing, done: 2, total: 3))
                commitStart = ContinuousClock.now
                return .commit
            }
        } }
        committed = true
        summary.phases["commit"] = (ContinuousClock.now - commitStart).seconds
        options.progress?(LoadProgress(phase: .indexing, done: 3, total: 3))
        summary.seconds = (ContinuousClock.now - clock).seconds
        return summary
    }

    /// Fails before writing anything when the store's file system has clearly too little room for
    /// the load: twice the input's size (a store can take more room than its CSV, and a load into
    /// a store that already has wells writes its pages to the WAL first).
    ///
    /// A load that fills the disk anyway rolls back and says so, but SQLite may then be unable to
    /// remove its WAL until there is room again; this check makes that rare.
    static func checkFreeSpace(for scan: ScannedFile, path: String) throws {
        var info = statvfs()
        guard statvfs(WellStore.directory(of: path), &info) == 0 else { return }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let needed = 2 * scan.file.bytes.count
        if free < needed {
            throw StoreError(.diskFull, "the disk is too full for this load: about \(needed / 1_048_576 + 1) MB needed "
                                + "(twice the input's size), \(free / 1_048_576) MB free; nothing was changed; free some space and run the command again",
                             path: path)
        }
    }

    /// How long a load waits for another process's load into the same store to finish.
    static let loadLockTimeout: TimeInterval = 600

    /// Switches the connection to a rollback journal, without waiting: if another connection has
    /// the file open, SQLite cannot leave WAL, and this returns false.
    ///
    /// On success the connection keeps the file's exclusive lock (`locking_mode = EXCLUSIVE`) until
    /// the load is over and the store is back in WAL. Without it, another process could open the
    /// store while it is in rollback-journal mode: its open (which reads, then asks to write to go
    /// back to WAL) and this load's commit each waited for the other's lock, so SQLite failed one at
    /// once with SQLITE_BUSY, and a process switching the file to WAL under a load in flight got
    /// disk I/O errors (several `wells load`s into one new store at once). With the lock held, the
    /// others wait for it, holding none, as the busy timeout intends.
    static func leaveWAL(_ db: Database) -> Bool {
        sqlite3_busy_timeout(db.sqliteConnection, 0)
        defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(WellStore.busyTimeout * 1000)) }
        try? db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        if (try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")) == "delete" { return true }
        try? db.execute(sql: "PRAGMA locking_mode = NORMAL")
        return false
    }
}
