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
/// A typed projection, like GRDB's `PartialPlayer`: its selection is exactly
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
