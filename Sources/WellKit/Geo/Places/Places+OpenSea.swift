import Foundation

extension Places {
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
}
