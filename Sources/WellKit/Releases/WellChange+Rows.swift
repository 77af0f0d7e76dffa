/// A change as a row of `wells changes` and a feature of the server's `/changes`: one place for
/// both's columns, values and geometry.
extension WellChange {
    /// The columns of a change's row, in order.
    package static let columns = ["kind", "uwi", "release", "field", "old", "new", "meters", "lat", "lon"]

    /// The change's values in ``columns``' order, its metres to the centimetre.
    package var row: [WellValue] {
        [.text(kind.rawValue), .text(identifier), .integer(Int64(release)), WellValue(field), WellValue(old), WellValue(new),
         meters.map { .real(($0 * 100).rounded() / 100) } ?? .null, .real(latitude), .real(longitude)]
    }

    /// A move's GeoJSON geometry, a line from its old place to its new one; nil for the other kinds (their point).
    package var geoJSONGeometry: String? {
        guard let was = previousPosition else { return nil }
        return #"{"type":"LineString","coordinates":[[\#(ResultWriter.number(was.longitude)),\#(ResultWriter.number(was.latitude))],[\#(ResultWriter.number(longitude)),\#(ResultWriter.number(latitude))]]}"#
    }
}
