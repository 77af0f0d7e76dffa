import Foundation

/// An area to keep wells in: one or more polygons, each an outline with any holes, in EPSG:4326.
///
/// For example:
///
/// ```swift
/// var request = WellFetchRequest()
/// request.within = try Area(wkt: "POLYGON((-90.1 35, -89.9 35, -89.9 35.2, -90.1 35))")
/// let inside = try store.count(request)
/// let counties = try Area.features(geoJSONAt: URL(fileURLWithPath: "Data/boundaries/us-counties-fips.geojson"))
/// ```
///
/// The rules, the same on every engine:
/// - **The boundary is inside.** A well on an edge or a vertex is in the area, as `ST_Intersects`
///   (SpatiaLite's GEOS, PostGIS) and GeoPandas' default `sjoin` say; a well in a hole is not, a
///   well on a hole's edge is.
/// - **Edges are straight in longitude and latitude**, as GeoJSON's and WKT's are read by GIS tools.
/// - **The antimeridian.** No edge spans more than 180° of longitude: an edge from 170° to −170°
///   crosses ±180° (20° wide), and longitudes beyond ±180, such as 170 to 190, are read as going on
///   across it. Such polygons are cut at ±180° into parts on either side, as RFC 7946 asks GeoJSON
///   to be written. Polygons around a pole are not supported.
/// - **Rings** are closed if their last point is not their first; each needs three distinct
///   points. Orientation does not matter. Self-crossing rings are not repaired.
/// - **Other CRSs**: every vertex is transformed with PROJ (``init(wkt:crs:)``, a GeoJSON `crs`
///   member, `SRID=n;` in WKT); edges are not densified, so a long edge of a projected polygon is
///   straight in degrees, not in the projection.
public struct Area: Sendable, Equatable {
    /// One polygon: its outline and its holes, each a closed ring of EPSG:4326 coordinates.
    public struct Polygon: Sendable, Equatable {
        public var outline: [Coordinate]
        public var holes: [[Coordinate]]

        public init(outline: [Coordinate], holes: [[Coordinate]] = []) {
            self.outline = outline
            self.holes = holes
        }
    }

    /// The polygons, each within −180…180° of longitude.
    public private(set) var polygons: [Polygon]
    /// The feature's properties, for an area read from a GeoJSON feature (scalars only), in file order.
    public var properties: [(key: String, value: WellValue)] = []

    public static func == (a: Area, b: Area) -> Bool {
        a.polygons == b.polygons && a.properties.elementsEqual(b.properties) { $0.key == $1.key && $0.value == $1.value }
    }

    /// An area of `polygons`: each a list of rings, outline first, of (longitude, latitude) pairs in EPSG:4326.
    ///
    /// - Throws: ``QueryError`` (`.invalidValue`, subject `.area`) for a ring of fewer than three
    ///   distinct points, a coordinate that is not finite, or a latitude beyond ±90°.
    public init(rings polygons: [[[(x: Double, y: Double)]]]) throws {
        guard !polygons.isEmpty else { throw QueryError(.invalidValue, "the area has no polygon", subject: .area) }
        self.polygons = []
        for (p, rings) in polygons.enumerated() {
            guard !rings.isEmpty else { throw QueryError(.invalidValue, "polygon \(p + 1) of the area has no ring", subject: .area) }
            let closed = try rings.enumerated().map { r, ring in try Self.closedRing(ring, polygon: p, ring: r) }
            self.polygons += try Self.splitAtAntimeridian(closed, polygon: p)
        }
    }

    /// An area from WKT: `POLYGON`, `MULTIPOLYGON` (optionally `SRID=n;` first, as EWKT writes it) in
    /// `crs` (longitude and latitude in EPSG:4326 unless said).
    ///
    /// - Throws: ``QueryError`` (`.syntax`, subject `.area`) naming the offset of what could not be read;
    ///   ``CRSError`` for a CRS PROJ does not know.
    public init(wkt: String, crs: String? = nil) throws {
        var text = Substring(wkt).drop { $0.isWhitespace }
        var crs = crs
        if text.prefix(5).uppercased() == "SRID=", let semicolon = text.firstIndex(of: ";") {
            let code = text[text.index(text.startIndex, offsetBy: 5)..<semicolon].trimmingCharacters(in: .whitespaces)
            guard let number = Int(code), number > 0 else {
                throw QueryError(.syntax, "SRID=\(code) is not an EPSG code; write SRID=4326; or leave it out", subject: .area, text: wkt)
            }
            if crs == nil, number != 4326 { crs = "EPSG:\(number)" }
            text = text[text.index(after: semicolon)...]
        }
        var rings = try WKTPolygons.parse(String(text), whole: wkt)
        if let crs { rings = try Self.transform(rings, from: crs) }
        try self.init(rings: rings)
    }

