import Foundation
import Synchronization

// Whether a point lies inside a place, and how far outside it: each place's edges in latitude
// bands, so that a test crosses only the few edges near the point's latitude.

extension Places {
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

    /// The place's edges in bands of latitude, about four edges to a band, and the bands' height.
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
    /// once into flat arrays, so that a test retains and locks nothing: checking a file's wells
    /// one ``contains(_:longitude:latitude:)`` each spends most of its time retaining and releasing
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
            let dx = Longitude.outside(longitude, west: p.west, east: p.east) * mx, dy = max(p.south - latitude, 0, latitude - p.north) * my
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
                        // The shorter way round: an Aleutian vertex at 179.9°E is 0.2° from a point at 179.9°W.
                        // The edge's far end is taken from its near end the edge's own short way, not from the
                        // point: an edge crossing the point's antipodal meridian (12.5°E for a point at 167.5°W,
                        // Cameroon's) would otherwise span 360° around the point and pass through it.
                        let ax = Longitude.difference(Double(v[2 * k]), longitude) * mx, ay = (Double(v[2 * k + 1]) - latitude) * my
                        let bx = ax + Longitude.difference(Double(v[2 * k + 2]), Double(v[2 * k])) * mx, by = (Double(v[2 * k + 3]) - latitude) * my
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
        let bound = indices.map { index in
            let p = places[index]
            return Geodesic.distance(fromLatitude: latitude, longitude: longitude,
                                     toLatitude: min(max(latitude, p.south), p.north), longitude: Longitude.clamp(longitude, west: p.west, east: p.east))
        }.min() ?? best
        // Inside the box of a place that crosses ±180° (Alaska's runs from 179°W to 179°E), or far
        // inside any box, the bound says nothing (0 for Magadan against Alaska): the edges' distance then.
        return bound >= 100_000 ? bound : best
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
}
