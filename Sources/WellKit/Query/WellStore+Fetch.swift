import Foundation

extension WellStore {
    /// Fetches pins: exactly `id, name, lat, lon`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let box = try BoundingBox(parsing: "-114.2,50.9,-113.9,51.2")
    /// let pins = try store.fetchPins(WellFetchRequest(region: .box(box)))
    /// ```
    ///
    /// - Complexity: O(log n + k) through the R*Tree for a region holding k wells.
    public func fetchPins(_ request: WellFetchRequest) throws -> [WellPin] {
        try engine.pins(request)
    }

    /// Fetches whole wells, pin and detail, in one join.
    public func fetchWells(_ request: WellFetchRequest) throws -> [Well] {
        try engine.wells(request)
    }

    /// Fetches the chosen properties as one dictionary per row, like Core Data's dictionary results,
    /// keyed by each attribute's ``WellAttribute/name-property`` (`uwi`, `extra.DRILLER`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let rows = try store.fetchDictionaries(request, properties: [.identifier, .status, .extra("DRILLER")])
    /// print(rows[0]["uwi"]?.string ?? "", rows[0]["extra.DRILLER"]?.string ?? "")
    /// ```
    public func fetchDictionaries(_ request: WellFetchRequest, properties: [WellAttribute]) throws -> [[String: WellValue]] {
        try engine.dictionaries(request, fields: properties)
    }

    /// Fetches only the ids, in request order.
    public func fetchIDs(_ request: WellFetchRequest) throws -> [Int64] {
        try engine.ids(request)
    }

    /// Counts the wells the request matches (limit and offset apply).
    public func fetchCount(_ request: WellFetchRequest) throws -> Int {
        try engine.count(request)
    }

