import GRDB
import Testing
@testable import WellKit

/// A reload matches its wells to the stored ones through `StoredIdentifiers`: each identifier's
/// FNV-1a key and a 24-bit check packed with the pin id, and the exact text for what does not pack.
@Suite struct StoredIdentifiersTests {
    /// Ids from 0 to the largest that packs (2^40 - 2) come back exactly; bigger ones and negative
    /// ones go by their text; an identifier not stored, or one byte off, matches nothing.
    @Test func everyStoredIdentifierFindsItsPin() throws {
        let db = try DatabaseQueue()
        let ids: [Int64] = [0, 1, 42, (1 << 40) - 2, (1 << 40) - 1, 1 << 40, Int64.max, -7]
        let identifiers = ids.indices.map { "100/\($0)-14-110-20W5/00" }
        let stored = try db.write { db in
            try db.execute(sql: "CREATE TABLE details(pin_id INTEGER PRIMARY KEY, uwi TEXT NOT NULL)")
            for (id, identifier) in zip(ids, identifiers) {
                try db.execute(sql: "INSERT INTO details(pin_id, uwi) VALUES (?, ?)", arguments: [id, identifier])
            }
            return try StoredIdentifiers(db)
        }
        #expect(stored.count == ids.count)
        for (id, identifier) in zip(ids, identifiers) {
            #expect(stored.id(of: identifier) == id, "\(identifier)")
        }
        #expect(stored.id(of: "100/0-14-110-20W5/01") == nil)
        #expect(stored.id(of: "") == nil)
    }
}
