import GRDB
import GRDBSQLite

/// The SQL function `wellkit_in_area(wkb, lon, lat)`: 1 when the point is inside the area, 0 when
/// outside, NULL when it lies within 1e-9° (0.1 mm) of an edge, where the caller asks GEOS:
///
///     coalesce(wellkit_in_area(?, p.lon, p.lat), ST_Intersects(GeomFromWKB(?, 4326), MakePoint(p.lon, p.lat, 4326))) = 1
///
/// Why not GEOS alone: SpatiaLite's `ST_Intersects` parses the area's blob, checksums it to find its
/// prepared geometry, and builds a point for every candidate row: a well query within a county
/// took several times the same query in the county's box (`wells-bench analysis`), where the aim
/// is at most twice. Here the
/// area is prepared once per statement (SQLite's auxiliary data keeps it while the argument is the
/// same bound blob) into edges grouped in latitude bands, and a point costs a crossing test of the
/// few edges of its band. GEOS stays the judge of every point near an edge, where floating-point
/// rounding could make two methods disagree, so the answers are GEOS's (the boundary is inside).
enum AreaFunction {
    static func register(_ db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_create_function_v2(connection, "wellkit_in_area", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, _, argv in
            guard let context, let argv, let blob = argv[0], let lon = argv[1], let lat = argv[2],
                  sqlite3_value_type(lon) != SQLITE_NULL, sqlite3_value_type(lat) != SQLITE_NULL else {
                sqlite3_result_null(context)
                return
            }
            let area: PreparedArea
            if let kept = sqlite3_get_auxdata(context, 0) {
                area = Unmanaged<PreparedArea>.fromOpaque(kept).takeUnretainedValue()
            } else {
                let count = Int(sqlite3_value_bytes(blob))
                guard let bytes = sqlite3_value_blob(blob), let parsed = PreparedArea(wkb: UnsafeRawBufferPointer(start: bytes, count: count)) else {
                    sqlite3_result_null(context)
                    return
                }
                area = parsed
                // SQLite may run the destructor at once when it cannot keep the value: `area` holds it until the end.
                sqlite3_set_auxdata(context, 0, Unmanaged.passRetained(parsed).toOpaque()) { kept in
                    if let kept { Unmanaged<PreparedArea>.fromOpaque(kept).release() }
                }
            }
            switch area.classify(longitude: sqlite3_value_double(lon), latitude: sqlite3_value_double(lat)) {
            case true?: sqlite3_result_int(context, 1)
            case false?: sqlite3_result_int(context, 0)
            case nil: sqlite3_result_null(context)
            }
        }, nil, nil, nil)
    }
}

/// An area's polygons as edges in latitude bands, for ``AreaFunction``.
final class PreparedArea {
    /// How close to an edge, in degrees, a point is left to GEOS.
    static let margin = 1e-9

    private struct Polygon {
        var west: Double, south: Double, east: Double, north: Double
        /// Edges as x1, y1, x2, y2.
        var edges: [Double]
        var bands: [[Int32]]
        var bandHeight: Double
    }

    private let polygons: [Polygon]

    /// Reads the little-endian ISO WKB MultiPolygon that ``Area/wkb`` writes; nil for anything else.
    init?(wkb raw: UnsafeRawBufferPointer) {
        var at = 0
        func uint32() -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            defer { at += 4 }
            return UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
        func double() -> Double? {
            guard at + 8 <= raw.count else { return nil }
            defer { at += 8 }
            return Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        guard raw.count >= 9, raw[0] == 1 else { return nil }
        at = 1
        guard uint32() == 6, let count = uint32(), count <= 1 << 20 else { return nil }
        var polygons: [Polygon] = []
        for _ in 0..<count {
            guard at < raw.count, raw[at] == 1 else { return nil }
            at += 1
            guard uint32() == 3, let rings = uint32(), rings <= 1 << 20 else { return nil }
            var edges: [Double] = []
            var west = Double.infinity, south = Double.infinity, east = -Double.infinity, north = -Double.infinity
            for _ in 0..<rings {
                guard let points = uint32(), Int(points) * 16 <= raw.count - at else { return nil }
                var previous: (Double, Double)?
                for _ in 0..<points {
                    guard let x = double(), let y = double(), x.isFinite, y.isFinite else { return nil }
                    if let (px, py) = previous { edges += [px, py, x, y] }
                    previous = (x, y)
                    west = min(west, x); east = max(east, x); south = min(south, y); north = max(north, y)
                }
            }
            guard !edges.isEmpty else { return nil }
            // About four edges to a band, as the place check's outlines (Places+Containment.swift) have them.
            let edgeCount = edges.count / 4
            let bandCount = max(1, min(1 << 16, edgeCount / 4))
            let height = max(1e-9, (north - south) / Double(bandCount))
            var bands = [[Int32]](repeating: [], count: bandCount)
            for k in 0..<edgeCount {
                let y1 = edges[4 * k + 1], y2 = edges[4 * k + 3]
                let first = min(bandCount - 1, max(0, Int(((min(y1, y2) - Self.margin - south) / height).rounded(.down))))
                let last = min(bandCount - 1, max(first, Int(((max(y1, y2) + Self.margin - south) / height).rounded(.down))))
                for b in first...last { bands[b].append(Int32(k)) }
            }
            polygons.append(Polygon(west: west, south: south, east: east, north: north, edges: edges, bands: bands, bandHeight: height))
        }
        self.polygons = polygons
    }

    /// Inside any polygon (true), outside all (false), or within ``margin`` of an edge (nil).
    func classify(longitude x: Double, latitude y: Double) -> Bool? {
        var near = false
        for polygon in polygons {
            let m = Self.margin
            guard x >= polygon.west - m, x <= polygon.east + m, y >= polygon.south - m, y <= polygon.north + m else { continue }
            let band = min(polygon.bands.count - 1, max(0, Int(((y - polygon.south) / polygon.bandHeight).rounded(.down))))
            var inside = false
            polygon.edges.withUnsafeBufferPointer { e in
                for k in polygon.bands[band] {
                    let k = Int(k)
                    let x1 = e[4 * k], y1 = e[4 * k + 1], x2 = e[4 * k + 2], y2 = e[4 * k + 3]
                    if Self.distanceSquared(x, y, x1, y1, x2, y2) <= m * m { near = true }
                    if (y1 > y) != (y2 > y), x < x1 + (y - y1) * (x2 - x1) / (y2 - y1) { inside.toggle() }
                }
            }
            if near { return nil }
            if inside { return true }
        }
        return near ? nil : false
    }

    /// The squared distance from (x, y) to the segment (x1, y1)–(x2, y2), in degrees².
    private static func distanceSquared(_ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        let dx = x2 - x1, dy = y2 - y1
        let length = dx * dx + dy * dy
        let t = length == 0 ? 0 : max(0, min(1, ((x - x1) * dx + (y - y1) * dy) / length))
        let px = x1 + t * dx - x, py = y1 + t * dy - y
        return px * px + py * py
    }
}