    /// The `k` wells nearest a point, nearest first, with their geodesic distances in metres.
    ///
    /// Queries growing radii through the R*Tree until `k` wells lie within one: any nearer
    /// well would lie within it too, so the answer is exact.
    ///
    /// Beyond 16 km, a radius is not queried as it is: a radius query computes the geodesic
    /// distance of every well in its box to sort them, and a point far from the wells (Indiana's
    /// against Tennessee's) reaches radii of hundreds of kilometres, thousands of wells each, for
    /// every point of a join. Instead the box around the radius is read without distances (latitude and
    /// longitude only), doubling while it holds fewer than `k` wells; once it holds `k`, the
    /// radius queried is the `k`-th smallest of their distances on a sphere, plus the sphere's
    /// error (under 1%): a circle that holds those `k` wells, and little more.
    public func fetchNearest(to center: Coordinate, count k: Int, request: WellFetchRequest = WellFetchRequest()) throws -> [(pin: WellPin, meters: Double)] {
        guard k > 0 else { return [] }
        var radius = 1_000.0
        while true {
            var queried = radius
            if radius > 16_000 && radius <= 20_100_000 {
                guard let kth = try sphericalKth(k, from: center, within: radius, request) else {
                    radius *= 2  // fewer than k in the box, so fewer in the circle it holds
                    continue
                }
                queried = min(radius, kth * 1.01 + 1)
            }
            var attempt = request
            attempt.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: queried)
            attempt.limit = k
            attempt.offset = nil
            attempt.sortDescriptors = []  // nearest first
            let found = try fetchPinsWithDistance(attempt, from: center)
            if found.count == k || radius > 20_100_000 { return found }
            radius *= 4
        }
    }

    /// The `k`-th smallest spherical distance from `center` of the wells of `request` in the box
    /// around a circle of `radius` metres, or nil when the box holds fewer than `k`.
    private func sphericalKth(_ k: Int, from center: Coordinate, within radius: Double, _ request: WellFetchRequest) throws -> Double? {
        var box = request
        box.region = .box(try Geodesic.enclosingBox(latitude: center.latitude, longitude: center.longitude, meters: radius))
        (box.limit, box.offset, box.sortDescriptors) = (nil, nil, [])
        // Up to 64, the k smallest so far, ascending (an insertion each); beyond, every distance,
        // sorted at the end (k may be as large as Int.max: `--nearest` with no practical bound).
        let selecting = k <= 64
        var nearest: [Double] = []
        if selecting { nearest.reserveCapacity(k + 1) }
        try forEachRow(box, fields: [.latitude, .longitude]) { row in
            let meters = Geodesic.sphericalDistance(fromLatitude: center.latitude, longitude: center.longitude, toLatitude: row[0], longitude: row[1])
            guard selecting else { return nearest.append(meters) }
            guard nearest.count < k || meters < nearest[k - 1] else { return }
            var index = nearest.count
            while index > 0 && nearest[index - 1] > meters { index -= 1 }
            nearest.insert(meters, at: index)
            if nearest.count > k { nearest.removeLast() }
        }
        guard nearest.count >= k else { return nil }
        return selecting ? nearest[k - 1] : nearest.sorted()[k - 1]
    }

    /// Fetches pins with their distance from `center`, nearest first unless the request sorts otherwise.
    ///
    /// For example, the wells within 2 km of a point, the point given once:
    ///
    /// ```swift
    /// let request = WellFetchRequest(region: .radius(around: Coordinate(latitude: 36.16, longitude: -85.5), meters: 2_000))
    /// let near = try store.fetchPinsWithDistance(request)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The wells, their order and their number.
    ///   - center: The point the distances are measured from; nil for the center of the request's radius.
    /// - Throws: ``QueryError`` `invalidValue` with no `center` and a region that is not a radius.
    public func fetchPinsWithDistance(_ request: WellFetchRequest, from center: Coordinate? = nil) throws -> [(pin: WellPin, meters: Double)] {
        guard let center = center ?? request.region?.center else {
            throw QueryError(.invalidValue, "distances from where? the request's region is not a radius: give the point (from:) "
                             + "or query a radius, Region.radius(around:meters:)", subject: .point)
        }
        return try engine.pins(request, distanceFrom: center)
    }

    /// The well with a source identifier (`details.uwi`), or nil.
    public func well(identifier: String) throws -> Well? {
        try fetchWells(WellFetchRequest(predicate: .compare(.identifier, .equal, .text(identifier)), limit: 1)).first
    }

    /// Streams rows of the chosen fields to `body` without holding them: memory does not grow with the result.
    ///
    /// For example:
    ///
    /// ```swift
    /// try store.forEachRow(request, fields: [.identifier, .status, .extra("DRILLER")]) { row in print(row[0] as String, row[1] as String?) }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The wells, their order and their number.
    ///   - fields: Fields and unmapped columns (`.extra("DRILLER")`, text or null); ``extraColumnNames()`` lists the latter.
    ///   - center: Adds the distance in metres from this point as a last column.
    ///   - body: Receives each row, valid only during the call, its columns in the order of `fields`.
    public func forEachRow(_ request: WellFetchRequest, fields: [WellAttribute], distanceFrom center: Coordinate? = nil,
                           _ body: (WellRow) throws -> Void) throws {
        try engine.forEachRow(request, fields: fields, distanceFrom: center, body)
    }

    /// The names of the unmapped source columns kept in the wells' `extra` objects, sorted: the
    /// union of their keys, so that `--fields '*'` can select each as `.extra(name)`.
    ///
    /// - Complexity: O(n): one pass over every well's `extra` (the store keeps no list of the
    ///   columns, and a column's key is absent where a well had no value for it).
    public func extraColumnNames() throws -> [String] {
        try engine.extraColumnNames().sorted()
    }

    /// The units of a load's depth and elevation columns in its source, as field name → `ft` or `m`
    /// (``LoadSummary/units``): read from the `unit` inferences its `loads` row keeps. Values are
    /// stored in metres either way; a load made before units were read records none.
    package func sourceUnits(loadID: Int64) throws -> [String: String] {
        guard let json = try engine.loadInferences(id: loadID),
              let inferences = try? JSONDecoder().decode([Inference].self, from: Data(json.utf8)) else { return [:] }
        var units: [String: String] = [:]
        for inference in inferences where inference.subject == "unit" {
            // "total_depth in ft, stored in metres (× 0.3048)": the field, then the unit.
            let words = inference.value.split(separator: " ")
            if words.count >= 3, words[1] == "in", let unit = LoadOptions.LengthUnit(rawValue: String(words[2].trimmingCharacters(in: .punctuationCharacters))) {
                units[String(words[0]).trimmingCharacters(in: .punctuationCharacters)] = unit.rawValue
            }
        }
        return units
    }

    /// The smallest box that holds every well, and the number of wells: (nil, 0) for an empty store.
    ///
    /// Wells on both sides of the antimeridian (Guam and Hawaii, say) get the narrower of the two
    /// boxes that hold them: one that crosses it, with `minLongitude` greater than `maxLongitude`
    /// (see ``BoundingBox/crossesAntimeridian``), when its widest gap in longitude is not at ±180°.
    ///
    /// - Complexity: O(n): one pass over the pins; two when the wells span more than 180° of longitude.
    public func fetchExtent() throws -> (box: BoundingBox?, count: Int) {
        let (box, count) = try engine.extent()
        guard let box, box.maxLongitude - box.minLongitude > 180 else { return (box, count) }
        // Per 1° bin of longitude, the least and greatest longitude of its wells.
        var least = [Double](repeating: .infinity, count: 360), greatest = [Double](repeating: -.infinity, count: 360)
        try engine.forEachRow(WellFetchRequest(), fields: [.longitude], distanceFrom: nil) { row in
            let longitude: Double = row[0]
            let bin = min(359, max(0, Int((longitude + 180).rounded(.down))))
            least[bin] = min(least[bin], longitude)
            greatest[bin] = max(greatest[bin], longitude)
        }
        // The widest gap between consecutive occupied bins, going east; the one from the last bin
        // round to the first is the gap at the antimeridian, which the plain box already leaves out.
        let occupied = (0..<360).filter { least[$0].isFinite }
        guard let first = occupied.first, let last = occupied.last else { return (box, count) }
        var widest = (gap: least[first] + 360 - greatest[last], west: first, east: last)
        for (a, b) in zip(occupied, occupied.dropFirst()) where least[b] - greatest[a] > widest.gap {
            widest = (least[b] - greatest[a], b, a)
        }
        guard widest.west != first else { return (box, count) }
        return (try BoundingBox(minLongitude: least[widest.west], minLatitude: box.minLatitude,
                                maxLongitude: greatest[widest.east], maxLatitude: box.maxLatitude), count)
    }
}
