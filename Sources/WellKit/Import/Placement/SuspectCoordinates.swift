/// Finds wells whose coordinates are valid numbers but almost certainly wrong.
///
/// The rule, stated so that users can judge it. Wells are counted on a grid of 0.2° cells; a
/// well's *neighbours* are the other wells in its cell and the 8 cells around it (so within about
/// 20 km, often more).
///
/// 1. A well is **out of place** when it has at most max(5, n / 5,000) neighbours, n being the
///    wells of the file: it is alone, or in a small group (several wells of one field can lose the
///    same minus sign together).
/// 2. An out-of-place well is flagged when one simple slip explains it: with the longitude's or the
///    latitude's sign flipped, latitude and longitude swapped, or one digit put back into the whole
///    degrees (`-14.52` for `-114.52`), it has at least max(10, 20 × (neighbours + 1)) neighbours.
///    The reason names the slip: `longitude sign`, `latitude sign`, `swapped`, `lost digit`.
/// 3. An out-of-place well that no such slip explains is *far* when the file's wells (1st to 99th
///    percentile) fit in 60° of longitude and 40° of latitude, and the well is more than 1,000 km,
///    and more than that box's diagonal, outside it. A far well is flagged with the slip that brings
///    it inside the box widened by a quarter on each side, preferably next to another well (in sparse
///    country rule 2 asks too much), and as `far from the others` when none does, unless it lies on
///    land in the country of most of the file's wells. Longitudes are on a circle: the box is the
///    narrowest that holds the wells' longitudes, across ±180° when they cross it (Alaska with the
///    Aleutians), and distances are measured the short way round.
///
/// A well among many others is never flagged, and a file that legitimately spans oceans (the Pacific
/// NWIS list: Hawaii, Guam, Samoa, on both sides of the antimeridian) is never "far": its extent
/// is too wide for rule 3, and none of its island groups becomes 20 times denser by a slip. Files of
/// fewer than 20 wells are not judged.
///
/// - Complexity: O(n) for n wells: one pass to count wells per cell, one to find those out of place;
///   the slips are tried only for those.
enum SuspectCoordinates {
    /// The grid cell, in degrees.
    static let cell = 0.2
    static let columns = Int((360 / cell).rounded())
    static let minimumWells = 20
    /// The reason of a well outside the place its row names that no slip explains (``ScannedFile/checkPlaces(_:)``).
    static let outsidePlace = "outside named place"

    struct Finding: Equatable {
        var index: Int
        var reason: String
        var detail: String
    }

