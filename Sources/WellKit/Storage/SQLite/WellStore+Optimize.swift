import GRDB

extension WellStore {
    /// What ``WellStore/optimize(vacuum:)`` did.
    public struct OptimizeSummary: Sendable, Codable {
        /// Pins whose id changed to follow the Hilbert curve.
        public var renumbered: Int
        /// Pins in the store.
        public var pins: Int
        /// The share of consecutive ids whose Hilbert keys were out of order, before and after (0 = perfect).
        public var disorderBefore: Double
        public var disorderAfter: Double
        public var seconds: Double
        /// The file's size in bytes before and after SQLite's `VACUUM`, when ``optimize(vacuum:)`` ran it.
        public var bytesBeforeVacuum: Int?, bytesAfterVacuum: Int?
    }

    /// Restores spatial order: renumbers pins (and their points and details) along the Hilbert curve and repacks the R*Tree.
    ///
    /// For example:
    ///
    /// ```swift
    /// let summary = try store.optimize()   // after several incremental loads
    /// ```
    ///
    /// A fresh load writes pins in Hilbert order, so nearby wells share pages; wells added by later
    /// loads get ids after the largest, wherever they lie. SQLite keeps a rowid table in id order,
    /// so giving the pins new ids in Hilbert order moves them back together. It runs in one
    /// transaction. Pin ids change: ids held from before (such as a ``BatchedResults`` snapshot)
    /// must be fetched again.
    ///
    /// - Parameter vacuum: Then rebuild the file with SQLite's `VACUUM`, which gives its free pages
    ///   (such as an upgraded store's old tables) back to the disk. It needs as much free space as the
    ///   store, and SpatiaLite, which this connection has (`sqlite3` without it cannot: SQLite computes
    ///   the pins' points as it copies them).
    public func optimize(vacuum: Bool = false) throws -> OptimizeSummary {
        let clock = ContinuousClock.now
        let engine = try sqlite(for: "wells optimize")
        // Optimize rewrites every pin, detail and index entry: on a damaged file it would spread the
        // damage, or succeed on what it could read. SQLite's quick check (reading every page) first
        // costs about as much as the rewrite reads anyway, and nothing is written if it fails.
        // (Read straight from the pool: the engine's reads would first upgrade an older store,
        // which this command upgrades in its own transaction.)
        let damage = try StoreError.translating(path: path) { try engine.pool.read { try String.fetchAll($0, sql: "PRAGMA quick_check(10)") } }
        guard damage == ["ok"] else {
            throw StoreError(.damaged, "the store is damaged (SQLite's quick_check: \(damage.prefix(3).joined(separator: "; ")))",
                             remedy: .checkStore, path: path)
        }
        return try StoreError.translating(path: path) { try engine.pool.writeWithoutTransaction { db in
            // Details refer to pins by id; the renumbering rewrites both sides itself.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            var summary = OptimizeSummary(renumbered: 0, pins: 0, disorderBefore: 0, disorderAfter: 0, seconds: 0)
            try db.inTransaction(.immediate) {
                // A store made by an earlier build is upgraded in the same transaction.
                try Schema.upgrade(db)
                // An id and a key a pin, read with a cursor: an array of GRDB rows would hold a national store many times over.
                var pins: [(id: Int64, key: UInt64)] = []
                pins.reserveCapacity(try Int.fetchOne(db, sql: "SELECT count(*) FROM pins") ?? 0)
                let rows = try Row.fetchCursor(db, sql: "SELECT id, lon, lat FROM pins ORDER BY id")
                while let row = try rows.next() {
                    pins.append((id: row[0], key: SpatialIndex.hilbertKey(longitude: row[1], latitude: row[2])))
                }
                summary.pins = pins.count
                summary.disorderBefore = Self.disorder(pins.map(\.key))
                let ordered = pins.sorted { $0.key < $1.key || ($0.key == $1.key && $0.id < $1.id) }
                summary.disorderAfter = Self.disorder(ordered.map(\.key))
                let moves = ordered.enumerated().filter { $0.element.id != Int64($0.offset + 1) }
                summary.renumbered = moves.count
                guard !moves.isEmpty else { return .commit }
                let triggers = try SpatialIndex.suspendTriggers(db)
                try db.execute(sql: "CREATE TEMP TABLE wellkit_renumber(old INTEGER PRIMARY KEY, new INTEGER NOT NULL)")
                let insert = try db.makeStatement(sql: "INSERT INTO wellkit_renumber(old, new) VALUES (?, ?)")
                for (offset, pin) in ordered.enumerated() { try insert.execute(arguments: [pin.id, offset + 1]) }
                // Negative ids first, so no new id collides with an old one on the way.
                // Flagged wells keep their flags: `suspects` is keyed by pin id too.
                for table in [("pins", "id"), ("details", "pin_id"), ("suspects", "pin_id")] {
                    try db.execute(sql: "UPDATE \(table.0) SET \(table.1) = -\(table.1)")
                    try db.execute(sql: "UPDATE \(table.0) SET \(table.1) = (SELECT new FROM wellkit_renumber WHERE old = -\(table.1))")
                }
                try db.execute(sql: "DROP TABLE wellkit_renumber")
                try SpatialIndex.restoreTriggers(triggers, in: db)
                try SpatialIndex.repack(db)
                return .commit
            }
            if vacuum {
                func bytes() throws -> Int {
                    try Int.fetchOne(db, sql: "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size") ?? 0
                }
                summary.bytesBeforeVacuum = try bytes()
                try db.execute(sql: "VACUUM")
                summary.bytesAfterVacuum = try bytes()
            }
            summary.seconds = (ContinuousClock.now - clock).seconds
            return summary
        } }
    }

    /// The share of neighbours (in id order) whose Hilbert keys decrease.
    private static func disorder(_ keys: [UInt64]) -> Double {
        guard keys.count > 1 else { return 0 }
        let descents = zip(keys, keys.dropFirst()).filter { $0 > $1 }.count
        return Double(descents) / Double(keys.count - 1)
    }
}
