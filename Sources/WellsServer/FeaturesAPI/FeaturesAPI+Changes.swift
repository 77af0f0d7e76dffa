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
                guard let date = ChangeQuery.moment(value) else {
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
            result = try lease.read { [query] in try $0.changes(query) }
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
}