    /// The areas of a GeoJSON text: each Polygon or MultiPolygon feature of a FeatureCollection, one
    /// Feature, or a bare geometry; in the legacy `crs` member's CRS, if any, else EPSG:4326.
    ///
    /// - Parameters:
    ///   - data: The GeoJSON text, as UTF-8.
    ///   - source: Names the text in errors, such as its file's path.
    ///   - defaultCRS: The CRS of coordinates when the text has no `crs` member (nil: EPSG:4326).
    /// - Throws: ``QueryError`` (subject `.area`) naming the feature that is not a polygon or cannot be read.
    public static func features(geoJSON data: Data, source: String = "the GeoJSON", crs defaultCRS: String? = nil) throws -> [Area] {
        let object: JSONDocument
        do { object = try JSONDocument.parse(data) } catch let error as QueryError {
            throw QueryError(.syntax, "\(source) is not JSON: \(error.reason)", subject: .area, offset: error.offset)
        }
        guard case .object = object else { throw QueryError(.syntax, "\(source) is not a GeoJSON object", subject: .area) }
        let crs = GeoJSONArea.crs(of: object) ?? defaultCRS
        let features: [JSONDocument] = switch object["type"]?.string {
        case "FeatureCollection": object["features"]?.array ?? []
        case "Feature": [object]
        default: [.object([("type", .string("Feature")), ("geometry", object)])]
        }
        var areas: [Area] = []
        areas.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            let name = features.count == 1 ? source : "feature \(index) of \(source)"
            var rings = try GeoJSONArea.polygons(feature["geometry"], name: name)
            if let crs { rings = try transform(rings, from: crs) }
            var area = try Area(rings: rings)
            area.properties = GeoJSONArea.properties(feature)
            areas.append(area)
        }
        return areas
    }

    /// ``features(geoJSON:source:crs:)`` of the file at `url`.
    public static func features(geoJSONAt url: URL, crs: String? = nil) throws -> [Area] {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw QueryError(.invalidValue, "cannot read \(url.path): \(error.localizedDescription)", subject: .area)
        }
        return try features(geoJSON: data, source: url.path, crs: crs)
    }

    /// The union of `areas`, their properties dropped: one area of all their polygons.
    public init(union areas: [Area]) throws {
        guard !areas.isEmpty else { throw QueryError(.invalidValue, "no area to join", subject: .area) }
        polygons = areas.flatMap(\.polygons)
    }

    /// The value of property `key`, if the area has it.
    public func property(_ key: String) -> WellValue? {
        properties.first { $0.key == key }?.value
    }

    // MARK: - What the engines use

    /// The boxes that hold the polygons, one per polygon, or one around them all when there are
    /// more than 16 (an island county of 40 islands searches one box rather than 40 queries' worth).
    package func boxes() throws -> [BoundingBox] {
        let each = polygons.map { polygon in
            let lons = polygon.outline.map(\.longitude), lats = polygon.outline.map(\.latitude)
            return (lons.min()!, lats.min()!, lons.max()!, lats.max()!)
        }
        let parts = each.count <= 16 ? each : [(each.map(\.0).min()!, each.map(\.1).min()!, each.map(\.2).max()!, each.map(\.3).max()!)]
        return try parts.map { try BoundingBox(minLongitude: $0.0, minLatitude: $0.1, maxLongitude: $0.2, maxLatitude: $0.3) }
    }

    /// The area as ISO WKB, little-endian: a MultiPolygon, as `GeomFromWKB` and `ST_GeomFromWKB` read it.
    var wkb: Data {
        var bytes: [UInt8] = [1]
        func put(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func put(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        put(UInt32(6))
        put(UInt32(polygons.count))
        for polygon in polygons {
            bytes.append(1)
            put(UInt32(3))
            put(UInt32(1 + polygon.holes.count))
            for ring in [polygon.outline] + polygon.holes {
                put(UInt32(ring.count))
                for point in ring {
                    put(point.longitude)
                    put(point.latitude)
                }
            }
        }
        return Data(bytes)
    }

    /// The area as GeoJSON geometry text (a Polygon or a MultiPolygon), coordinates as given.
    public var geoJSONGeometry: String {
        func ring(_ points: [Coordinate]) -> String {
            "[" + points.map { "[\(Self.number($0.longitude)),\(Self.number($0.latitude))]" }.joined(separator: ",") + "]"
        }
        func polygon(_ p: Polygon) -> String { "[" + ([p.outline] + p.holes).map(ring).joined(separator: ",") + "]" }
        return polygons.count == 1
            ? #"{"type":"Polygon","coordinates":"# + polygon(polygons[0]) + "}"
            : #"{"type":"MultiPolygon","coordinates":["# + polygons.map(polygon).joined(separator: ",") + "]}"
    }

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: - Rings

    /// `ring` checked and closed.
    private static func closedRing(_ ring: [(x: Double, y: Double)], polygon: Int, ring index: Int) throws -> [(x: Double, y: Double)] {
        let which = "ring \(index + 1) of polygon \(polygon + 1)"
        if let bad = ring.first(where: { !$0.x.isFinite || !$0.y.isFinite }) {
            throw QueryError(.invalidValue, "\(which) has a coordinate that is not a number: \(bad.x) \(bad.y)", subject: .area)
        }
        if let bad = ring.first(where: { abs($0.x) > 360 }) {
            throw QueryError(.invalidValue, "\(which) has longitude \(bad.x), beyond ±360; coordinates are longitude first (x y), in EPSG:4326 unless a CRS is given", subject: .area)
        }
        if let bad = ring.first(where: { abs($0.y) > 90 }) {
            throw QueryError(.invalidValue, "\(which) has latitude \(bad.y), beyond ±90; coordinates are longitude first (x y), in EPSG:4326 unless a CRS is given", subject: .area)
        }
        var ring = ring
        if let first = ring.first, let last = ring.last, first != last { ring.append(first) }
        guard hasThreeDistinctPoints(ring) else {
            throw QueryError(.invalidValue, "\(which) has fewer than three distinct points; a ring needs at least three (and is closed automatically)", subject: .area)
        }
        return ring
    }

    /// Whether `ring` has at least three distinct points (stops looking at the third).
    private static func hasThreeDistinctPoints(_ ring: [(x: Double, y: Double)]) -> Bool {
        var distinct: [(x: Double, y: Double)] = []
        for point in ring where !distinct.contains(where: { $0 == point }) {
            distinct.append(point)
            if distinct.count == 3 { return true }
        }
        return false
    }

    /// Every vertex from `crs` to EPSG:4326 longitude/latitude.
    private static func transform(_ polygons: [[[(x: Double, y: Double)]]], from crs: String) throws -> [[[(x: Double, y: Double)]]] {
        let transformer = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326")
        return try polygons.map { rings in
            try rings.map { ring in
                var points = ring
                try transformer.transform(&points)
                return points
            }
        }
    }

    /// The polygon of `rings` (outline first), cut at ±180° when an edge crosses it or a longitude
    /// lies beyond it; each part shifted into −180…180.
    ///
    /// - Throws: ``QueryError`` for a ring that winds around the Earth (around a pole) or spans more than 360°.
    private static func splitAtAntimeridian(_ rings: [[(x: Double, y: Double)]], polygon: Int) throws -> [Polygon] {
        // Unwrap: no step of more than 180°, each ring starting near the outline's first longitude.
        let reference = rings[0][0].x
        let unwrapped = rings.map { ring -> [(x: Double, y: Double)] in
            var result: [(x: Double, y: Double)] = []
            result.reserveCapacity(ring.count)
            var previous = reference
            for point in ring {
                var x = point.x
                while x - previous > 180 { x -= 360 }
                while previous - x > 180 { x += 360 }
                result.append((x, point.y))
                previous = x
            }
            return result
        }
        for (r, ring) in unwrapped.enumerated() {
            let span = ring.map(\.x).max()! - ring.map(\.x).min()!
            guard ring.first!.x == ring.last!.x, span <= 360 else {
                throw QueryError(.invalidValue, "ring \(r + 1) of polygon \(polygon + 1) goes around the Earth (around a pole, or over 360° of longitude); areas around a pole are not supported", subject: .area)
            }
        }
        // Every ring's longitudes: a hole reaching past ±180° where its outline does not is cut too.
        let xs = unwrapped.flatMap { $0.map(\.x) }
        let (west, east) = (xs.min()!, xs.max()!)
        let coordinates = { (ring: [(x: Double, y: Double)], shift: Double) in ring.map { Coordinate(latitude: $0.y, longitude: $0.x + shift) } }
        // One part per 360° window the rings reach into, clipped to it and shifted home: one window,
        // and the rings as they are, for a polygon that stays within ±180°.
        var parts: [Polygon] = []
        var k = ((west + 180) / 360).rounded(.down)
        while k * 360 - 180 < east {
            let low = k * 360 - 180, high = low + 360
            let clipped = unwrapped.map { clip(clip($0, keep: { $0.x >= low }, at: low), keep: { $0.x <= high }, at: high) }
            // A part needs three distinct points: clipping leaves slivers along ±180° that have none.
            if hasThreeDistinctPoints(clipped[0]) {
                let holes = clipped.dropFirst().filter(hasThreeDistinctPoints).map { coordinates($0, -k * 360) }
                parts.append(Polygon(outline: coordinates(clipped[0], -k * 360), holes: holes))
            }
            k += 1
        }
        guard !parts.isEmpty else {
            throw QueryError(.invalidValue, "polygon \(polygon + 1) of the area has no three distinct points once its longitudes are read across ±180°", subject: .area)
        }
        return parts
    }

    /// Sutherland–Hodgman: the closed `ring` clipped to the half-plane `keep`, bounded by the meridian `x`.
    private static func clip(_ ring: [(x: Double, y: Double)], keep: ((x: Double, y: Double)) -> Bool, at x: Double) -> [(x: Double, y: Double)] {
        guard ring.count > 1 else { return [] }
        var output: [(x: Double, y: Double)] = []
        for index in 0..<(ring.count - 1) {
            let a = ring[index], b = ring[index + 1]
            let (inA, inB) = (keep(a), keep(b))
            if inA { output.append(a) }
            if inA != inB {
                let t = (x - a.x) / (b.x - a.x)
                output.append((x, a.y + t * (b.y - a.y)))
            }
        }
        if let first = output.first { output.append(first) }
        return output
    }
}

// MARK: - GeoJSON

/// Reading polygons and properties out of parsed GeoJSON (and, for ``PointsFile``, its CRS and properties).
enum GeoJSONArea {
    /// The legacy `crs` member's name (`urn:ogc:def:crs:EPSG::3400`, `EPSG:3400`), nil for CRS84/4326 or none.
    static func crs(of object: JSONDocument) -> String? {
        guard let name = object["crs"]?["properties"]?["name"]?.string else { return nil }
        let upper = name.uppercased()
        if upper.hasSuffix("CRS84") || upper.hasSuffix("EPSG::4326") || upper == "EPSG:4326" { return nil }
        if let range = upper.range(of: "EPSG::") { return "EPSG:" + upper[range.upperBound...] }
        return name
    }

    static func polygons(_ geometry: JSONDocument?, name: String) throws -> [[[(x: Double, y: Double)]]] {
        guard let geometry, let type = geometry["type"]?.string else {
            throw QueryError(.invalidValue, "\(name) has no geometry; an area needs a Polygon or MultiPolygon", subject: .area)
        }
        switch type {
        case "Polygon":
            return [try polygon(geometry["coordinates"], name: name)]
        case "MultiPolygon":
            guard let list = geometry["coordinates"]?.array else { throw unreadable(name) }
            return try list.map { try polygon($0, name: name) }
        case "GeometryCollection":
            return try (geometry["geometries"]?.array ?? []).flatMap { try polygons($0, name: name) }
        default:
            throw QueryError(.invalidValue, "\(name) is a \(type); an area needs a Polygon or MultiPolygon", subject: .area)
        }
    }

    private static func polygon(_ value: JSONDocument?, name: String) throws -> [[(x: Double, y: Double)]] {
        guard let rings = value?.array, !rings.isEmpty else { throw unreadable(name) }
        return try rings.map { ring in
            guard let points = ring.array else { throw unreadable(name) }
            return try points.map { point in
                guard let pair = point.array, pair.count >= 2, let x = pair[0].number, let y = pair[1].number else { throw unreadable(name) }
                return (x, y)
            }
        }
    }

    private static func unreadable(_ name: String) -> QueryError {
        QueryError(.syntax, "\(name) has coordinates that are not rings of [longitude, latitude] pairs", subject: .area)
    }

    /// The feature's scalar properties in file order (and its `id` first as `id` when no property is so named).
    static func properties(_ feature: JSONDocument) -> [(key: String, value: WellValue)] {
        var result: [(key: String, value: WellValue)] = []
        if case .object(let members)? = feature["properties"] {
            for (key, value) in members { if let value = self.value(value) { result.append((key, value)) } }
        }
        if !result.contains(where: { $0.key == "id" }), let id = feature["id"].flatMap(value) { result.insert(("id", id), at: 0) }
        return result
    }

    private static func value(_ json: JSONDocument) -> WellValue? {
        switch json {
        case .string(let text): .text(text)
        case .bool(let flag): .text(flag ? "true" : "false")
        case .number(let n): n.rounded() == n && abs(n) < 9e15 ? .integer(Int64(n)) : .real(n)
        default: nil
        }
    }
}

// MARK: - WKT

/// A reader of WKT `POLYGON` and `MULTIPOLYGON` (2D; `Z`/`M` ordinates are read and dropped).
private struct WKTPolygons {
    private let bytes: [UInt8]
    private let whole: String
    private var at = 0

    static func parse(_ text: String, whole: String) throws -> [[[(x: Double, y: Double)]]] {
        var reader = WKTPolygons(bytes: Array(text.utf8), whole: whole)
        return try reader.geometry()
    }

    private init(bytes: [UInt8], whole: String) {
        self.bytes = bytes
        self.whole = whole
    }

    private mutating func geometry() throws -> [[[(x: Double, y: Double)]]] {
        let word = self.word().uppercased()
        let dimensions = self.word().uppercased()   // Z, M, ZM or nothing
        let ordinates = ["Z": 3, "M": 3, "ZM": 4][dimensions] ?? 2
        if !dimensions.isEmpty && ordinates == 2 { throw error("expected ( after \(word)") }
        let result: [[[(x: Double, y: Double)]]]
        switch word {
        case "POLYGON": result = [try polygon(ordinates)]
        case "MULTIPOLYGON": result = try list { try $0.polygon(ordinates) }
        case "": throw error("expected POLYGON or MULTIPOLYGON")
        default: throw error("\(word) is not an area; expected POLYGON or MULTIPOLYGON")
        }
        skipSpace()
        if at < bytes.count { throw error("unexpected text after the geometry") }
        return result
    }

    private mutating func polygon(_ ordinates: Int) throws -> [[(x: Double, y: Double)]] {
        try list { try $0.list { try $0.point(ordinates) } }
    }

    private mutating func point(_ ordinates: Int) throws -> (x: Double, y: Double) {
        var values: [Double] = []
        for _ in 0..<ordinates {
            skipSpace()
            let start = at
            while at < bytes.count, let c = Optional(bytes[at]), c == 43 || c == 45 || c == 46 || c == 69 || c == 101 || (48...57).contains(c) { at += 1 }
            guard at > start, let value = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else {
                at = start
                throw error("expected a number")
            }
            values.append(value)
        }
        return (values[0], values[1])
    }

    /// `( item, item, … )`.
    private mutating func list<T>(_ item: (inout WKTPolygons) throws -> T) throws -> [T] {
        try expect(40)
        var items = [try item(&self)]
        while true {
            skipSpace()
            guard at < bytes.count else { throw error("expected , or )") }
            if bytes[at] == 44 { at += 1; items.append(try item(&self)); continue }
            try expect(41)
            return items
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { throw error("expected \(Character(UnicodeScalar(byte)))") }
        at += 1
    }

    private mutating func word() -> String {
        skipSpace()
        let start = at
        while at < bytes.count, (65...90).contains(bytes[at] & ~0x20) { at += 1 }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while at < bytes.count, [32, 9, 10, 13].contains(bytes[at]) { at += 1 }
    }

    private func error(_ reason: String) -> QueryError {
        let offset = whole.utf8.count - bytes.count + at + 1
        let token = at < bytes.count ? String(decoding: bytes[at..<min(bytes.count, at + 12)], as: UTF8.self) : "the end"
        return QueryError(.syntax, "WKT at character \(offset): \(reason)", subject: .area, text: whole, token: token, offset: offset)
    }
}
