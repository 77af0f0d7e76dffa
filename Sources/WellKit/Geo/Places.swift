import Foundation
import Synchronization

/// Public-domain outlines of the places a well list names: US counties, the states (each the union
/// of its counties, dissolved into one outline) and the countries of the world, for checking where
/// a load puts its wells.
///
/// The outlines come from `Data/boundaries` (US Census Bureau 1:20M counties, Natural Earth 1:50m
/// countries; see its README for provenance), compiled by `Data/boundaries/make_places.py` into the
/// library's resources `places.tsv` (names, codes, boxes, rings) and `places.bin` (vertices as
/// float32 longitude/latitude pairs). A 1:20M outline is off by up to about 1–2 km along a border,
/// so checks against it allow ``tolerance``.
///
/// A point is inside a place when it is inside an odd number of the place's rings (so holes and
/// multipolygons need no special case). Each place keeps its edges in latitude bands, so a test
/// looks at the few edges that cross the point's latitude.
package final class Places: Sendable {
    /// How far outside a named place a well may lie before it is flagged, for the outlines' simplification.
    static let tolerance = 2_000.0
    /// The same for a county: its outline has more border for its area, and on the real lists 5 of
    /// 16,464 Tennessee wells lie 2.1–2.4 km outside the 1:20M outline of the county on their row.
    static let countyTolerance = 3_000.0
    /// How far outside its place a well at sea (on no country's land) may lie: offshore wells are
    /// real, in state waters (3 to 9 nautical miles) and beyond, out to an exclusive economic zone (200).
    static let seaTolerance = 400_000.0

    package enum Kind: String, Sendable { case county, state, country }

    struct Place: Sendable {
        var kind: Kind
        var name: String
        var codes: [String]
        /// For a county, its state's 2-digit FIPS code.
        var state: String?
        /// For a county, what the Census calls it: `County`, `Parish`, `Borough`, `city`, …
        var lsad: String?
        var west: Double, south: Double, east: Double, north: Double
        /// Each ring's first vertex and vertex count in ``Places/vertices``.
        var rings: [(start: Int, count: Int)]
    }

    /// A place's edges (as the index of their first vertex) by latitude band, made on first use: a
    /// load checks against a few places, and making them for all 3,463 took most of the outlines' start-up.
    final class Bands: Sendable {
        private let made = Mutex<(bands: [[Int32]], height: Double)?>(nil)

        func get(_ place: Place, _ vertices: [Float]) -> (bands: [[Int32]], height: Double) {
            made.withLock { made in
                if let made { return made }
                let result = Places.band(place, vertices)
                made = result
                return result
            }
        }
    }

    let places: [Place]
    /// Each place's ``Bands``, by index.
    private let bands: [Bands]
    /// Longitude, latitude pairs.
    let vertices: [Float]
    /// A state's outline (the union of its counties), by its FIPS code.
    let stateByFIPS: [String: Int]
    /// A country's code or name, upper-cased → its index.
    let countryByName: [String: Int]
    /// The indices of the countries.
    let countries: [Int]
    /// The counties' indices by name and by code (``CountyIndex``), made on first use.
    private let countyIndex = Mutex<CountyIndex?>(nil)
    /// ``openSea``, made on first use.
    private let openSeaGrid = Mutex<OpenSea?>(nil)

    /// The outlines shipped with the library, or nil when its resources are missing (the check is then skipped, and said so).
    package static let shared: Places? = try? Places(directory: resourceDirectory())

    /// Where the resources are: `$WELLKIT_PLACES` if set, else SwiftPM's resource bundle beside the
    /// executable, else the source tree this library was built from.
    static func resourceDirectory() -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["WELLKIT_PLACES"] { candidates.append(URL(fileURLWithPath: path)) }
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() {
            candidates.append(executable.appendingPathComponent("WellKit_WellKit.resources"))
            candidates.append(executable.appendingPathComponent("WellKit_WellKit.resources/Resources"))
        }
        candidates.append(URL(fileURLWithPath: Bundle.main.bundlePath).appendingPathComponent("WellKit_WellKit.resources"))
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources"))
        return candidates.first { fm.fileExists(atPath: $0.appendingPathComponent("places.bin").path) }
    }

    init(directory: URL?) throws {
        guard let directory else { throw CocoaError(.fileNoSuchFile) }
        let index = try Data(contentsOf: directory.appendingPathComponent("places.tsv"))
        let bytes = try Data(contentsOf: directory.appendingPathComponent("places.bin"))
        var vertices = [Float](repeating: 0, count: bytes.count / 4)
        _ = vertices.withUnsafeMutableBytes { bytes.copyBytes(to: $0) }
        self.vertices = vertices
        let places = try [UInt8](index).withUnsafeBufferPointer { try Self.readIndex($0) }
        var countries: [String: Int] = [:]
        for (k, place) in places.enumerated() where place.kind == .country {
            for code in place.codes where countries[code.uppercased()] == nil { countries[code.uppercased()] = k }
        }
        self.places = places
        bands = places.map { _ in Bands() }
        stateByFIPS = Dictionary(places.indices.filter { places[$0].kind == .state }.map { (places[$0].name, $0) }, uniquingKeysWith: { a, _ in a })
        countryByName = countries
        self.countries = places.indices.filter { places[$0].kind == .country }
    }

    /// The counties' indices, for looking up the county a row names.
    struct CountyIndex: Sendable {
        /// A county's index by its state's FIPS code and ``countyKey(_:)`` of its name (`47:OVERTON`).
        var byName: [String: Int] = [:]
        /// A county's index by its 5-digit FIPS code (`47133`).
        var byFIPS: [String: Int] = [:]
    }

    /// The counties' indices, made on first use: only a file with a county column looks a county
    /// up, and the keys of the 3,222 names (``countyKey(_:)``) were a quarter of the outlines' start-up.
    var counties: CountyIndex {
        countyIndex.withLock { index in
            if let index { return index }
            var made = CountyIndex()
            for (k, place) in places.enumerated() where place.kind == .county {
                if let state = place.state { made.byName[state + ":" + Self.countyKey(place.name)] = k }
                for code in place.codes { made.byFIPS[code] = k }
            }
            index = made
            return made
        }
    }

    /// The places of `places.tsv` (written by `Data/boundaries/make_places.py`, which describes it):
    /// one line each, tab-separated kind, name, state and lsad (a county's, empty for the others),
    /// west, south, east, north, rings as `start:count;…`, then one field per code. Read by hand
    /// rather than as JSON: the same index as JSON took JSONDecoder 22–25 ms, on every load whose
    /// file names places, and this about a millisecond.
    static func readIndex(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Place] {
        var places: [Place] = []
        // One pass over the bytes, by index: the collections' `split` took 80 ms of a debug build's
        // every load (each test's `wells load` paid it), and String's split by grapheme 14 ms in release.
        var fields: [Range<Int>] = []
        var lineStart = 0, number = 0
        while lineStart < bytes.count {
            number += 1
            fields.removeAll(keepingCapacity: true)
            var end = lineStart, fieldStart = lineStart
            while end < bytes.count, bytes[end] != 0x0A {
                if bytes[end] == 0x09 {
                    fields.append(fieldStart..<end)
                    fieldStart = end + 1
                }
                end += 1
            }
            fields.append(fieldStart..<end)
            defer { lineStart = end + 1 }
            guard end > lineStart, bytes[lineStart] != UInt8(ascii: "#") else { continue }
            func text(_ k: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[fields[k]]), as: UTF8.self) }
            func corrupt() -> CocoaError { CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "places.tsv, line \(number): not a place"]) }
            guard fields.count >= 9, let kind = Kind(rawValue: text(0)) else { throw corrupt() }
            // Plain loops: a debug build's `compactMap` and `map` cost more than the parsing they wrap.
            var box: [Double] = []
            for k in 4..<8 { if let value = Double(text(k)) { box.append(value) } }
            var codes: [String] = []
            for k in 9..<max(9, fields.count) { codes.append(text(k)) }
            // Rings as `start:count;…`: digits, each pair a colon, pairs semicolons.
            var rings: [(start: Int, count: Int)] = [], pair: [Int] = [], value: Int?
            for k in fields[8] {
                switch bytes[k] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    value = (value ?? 0) &* 10 &+ Int(bytes[k] - UInt8(ascii: "0"))
                case UInt8(ascii: ":") where pair.isEmpty && value != nil:
                    pair.append(value!)
                    value = nil
                case UInt8(ascii: ";") where pair.count == 1 && value != nil:
                    rings.append((pair[0], value!))
                    (pair, value) = ([], nil)
                default:
                    throw corrupt()
                }
            }
            if let value {
                guard pair.count == 1 else { throw corrupt() }
                rings.append((pair[0], value))
            } else if !pair.isEmpty {
                throw corrupt()
            }
            guard box.count == 4 else { throw corrupt() }
            let county = kind == .county
            places.append(Place(kind: kind, name: text(1), codes: codes,
                                state: county ? text(2) : nil, lsad: county ? text(3) : nil,
                                west: box[0], south: box[1], east: box[2], north: box[3], rings: rings))
        }
        return places
    }

    fileprivate static func band(_ place: Place, _ vertices: [Float]) -> (bands: [[Int32]], height: Double) {
        let edges = place.rings.reduce(0) { $0 + max(0, $1.count - 1) }
        // About four edges to a band, so that a test looks at the few edges near its latitude (Canada's
        // 11,573 vertices in 256 bands left hundreds to a band).
        let count = max(1, min(1 << 16, edges / 4))
        let height = max(1e-9, (place.north - place.south) / Double(count))
        var bands = [[Int32]](repeating: [], count: count)
        for ring in place.rings where ring.count > 1 {
            for k in ring.start..<(ring.start + ring.count - 1) {
                let y1 = Double(vertices[2 * k + 1]), y2 = Double(vertices[2 * k + 3])
                let lo = Int(((min(y1, y2) - place.south) / height).rounded(.down))
                let hi = Int(((max(y1, y2) - place.south) / height).rounded(.down))
                let first = min(count - 1, max(0, lo)), last = min(count - 1, max(first, hi))
                for b in first...last { bands[b].append(Int32(k)) }
            }
        }
        return (bands, height)
    }

    /// Whether the point lies inside place `index`.
    func contains(_ index: Int, longitude: Double, latitude: Double) -> Bool {
        let place = places[index]
        guard latitude >= place.south, latitude <= place.north, longitude >= place.west, longitude <= place.east else { return false }
        let (bands, height) = self.bands[index].get(place, vertices)
        let band = Self.band(of: latitude, south: place.south, height: height, count: bands.count)
        return vertices.withUnsafeBufferPointer { Self.crossesOddly(bands[band], $0, longitude: longitude, latitude: latitude) }
    }

    /// The band that `latitude` falls in, of `count` bands `height` high from `south`: the first or
    /// the last for a latitude on the box's edge or rounded past it.
    @inline(__always) fileprivate static func band(of latitude: Double, south: Double, height: Double, count: Int) -> Int {
        min(count - 1, max(0, Int(((latitude - south) / height).rounded(.down))))
    }

    /// Whether a ray from the point eastwards crosses an odd number of `edges` (each given by the
    /// index of its first vertex in `vertices`): the point is inside when the band's edges are crossed oddly.
    @inline(__always) fileprivate static func crossesOddly(_ edges: some Sequence<Int32>, _ vertices: UnsafeBufferPointer<Float>,
                                                           longitude: Double, latitude: Double) -> Bool {
        var inside = false
        for edge in edges {
            let k = Int(edge)
            let x1 = Double(vertices[2 * k]), y1 = Double(vertices[2 * k + 1]), x2 = Double(vertices[2 * k + 2]), y2 = Double(vertices[2 * k + 3])
            if (y1 > latitude) != (y2 > latitude), longitude < x1 + (latitude - y1) * (x2 - x1) / (y2 - y1) { inside.toggle() }
        }
        return inside
    }

    /// A test of "inside any of these places" for many points: each place's box and bands copied
    /// once into flat arrays, so that a test retains and locks nothing. Checking 2,442,920 wells
    /// one ``contains(_:longitude:latitude:)`` each spent most of its time retaining and releasing
    /// the place, its bands and the region they came from.
    struct Membership {
        private struct Part { var west, south, east, north, height: Double; var firstBand, bands: Int }
        private let parts: [Part]
        /// Band `b` of all parts: edges `edges[bandStarts[b]..<bandStarts[b + 1]]`, each as its first vertex.
        private let bandStarts: [Int32]
        private let edges: [Int32]
        private let vertices: [Float]

        init(_ places: Places, _ indices: [Int]) {
            var parts: [Part] = [], starts: [Int32] = [0], edges: [Int32] = []
            for index in indices {
                let place = places.places[index]
                let (bands, height) = places.bands[index].get(place, places.vertices)
                parts.append(Part(west: place.west, south: place.south, east: place.east, north: place.north, height: height,
                                  firstBand: starts.count - 1, bands: bands.count))
                for band in bands {
                    edges += band
                    starts.append(Int32(edges.count))
                }
            }
            self.parts = parts
            bandStarts = starts
            self.edges = edges
            vertices = places.vertices
        }

        /// Whether the point lies inside any of the places: ``Places/contains(_:longitude:latitude:)``'s answer.
        func contains(longitude: Double, latitude: Double) -> Bool {
            withContains { $0(longitude, latitude) }
        }

        /// Calls `body` with a test of points, `contains(longitude, latitude)`, that reads the outlines
        /// in place: a loop over many points inside `body` retains and releases nothing per point, so
        /// two threads can test one region's points at once without contending for its outlines'
        /// reference counts (``ScannedFile/checkPlaces(_:)``).
        func withContains<R>(_ body: ((_ longitude: Double, _ latitude: Double) -> Bool) throws -> R) rethrows -> R {
            try parts.withUnsafeBufferPointer { parts in
                try bandStarts.withUnsafeBufferPointer { starts in
                    try edges.withUnsafeBufferPointer { edges in
                        try vertices.withUnsafeBufferPointer { v in
                            try body { longitude, latitude in
                                parts.contains { part in
                                    guard latitude >= part.south, latitude <= part.north, longitude >= part.west, longitude <= part.east else { return false }
                                    let band = part.firstBand + Places.band(of: latitude, south: part.south, height: part.height, count: part.bands)
                                    return Places.crossesOddly(edges[Int(starts[band])..<Int(starts[band + 1])], v, longitude: longitude, latitude: latitude)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether the point lies inside any of `indices`.
    func contains(any indices: [Int], longitude: Double, latitude: Double) -> Bool {
        indices.contains { contains($0, longitude: longitude, latitude: latitude) }
    }

    /// The distance in metres from the point to the nearest of `indices` (0 inside one), on a local
    /// flat approximation: good to a few per cent within a few hundred kilometres, which is what
    /// a message needs.
    func distance(to indices: [Int], longitude: Double, latitude: Double) -> Double {
        if contains(any: indices, longitude: longitude, latitude: latitude) { return 0 }
        let mx = 111_320 * cos(latitude * .pi / 180), my = 110_574.0
        func boxDistance(_ p: Place) -> Double {
            let dx = max(p.west - longitude, 0, longitude - p.east) * mx, dy = max(p.south - latitude, 0, latitude - p.north) * my
            return (dx * dx + dy * dy).squareRoot()
        }
        var best = Double.infinity
        let byBox = indices.map { ($0, boxDistance(places[$0])) }.sorted { $0.1 < $1.1 }
        // Far from every box (over 100 km), the edges are too: straight to the great circle below.
        for (index, fromBox) in byBox where byBox[0].1 <= 100_000 {
            guard fromBox < best else { break }
            let place = places[index]
            vertices.withUnsafeBufferPointer { v in
                for ring in place.rings where ring.count > 1 {
                    for k in ring.start..<(ring.start + ring.count - 1) {
                        let ax = (Double(v[2 * k]) - longitude) * mx, ay = (Double(v[2 * k + 1]) - latitude) * my
                        let bx = (Double(v[2 * k + 2]) - longitude) * mx, by = (Double(v[2 * k + 3]) - latitude) * my
                        let dx = bx - ax, dy = by - ay, length = dx * dx + dy * dy
                        let t = length == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / length))
                        let px = ax + t * dx, py = ay + t * dy
                        best = min(best, (px * px + py * py).squareRoot())
                    }
                }
            }
        }
        guard best > 100_000 else { return best }
        // Far away the flat approximation fails: the great-circle distance to the nearest place's box instead, a lower bound.
        return indices.map { index in
            let p = places[index]
            return Geodesic.distance(fromLatitude: latitude, longitude: longitude,
                                     toLatitude: min(max(latitude, p.south), p.north), longitude: min(max(longitude, p.west), p.east))
        }.min() ?? best
    }

    /// A county's name as it is looked up: without accents, case, punctuation and a trailing
    /// `County`, `Parish`, `Borough` or `Co.`, and with `Saint` as `St`: `St. Louis County` → `STLOUIS`.
    static func countyKey(_ name: String) -> String {
        var words = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        while let last = words.last, words.count > 1, ["COUNTY", "PARISH", "BOROUGH", "CO", "CNTY", "AREA", "CENSUS", "MUNICIPALITY"].contains(last) {
            words.removeLast()
        }
        return words.map { $0 == "SAINT" ? "ST" : $0 == "SAINTE" ? "STE" : $0 }.joined()
    }

    /// The county a cell names, given its state's FIPS code (or none, for a 5-digit FIPS code).
    func county(_ text: String, state: String?) -> Int? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if value.count == 5, value.allSatisfy(\.isNumber) { return counties.byFIPS[value] }
        guard let state else { return nil }
        if value.count <= 3, let number = Int(value) { return counties.byFIPS[state + String(format: "%03d", number)] }
        return counties.byName[state + ":" + Self.countyKey(value)]
    }

    /// Whether the point lies on some country's land.
    func isOnLand(longitude: Double, latitude: Double) -> Bool {
        country(containing: longitude, latitude: latitude) != nil
    }

    /// The country whose land holds the point (its index), if any.
    func country(containing longitude: Double, latitude: Double) -> Int? {
        countries.first { contains($0, longitude: longitude, latitude: latitude) }
    }

    /// Where the point lies: the country whose land holds it, and the US state when it is in the US
    /// or on no country's land (the counties' 1:20M coasts are not the countries' 1:50m ones: 8% of
    /// the Hawaii list's wells lie off the one and on the other). The country is tested first, so
    /// that a point elsewhere pays no state's outline (Alaska's box spans the Aleutians).
    func location(longitude: Double, latitude: Double) -> (country: Int?, state: USState?) {
        let country = country(containing: longitude, latitude: latitude)
        guard country == nil || country == countryByName["USA"] else { return (country, nil) }
        return (country, state(containing: longitude, latitude: latitude))
    }

    /// The country whose land holds the point, or else the nearest within `metres` of it.
    func country(near longitude: Double, latitude: Double, within metres: Double) -> Int? {
        if let inside = country(containing: longitude, latitude: latitude) { return inside }
        let reach = metres / 110_574, reachLongitude = metres / (111_320 * max(0.01, cos(latitude * .pi / 180)))
        return countries.filter {
            let p = places[$0]
            return latitude >= p.south - reach && latitude <= p.north + reach && longitude >= p.west - reachLongitude && longitude <= p.east + reachLongitude
        }.map { ($0, distance(to: [$0], longitude: longitude, latitude: latitude)) }.filter { $0.1 <= metres }.min { $0.1 < $1.1 }?.0
    }

    /// The open sea: the points more than ``seaTolerance`` from every country's land, as far as a
    /// grid of 1° cells can tell. A cell is near a coast when it meets the box of some run of a few
    /// consecutive vertices of a country's ring, widened by that distance; the open sea is the cells
    /// reached from a few points of the oceans without crossing such a cell (the coasts enclose the
    /// land, whose inland cells are then never reached). The answer errs towards "near land": a sea
    /// the coasts enclose (the Arctic's centre, the Caspian) is not open. It costs a lookup.
    struct OpenSea: Sendable {
        fileprivate let open: [Bool]

        func contains(longitude: Double, latitude: Double) -> Bool {
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else { return false }
            return open[min(179, Int(latitude + 90)) * 360 + min(359, Int(longitude + 180))]
        }
    }

    /// ``OpenSea``, its 64,800 cells made on first use.
    var openSea: OpenSea {
        openSeaGrid.withLock { made in
            if let made { return made }
            var coast = [Bool](repeating: false, count: 180 * 360)
            let padLatitude = Self.seaTolerance / 110_574
            for index in countries {
                for ring in places[index].rings where ring.count > 0 {
                    // Runs of 8 edges: a ring's own box (Antarctica's, Russia's) would cover whole oceans.
                    for first in stride(from: ring.start, to: ring.start + ring.count, by: 8) {
                        var west = Double.infinity, south = Double.infinity, east = -Double.infinity, north = -Double.infinity
                        for k in first..<min(first + 9, ring.start + ring.count) {
                            let x = Double(vertices[2 * k]), y = Double(vertices[2 * k + 1])
                            (west, east, south, north) = (min(west, x), max(east, x), min(south, y), max(north, y))
                        }
                        south = max(-90, south - padLatitude)
                        north = min(90, north + padLatitude)
                        let widest = max(abs(south), abs(north))
                        let padLongitude = widest >= 85 ? 360 : Self.seaTolerance / (111_320 * cos(widest * .pi / 180))
                        let firstColumn = Int((west - padLongitude + 180).rounded(.down)), lastColumn = Int((east + padLongitude + 180).rounded(.down))
                        let columns = lastColumn - firstColumn >= 359 ? Array(0..<360) : (firstColumn...lastColumn).map { ($0 % 360 + 360) % 360 }
                        for row in max(0, Int((south + 90).rounded(.down)))...min(179, Int((north + 90).rounded(.down))) {
                            for column in columns { coast[row * 360 + column] = true }
                        }
                    }
                }
            }
            // From the middle of the Pacific (north, equator, south), the Atlantic (north, south) and the Indian Ocean.
            var open = [Bool](repeating: false, count: 180 * 360)
            var stack = [(30, -150), (0, -140), (-45, -120), (30, -40), (-30, -20), (-30, 80)].map { ($0.0 + 90) * 360 + ($0.1 + 180) }
            while let cell = stack.popLast() {
                guard !coast[cell], !open[cell] else { continue }
                open[cell] = true
                let row = cell / 360, column = cell % 360
                if row > 0 { stack.append(cell - 360) }
                if row < 179 { stack.append(cell + 360) }
                stack.append(row * 360 + (column + 1) % 360)
                stack.append(row * 360 + (column + 359) % 360)
            }
            made = OpenSea(open: open)
            return made!
        }
    }

    /// The box around `indices`.
    func extent(of indices: [Int]) -> (west: Double, south: Double, east: Double, north: Double)? {
        guard let first = indices.first else { return nil }
        var box = (places[first].west, places[first].south, places[first].east, places[first].north)
        for i in indices.dropFirst() {
            let p = places[i]
            box = (min(box.0, p.west), min(box.1, p.south), max(box.2, p.east), max(box.3, p.north))
        }
        return box
    }

    /// The state (as ``USState``) whose outline contains the point, if any.
    package func state(containing longitude: Double, latitude: Double) -> USState? {
        for state in USState.all {
            if let outline = stateByFIPS[state.fips], contains(outline, longitude: longitude, latitude: latitude) { return state }
        }
        return nil
    }
}

extension Places {
    /// One place's outline, for drawing it (the server's basemap): its polygons, each an outer ring
    /// then its holes, every ring closed and as flat longitude, latitude pairs (slices of ``vertices``,
    /// no copy).
    package struct Outline: Sendable {
        /// A state's name (`Utah`), a county's (`Salt Lake`), a country's (`United States of America`).
        package var name: String
        /// A state's 2-digit FIPS code, a county's 5-digit one, a country's ISO 3166 alpha-3 code when it has one.
        package var code: String
        /// For a county, its state's FIPS code.
        package var state: String?
        /// For a county, what the Census calls it: `County`, `Parish`, `Borough`, `city`, …
        package var lsad: String?
        package var polygons: [[ArraySlice<Float>]]
    }

    /// The outlines of every place of `kind`, in the order of the resources (states and counties by FIPS code).
    ///
    /// The resources list a place's rings without saying which are holes; `make_places.py` keeps its
    /// sources' orientation, in which every outer ring turns one way (clockwise) and every hole the
    /// other, so a ring turning as the place's first ring does starts a polygon and any other is a
    /// hole of the polygon before it.
    package func outlines(_ kind: Kind) -> [Outline] {
        places.filter { $0.kind == kind }.map { place in
            var polygons: [[ArraySlice<Float>]] = []
            var outward: Bool?
            for ring in place.rings where ring.count >= 4 {
                let points = vertices[(2 * ring.start)..<(2 * (ring.start + ring.count))]
                let turn = Self.signedArea(points) > 0
                if outward == nil { outward = turn }
                if turn == outward || polygons.isEmpty { polygons.append([points]) } else { polygons[polygons.count - 1].append(points) }
            }
            let name = kind == .state ? USState.all.first { $0.fips == place.name }?.name ?? place.name : place.name
            let code = kind == .country ? place.codes.first { $0.count == 3 && $0.allSatisfy(\.isUppercase) } ?? place.codes.first ?? place.name
                : place.codes.first ?? place.name
            return Outline(name: name, code: code, state: place.state, lsad: place.lsad, polygons: polygons)
        }
    }

    /// Twice the ring's area in square degrees (the shoelace sum): positive when it turns counter-clockwise.
    package static func signedArea(_ ring: ArraySlice<Float>) -> Double {
        var sum = 0.0
        var k = ring.startIndex
        while k + 3 < ring.endIndex {
            sum += Double(ring[k]) * Double(ring[k + 3]) - Double(ring[k + 2]) * Double(ring[k + 1])
            k += 2
        }
        return sum
    }
}

/// A US state, DC or Puerto Rico: its FIPS code, postal code and name.
package struct USState: Sendable, Equatable {
    package var fips: String
    package var postal: String
    package var name: String

    static let all: [USState] = """
        01 AL Alabama|02 AK Alaska|04 AZ Arizona|05 AR Arkansas|06 CA California|08 CO Colorado|09 CT Connecticut|10 DE Delaware|\
        11 DC District of Columbia|12 FL Florida|13 GA Georgia|15 HI Hawaii|16 ID Idaho|17 IL Illinois|18 IN Indiana|19 IA Iowa|\
        20 KS Kansas|21 KY Kentucky|22 LA Louisiana|23 ME Maine|24 MD Maryland|25 MA Massachusetts|26 MI Michigan|27 MN Minnesota|\
        28 MS Mississippi|29 MO Missouri|30 MT Montana|31 NE Nebraska|32 NV Nevada|33 NH New Hampshire|34 NJ New Jersey|\
        35 NM New Mexico|36 NY New York|37 NC North Carolina|38 ND North Dakota|39 OH Ohio|40 OK Oklahoma|41 OR Oregon|\
        42 PA Pennsylvania|44 RI Rhode Island|45 SC South Carolina|46 SD South Dakota|47 TN Tennessee|48 TX Texas|49 UT Utah|\
        50 VT Vermont|51 VA Virginia|53 WA Washington|54 WV West Virginia|55 WI Wisconsin|56 WY Wyoming|72 PR Puerto Rico
        """.split(separator: "|").map { entry in
        let parts = entry.split(separator: " ", maxSplits: 2).map(String.init)
        return USState(fips: parts[0], postal: parts[1], name: parts[2])
    }

    private static let byKey: [String: USState] = {
        var keys: [String: USState] = [:]
        for state in all {
            keys[state.postal] = state
            keys[state.name.uppercased()] = state
            keys["STATE OF " + state.name.uppercased()] = state
        }
        return keys
    }()

    /// The state a cell names: a postal code (`OK`), a name (`Oklahoma`, any case), or, when
    /// `fips` allows it, a FIPS code (`40`, `040`).
    static func named(_ text: String, fips: Bool) -> USState? {
        let key = text.trimmingCharacters(in: .whitespaces).uppercased()
        if let state = byKey[key] { return state }
        if fips, let number = Int(key), key.count <= 3 {
            let code = number < 10 ? "0\(number)" : "\(number)"
            return all.first { $0.fips == code }
        }
        return nil
    }
}

extension USState {
    /// The state whose code begins a US well's API number (`41-133-21968`: 41, Tennessee), when the
    /// bytes are one: 10, 12 or 14 digits, the first 2 a state code of the API's list (the states and
    /// the District of Columbia in alphabetical order, 01–49 for the conterminous ones, then 50
    /// Alaska and 51 Hawaii), dashes or spaces between the parts. 9, 11 or 13 digits are such a
    /// number whose leading zero a spreadsheet dropped (`4029200010000`: 04, California). Codes 55
    /// and above (federal waters) name no state.
    static func ofAPINumber(_ bytes: some Collection<UInt8>) -> USState? {
        var digits = 0, code = 0, first = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits == 0 { first = Int(byte - UInt8(ascii: "0")) }
                if digits < 2 { code = code * 10 + Int(byte - UInt8(ascii: "0")) }
                digits += 1
            case UInt8(ascii: "-"):
                guard digits > 0 else { return nil }
            case UInt8(ascii: " "):
                continue
            default:
                return nil
            }
        }
        guard (9...14).contains(digits) else { return nil }
        if digits % 2 == 1 { code = first }
        guard (1...51).contains(code) else { return nil }
        return byAPICode[code - 1]
    }

    /// The states by API state code, less one.
    private static let byAPICode: [USState] = """
        AL AZ AR CA CO CT DE DC FL GA ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR \
        PA RI SC SD TN TX UT VT VA WA WV WI WY AK HI
        """.split(separator: " ").map { postal in all.first { $0.postal == postal }! }
}

/// Canadian provinces and territories, by postal abbreviation and name: checked against Canada's outline.
enum CanadianProvince {
    static let names: Set<String> = [
        "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT", "ALBERTA", "BRITISH COLUMBIA", "MANITOBA",
        "NEW BRUNSWICK", "NEWFOUNDLAND AND LABRADOR", "NOVA SCOTIA", "NORTHWEST TERRITORIES", "NUNAVUT", "ONTARIO",
        "PRINCE EDWARD ISLAND", "QUEBEC", "SASKATCHEWAN", "YUKON",
    ]
}
