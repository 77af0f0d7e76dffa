import Foundation
import WellKit

/// Notes on standard error for query arguments that are almost certainly a mistake: a point or box
/// far from every well where reading it the other way round (lat,lon swapped, a lost minus sign)
/// lands among them, a box across the antimeridian that its corners' order made, a radius without a
/// unit. The results stay as asked; only the words are added. The checks cost a nearest-well query
/// and run only when the answer looks wrong (no rows, or the nearest well far away).
enum ArgumentSense {
    /// How far from every well a point must be to be questioned, and how much nearer a reading must bring it.
    static let farMeters = 1_000_000.0

    static func note(_ text: String) { Terminal.error("wells: note: " + text) }

    /// The nearest well's distance from `point`, or nil when the store is empty.
    static func nearest(_ store: WellStore, _ point: Coordinate) -> Double? {
        (try? store.fetchNearest(to: point, count: 1))?.first?.meters
    }

    /// Another reading of `point` (swapped, or a sign flipped) that lands at least ten times nearer
    /// the store's wells, when `point` is more than ``farMeters`` from all of them.
    static func betterReading(of point: Coordinate, in store: WellStore, distance: Double? = nil)
        -> (reading: String, point: Coordinate, meters: Double, from: Double)? {
        guard let from = distance ?? nearest(store, point), from > farMeters else { return nil }
        let readings: [(String, Double, Double)] = [
            ("lat,lon swapped", point.longitude, point.latitude),
            ("longitude's sign flipped", point.latitude, -point.longitude),
            ("latitude's sign flipped", -point.latitude, point.longitude),
        ]
        for (name, lat, lon) in readings where (-90...90).contains(lat) && (-180...180).contains(lon) && (lat, lon) != (point.latitude, point.longitude) {
            let candidate = Coordinate(latitude: lat, longitude: lon)
            if let meters = nearest(store, candidate), meters * 10 < from { return (name, candidate, meters, from) }
        }
        return nil
    }

    static func kilometres(_ meters: Double) -> String { grouped(Int((meters / 1000).rounded())) + " km" }

    /// Degrees as typed: to the micro-degree, without trailing zeros.
    static func degrees(_ value: Double) -> String { value.projDecimal(6) }

    /// `wells near`: the point is far from every well and another reading is not.
    static func checkPoint(_ point: Coordinate, in store: WellStore, nearest: Double? = nil) {
        guard let better = betterReading(of: point, in: store, distance: nearest) else { return }
        note("the point \(degrees(point.latitude)),\(degrees(point.longitude)) is \(kilometres(better.from)) from the nearest well; "
             + "did you mean \(degrees(better.point.latitude)),\(degrees(better.point.longitude)) (\(better.reading); the nearest well is "
             + "\(kilometres(better.meters)) from it)? The point is read as lat,lon.")
    }

    /// `wells bbox`: a box whose corners' order made it cross the antimeridian, or an empty box far from every well.
    static func checkBox(_ box: BoundingBox, in store: WellStore, rows: Int) {
        if rows == 0 {
            let center = Coordinate(latitude: (box.minLatitude + box.maxLatitude) / 2,
                                    longitude: box.minLongitude <= box.maxLongitude ? (box.minLongitude + box.maxLongitude) / 2 : 180)
            if let better = betterReading(of: center, in: store) {
                let suggestion = better.reading == "lat,lon swapped"
                    ? "\(degrees(box.minLatitude)),\(degrees(box.minLongitude)),\(degrees(box.maxLatitude)),\(degrees(box.maxLongitude))"
                    : nil
                note("no wells: the box's centre is \(kilometres(better.from)) from the nearest well, and with the \(better.reading) it would be "
                     + "\(kilometres(better.meters)) from one" + (suggestion.map { "; did you mean \($0) (minLon,minLat,maxLon,maxLat)?" } ?? "."))
            }
        }
    }

    /// A note for a box whose west edge lies east of its east edge, before it is queried.
    static func checkAntimeridian(_ box: BoundingBox) {
        guard box.minLongitude > box.maxLongitude else { return }
        let width = 360 - (box.minLongitude - box.maxLongitude)
        guard width > 180 else { return }
        note("west \(degrees(box.minLongitude)) > east \(degrees(box.maxLongitude)): read as a box across the antimeridian, "
             + "\(String(format: "%.1f", width))° wide; did you mean \(degrees(box.maxLongitude)),\(degrees(box.minLatitude)),"
             + "\(degrees(box.minLongitude)),\(degrees(box.maxLatitude))?")
    }

    /// `--radius` without a unit.
    static func checkRadius(_ radius: DistanceArgument?) {
        guard let radius, let meters = radius.meters, Double(radius.text.trimmingCharacters(in: .whitespaces)) != nil else { return }
        note("--radius \(radius.text) has no unit and is read as \(degrees(meters)) m; write \(radius.text)m, \(radius.text)km or \(radius.text)mi")
    }
}
