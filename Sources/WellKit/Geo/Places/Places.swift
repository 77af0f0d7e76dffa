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

    let places: [Place]
    /// Each place's ``Bands``, by index.
    let bands: [Bands]
    /// Longitude, latitude pairs.
    let vertices: [Float]
    /// A state's outline (the union of its counties), by its FIPS code.
    let stateByFIPS: [String: Int]
    /// A country's code or name, upper-cased → its index.
    let countryByName: [String: Int]
    /// The indices of the countries.
    let countries: [Int]
    /// The counties' indices by name and by code (``CountyIndex``), made on first use.
    let countyIndex = Mutex<CountyIndex?>(nil)
    /// ``openSea``, made on first use.
    let openSeaGrid = Mutex<OpenSea?>(nil)

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
        // This file is Sources/WellKit/Geo/Places/Places.swift; the resources are Sources/WellKit/Resources.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources"))
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

    /// The places of `places.tsv` (written by `Data/boundaries/make_places.py`, which describes it):
    /// one line each, tab-separated kind, name, state and lsad (a county's, empty for the others),
    /// west, south, east, north, rings as `start:count;…`, then one field per code. Read by hand
    /// rather than as JSON, which `JSONDecoder` reads many times slower, on every load whose file
    /// names places.
    static func readIndex(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Place] {
        var places: [Place] = []
        // One pass over the bytes, by index: the collections' `split` is slow in a debug build,
        // where every test's `wells load` pays it, and String's split by grapheme in release too.
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
}
