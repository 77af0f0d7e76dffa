// Stand-ins for library declarations whose real homes need PROJ, so the fuzz build can leave those
// files out. Keep them in step with the originals named below.

import Foundation

/// Sources/WellKit/Geo/Geodesic.swift calls PROJ; the parsers only need the name to exist.
enum Geodesic {
    static func distance(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double { 0 }
}
