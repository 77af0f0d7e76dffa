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
