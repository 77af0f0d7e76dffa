import Foundation

/// A point in EPSG:4326 degrees.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Parses `lat,lon`, such as `51.05,-114.07`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, abs(parts[0]) <= 90, abs(parts[1]) <= 180 else {
            throw QueryError(.invalidValue, "\"\(text)\" is not a point; expected lat,lon in degrees such as 51.05,-114.07", subject: .point, text: text)
        }
        self.init(latitude: parts[0], longitude: parts[1])
    }

    public var description: String { "\(latitude),\(longitude)" }

    /// Geodesic metres to `other` on WGS 84.
    public func distance(to other: Coordinate) -> Double {
        Geodesic.distance(fromLatitude: latitude, longitude: longitude, toLatitude: other.latitude, longitude: other.longitude)
    }
}
