import GRDB

/// A well a load flagged because its coordinates look wrong (see the `suspects` table).
public struct SuspectWell: Sendable, Equatable {
    public var id: Int64
    public var identifier: String
    public var name: String?
    public var latitude: Double
    public var longitude: Double
    /// The line of the file the well was loaded from.
    public var line: Int
    /// "longitude sign", "latitude sign", "swapped", "lost digit" or "far from the others".
    public var reason: String
    public var detail: String
    public var loadID: Int64
}

extension WellStore {
    /// The wells whose coordinates a load flagged as suspect, in pin order, optionally of one reason.
    ///
    /// For example:
    ///
    /// ```swift
    /// for well in try store.suspects(reason: "longitude sign") { print(well.line, well.identifier, well.detail) }
    /// ```
    /// - Parameters:
    ///   - reason: Only wells flagged for this reason.
    ///   - pinID: Only this well (its flag, if it has one).
    public func suspects(reason: String? = nil, pinID: Int64? = nil, limit: Int? = nil) throws -> [SuspectWell] {
        try pool.read { db in
            var sql = """
                SELECT s.pin_id, d.uwi, p.name, p.lat, p.lon, s.line, s.reason, s.detail, s.load_id
                FROM suspects s JOIN pins p ON p.id = s.pin_id JOIN details d ON d.pin_id = s.pin_id
                """
            var conditions: [String] = [], arguments: StatementArguments = []
            if let reason {
                conditions.append("s.reason = ?")
                arguments += [reason]
            }
            if let pinID {
                conditions.append("s.pin_id = ?")
                arguments += [pinID]
            }
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += " ORDER BY s.pin_id LIMIT ?"
            arguments += [limit ?? -1]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                SuspectWell(id: row[0], identifier: row[1], name: row[2], latitude: row[3], longitude: row[4],
                            line: row[5], reason: row[6], detail: row[7], loadID: row[8])
            }
        }
    }
}
