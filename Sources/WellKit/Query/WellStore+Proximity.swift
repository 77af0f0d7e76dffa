/// A well found near a point, with its geodesic distance (WGS 84) from the point in metres.
public struct ProximityMatch: Sendable, Equatable {
    public var id: Int64
    /// The well's source identifier (`details.uwi`).
    public var identifier: String
    public var name: String?
    public var latitude: Double
    public var longitude: Double
    public var meters: Double

    public init(id: Int64, identifier: String, name: String?, latitude: Double, longitude: Double, meters: Double) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.meters = meters
    }
}

/// The wells near one point of a proximity join (``WellStore/proximity(of:radius:request:pairs:)``).
public struct ProximityResult: Sendable, Equatable {
    /// The point, as given.
    public var point: Coordinate
    /// How many wells lie within the radius (for ``WellStore/proximity(of:nearest:request:)``, how many were found).
    public var count: Int
    /// The nearest of them; nil when there is none. Of two wells at the same distance, the one with the lower id.
    public var nearest: ProximityMatch?
    /// Every well within the radius, nearest first, when pairs were asked for (or the k nearest); else empty.
    public var matches: [ProximityMatch]

    public init(point: Coordinate, count: Int, nearest: ProximityMatch?, matches: [ProximityMatch]) {
        self.point = point
        self.count = count
        self.nearest = nearest
        self.matches = matches
    }
}

extension WellStore {
    /// For every point, the wells within `meters` of it: their count, the nearest, and with `pairs`
    /// every one, nearest first; distances geodesic on WGS 84, as ``fetchPinsWithDistance(_:from:)`` reports them.
    ///
    /// For example, the abandoned wells within 1 km of each school:
    ///
    /// ```swift
    /// let schools = [Coordinate(latitude: 40.44, longitude: -79.99), Coordinate(latitude: 41.2, longitude: -77.19)]
    /// let request = WellFetchRequest(predicate: .compare(.status, .equal, "Abandoned"))
    /// for result in try store.proximity(of: schools, radius: 1_000, request: request) {
    ///     print(result.count, result.nearest?.identifier ?? "-", result.nearest?.meters ?? .nan)
    /// }
    /// ```
    ///
    /// The request's predicate and area (``WellFetchRequest/within``) narrow the wells; its region,
    /// sort, limit and offset are replaced by each point's radius. One radius query per point, through
    /// the store's engine (R*Tree or GiST first, then the exact distance), so either engine answers alike.
    ///
    /// - Returns: One result per point, in the order of `points`.
    /// - Throws: ``QueryError`` (`outOfRange`) for a radius that is negative or not finite, or a point off the globe.
    public func proximity(of points: [Coordinate], radius meters: Double, request: WellFetchRequest = WellFetchRequest(),
                          pairs: Bool = false) throws -> [ProximityResult] {
        var results: [ProximityResult] = []
        results.reserveCapacity(points.count)
        try forEachProximity(of: points, radius: meters, request: request, pairs: pairs) { _, result in results.append(result) }
        return results
    }

    /// ``proximity(of:radius:request:pairs:)`` one point at a time: `body` receives each point's
    /// index and result as soon as it is answered, so memory holds one point's pairs, not all of them.
    public func forEachProximity(of points: some Sequence<Coordinate>, radius meters: Double, request: WellFetchRequest = WellFetchRequest(),
                                 pairs: Bool = false, _ body: (Int, ProximityResult) throws -> Void) throws {
        guard meters.isFinite, meters >= 0 else {
            throw QueryError(.outOfRange, "the radius must be zero or more metres, got \(meters)", subject: .radius)
        }
        for (index, point) in points.enumerated() {
            try Self.checkPoint(point)
            var count = 0
            var nearest: ProximityMatch?
            var matches: [ProximityMatch] = []
            try forEachMatch(Self.around(point, meters: meters, request), from: point) { match in
                count += 1
                if nearest == nil { nearest = match }
                if pairs { matches.append(match) }
            }
            try body(index, ProximityResult(point: point, count: count, nearest: nearest, matches: matches))
        }
    }

    /// For every point, the `k` wells nearest it (whatever their distance), nearest first, in ``ProximityResult/matches``.
    ///
    /// Built on ``fetchNearest(to:count:request:)``; the wells within the k-th's distance are then read
    /// with their identifiers and names (at most `k`: of wells at the k-th distance, the lower ids).
    public func proximity(of points: [Coordinate], nearest k: Int, request: WellFetchRequest = WellFetchRequest()) throws -> [ProximityResult] {
        var results: [ProximityResult] = []
        results.reserveCapacity(points.count)
        try forEachProximity(of: points, nearest: k, request: request) { _, result in results.append(result) }
        return results
    }

    /// ``proximity(of:nearest:request:)`` one point at a time, as ``forEachProximity(of:radius:request:pairs:_:)``.
    public func forEachProximity(of points: some Sequence<Coordinate>, nearest k: Int, request: WellFetchRequest = WellFetchRequest(),
                                 _ body: (Int, ProximityResult) throws -> Void) throws {
        guard k >= 1 else { throw QueryError(.outOfRange, "the number of nearest wells must be at least 1, got \(k)", subject: .limit) }
        for (index, point) in points.enumerated() {
            try Self.checkPoint(point)
            var matches: [ProximityMatch] = []
            if let farthest = try fetchNearest(to: point, count: k, request: request).last {
                var around = Self.around(point, meters: farthest.meters, request)
                around.limit = k
                try forEachMatch(around, from: point) { matches.append($0) }
            }
            try body(index, ProximityResult(point: point, count: matches.count, nearest: matches.first, matches: matches))
        }
    }

    /// The request's wells within `meters` of `point`, nearest first.
    private static func around(_ point: Coordinate, meters: Double, _ request: WellFetchRequest) -> WellFetchRequest {
        var around = request
        around.region = .radius(latitude: point.latitude, longitude: point.longitude, meters: meters)
        around.sortDescriptors = []   // nearest first, then by id
        around.limit = nil
        around.offset = nil
        return around
    }

    /// Streams the wells of `request` as matches, with their distance from `point`.
    private func forEachMatch(_ request: WellFetchRequest, from point: Coordinate, _ body: (ProximityMatch) throws -> Void) throws {
        try forEachRow(request, fields: [.id, .identifier, .name, .latitude, .longitude], distanceFrom: point) { row in
            try body(ProximityMatch(id: row[0], identifier: row[1], name: row[2], latitude: row[3], longitude: row[4], meters: row[5]))
        }
    }

    private static func checkPoint(_ point: Coordinate) throws {
        guard point.latitude.isFinite, point.longitude.isFinite, abs(point.latitude) <= 90, abs(point.longitude) <= 180 else {
            throw QueryError(.outOfRange, "the point \(point.latitude),\(point.longitude) is not a latitude and longitude on the globe", subject: .point)
        }
    }
}
