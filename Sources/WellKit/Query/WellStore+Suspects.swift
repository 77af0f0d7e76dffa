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

    public init(id: Int64, identifier: String, name: String?, latitude: Double, longitude: Double, line: Int,
                reason: String, detail: String, loadID: Int64) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.line = line
        self.reason = reason
        self.detail = detail
        self.loadID = loadID
    }
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
    ///   - limit: At most this many wells; nil for all.
    public func suspects(reason: String? = nil, pinID: Int64? = nil, limit: Int? = nil) throws -> [SuspectWell] {
        try engine.suspects(reason: reason, pinID: pinID, limit: limit)
    }
}
