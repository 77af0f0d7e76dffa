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
                let full = ISO8601DateFormatter(), day = ISO8601DateFormatter()
                day.formatOptions = [.withFullDate]
                guard let date = full.date(from: value) ?? day.date(from: value) else {
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
        if query.since != nil && query.from != nil { throw Problem(.badRequest, "give since or from, not both") }
        let result: ReleaseChanges
        do {
            result = try lease.read { try $0.changes(query) }
        } catch let error as ReleaseError {
            throw Problem(error.code == .unsupported ? .notImplemented : .notFound, error.message)
        }
        let page = result.changes.dropFirst(offset).prefix(limit)
        let writer = ResultWriter(format: .geojson, columns: ["kind", "uwi", "release", "field", "old", "new", "meters", "lat", "lon"], featureID: "") { _ in }
        var out = Array(#"{"type":"FeatureCollection","source":"#.utf8) + Array(ResultWriter.json(.text(result.source)).utf8)
        out += Array(#","from":\#(result.from),"to":\#(result.to),"numberMatched":\#(result.changes.count),"numberReturned":\#(page.count),"features":["#.utf8)
        for change in page {
            var geometry: String?
            if let was = change.previousPosition {
                geometry = #"{"type":"LineString","coordinates":[[\#(ResultWriter.number(was.longitude)),\#(ResultWriter.number(was.latitude))],[\#(ResultWriter.number(change.longitude)),\#(ResultWriter.number(change.latitude))]]}"#
            }
            writer.write([.text(change.kind.rawValue), .text(change.identifier), .integer(Int64(change.release)), WellValue(change.field),
                          WellValue(change.old), WellValue(change.new), change.meters.map { .real(($0 * 100).rounded() / 100) } ?? .null,
                          .real(change.latitude), .real(change.longitude)], geometry: geometry, appendingTo: &out)
        }
        out += Array("\n],\"links\":[".utf8) + Array(changesLinks(request, parameters, limit: limit, offset: offset, returned: page.count, matched: result.changes.count).utf8)
        out += Array("]}\n".utf8)
        return out
    }

    private func changesLinks(_ request: Request, _ parameters: [(name: String, value: String)], limit: Int, offset: Int, returned: Int, matched: Int) -> String {
        let base = Self.base(request) + request.uri.path
        let kept = parameters.filter { $0.name != "offset" && $0.name != "limit" } + [("limit", String(limit))]
        func url(offset: Int) -> String {
            base + "?" + (kept + (offset > 0 ? [("offset", String(offset))] : [])).map { "\(Self.encoded($0.0))=\(Self.encoded($0.1))" }.joined(separator: "&")
        }
        var links = [Self.link(url(offset: offset), "self", Self.geoJSON, "This page")]
        if offset + returned < matched && returned > 0 { links.append(Self.link(url(offset: offset + limit), "next", Self.geoJSON, "The next page")) }
        if offset > 0 { links.append(Self.link(url(offset: max(0, offset - limit)), "prev", Self.geoJSON, "The previous page")) }
        return links.joined(separator: ",")
    }
}
