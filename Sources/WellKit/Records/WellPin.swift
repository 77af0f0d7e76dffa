import Foundation

/// The map's view of a well: id, name, latitude and longitude, and nothing else.
///
/// For example:
///
/// ```swift
/// let pins = try store.fetchPins(WellFetchRequest(region: .box(calgary)))
/// print(pins[0].coordinate, pins[0].geoJSONFeature)
/// ```
///
/// A typed projection, like GRDB's `PartialPlayer`: its ``selection`` is exactly
/// `p.id, p.name, p.lat, p.lon`. Unlike a dictionary row it keeps its behaviour: it has a
/// ``coordinate`` and is a GeoJSON feature.
public struct WellPin: Sendable, Hashable, Identifiable, Codable {
    public var id: Int64
    public var name: String?
    public var latitude: Double
    public var longitude: Double

    public init(id: Int64, name: String?, latitude: Double, longitude: Double) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The columns a pin fetch selects.
    static let selection = ["p.id", "p.name", "p.lat", "p.lon"]

    /// The pin's location.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}


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
