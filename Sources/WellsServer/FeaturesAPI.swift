import Foundation
import Hummingbird
import Synchronization
import WellKit

/// OGC API – Features, Part 1 Core (https://docs.ogc.org/is/17-069r4/17-069r4.html), over one
/// collection, `wells`: landing page, conformance, collections, items by bounding box with paging,
/// property filters and sorting, and one item with every attribute. Also `ids`, the ids of the
/// wells in a box in sort order, for lists that load their rows page by page.
struct FeaturesAPI: Sendable {
    let configuration: ServerConfiguration
    /// The store's extent and count as of a change token: a pass over every pin, so computed once per version.
    private let extent = ExtentCache()

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    static let collectionID = "wells"
    static let geoJSON = "application/geo+json"
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let schemaJSON = "application/schema+json"
    static let openAPI = "application/vnd.oai.openapi+json;version=3.0"
    static let queryablesRel = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
    /// Part 1 (Core, GeoJSON) and Part 3 filtering in CQL2 text: Basic CQL2 and S_INTERSECTS with
    /// points and boxes (polygons too, though not every geometry of basic-spatial-functions-plus).
    /// LIKE, BETWEEN, IN and CASEI are read, but not every form of them, so their classes are not claimed.
    static let conformance = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
        "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
    ]

    // MARK: - Documents

    func landing(_ request: Request) -> String {
        let base = Self.base(request)
        return """
            {"title":"WellKit","description":"Wells of \(Self.escaped(configuration.storeName)) served by wells serve: OGC API – Features and vector tiles.",\
            "links":[\(Self.link(base + "/?f=json", "self", "application/json", "This document")),\
            \(Self.link(base + "/", "alternate", "text/html", "The map")),\
            \(Self.link(base + "/conformance", "conformance", "application/json", "Conformance classes")),\
            \(Self.link(base + "/api", "service-desc", Self.openAPI, "The API's definition (OpenAPI 3.0)")),\
            \(Self.link(base + "/collections", "data", "application/json", "Collections")),\
            \(Self.link(base + "/tiles/{z}/{x}/{y}.mvt", "item", "application/vnd.mapbox-vector-tile", "Vector tiles of the wells (XYZ, Web Mercator)", templated: true))]}
            """
    }

    func conformanceDocument() -> String {
        #"{"conformsTo":["# + Self.conformance.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
    }

    func collections(_ request: Request, token: StoreVersion?, lease: StoreReaders.Lease) throws -> String {
        let base = Self.base(request)
        return #"{"links":[\#(Self.link(base + "/collections", "self", "application/json", "Collections"))],"collections":[\#(try collection(request, token: token, lease: lease))]}"#
    }

    /// The collection document; its extent is the store's as of `token` (computed anew without one).
    func collection(_ request: Request, token: StoreVersion?, lease: StoreReaders.Lease) throws -> String {
        let base = Self.base(request) + "/collections/" + Self.collectionID
        let (box, count) = try extent.value(for: token) { try lease.read { try $0.fetchExtent() } }
        let bbox = box.map { "[\(Self.number($0.minLongitude)),\(Self.number($0.minLatitude)),\(Self.number($0.maxLongitude)),\(Self.number($0.maxLatitude))]" } ?? "[-180,-90,180,90]"
        return """
            {"id":"\(Self.collectionID)","title":"Wells","description":"\(count) wells: pins (id, name, position) with their details","itemType":"feature",\
            "extent":{"spatial":{"bbox":[\(bbox)],"crs":"\(Self.crs84)"}},"crs":["\(Self.crs84)"],"storageCrs":"\(Self.crs84)",\
            "links":[\(Self.link(base, "self", "application/json", "The wells")),\
            \(Self.link(base + "/items", "items", Self.geoJSON, "The wells as GeoJSON")),\
            \(Self.link(base + "/queryables", Self.queryablesRel, Self.schemaJSON, "The properties a filter may name"))]}
            """
    }

    /// `api`: an OpenAPI 3.0 definition of the items' query parameters, the filter languages among
    /// them. Clients read filtering from it: GDAL's OAPIF driver (3.6 to this day) sends a `-where`
    /// to the server as `filter=…&filter-lang=cql-text` only when the `filter-lang` parameter of the
    /// items' path lists `cql-text`, and only for the fields that path lists as parameters.
    func apiDocument() -> String {
        func parameter(_ name: String, _ schema: String, _ description: String) -> String {
            #"{"name":"\#(name)","in":"query","required":false,"schema":\#(schema),"description":\#(ResultWriter.json(.text(description)))}"#
        }
        let fields = FeatureQuery.filterFields.map { field in
            let type = switch field.kind { case .integer: "integer"; case .real: "number"; case .text, .date: "string" }
            return parameter(field.rawValue, #"{"type":"\#(type)"}"#, "Wells whose \(field.rawValue) equals this value")
        }
        let parameters = [
            parameter("bbox", #"{"type":"array","items":{"type":"number"},"minItems":4,"maxItems":4}"#, "minLon,minLat,maxLon,maxLat"),
            parameter("bbox-crs", #"{"type":"string","enum":["\#(Self.crs84)"]}"#, "The CRS of bbox"),
            parameter("limit", #"{"type":"integer","minimum":1,"maximum":\#(configuration.maximumLimit),"default":\#(configuration.defaultLimit)}"#, "Wells per page"),
            parameter("offset", #"{"type":"integer","minimum":0,"maximum":\#(configuration.maximumOffset)}"#, "Wells to skip"),
            parameter("sortby", #"{"type":"string"}"#, "Fields to sort by, - for descending, such as -spud_date,name"),
            parameter("properties", #"{"type":"string"}"#, "Fields written beside name, or *"),
            parameter("ids", #"{"type":"string"}"#, "Well ids, in the order to answer them"),
            parameter("filter", #"{"type":"string"}"#, "A CQL2 text filter, such as status = 'Abandoned' AND S_INTERSECTS(geometry, BBOX(-90.1,35,-89.9,35.2))"),
            parameter("filter-lang", #"{"type":"string","enum":["cql2-text","cql-text","wells-where"],"default":"cql2-text"}"#, "The filter's language; cql-text is CQL2 text's draft name"),
            parameter("filter-crs", #"{"type":"string","enum":["\#(Self.crs84)"]}"#, "The CRS of the filter's coordinates"),
            parameter("f", #"{"type":"string","enum":["json","geojson"]}"#, "The format"),
        ] + fields
        let ok = #"{"200":{"description":"OK"}}"#
        return """
            {"openapi":"3.0.3","info":{"title":"WellKit","version":"1.0.0","description":"wells serve: OGC API – Features (Part 1, Part 3 with CQL2 text) over one collection, wells"},\
            "paths":{"/":{"get":{"responses":\(ok)}},"/conformance":{"get":{"responses":\(ok)}},"/collections":{"get":{"responses":\(ok)}},\
            "/collections/\(Self.collectionID)":{"get":{"responses":\(ok)}},\
            "/collections/\(Self.collectionID)/queryables":{"get":{"responses":\(ok)}},\
            "/collections/\(Self.collectionID)/items":{"get":{"parameters":[\(parameters.joined(separator: ","))],"responses":\(ok)}},\
            "/collections/\(Self.collectionID)/items/{featureId}":{"get":{"parameters":[{"name":"featureId","in":"path","required":true,"schema":{"type":"integer"}}],"responses":\(ok)}}}}
            """
    }

    /// `queryables`: what a `filter` may name, as a JSON Schema (Part 3): every field with its type,
    /// and `geometry`, the wells' positions, for S_INTERSECTS.
    func queryables(_ request: Request) -> String {
        let properties = WellField.allCases.map { field in
            let type = switch field.kind {
            case .integer: #""type":"integer""#
            case .real: #""type":"number""#
            case .text: #""type":"string""#
            case .date: #""type":"string","format":"date""#
            }
            return #""\#(field.rawValue)":{\#(type)}"#
        }
        return """
            {"$schema":"https://json-schema.org/draft/2020-12/schema",\
            "$id":\(ResultWriter.json(.text(Self.base(request) + "/collections/" + Self.collectionID + "/queryables"))),\
            "type":"object","title":"Wells","description":"The properties a CQL2 filter may name (filter=, filter-lang=cql2-text).",\
            "properties":{"geometry":{"format":"geometry-point","title":"The well's position (longitude, latitude)"},\(properties.joined(separator: ","))},\
            "additionalProperties":false}
            """
    }

    // MARK: - Items

    /// `items`: a FeatureCollection of the wells in view, `limit` at a time, with `numberMatched`
    /// and a `next` link; `properties=` adds detail fields beside `name`. `parameters` are the
    /// request's, as ``parameters(_:)`` reads them.
    func items(_ request: Request, parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> String {
        var query = try FeatureQuery(parameters, accepting: FeatureQuery.selecting.union(FeatureQuery.paging), configuration: configuration)
        let limit = query.request.limit ?? query.ids?.count ?? configuration.defaultLimit
        let offset = query.request.offset ?? 0
        query.request.limit = limit
        var out = ""
        try lease.read { store in
            do {
                let extras = query.everyExtraColumn ? try store.extraColumnNames().map(WellAttribute.extra) : []
                let fields: [WellAttribute] = [.id, .name, .latitude, .longitude] + query.properties + extras
                let writer = ResultWriter(format: .geojson, columns: fields.map(\.name)) { out += $0 }
                var returned = 0
                if let ids = query.ids {
                    // In the order of `ids`, as a list that loads rows by id expects them.
                    var rows: [Int64: [WellValue]] = [:]
                    try store.forEachRow(query.request, fields: fields) { row in rows[row[0]] = row.values }
                    for id in ids { if let row = rows[id] { writer.write(row); returned += 1 } }
                } else if query.properties.isEmpty {
                    // Pins alone, the map's request: the same features, written as bytes.
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(160 * min(limit, 1_000))
                    try store.forEachRow(query.request, fields: fields) { row in
                        bytes.append(contentsOf: returned == 0 ? [0x0A] : [0x2C, 0x0A])
                        ResultWriter.appendPinFeature(id: row[0], name: row[1], latitude: row[2], longitude: row[3], to: &bytes)
                        returned += 1
                    }
                    writer.append(raw: String(decoding: bytes, as: UTF8.self), rows: returned)
                } else {
                    try store.forEachRow(query.request, fields: fields) { row in writer.write(row.values); returned += 1 }
                }
                // A first page that is not full holds every match: no count needed (most city boxes).
                var matched = returned
                if offset > 0 || returned == limit {
                    var counting = query.request
                    counting.limit = nil
                    counting.offset = nil
                    matched = try store.fetchCount(counting)
                }
                let links = itemsLinks(request, parameters, limit: limit, offset: offset, returned: returned, matched: matched)
                writer.finish(geoJSONMembers: #""numberMatched":\#(matched),"numberReturned":\#(returned),"links":[\#(links)]"#)
            } catch let error as QueryError {
                throw Problem(error)
            }
        }
        return out
    }

    private func itemsLinks(_ request: Request, _ parameters: [(name: String, value: String)], limit: Int, offset: Int, returned: Int, matched: Int) -> String {
        let base = Self.base(request) + request.uri.path
        var kept = parameters.filter { $0.name != "offset" && $0.name != "limit" }
        kept.append(("limit", String(limit)))
        func url(offset: Int) -> String {
            let query = (kept + (offset > 0 ? [("offset", String(offset))] : [])).map { "\(Self.encoded($0.0))=\(Self.encoded($0.1))" }
            return base + "?" + query.joined(separator: "&")
        }
        var links = [Self.link(url(offset: offset), "self", Self.geoJSON, "This page")]
        if offset + returned < matched && returned > 0 {
            links.append(Self.link(url(offset: offset + limit), "next", Self.geoJSON, "The next page"))
        }
        if offset > 0 {
            links.append(Self.link(url(offset: max(0, offset - limit)), "prev", Self.geoJSON, "The previous page"))
        }
        links.append(Self.link(Self.base(request) + "/collections/" + Self.collectionID, "collection", "application/json", "The wells"))
        return links.joined(separator: ",")
    }

    /// `items/{id}`: one well with every attribute, as a GeoJSON Feature. `parameters` are the
    /// request's, as ``parameters(_:)`` reads them.
    func item(_ request: Request, id text: String, parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> String {
        guard let id = Int64(text) else {
            throw Problem.badParameter("featureId", "the well id must be a whole number (the `id` of items), got '\(FeatureQuery.shown(text))'")
        }
        _ = try FeatureQuery(parameters, accepting: ["f"], configuration: configuration)
        let found: (Well, SuspectWell?)? = try lease.read { store in
            guard let well = try store.fetchWells(WellFetchRequest(predicate: .compare(.id, .equal, .number(Double(id))), limit: 1)).first else { return nil }
            return (well, try store.suspects(pinID: id).first)
        }
        guard let (well, suspect) = found else {
            throw Problem(.notFound, "no well with id \(id); ids are the `id` of items, and change when `wells optimize` renumbers the store")
        }
        let pairs = well.properties(suspect: suspect)
        let feature = ResultWriter(format: .geojson, columns: pairs.map(\.name)) { _ in }.feature(pairs.map(\.value))
        let base = Self.base(request) + "/collections/" + Self.collectionID
        let links = [Self.link(base + "/items/\(id)", "self", Self.geoJSON, "This well"), Self.link(base, "collection", "application/json", "The wells")]
        return String(feature.dropLast()) + #","links":[\#(links.joined(separator: ","))]}"# + "\n"
    }

    /// `ids`: the ids of the matching wells in sort order, at most ``ServerConfiguration/maximumIDs``.
    func ids(_ parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> String {
        var query = try FeatureQuery(parameters, accepting: FeatureQuery.selecting.union(["sortby"]), configuration: configuration)
        let cap = configuration.maximumIDs
        query.request.limit = cap + 1
        var ids = try lease.read { store in
            do { return try store.fetchIDs(query.request) } catch let error as QueryError { throw Problem(error) }
        }
        let truncated = ids.count > cap
        var matched = ids.count
        if truncated {
            ids.removeLast()
            query.request.limit = nil
            matched = try lease.read { try $0.fetchCount(query.request) }
        }
        return #"{"numberMatched":\#(matched),"truncated":\#(truncated),"ids":["# + ids.map(String.init).joined(separator: ",") + "]}\n"
    }

    // MARK: - Pieces

    /// The query parameters in order, names and values decoded as HTML forms, `curl --data-urlencode`
    /// and Python's `urlencode` write them: `+` is a space, `%2B` a plus (a CQL2 filter is mostly
    /// spaces). Every route reads its query here, so that all refuse a repeated parameter alike:
    /// which of two values counts would differ from client to proxy to server (`?f=json&f=html`,
    /// `?cell=16&cell=4096`).
    ///
    /// - Throws: ``Problem`` 400 naming the first parameter given twice.
    static func parameters(_ request: Request) throws -> [(name: String, value: String)] {
        func decoded(_ text: Substring) -> String {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        let parameters = (request.uri.query ?? "").split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: decoded(parts[0]), value: parts.count > 1 ? decoded(parts[1]) : "")
        }
        var seen = Set<String>()
        for (name, _) in parameters where !seen.insert(name).inserted {
            throw Problem.badParameter(name, "\(FeatureQuery.shown(name)) is given twice; give it once")
        }
        return parameters
    }

    /// `http://host:port` as the client addressed the server.
    static func base(_ request: Request) -> String {
        "http://" + (request.head.authority ?? "127.0.0.1")
    }

    static func link(_ href: String, _ rel: String, _ type: String, _ title: String, templated: Bool = false) -> String {
        #"{"href":\#(ResultWriter.json(.text(href))),"rel":"\#(rel)","type":"\#(type)","title":\#(ResultWriter.json(.text(title)))\#(templated ? #","templated":true"# : "")}"#
    }

    static func escaped(_ text: String) -> String {
        String(ResultWriter.json(.text(text)).dropFirst().dropLast())
    }

    static func number(_ value: Double) -> String {
        ResultWriter.json(.real(value))
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? text
    }
}

/// One value kept for the store version it was computed at.
private final class ExtentCache: Sendable {
    private let kept = Mutex<(token: StoreVersion, value: (box: BoundingBox?, count: Int))?>(nil)

    func value(for token: StoreVersion?, _ compute: () throws -> (box: BoundingBox?, count: Int)) rethrows -> (box: BoundingBox?, count: Int) {
        if let token, let kept = kept.withLock({ $0 }), kept.token == token { return kept.value }
        let value = try compute()
        if let token { kept.withLock { $0 = (token, value) } }
        return value
    }
}

extension CharacterSet {
    /// Characters a query value keeps unescaped: unreserved ones and `,` `:`.
    static let urlQueryValueAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,:")
}
