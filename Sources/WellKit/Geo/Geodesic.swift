import CProj
import Foundation

/// Geodesic distances on the WGS 84 ellipsoid, through PROJ's implementation of Karney's
/// algorithms (`geod_inverse`, <https://proj.org/en/stable/geodesic.html>), accurate to nanometres.
package enum Geodesic {
    private static let wgs84: geod_geodesic = {
        var g = geod_geodesic()
        libproj.geod_init(&g, 6_378_137, 1 / 298.257223563)
        return g
    }()

    /// The distance in metres between two points given in degrees.
    ///
    /// For example:
    ///
    /// ```swift
    /// Geodesic.distance(fromLatitude: 51.05, longitude: -114.07, toLatitude: 53.55, longitude: -113.49)  // ≈ 280 km
    /// ```
    package static func distance(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double {
        var g = wgs84
        var s12 = 0.0
        libproj.geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, nil, nil)
        return s12
    }

    /// The great-circle distance in metres on a sphere of the Earth's mean radius (haversine):
    /// within 0.6% of ``distance(fromLatitude:longitude:toLatitude:longitude:)``, at a fraction of its cost.
    package static func sphericalDistance(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
    }

    /// A box that surely holds every point within `meters` of the centre (a prefilter for radius queries).
    ///
    /// Uses the shortest metres per degree of latitude (110,574 m at the equator) and the
    /// longitude degree at the box's edge nearest a pole, widened by 1%. Near a pole, or
    /// when the box would reach ±180°, it takes all longitudes.
    static func enclosingBox(latitude: Double, longitude: Double, meters: Double) throws -> BoundingBox {
        _ = try loadedProj.get()   // the radius query's distance function calls ``distance(fromLatitude:longitude:toLatitude:longitude:)``
        let dLat = meters / 110_574 * 1.01
        let south = max(-90, latitude - dLat), north = min(90, latitude + dLat)
        let widestCos = cos(min(89.999, max(abs(south), abs(north))) * .pi / 180)
        let dLon = meters / (111_320 * widestCos) * 1.01
        if north >= 89.999 || south <= -89.999 || dLon >= 180 || longitude - dLon < -180 || longitude + dLon > 180 {
            return try BoundingBox(minLongitude: -180, minLatitude: south, maxLongitude: 180, maxLatitude: north)
        }
        return try BoundingBox(minLongitude: longitude - dLon, minLatitude: south, maxLongitude: longitude + dLon, maxLatitude: north)
    }
}
