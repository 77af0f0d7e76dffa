import Foundation
import WellKit

/// The query parameters of `items`, `ids` and tiles, checked against the allow-list and turned
/// into a ``WellFetchRequest``. Values are never spliced into SQL: fields come from
/// ``WellField``, values become bound parameters of the request's predicate.
///
/// For example, `?bbox=-114.2,50.9,-113.9,51.2&status=Abandoned&sortby=-spud_date&limit=20`.
struct FeatureQuery {
    var request = WellFetchRequest()
    /// The fields and unmapped columns (`extra.NAME`) written as properties beside `wellkit_id`,
    /// `uwi` and `name`: every mapped field unless `properties=` names fewer (none: pins alone).
    var properties: [WellAttribute] = Self.mappedFields
    /// Every mapped field but those each feature carries anyway: `items`' properties by default.
    static let mappedFields = WellField.detailFields.filter { $0 != .identifier }.map(WellAttribute.init)
    /// `properties=*`: every unmapped column too, which only the store can list (``WellStore/extraColumnNames()``).
    var everyExtraColumn = false
    /// The wells of `ids=`, in that order.
    var ids: [Int64]?

    /// The parameters every endpoint that selects wells accepts, beside a field name (`status=Abandoned`).
    static let selecting: Set<String> = filtering.union(["bbox", "bbox-crs", "f"])
    /// The filter and its language and CRS (OGC API – Features Part 3), which tiles take too.
    static let filtering: Set<String> = ["filter", "filter-lang", "filter-crs"]
    /// The names of CRS84, longitude then latitude in degrees: what `bbox-crs` and `filter-crs` may say.
    static let crs84Names = [FeaturesAPI.crs84, "CRS84", "OGC:CRS84"]
    static let paging: Set<String> = ["limit", "offset", "sortby", "properties", "ids"]

    /// Fields a property filter may name: all but the coordinates, which `bbox` selects.
    static let filterFields = WellField.allCases.filter { $0 != .latitude && $0 != .longitude }

    /// A field's name as a parameter, a queryable and a property: the internal id is `wellkit_id`
    /// (the feature's `id` is the uwi; `id=` is still read).
    static func parameterName(_ field: WellField) -> String {
        FeaturesAPI.propertyName(WellAttribute(field))
    }

    /// - Parameters:
    ///   - parameters: The request's, as ``FeaturesAPI/parameters(_:)`` reads them: no name twice.
    ///   - accepting: The parameters the endpoint takes, besides property filters.
    /// - Throws: ``Problem`` 400 naming the first parameter that is unknown or malformed.
    init(_ parameters: [(name: String, value: String)], accepting: Set<String>, configuration: ServerConfiguration) throws {
        var filters: [WellPredicate] = []
        var filter: String?
        var language = "cql2-text"
        for (name, value) in parameters {
            if let field = Self.filterFields.first(where: { Self.parameterName($0) == name || $0.rawValue == name }) {
                filters.append(try Self.equality(field, value))
                continue
            }
            guard accepting.contains(name) else {
                let known = accepting.sorted().joined(separator: ", ")
                throw Problem.badParameter(name, "unknown parameter '\(Self.shown(name))'; this endpoint takes \(known), or a field to filter by such as status=Abandoned (fields: \(Self.filterFields.map(Self.parameterName).joined(separator: ", ")))")
            }
            switch name {
            case "bbox":
                do { request.region = .box(try BoundingBox(parsing: value)) } catch let error as QueryError {
                    throw Problem.badParameter(name, "bbox: \(error.message)")
                }
            case "bbox-crs":
                guard Self.crs84Names.contains(value) else {
                    throw Problem.badParameter(name, "bbox-crs '\(Self.shown(value))' is not supported; give the box in longitude/latitude degrees (http://www.opengis.net/def/crs/OGC/1.3/CRS84)")
                }
            case "limit":
                // Over the maximum is refused, not capped: /api states the maximum, and a client that
                // pages by `limit` must not take a shorter page for the last one.
                guard let limit = Int(value), (1...configuration.maximumLimit).contains(limit) else {
                    throw Problem.badParameter(name, "limit must be a whole number from 1 to \(configuration.maximumLimit), got '\(Self.shown(value))'")
                }
                request.limit = limit
            case "offset":
                guard let offset = Int(value), (0...configuration.maximumOffset).contains(offset) else {
                    throw Problem.badParameter(name, "offset must be a whole number from 0 to \(configuration.maximumOffset), got '\(Self.shown(value))'; narrow the box or filter instead of paging deeper")
                }
                request.offset = offset
            case "sortby":
                // A field named again cannot change the order: its first mention counts (the library
                // refuses a repeat, which /api's pattern for sortby cannot rule out).
                var named = Set<WellAttribute>()
                request.sortDescriptors = try value.split(separator: ",", omittingEmptySubsequences: false).map { term in
                    var text = term.trimmingCharacters(in: .whitespaces)
                    var ascending = true
                    if text.hasPrefix("-") { ascending = false; text.removeFirst() } else if text.hasPrefix("+") { text.removeFirst() }
                    do { return WellSortDescriptor(try WellAttribute(keyPath: text), ascending: ascending) } catch let error as QueryError {
                        throw Problem.badParameter(name, "sortby: \(error.message)")
                    }
                }.filter { named.insert($0.field).inserted }
            case "properties":
                everyExtraColumn = value == "*"
                let names = value.isEmpty ? [] : value.split(separator: ",", omittingEmptySubsequences: false)
                properties = try value == "*" ? Self.mappedFields : names.map { text in
                    do {
                        let field = try WellAttribute(keyPath: String(text))
                        return field
                    } catch let error as QueryError {
                        throw Problem.badParameter(name, "properties: \(error.message), or * for all of them")
                    }
                }
                properties.removeAll { [.id, .identifier, .name, .latitude, .longitude].contains($0) }
            case "ids":
                let list = value.split(separator: ",", omittingEmptySubsequences: false).map { Int64($0) }
                guard !list.isEmpty, list.count <= configuration.maximumItemIDs, list.allSatisfy({ $0 != nil }) else {
                    throw Problem.badParameter(name, "ids must be 1 to \(configuration.maximumItemIDs) well ids separated by commas, such as ids=12,7,40")
                }
                ids = list.map { $0! }
            case "filter":
                filter = value
            case "filter-lang":
                guard Self.filterLanguages.contains(value) else {
                    throw Problem.badParameter(name, "filter-lang '\(Self.shown(value))' is not supported; use cql2-text (the default), or wells-where for the language of wells --where")
                }
                language = value
            case "filter-crs":
                guard Self.crs84Names.contains(value) else {
                    throw Problem.badParameter(name, "filter-crs '\(Self.shown(value))' is not supported; give the filter's coordinates in longitude/latitude degrees (\(FeaturesAPI.crs84), the default)")
                }
            case "f":
                guard ["json", "geojson"].contains(value) else {
                    throw Problem.badParameter(name, "f '\(Self.shown(value))' is not a format served here; use f=json")
                }
            default:
                break
            }
        }
        if let filter { try apply(filter, language: language, to: &filters) }
        if let ids { filters.append(.in(.id, ids.map { .number(Double($0)) })) }
        if !filters.isEmpty { request.predicate = filters.count == 1 ? filters[0] : .and(filters) }
    }