    /// The suspects among `points` (latitude, longitude), by index.
    ///
    /// - Parameter countryOf: The country whose land holds a point, if any (``Places/country(containing:latitude:)``):
    ///   a far well that no slip explains, on land in the country of most of the others, is no
    ///   suspect (Alaska's wells on Attu, 1,700 km west of the rest across ±180°; Hawaii's in a US list).
    static func find(_ points: [(lat: Double, lon: Double)], countryOf: ((_ lat: Double, _ lon: Double) -> Int?)? = nil) -> [Finding] {
        guard points.count >= minimumWells else { return [] }
        // A dense grid over the rows the wells span, every column of the globe wide so that it wraps
        // at the antimeridian (a few megabytes of counts for a world-wide list): a dictionary of
        // cells cost far more time.
        func row(_ lat: Double) -> Int { Int(((lat + 90) / cell).rounded(.down)) }
        func column(_ lon: Double) -> Int { Int(((lon + 180) / cell).rounded(.down)) % columns }
        var firstRow = Int.max, lastRow = Int.min
        for p in points {
            let r = row(p.lat)
            firstRow = min(firstRow, r)
            lastRow = max(lastRow, r)
        }
        let rows = lastRow - firstRow + 1
        var cells = [Int32](repeating: 0, count: rows * columns)
        for p in points { cells[(row(p.lat) - firstRow) * columns + column(p.lon)] += 1 }
        func count(_ r: Int, _ c: Int) -> Int {
            let r = r - firstRow
            return r >= 0 && r < rows ? Int(cells[r * columns + (c + columns) % columns]) : 0
        }

        /// Wells in the cell of (lat, lon) and the eight around it, not counting `excluding`.
        func neighbours(_ lat: Double, _ lon: Double, excluding: (lat: Double, lon: Double)?) -> Int {
            guard (-90...90).contains(lat), (-180...180).contains(lon) else { return 0 }
            let r = row(lat), c = column(lon)
            var total = 0
            for dr in -1...1 {
                for dc in -1...1 { total += count(r + dr, c + dc) }
            }
            if let excluding {
                let er = row(excluding.lat), ec = column(excluding.lon)
                if abs(er - r) <= 1 && (abs(ec - c) <= 1 || abs(ec - c) == columns - 1) { total -= 1 }
            }
            return total
        }

        let few = max(5, points.count / 5_000)
        var outOfPlace: [(index: Int, neighbours: Int)] = []
        for (index, p) in points.enumerated() where count(row(p.lat), column(p.lon)) <= few + 1 {
            let count = neighbours(p.lat, p.lon, excluding: p)
            if count <= few { outOfPlace.append((index, count)) }
        }
        guard !outOfPlace.isEmpty else { return [] }

        var findings: [Finding] = []
        var unexplained: [Int] = []
        for (index, count) in outOfPlace {
            let p = points[index]
            let enough = max(10, 20 * (count + 1))
            if let (reason, lat, lon) = repair(p, landsAmongOthers: { neighbours($0, $1, excluding: p) >= enough }) {
                findings.append(Finding(
                    index: index, reason: reason,
                    detail: "\(count) other well\(count == 1 ? "" : "s") within about 20 km; at \(format(lat)), \(format(lon)) "
                        + "it would have \(neighbours(lat, lon, excluding: p)) within about 20 km"))
            } else {
                unexplained.append(index)
            }
        }
        if !unexplained.isEmpty, let core = coreExtent(points) {
            // Inside: within the percentile box widened by a quarter on each side, since a list's edges are sparse.
            // Longitudes on the circle: the box may cross ±180° (Alaska with the Aleutians west of it).
            let padLat = max(0.5, (core.north - core.south) / 4), padLon = max(0.5, core.width / 4)
            func inside(_ lat: Double, _ lon: Double) -> Bool {
                (core.south - padLat...core.north + padLat).contains(lat)
                    && Longitude.outside(lon, west: Longitude.wrapped(core.west), east: Longitude.wrapped(core.west + core.width)) <= padLon
            }
            // The country of most of the wells, from about a hundred of them, when a far well needs it.
            var home: Int??
            func homeCountry() -> Int? {
                if let home { return home }
                let step = max(1, points.count / 100)
                let counts = Dictionary(stride(from: 0, to: points.count, by: step).compactMap { countryOf?(points[$0].lat, points[$0].lon) }.map { ($0, 1) },
                                        uniquingKeysWith: +)
                let found = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }.flatMap { $0.value * 2 > (points.count + step - 1) / step ? $0.key : nil }
                home = .some(found)
                return found
            }
            for index in unexplained {
                let p = points[index]
                let lat = min(max(p.lat, core.south), core.north)
                let lon = Longitude.clamp(p.lon, west: Longitude.wrapped(core.west), east: Longitude.wrapped(core.west + core.width))
                let distance = Geodesic.distance(fromLatitude: p.lat, longitude: p.lon, toLatitude: lat, longitude: lon)
                guard distance > max(1_000_000, core.diagonal) else { continue }
                // Far away, a slip that brings the well inside the others' extent explains it, best next to one
                // of them (where wells are sparse, 20 times as many neighbours is too much to ask).
                if let (reason, lat, lon) = repair(p, landsAmongOthers: { inside($0, $1) && neighbours($0, $1, excluding: p) > 0 })
                    ?? repair(p, landsAmongOthers: inside) {
                    findings.append(Finding(
                        index: index, reason: reason,
                        detail: "\(Int(distance / 1000)) km outside the extent of the file's other wells; at \(format(lat)), \(format(lon)) "
                            + "it would be inside it, with \(neighbours(lat, lon, excluding: p)) within about 20 km"))
                } else if let countryOf, let country = countryOf(p.lat, p.lon), country == homeCountry() {
                    continue
                } else {
                    findings.append(Finding(index: index, reason: "far from the others",
                                            detail: "\(Int(distance / 1000)) km outside the extent of the file's other wells"))
                }
            }
        }
        return findings.sorted { $0.index < $1.index }
    }

    /// The first slip that puts `p` among other wells: the reason and the repaired position.
    /// - Parameter digits: Whether a digit lost from the whole degrees is a slip tried.
    static func repair(_ p: (lat: Double, lon: Double), digits: Bool = true,
                       landsAmongOthers: (Double, Double) -> Bool) -> (String, Double, Double)? {
        if p.lon != 0, landsAmongOthers(p.lat, -p.lon) { return ("longitude sign", p.lat, -p.lon) }
        if p.lat != 0, landsAmongOthers(-p.lat, p.lon) { return ("latitude sign", -p.lat, p.lon) }
        if abs(p.lon) <= 90, landsAmongOthers(p.lon, p.lat) { return ("swapped", p.lon, p.lat) }
        guard digits else { return nil }
        if let lon = withDigitRestored(p.lon, limit: 180, { landsAmongOthers(p.lat, $0) }) { return ("lost digit", p.lat, lon) }
        if let lat = withDigitRestored(p.lat, limit: 90, { landsAmongOthers($0, p.lon) }) { return ("lost digit", lat, p.lon) }
        return nil
    }

    /// The first of `value` with one digit (0–9) inserted anywhere in its whole degrees, within
    /// ±`limit`, for which `accept` holds. No array is made: this runs for every well out of place.
    static func withDigitRestored(_ value: Double, limit: Double, _ accept: (Double) -> Bool) -> Double? {
        let magnitude = abs(value), whole = Int(magnitude.rounded(.down)), fraction = magnitude - Double(whole)
        guard whole < 1_000 else { return nil }
        let length = whole < 10 ? 1 : whole < 100 ? 2 : 3
        for position in 0...length {
            // Split the digits at `position`: `high` before it, `low` (of `length - position` digits) after.
            let scale = [1, 10, 100, 1_000][length - position]
            let high = whole / scale, low = whole % scale
            for digit in 0...9 {
                let restored = (high * 10 + digit) * scale + low
                guard restored != whole, Double(restored) + fraction <= limit else { continue }
                let candidate = (Double(restored) + fraction) * (value < 0 ? -1 : 1)
                if accept(candidate) { return candidate }
            }
        }
        return nil
    }

    /// The 1st–99th percentile box of the wells (of a sample of at most about 20,000), when it is
    /// compact enough to judge "far". Suspects are few, so the percentiles leave them out. The
    /// longitudes' percentiles are taken on the narrowest arc that holds them (``Longitude/unwrapped(sorted:)``):
    /// the box runs `width` degrees east from `west`, across ±180° for a list that crosses it.
    static func coreExtent(_ points: [(lat: Double, lon: Double)])
        -> (south: Double, north: Double, west: Double, width: Double, diagonal: Double)? {
        let stride = max(1, points.count / 20_000)
        var lats: [Double] = [], lons: [Double] = []
        for index in Swift.stride(from: 0, to: points.count, by: stride) {
            lats.append(points[index].lat)
            lons.append(points[index].lon)
        }
        guard lats.count >= minimumWells else { return nil }
        lats.sort()
        lons = Longitude.unwrapped(sorted: lons.sorted())
        let lo = lats.count / 100, hi = lats.count - 1 - lats.count / 100
        let (south, north, west, east) = (lats[lo], lats[hi], lons[lo], lons[hi])
        guard north - south <= 40, east - west <= 60 else { return nil }
        return (south, north, west, east - west,
                Geodesic.distance(fromLatitude: south, longitude: Longitude.wrapped(west), toLatitude: north, longitude: Longitude.wrapped(east)))
    }

    private static func format(_ degrees: Double) -> String { degrees.projDecimal(6) }
}
