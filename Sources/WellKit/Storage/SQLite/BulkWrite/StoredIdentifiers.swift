import GRDB
import GRDBSQLite

/// The identifiers already in a store, to match a reload's wells to their pins, in a small
/// fraction of the memory their text would take.
///
/// A map from each identifier's text to its pin id would hold every identifier as a `String`,
/// several times the bytes of the identifier itself. This keeps two independent
/// hashes of each identifier instead, FNV-1a (64 bits) as the key and 24 bits of the standard
/// library's seeded SipHash to confirm, packed with the pin id into one 64-bit value, and keeps
/// the text only for the rare identifiers whose FNV-1a collides with another stored one (or whose
/// pin id needs more than 40 bits). Two different identifiers match only if both hashes collide
/// (one chance in 2^88 for a pair); the writer's update is guarded by `uwi = ?` as well, and fails
/// the load rather than change another well if that ever happens. (An entry of the id beside a
/// whole second hash took half as much again.)
struct StoredIdentifiers {
    /// Per FNV-1a key: the check's 24 bits above the pin id's 40, or ``elsewhere``.
    private var entries: [UInt64: UInt64] = [:]
    /// The identifiers whose key is ``elsewhere``, by their text.
    private var collided: [String: Int64] = [:]

    /// An entry whose identifiers are in `collided`: its key is shared, or its pin id is too big to pack.
    private static let elsewhere = UInt64.max
    private static let idBits = 40
    private static let idMask: UInt64 = (1 << idBits) - 1

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
                let packs = id >= 0 && UInt64(id) < Self.idMask
                let entry = packs ? Self.check(bytes) << Self.idBits | UInt64(id) : Self.elsewhere
                if entries.updateValue(entry, forKey: key) != nil || !packs { clashing.insert(key) }
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
        for key in clashing { entries[key] = Self.elsewhere }
    }

    /// The pin id of the stored well with this identifier, if there is one.
    func id(of identifier: String) -> Int64? {
        var text = identifier
        return text.withUTF8 { bytes in
            guard let entry = entries[DuplicateIdentifiers.fnv1a(bytes)] else { return nil }
            if entry == Self.elsewhere { return collided[identifier] }
            return entry >> Self.idBits == Self.check(bytes) ? Int64(entry & Self.idMask) : nil
        }
    }

    /// 24 bits of the seeded SipHash of `bytes`.
    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return UInt64(UInt(bitPattern: hasher.finalize())) & ((1 << (64 - idBits)) - 1)
    }
}
