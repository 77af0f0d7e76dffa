import Foundation
import Hummingbird
import WellKit

/// OGC API – Features, Part 1 Core (https://docs.ogc.org/is/17-069r4/17-069r4.html), over one
/// collection, `wells`: landing page, conformance, collections, items by bounding box with paging,
/// property filters and sorting, and one item with every attribute. Also `ids`, the ids of the
/// wells in a box in sort order, for lists that load their rows page by page.
struct FeaturesAPI: Sendable {
    let configuration: ServerConfiguration
    /// The store's extent and count as of a change token: a pass over every pin, so computed once per version.
    private let extent = VersionedValue<(box: BoundingBox?, count: Int)>()

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    static let collectionID = "wells"
    static let geoJSON = "application/geo+json"
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    static let schemaJSON = "application/schema+json"
    static let openAPI = "application/vnd.oai.openapi+json;version=3.0"
    static let queryablesRel = "http://www.opengis.net/def/rel/ogc/1.0/queryables"
    /// Part 1 (Core, GeoJSON, OpenAPI 3.0; not HTML: the map page is no HTML encoding of the
    /// resources) and Part 3 filtering in CQL2 text: Basic CQL2 and S_INTERSECTS with
    /// points and boxes (polygons too, though not every geometry of basic-spatial-functions-plus).
    /// LIKE, BETWEEN, IN and CASEI are read, but not every form of them, so their classes are not claimed.
    static let conformance = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
        "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
    ]

    // MARK: - Documents

    func landing(_ request: Request) -> [UInt8] {
        let base = Self.base(request)
        return OGC.encoded(OGC.Landing(
            title: "WellKit", description: "Wells of \(configuration.storeName) served by wells serve: OGC API – Features and vector tiles.",
            links: [
                OGC.Link(base + "/?f=json", "self", "application/json", "This document"),
                OGC.Link(base + "/", "alternate", "text/html", "The map"),
                OGC.Link(base + "/conformance", "conformance", "application/json", "Conformance classes"),
                OGC.Link(base + "/api", "service-desc", Self.openAPI, "The API's definition (OpenAPI 3.0)"),
                OGC.Link(base + "/collections", "data", "application/json", "Collections"),
                OGC.Link(base + "/tiles/{z}/{x}/{y}.mvt", "item", "application/vnd.mapbox-vector-tile", "Vector tiles of the wells (XYZ, Web Mercator)", templated: true),
            ]))
    }

    func conformanceDocument() -> [UInt8] {
        OGC.encoded(OGC.Conformance(conformsTo: Self.conformance))
    }

    func collections(_ request: Request, token: StoreVersion?, lease: StoreReaders.Lease) throws -> [UInt8] {
        OGC.encoded(OGC.Collections(links: [OGC.Link(Self.base(request) + "/collections", "self", "application/json", "Collections")],
                                    collections: [try collectionDocument(request, token: token, lease: lease)]))
    }

    func collection(_ request: Request, token: StoreVersion?, lease: StoreReaders.Lease) throws -> [UInt8] {
        OGC.encoded(try collectionDocument(request, token: token, lease: lease))
    }

    /// The collection; its extent is the store's as of `token` (computed anew without one).
    private func collectionDocument(_ request: Request, token: StoreVersion?, lease: StoreReaders.Lease) throws -> OGC.Collection {
        let base = Self.base(request) + "/collections/" + Self.collectionID
        let (box, count) = try extent.value(for: token) { try lease.read { try $0.fetchExtent() } }
        let bbox: [Double] = box.map { [$0.minLongitude, $0.minLatitude, $0.maxLongitude, $0.maxLatitude] } ?? [-180, -90, 180, 90]
        return OGC.Collection(
            id: Self.collectionID, title: "Wells",
            description: "\(count) wells, each with its identifier (uwi) as feature id, its position and its mapped fields",
            itemType: "feature", extent: .init(spatial: .init(bbox: [bbox], crs: Self.crs84)), crs: [Self.crs84], storageCrs: Self.crs84,
            links: [
                OGC.Link(base, "self", "application/json", "The wells"),
                OGC.Link(base + "/items", "items", Self.geoJSON, "The wells as GeoJSON"),
                OGC.Link(base + "/queryables", Self.queryablesRel, Self.schemaJSON, "The properties a filter may name"),
            ])
    }

    /// `api`: the OpenAPI 3.0 document of every route (``Route``).
    func apiDocument() -> [UInt8] {
        OGC.encoded(Route.document(configuration))
    }

    /// `queryables`: what a `filter` may name, as a JSON Schema (Part 3): every field with its type,
    /// and `geometry`, the wells' positions, for S_INTERSECTS. The internal id is `wellkit_id`, as
    /// in items (a filter may still say `id`).
    func queryables(_ request: Request) -> [UInt8] {
        var properties = Dictionary(uniqueKeysWithValues: WellField.allCases.map { (FeatureQuery.parameterName($0), JSONSchema.field($0.kind)) })
        properties["wellkit_id"] = JSONSchema(type: "integer", format: "int64", title: "The well's internal id, which wells optimize renumbers (also read as id)")
        properties["uwi"] = JSONSchema(type: "string", title: "The well's identifier: the id of its feature")
        properties["geometry"] = JSONSchema(format: "geometry-point", title: "The well's position (longitude, latitude)")
        return OGC.encoded(OGC.Queryables(
            id: Self.base(request) + "/collections/" + Self.collectionID + "/queryables", title: "Wells",
            description: "The properties a CQL2 filter may name (filter=, filter-lang=cql2-text).", properties: properties))
    }

    // MARK: - Items

    /// `items`: a FeatureCollection of the wells in view, `limit` at a time, with `numberMatched`
    /// and a `next` link. Each feature's `id` is the well's identifier (``featureID``); its
    /// properties are `wellkit_id` (the store's internal id), `uwi`, `name` and the attributes of
    /// `properties=` (every mapped field without it). `parameters` are the request's, as
    /// ``parameters(_:)`` reads them.
    func items(_ request: Request, parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> [UInt8] {
        var query = try FeatureQuery(parameters, accepting: FeatureQuery.selecting.union(FeatureQuery.paging), configuration: configuration)
        let limit = query.request.limit ?? query.ids?.count ?? configuration.defaultLimit
        let offset = query.request.offset ?? 0
        query.request.limit = limit
        var out: [UInt8] = []
        out.reserveCapacity(600 * min(limit, 1_000))
        try lease.read { store in
            do {
                let extras = query.everyExtraColumn ? try store.extraColumnNames().map(WellAttribute.extra) : []
                let fields: [WellAttribute] = [.id, .identifier, .name, .latitude, .longitude] + query.properties + extras
                let writer = ResultWriter(format: .geojson, columns: fields.map(Self.propertyName), featureID: Self.featureID) { out.append(contentsOf: $0.utf8) }
                var returned = 0
                if let ids = query.ids {
                    // In the order of `ids`, as a list that loads rows by id expects them.
                    var rows: [Int64: [WellValue]] = [:]
                    try store.forEachRow(query.request, fields: fields) { row in rows[row[0]] = row.values }
                    for id in ids { if let row = rows[id] { writer.write(row, appendingTo: &out); returned += 1 } }
                } else if query.properties.isEmpty && extras.isEmpty {
                    // Pins alone (`properties=name`): the same features, read from the row by type.
                    try store.forEachRow(query.request, fields: fields) { row in
                        out.append(contentsOf: returned == 0 ? [0x0A] : [0x2C, 0x0A])
                        ResultWriter.appendPinFeature(id: row[0], identifier: row[1], name: row[2], latitude: row[3], longitude: row[4], to: &out)
                        returned += 1
                    }
                    writer.appended(rows: returned)
                } else {
                    try store.forEachRow(query.request, fields: fields) { row in writer.write(row.values, appendingTo: &out); returned += 1 }
                }
                // A first page that is not full holds every match: no count needed (most city boxes).
                var matched = returned
                if offset > 0 || returned == limit {
                    var counting = query.request
                    counting.limit = nil
                    counting.offset = nil
                    matched = try store.fetchCount(counting)
                }
                let links = pageLinks(request, parameters, limit: limit, offset: offset, returned: returned, matched: matched)
                    + "," + Self.link(Self.base(request) + "/collections/" + Self.collectionID, "collection", "application/json", "The wells")
                writer.finish(geoJSONMembers: #""numberMatched":\#(matched),"numberReturned":\#(returned),"links":[\#(links)]"#)
            } catch let error as QueryError {
                throw Problem(error)
            }
        }
        return out
    }

    /// The property whose value is a feature's `id`: the well's identifier (`details.uwi`), which a
    /// WellKit store keeps unique and never null (a well loaded without one gets `FILE@TAG:LINE`,
    /// and duplicates are settled at load by `--duplicates`). It survives `wells optimize`, which
    /// renumbers the internal ids, and reloads of the same file.
    static let featureID = WellField.identifier.rawValue

    /// An attribute's name as a property: the store's internal id is `wellkit_id`, since the
    /// feature's `id` is the uwi; other names as the fields and `extra.NAME` spell them.
    static func propertyName(_ attribute: WellAttribute) -> String {
        attribute == .id ? "wellkit_id" : attribute.name
    }

    /// A page's `self`, `next` and `prev` links: the request's parameters with `limit` and `offset` set (items, changes).
    func pageLinks(_ request: Request, _ parameters: [(name: String, value: String)], limit: Int, offset: Int, returned: Int, matched: Int) -> String {
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
        return links.joined(separator: ",")
    }

    /// `items/{featureId}`: one well with every attribute, as a GeoJSON Feature, found by its
    /// identifier (``featureID``; the path's segment percent-decoded). `parameters` are the
    /// request's, as ``parameters(_:)`` reads them.
    func item(_ request: Request, id text: String, parameters: [(name: String, value: String)], lease: StoreReaders.Lease) throws -> String {
        _ = try FeatureQuery(parameters, accepting: ["f"], configuration: configuration)
        let identifier = text.removingPercentEncoding ?? text
        let found: (Well, SuspectWell?)? = try lease.read { store in
            guard let well = try store.well(identifier: identifier) else { return nil }
            return (well, try store.suspects(pinID: well.id).first)
        }
        guard let (well, suspect) = found else {
            throw Problem(.notFound, "no well with the identifier '\(FeatureQuery.shown(identifier))'; a feature's id is its well's uwi, as the `id` of items gives it")
        }
        let pairs = well.properties(suspect: suspect)
        let feature = ResultWriter(format: .geojson, columns: pairs.map { $0.name == "id" ? "wellkit_id" : $0.name }, featureID: Self.featureID) { _ in }
            .feature(pairs.map(\.value))
        let base = Self.base(request) + "/collections/" + Self.collectionID
        let links = [Self.link(base + "/items/" + Self.pathSegment(well.detail.identifier), "self", Self.geoJSON, "This well"),
                     Self.link(base, "collection", "application/json", "The wells")]
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
        // Foundation only where there is something to decode: with its replacingOccurrences and
        // removingPercentEncoding on every name and value, reading the parameters took 5.8% of
        // the server's time on uncached city boxes.
        func decoded(_ text: Substring) -> String {
            guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
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

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? text
    }

    /// `text` as one segment of a path: everything but unreserved characters percent-escaped.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathSegmentAllowed) ?? text
    }
}

extension CharacterSet {
    /// Characters a query value keeps unescaped: unreserved ones and `,` `:`.
    static let urlQueryValueAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,:")
    /// Characters a path segment keeps unescaped: unreserved ones (RFC 3986).
    static let urlPathSegmentAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
