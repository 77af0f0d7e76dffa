import GRDB

/// The SQL functions `wellkit_distance(lat1, lon1, lat2, lon2)`: geodesic metres on WGS 84; and
/// `wellkit_within(lat1, lon1, lat2, lon2, meters)`: whether that distance is at most `meters`.
enum DistanceFunction {
    /// Whether the geodesic distance between the points is at most `meters`, decided by the
    /// distance on a sphere of the Earth's mean radius wherever that is more than 1% from
    /// `meters` (the sphere is within 0.6% of the ellipsoid), and by the geodesic distance
    /// otherwise: the same answer as `wellkit_distance(…) <= meters`, without the geodesic's cost
    /// (an iterative solution, much of `wells near --nearest` far from the wells) for every well in
    /// a radius query's box.
    static func within(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double, meters: Double) -> Bool {
        let spherical = Geodesic.sphericalDistance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
        if spherical > meters * 1.01 { return false }
        if spherical < meters * 0.99 { return true }
        return Geodesic.distance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2) <= meters
    }

    static func register(_ db: Database) {
        db.add(function: DatabaseFunction("wellkit_within", argumentCount: 5, pure: true) { values in
            guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
                  let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3]),
                  let meters = Double.fromDatabaseValue(values[4]) else { return nil }
            return within(lat1, lon1, lat2, lon2, meters: meters)
        })
        db.add(function: DatabaseFunction("wellkit_distance", argumentCount: 4, pure: true) { values in
            guard let lat1 = Double.fromDatabaseValue(values[0]), let lon1 = Double.fromDatabaseValue(values[1]),
                  let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3]) else { return nil }
            return Geodesic.distance(fromLatitude: lat1, longitude: lon1, toLatitude: lat2, longitude: lon2)
        })
    }
}
