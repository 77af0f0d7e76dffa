import Foundation
import Testing
@testable import WellKit

/// The outlines' index, `places.tsv`: every place of `Data/boundaries/make_places.py`'s output, read
/// back with its kind, codes, county fields and box; a line that is not a place is refused.
@Suite struct PlacesIndexTests {
    @Test func theShippedIndexReadsEveryPlace() throws {
        let places = try #require(Places.shared)
        // Data/boundaries/README.md: 3,222 county features less New York City's, 50 states, DC and
        // Puerto Rico (the unions of their counties), and Natural Earth's 242 countries.
        #expect(places.places.count { $0.kind == .county } == 3_221)
        #expect(places.places.count { $0.kind == .state } == 52)
        #expect(places.places.count { $0.kind == .country } == 242)
        // A county with an empty legal description keeps it as empty text, not as none.
        let dc = try #require(places.counties.byFIPS["11001"].map { places.places[$0] })
        #expect(dc.name == "District of Columbia" && dc.state == "11" && dc.lsad == "")
        #expect(places.places[try #require(places.counties.byFIPS["47133"])].lsad == "County")
        // A country's codes may hold commas: each is a field of its own.
        let pitcairn = places.places[try #require(places.countryByName["PCN"])]
        #expect(pitcairn.codes.contains("Pitcairn, Henderson, Ducie and Oeno Islands") && pitcairn.state == nil && pitcairn.lsad == nil)
        // Every ring lies within the vertices, and each box holds its place's first vertex.
        for place in places.places {
            #expect(place.rings.allSatisfy { $0.start >= 0 && ($0.start + $0.count) * 2 <= places.vertices.count }, "\(place.name)")
            let lon = Double(places.vertices[place.rings[0].start * 2]), lat = Double(places.vertices[place.rings[0].start * 2 + 1])
            #expect(lon >= place.west - 1e-4 && lon <= place.east + 1e-4 && lat >= place.south - 1e-4 && lat <= place.north + 1e-4, "\(place.name)")
        }
    }

    @Test func aLineThatIsNotAPlaceIsRefused() throws {
        func read(_ text: String) throws -> [Places.Place] { try Array(text.utf8).withUnsafeBufferPointer { try Places.readIndex($0) } }
        let good = "# comment\ncounty\tOverton\t47\tCounty\t-85.5\t36.2\t-85.1\t36.6\t0:4\t47133\n"
        #expect(try read(good).map(\.name) == ["Overton"])
        for bad in ["county\tOverton\t47\tCounty\t-85.5\t36.2\t-85.1\t36.6\n", "shire\tX\t\t\t0\t0\t1\t1\t0:4\n",
                    "county\tOverton\t47\tCounty\t-85.5\tnorth\t-85.1\t36.6\t0:4\n", "state\tTN\t\t\t0\t0\t1\t1\t0:4:5\tTN\n"] {
            #expect(throws: CocoaError.self, "\(bad)") { try read(bad) }
        }
    }
}

/// ``Places/Membership``, the load's test of many wells against one region, answers as
/// ``Places/contains(_:longitude:latitude:)`` does, point by point, inside, outside and on the way.
@Suite struct PlacesMembershipTests {
    @Test func membershipAnswersAsContainsDoes() throws {
        let places = try #require(Places.shared)
        let regions: [[Int]] = [
            [try #require(places.stateByFIPS["47"])],                                        // Tennessee
            [try #require(places.countryByName["CAN"])],                                      // Canada: many rings
            [try #require(places.counties.byFIPS["47133"]), try #require(places.counties.byFIPS["47049"])],  // two counties
            places.places.indices.filter { places.places[$0].kind == .country },              // every country
        ]
        var generator = SystemRandomNumberGenerator()
        var insides = 0
        for indices in regions {
            let membership = Places.Membership(places, indices)
            let west = indices.map { places.places[$0].west }.min()!, east = indices.map { places.places[$0].east }.max()!
            let south = indices.map { places.places[$0].south }.min()!, north = indices.map { places.places[$0].north }.max()!
            for _ in 0..<4_000 {
                // Points in and a little around the region's box.
                let lon = Double.random(in: (west - 1)...(east + 1), using: &generator)
                let lat = Double.random(in: max(-90, south - 1)...min(90, north + 1), using: &generator)
                let expected = places.contains(any: indices, longitude: lon, latitude: lat)
                #expect(membership.contains(longitude: lon, latitude: lat) == expected, "\(indices.prefix(3)) at \(lon), \(lat)")
                if expected { insides += 1 }
            }
            // Each place's own vertices, the edge cases of the crossing test.
            for index in indices.prefix(3) {
                let ring = places.places[index].rings[0]
                for k in ring.start..<(ring.start + min(ring.count, 200)) {
                    let lon = Double(places.vertices[2 * k]), lat = Double(places.vertices[2 * k + 1])
                    #expect(membership.contains(longitude: lon, latitude: lat) == places.contains(any: indices, longitude: lon, latitude: lat))
                }
            }
        }
        #expect(insides > 2_000, "enough points fell inside to compare: \(insides)")
    }
}