    /// `filter-lang`: CQL2 text (also by its draft name, `cql-text`, which GDAL sends), or `--where`'s language.
    static let filterLanguages: Set<String> = ["cql2-text", "cql-text", "wells-where"]

    /// Adds `filter=` to the request: its comparisons to `filters`, its S_INTERSECTS to the request's
    /// area and box (intersected with `bbox=`).
    ///
    /// - Throws: ``Problem`` 400 naming `filter` and the character offset of what is wrong.
    private mutating func apply(_ text: String, language: String, to filters: inout [WellPredicate]) throws {
        guard language != "wells-where" else {
            do { filters.append(try WellPredicate(parsing: text)) } catch let error as QueryError {
                throw Problem.badParameter("filter", "filter: \(error.description)")
            }
            return
        }
        let cql2: CQL2Filter
        do { cql2 = try CQL2Filter(parsing: text) } catch let error as QueryError {
            throw Problem.badParameter("filter", "filter (CQL2 text): \(error.message)")
        }
        if let predicate = cql2.predicate { filters.append(predicate) }
        request.within = cql2.area
        var boxes = cql2.boxes
        guard !boxes.isEmpty else { return }
        if case .box(let box)? = request.region { boxes.append(box) }
        // Several boxes (BBOX, POINT, bbox=): a well must be in all of them, so in their intersection.
        guard boxes.count == 1 || !boxes.contains(where: \.crossesAntimeridian) else {
            throw Problem.badParameter("filter", "filter: a box across the antimeridian cannot be combined with another box or point here; give one box")
        }
        let minLongitude = boxes.map(\.minLongitude).max()!, maxLongitude = boxes.map(\.maxLongitude).min()!
        let minLatitude = boxes.map(\.minLatitude).max()!, maxLatitude = boxes.map(\.maxLatitude).min()!
        if boxes.count == 1 || (minLongitude <= maxLongitude && minLatitude <= maxLatitude) {
            request.region = .box(boxes.count == 1 ? boxes[0] : try BoundingBox(minLongitude: minLongitude, minLatitude: minLatitude, maxLongitude: maxLongitude, maxLatitude: maxLatitude))
        } else {
            request.region = .box(boxes[0])
            filters.append(.or([]))   // boxes that do not meet: no well
        }
    }

    /// `field = value`, the value as the field stores it: a number for numeric fields.
    private static func equality(_ field: WellField, _ value: String) throws -> WellPredicate {
        switch field.kind {
        case .integer:
            guard let number = Int64(value) else {
                throw Problem.badParameter(field.rawValue, "\(field.rawValue) takes a whole number, got '\(shown(value))'")
            }
            return .compare(WellAttribute(field), .equal, .number(Double(number)))
        case .real:
            guard let number = Double(value), number.isFinite else {
                throw Problem.badParameter(field.rawValue, "\(field.rawValue) takes a number, got '\(shown(value))'")
            }
            return .compare(WellAttribute(field), .equal, .number(number))
        case .text, .date:
            return .compare(WellAttribute(field), .equal, .text(value))
        }
    }

    /// A value as an error message shows it: control characters escaped (``SafeText``), long text shortened.
    static func shown(_ text: String) -> String {
        QueryError.shortened(SafeText.cell(text))
    }
}

extension Problem {
    /// A query the library refused (a predicate over its limits, a date that is no date): 400.
    init(_ error: QueryError) {
        let parameter: String? = switch error.subject {
        case .boundingBox: "bbox"
        case .limit: "limit"
        case .offset: "offset"
        case .sortDescriptor: "sortby"
        case .predicate: error.field?.rawValue ?? "filter"
        case .fieldName: error.field?.rawValue
        default: nil
        }
        self.init(.badRequest, error.description, parameter: parameter)
    }
}
