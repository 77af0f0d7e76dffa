import Foundation
import Testing
@testable import WellKit

@Suite struct DistanceTests {
    @Test func parsesUnitsAndBareMetres() throws {
        #expect(try Distance(parsing: "2km").meters == 2000)
        #expect(try Distance(parsing: "1.5mi").meters == 1.5 * 1609.344)
        #expect(try Distance(parsing: " 500 M ").meters == 500)
        #expect(try Distance(parsing: "250").meters == 250)
        #expect(try Distance(parsing: "0m").meters == 0)
    }

    @Test func refusesWhatIsNotAFiniteDistance() {
        // "inf", "infkm" and "1e308km" were infinite radii; "0x10m" was 16 m.
        for text in ["inf", "infkm", "1e308km", "nan", "-3m", "0x10m", "", "km", "2 parsecs", "2kmm"] {
            #expect(throws: QueryError.self, "\(text)") { try Distance(parsing: text) }
        }
        #expect(throws: QueryError.self) { try Distance(meters: .infinity) }
    }

    /// The sphere that radius queries decide by stays within 0.65% of the ellipsoid (the margin
    /// `wellkit_within` relies on is 1%), at every scale from a metre to half the globe.
    @Test func theSphereStaysWithinItsMarginOfTheEllipsoid() throws {
        var random = SystemRandomNumberGenerator()
        var worst = 0.0
        for _ in 0..<20_000 {
            let lat1 = Double.random(in: -89.9...89.9, using: &random), lon1 = Double.random(in: -180...180, using: &random)
            let scale = pow(10, Double.random(in: -5...2.2, using: &random))  // degrees: about a metre to 17,000 km
            let lat2 = max(-89.99, min(89.99, lat1 + Double.random(in: -scale...scale, using: &random)))
            let lon2 = lon1 + Double.random(in: -scale...scale, using: &random)
            let geodesic = Geodesic.distance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
            guard geodesic > 0.01 else { continue }
            let spherical = Geodesic.sphericalDistance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
            worst = max(worst, abs(spherical / geodesic - 1))
        }
        #expect(worst < 0.0065, "worst relative difference \(worst)")
    }

    /// `wellkit_within` answers as `wellkit_distance(…) <= meters` does, also for radii within a
    /// hair of the distance, where the sphere cannot decide.
    @Test func withinAnswersAsTheGeodesicDistanceDoes() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let lat1 = Double.random(in: -89...89, using: &random), lon1 = Double.random(in: -180...180, using: &random)
            let scale = pow(10, Double.random(in: -4...2, using: &random))
            let lat2 = max(-89.9, min(89.9, lat1 + Double.random(in: -scale...scale, using: &random)))
            let lon2 = lon1 + Double.random(in: -scale...scale, using: &random)
            let geodesic = Geodesic.distance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
            for factor in [0.5, 0.98, 0.99, 0.994, 0.999_999, 1, 1.000_001, 1.006, 1.01, 1.02, 2] {
                let meters = geodesic * factor
                #expect(DistanceFunction.within(lat1, lon1, lat2, lon2, meters: meters) == (geodesic <= meters), "\(lat1),\(lon1) → \(lat2),\(lon2), \(meters) m")
            }
        }
    }
}
