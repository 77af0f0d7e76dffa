/// Longitudes on the circle they are: what every extent, distance and "outside" test of the
/// place check and the suspects uses, so that a list across the antimeridian (the Aleutians,
/// Fiji, Chukotka) is measured the short way round, never across the whole globe.
enum Longitude {
    /// `a − b` the shorter way round, in -180…180, for longitudes in -180…180 (one test, no division:
    /// it runs per outline vertex in ``Places/distance(to:longitude:latitude:)``).
    @inline(__always) static func difference(_ a: Double, _ b: Double) -> Double {
        let d = a - b
        return d > 180 ? d - 360 : d < -180 ? d + 360 : d
    }

    /// Degrees from `longitude` to the arc from `west` eastwards to `east` (`west > east` for an arc
    /// across ±180°), the shorter way round; 0 on it.
    static func outside(_ longitude: Double, west: Double, east: Double) -> Double {
        if contains(longitude, west: west, east: east) { return 0 }
        return min(abs(difference(longitude, west)), abs(difference(longitude, east)))
    }

    /// Whether the arc from `west` eastwards to `east` holds `longitude`.
    static func contains(_ longitude: Double, west: Double, east: Double) -> Bool {
        west <= east ? longitude >= west && longitude <= east : longitude >= west || longitude <= east
    }

    /// The point of the arc nearest `longitude`: itself on the arc, else the nearer end.
    static func clamp(_ longitude: Double, west: Double, east: Double) -> Double {
        if contains(longitude, west: west, east: east) { return longitude }
        return abs(difference(longitude, west)) <= abs(difference(longitude, east)) ? west : east
    }

    /// The longitudes, sorted, unwrapped onto the narrowest arc that holds them all: the widest gap
    /// between neighbours (round the circle) is left out, and the values east of it, past +180°,
    /// get 360 added, so that the result ascends from the arc's west end. For wells that do not cross
    /// ±180° it is `sorted` itself.
    static func unwrapped(sorted: [Double]) -> [Double] {
        guard let first = sorted.first, let last = sorted.last else { return sorted }
        var widest = first + 360 - last, start = 0
        for k in sorted.indices.dropFirst() where sorted[k] - sorted[k - 1] > widest {
            widest = sorted[k] - sorted[k - 1]
            start = k
        }
        guard start > 0 else { return sorted }
        return Array(sorted[start...]) + sorted[..<start].map { $0 + 360 }
    }

    /// A value of ``unwrapped(sorted:)`` back in -180…180.
    static func wrapped(_ longitude: Double) -> Double { longitude > 180 ? longitude - 360 : longitude }

    /// The median of the longitudes on their narrowest arc (the median of -179 and 179 is ±180, not 0).
    static func median(_ longitudes: [Double]) -> Double {
        let arc = unwrapped(sorted: longitudes.sorted())
        return arc.isEmpty ? 0 : wrapped(arc[arc.count / 2])
    }
}
