import Foundation

/// A longitude/latitude rectangle in EPSG:4326 degrees.
///
/// For example:
///
/// ```swift
/// let calgary = try BoundingBox(minLongitude: -114.2, minLatitude: 50.9, maxLongitude: -113.9, maxLatitude: 51.2)
/// calgary.contains(longitude: -114.07, latitude: 51.05)  // true
/// ```
///
/// - Edges: a box contains the points on its edges (`min <= x <= max`), so two boxes that
///   share an edge both return a well that lies exactly on it.
/// - Antimeridian: a box whose `minLongitude` is greater than its `maxLongitude` crosses
///   the 180° meridian. ``AntimeridianRule`` says whether to reject it or split it in two.
public struct BoundingBox: Sendable, Hashable, Codable, CustomStringConvertible {
    public let minLongitude: Double
    public let minLatitude: Double
    public let maxLongitude: Double
    public let maxLatitude: Double

    /// What to do with a box that crosses the antimeridian.
    public enum AntimeridianRule: String, Sendable, CaseIterable {
        /// Throw an error.
        case reject
        /// Split it into two boxes, one on each side of ±180°.
        case split
    }

    /// Makes a box; throws if a coordinate is out of range or the latitudes are reversed.
    ///
    /// - Throws: ``QueryError`` (`outOfRange`), naming the bad value.
    public init(minLongitude: Double, minLatitude: Double, maxLongitude: Double, maxLatitude: Double) throws {
        for (name, value, limit) in [("minLongitude", minLongitude, 180.0), ("maxLongitude", maxLongitude, 180),
                                     ("minLatitude", minLatitude, 90), ("maxLatitude", maxLatitude, 90)] {
            guard value.isFinite, abs(value) <= limit else {
                throw QueryError(.outOfRange, "BoundingBox: \(name) \(value) is outside -\(Int(limit))…\(Int(limit))", subject: .boundingBox, token: "\(value)")
            }
        }
        guard minLatitude <= maxLatitude else {
            throw QueryError(.outOfRange, "BoundingBox: minLatitude \(minLatitude) must not be greater than maxLatitude \(maxLatitude)", subject: .boundingBox)
        }
        self.minLongitude = minLongitude
        self.minLatitude = minLatitude
        self.maxLongitude = maxLongitude
        self.maxLatitude = maxLatitude
    }

    /// Parses `minLon,minLat,maxLon,maxLat`, the order of GeoJSON's `bbox` and `ogrinfo -spat`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",").map { Double($0.trimmingSpaces()) }
        guard parts.count == 4, let a = parts[0], let b = parts[1], let c = parts[2], let d = parts[3] else {
            throw QueryError(.invalidValue, "\"\(text)\" is not a box; expected minLon,minLat,maxLon,maxLat such as -114.2,50.9,-113.9,51.2", subject: .boundingBox, text: text)
        }
        try self.init(minLongitude: a, minLatitude: b, maxLongitude: c, maxLatitude: d)
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { minLongitude > maxLongitude }

    /// The boxes to query: this one, or two halves if it crosses the antimeridian and `rule` allows.
    public func parts(_ rule: AntimeridianRule) throws -> [BoundingBox] {
        guard crossesAntimeridian else { return [self] }
        guard rule == .split else {
            throw QueryError(.crossesAntimeridian, "BoundingBox: minLongitude \(minLongitude) is greater than maxLongitude \(maxLongitude), so the box crosses the antimeridian", subject: .boundingBox, remedy: .splitAtAntimeridian)
        }
        return [try BoundingBox(minLongitude: minLongitude, minLatitude: minLatitude, maxLongitude: 180, maxLatitude: maxLatitude),
                try BoundingBox(minLongitude: -180, minLatitude: minLatitude, maxLongitude: maxLongitude, maxLatitude: maxLatitude)]
    }

    /// Whether the point lies in the box or on its edge.
    public func contains(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= minLatitude && latitude <= maxLatitude else { return false }
        return crossesAntimeridian
            ? longitude >= minLongitude || longitude <= maxLongitude
            : longitude >= minLongitude && longitude <= maxLongitude
    }

    public var description: String { "\(minLongitude),\(minLatitude),\(maxLongitude),\(maxLatitude)" }
}
