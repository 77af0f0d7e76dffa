import GRDB
import GRDBSQLite

/// The identifiers already in a store, to match a reload's wells to their pins, at about 40
/// bytes per stored well.
///
/// A map from each identifier's text to its pin id would hold every identifier as a `String`
/// (about 100 bytes each for 21-byte UWIs: 2,442,920 wells, 240 MB). This keeps two independent
/// 64-bit hashes of each identifier instead (FNV-1a as the key, and the standard library's
/// seeded SipHash to confirm), and keeps the text only for the rare identifiers whose FNV-1a
/// collides with another stored one. Two different identifiers match only if both hashes
/// collide; the writer's update is guarded by `uwi = ?` as well, and fails the load rather
/// than change another well if that ever happens.
struct StoredIdentifiers {
    private struct Entry {
        /// The pin id, or -1 when several stored identifiers share the key (see `collided`).
        var id: Int64
        var check: Int
    }

    private var entries: [UInt64: Entry] = [:]
    private var collided: [String: Int64] = [:]

    /// How many wells the store holds.
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    /// Reads every stored identifier with its pin id.
    init(_ db: Database) throws {
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM details") ?? 0
        guard count > 0 else { return }
        self.count = count
        entries.reserveCapacity(count)
        let select = try db.makeStatement(sql: "SELECT uwi, pin_id FROM details")
        var clashing: Set<UInt64> = []
        try withStatement(select) { statement in
            while true {
                let step = sqlite3_step(statement)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: step)) }
                let bytes = UnsafeBufferPointer(start: sqlite3_column_text(statement, 0), count: Int(sqlite3_column_bytes(statement, 0)))
                let id = sqlite3_column_int64(statement, 1)
                let key = DuplicateIdentifiers.fnv1a(bytes)
                if entries.updateValue(Entry(id: id, check: Self.check(bytes)), forKey: key) != nil { clashing.insert(key) }
            }
        }
        guard !clashing.isEmpty else { return }
        // A second pass for the few keys that clash: their texts, exactly.
        try withStatement(select) { statement in
            while sqlite3_step(statement) == SQLITE_ROW {
                let bytes = UnsafeBufferPointer(start: sqlite3_column_text(statement, 0), count: Int(sqlite3_column_bytes(statement, 0)))
                guard clashing.contains(DuplicateIdentifiers.fnv1a(bytes)) else { continue }
                collided[String(decoding: bytes, as: UTF8.self)] = sqlite3_column_int64(statement, 1)
            }
        }
        for key in clashing { entries[key]?.id = -1 }
    }

    /// The pin id of the stored well with this identifier, if there is one.
    func id(of identifier: String) -> Int64? {
        var text = identifier
        return text.withUTF8 { bytes in
            guard let entry = entries[DuplicateIdentifiers.fnv1a(bytes)] else { return nil }
            if entry.id < 0 { return collided[identifier] }
            return entry.check == Self.check(bytes) ? entry.id : nil
        }
    }

    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }
}
