// Stand-ins for library declarations whose real homes need PROJ, so the fuzz build can leave those
// files out. Keep them in step with the originals named below.

import Foundation

/// Sources/WellKit/Geo/Geodesic.swift calls PROJ; the parsers only need the name to exist.
enum Geodesic {
    static func distance(fromLatitude lat1: Double, longitude lon1: Double, toLatitude lat2: Double, longitude lon2: Double) -> Double { 0 }
}

/// Sources/WellKit/Geo/PROJ/TransformCache.swift calls PROJ: areas in another CRS (`SRID=n;`) cannot be
/// transformed in the fuzz build and fail as an unknown CRS would.
final class TransformCache: Sendable {
    static let shared = TransformCache()
    func transformer(from source: String, to target: String) throws -> CoordinateTransformer { throw CRSStandIn() }
}
final class CoordinateTransformer: Sendable {
    func transform(_ points: inout [(x: Double, y: Double)], inverse: Bool = false) throws {}
}
struct CRSStandIn: Error {}
