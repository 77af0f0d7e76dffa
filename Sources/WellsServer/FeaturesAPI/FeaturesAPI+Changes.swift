import Foundation
import Hummingbird
import WellKit

extension FeaturesAPI {
    /// The parameters `/collections/wells/changes` takes.
    static let changeParameters: Set = ["source", "from", "to", "since", "kind", "field", "moved-over", "bbox", "limit", "offset"]

    /// `/collections/wells/changes`: a source's changes between two releases (``WellStore/changes(_:)-7jk4o``)
    /// as a GeoJSON FeatureCollection, a page at a time: each change a feature whose properties are
    /// `kind`, `uwi`, `release`, `field`, `old`, `new` and `meters`, at the well's place (a move a
    /// line from its old place to its new one), with `numberMatched`, the releases compared and
    /// `self`/`next`/`prev` links. Its ETag follows the store, as every route's.
    func changes(_ request: Request, parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> [UInt8] {
        var query = ChangeQuery()
        var limit = min(configuration.maximumLimit, 1_000), offset = 0
        for (name, value) in parameters {
            guard Self.changeParameters.contains(name) else {
                throw Problem.badParameter(name, "unknown parameter '\(FeatureQuery.shown(name))'; this endpoint takes \(Self.changeParameters.sorted().joined(separator: ", "))")
            }
            func number(_ range: ClosedRange<Int>) throws -> Int {
                guard let n = Int(value), range.contains(n) else {
                    throw Problem.badParameter(name, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(FeatureQuery.shown(value))'")
                }
                return n
            }
            switch name {
            case "source": query.source = value
            case "from": query.from = try number(0...Int(Int32.max))
            case "to": query.to = try number(1...Int(Int32.max))
            case "since":
                guard let date = Self.moment(value) else {
                    throw Problem.badParameter(name, "since must be a date (2026-05-01) or an RFC 3339 moment (2026-05-01T12:00:00Z), got '\(FeatureQuery.shown(value))'")
                }
                query.since = date
            case "kind":
                query.kinds = Set(try value.split(separator: ",").map { word in
                    guard let kind = WellChange.Kind(rawValue: String(word)) else {
                        throw Problem.badParameter(name, "kind '\(FeatureQuery.shown(String(word)))' is none of \(WellChange.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    return kind
                })
            case "field": query.fields = Set(value.split(separator: ",").map(String.init))
            case "moved-over":
                guard let meters = Double(value), meters.isFinite, meters >= 0 else {
                    throw Problem.badParameter(name, "moved-over must be zero or more metres, got '\(FeatureQuery.shown(value))'")
                }
                query.movedOver = meters
            case "bbox":
                do { query.box = try BoundingBox(parsing: value) } catch let error as QueryError { throw Problem.badParameter(name, "bbox: \(error.message)") }
            case "limit": limit = try number(1...configuration.maximumLimit)
            default: offset = try number(0...configuration.maximumOffset)
            }
        }
        let result: ReleaseChanges
        do {
            // With both, the later of `from` and the last release before `since`.
            if let since = query.since, let from = query.from {
                query.since = nil
                var dated = query
                dated.from = nil
                dated.since = since
                let before = try lease.read { try $0.changes(dated) }.from
                query.from = max(from, before)
            }
            let final = query
            result = try lease.read { try $0.changes(final) }
        } catch let error as ReleaseError {
            throw Problem(error.code == .unsupported ? .notImplemented : .notFound, error.message)
        }
        let page = result.changes.dropFirst(offset).prefix(limit)
        let writer = ResultWriter(format: .geojson, columns: WellChange.columns, featureID: "") { _ in }
        var out = Array(#"{"type":"FeatureCollection","source":"#.utf8) + Array(ResultWriter.json(.text(result.source)).utf8)
        out += Array(#","from":\#(result.from),"to":\#(result.to),"numberMatched":\#(result.changes.count),"numberReturned":\#(page.count),"features":["#.utf8)
        for change in page { writer.write(change.row, geometry: change.geoJSONGeometry, appendingTo: &out) }
        out += Array("\n],\"links\":[".utf8) + Array(pageLinks(request, parameters, limit: limit, offset: offset, returned: page.count, matched: result.changes.count).utf8)
        out += Array("]}\n".utf8)
        return out
    }

    /// A date (`2026-05-01`, midnight UTC) or an RFC 3339 moment (`2026-05-01T12:00:00Z`, `…+02:00`),
    /// as /api's pattern for `since` allows it; a day past its month's end rolls over (`02-31` is 3 March).
    static func moment(_ text: String) -> Date? {
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let date = parts.first, date.count == 10, text.allSatisfy(\.isASCII) else { return nil }
        let day = date.split(separator: "-").compactMap { Int($0) }
        guard day.count == 3, (1...12).contains(day[1]), (1...31).contains(day[2]) else { return nil }
        var components = DateComponents(year: day[0], month: day[1], day: day[2])
        var offset = 0
        if parts.count == 2 {
            var time = parts[1]
            if time.hasSuffix("Z") {
                time.removeLast()
            } else if let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) {
                let zone = time[time.index(after: sign)...].split(separator: ":").compactMap { Int($0) }
                guard zone.count == 2 else { return nil }
                offset = (zone[0] * 3600 + zone[1] * 60) * (time[sign] == "-" ? -1 : 1)
                time = String(time[..<sign])
            } else {
                return nil
            }
            let clock = time.split(separator: ":").compactMap { Int($0) }
            guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
            (components.hour, components.minute, components.second) = (clock[0], clock[1], clock[2])
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components).map { $0.addingTimeInterval(TimeInterval(-offset)) }
    }
}
