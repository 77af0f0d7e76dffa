import Foundation
import Hummingbird
import WellKit

/// Every path `wells serve` answers: the pattern its router registers (``path``) and what its
/// OpenAPI 3.0 document at `/api` says of it (``operation(_:)``), in one table.
///
/// ``WellsServer/buildRouter()`` registers each handler under its route's ``path``, and
/// `OGCAPITests.theAPIDocumentDescribesEveryRouteOfTheRouter` compares Hummingbird's list of the
/// router's routes with this table, so that the document and the server cannot drift apart.
enum Route: String, CaseIterable, Sendable {
    case landing, conformance, api, collections, collection, queryables, items, item, ids, changes, tile, mapAsset, basemap, favicon, health, ready, metrics

    /// The path as Hummingbird's router reads it, `:name` for a path parameter.
    var path: String {
        switch self {
        case .landing: "/"
        case .conformance: "/conformance"
        case .api: "/api"
        case .collections: "/collections"
        case .collection: "/collections/:collectionId"
        case .queryables: "/collections/:collectionId/queryables"
        case .items: "/collections/:collectionId/items"
        case .item: "/collections/:collectionId/items/:featureId"
        case .ids: "/collections/:collectionId/ids"
        case .changes: "/collections/:collectionId/changes"
        case .tile: "/tiles/:z/:x/:y"
        case .mapAsset: "/assets/map/:name"
        case .basemap: "/basemap/:layer"
        case .favicon: "/favicon.ico"
        case .health: "/health"
        case .ready: "/ready"
        case .metrics: "/metrics"
        }
    }

    /// The path as OpenAPI writes it, `{name}` for a path parameter.
    var openAPIPath: String { Self.openAPIPath(path) }

    /// A router's path (`/collections/:collectionId`) as OpenAPI writes it (`/collections/{collectionId}`).
    static func openAPIPath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }

    /// The route's GET operation, with the limits of `configuration`.
    func operation(_ configuration: ServerConfiguration) -> OpenAPI.Operation {
        typealias P = OpenAPI.Parameter
        let collection = P.path("collectionId", JSONSchema(type: "string", enum: [.string(FeaturesAPI.collectionID)]), "The collection: this server has one, wells")
        switch self {
        case .landing:
            return .init(rawValue, "The landing page: the map page (HTML), or the API's links (JSON)", tag: "Capabilities",
                         parameters: [P.query("f", JSONSchema(type: "string", enum: ["json", "html"]), "json for the links, html for the map; without it, an Accept header that asks for JSON and not HTML gets JSON")],
                         responses: ["200": .init("The map page, or the landing page's links",
                                                  ["application/json": OpenAPI.Schemas.landing, "text/html": .string]),
                                     "304": OpenAPI.Response.notModified, "400": .problem(.badRequest)])
        case .conformance:
            return .init(rawValue, "The conformance classes the server implements", tag: "Capabilities",
                         responses: ["200": .init("The conformance classes", ["application/json": OpenAPI.Schemas.conformance]), "304": .notModified, "400": .problem(.badRequest)])
        case .api:
            return .init(rawValue, "This document: the API's definition (OpenAPI 3.0)", tag: "Capabilities",
                         responses: ["200": .init("The OpenAPI document", [FeaturesAPI.openAPI: .object([:])]), "304": .notModified, "400": .problem(.badRequest)])
        case .collections:
            return .init(rawValue, "The collections: wells", tag: "Capabilities",
                         responses: ["200": .init("The collections", ["application/json": OpenAPI.Schemas.collections]),
                                     "304": .notModified, "400": .problem(.badRequest), "503": .problem(.unavailable)])
        case .collection:
            return .init(rawValue, "The wells: their extent, count and links", tag: "Capabilities", parameters: [collection],
                         responses: ["200": .init("The collection", ["application/json": OpenAPI.Schemas.collection]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound), "503": .problem(.unavailable)])
        case .queryables:
            return .init(rawValue, "What a filter may name, as a JSON Schema", tag: "Capabilities", parameters: [collection],
                         responses: ["200": .init("The queryables", [FeaturesAPI.schemaJSON: OpenAPI.Schemas.queryables]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound)])
        case .items:
            return .init(rawValue, "The wells, a page at a time, with their attributes",
                         description: "Each feature's id is the well's identifier (uwi); the property wellkit_id is the store's internal id, which `wells optimize` renumbers. Features carry every mapped field unless `properties` names fewer.",
                         tag: "Data", parameters: [collection] + P.selecting(configuration, tiles: false) + P.paging(configuration),
                         responses: ["200": .init("A page of wells", [FeaturesAPI.geoJSON: OpenAPI.Schemas.featureCollection],
                                                  links: ["firstWell": .init(operationId: Route.item.rawValue,
                                                                             parameters: ["collectionId": FeaturesAPI.collectionID, "featureId": "$response.body#/features/0/id"],
                                                                             description: "The page's first well, by its id (uwi)")]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound), "503": .problem(.unavailable)])
        case .item:
            return .init(rawValue, "One well with every attribute, by its identifier (uwi)", tag: "Data",
                         parameters: [collection, P.path("featureId", JSONSchema(type: "string", minLength: 1), "The well's identifier (uwi), percent-escaped, as the `id` of items gives it"),
                                      P.query("f", JSONSchema(type: "string", enum: ["json", "geojson"]), "The format: GeoJSON")],
                         responses: ["200": .init("The well", [FeaturesAPI.geoJSON: OpenAPI.Schemas.feature]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound), "503": .problem(.unavailable)])
        case .ids:
            return .init(rawValue, "The internal ids (wellkit_id) of the matching wells in sort order, for lists that load rows with items?ids=", tag: "Data",
                         parameters: [collection] + P.selecting(configuration, tiles: false) + [P.sortby],
                         responses: ["200": .init("The ids", ["application/json": OpenAPI.Schemas.ids]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound), "503": .problem(.unavailable)])
        case .changes:
            let integer = JSONSchema(type: "integer", minimum: 0, maximum: Double(Int32.max))
            let moment = #"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?$"#
            return .init(rawValue, "What changed between two releases of a source's list (wells load --release): new, gone, back, changed (per field) and moved wells, a page at a time, as GeoJSON (a move is a line from its old place to its new one)", tag: "Data",
                         parameters: [collection,
                                      P.query("source", JSONSchema(type: "string"), "The source (default: the store's only one)"),
                                      P.query("from", integer, "The release compared from (default: the one before to; 0 is before the first)"),
                                      P.query("to", JSONSchema(type: "integer", minimum: 1, maximum: Double(Int32.max)), "The release compared to (default: the last)"),
                                      P.query("since", JSONSchema(type: "string", pattern: moment), "The last release loaded before this date (2026-05-01) or RFC 3339 moment (2026-05-01T12:00:00Z); with from, the later of the two"),
                                      P.query("kind", JSONSchema(type: "string", pattern: "^(new|gone|back|changed|moved)(,(new|gone|back|changed|moved))*$"), "Only these kinds, comma-separated"),
                                      P.query("field", JSONSchema(type: "string"), "Only changes of these fields, comma-separated (status, extra.Permit; uwi for re-spelled identifiers)"),
                                      P.query("moved-over", JSONSchema(type: "number", minimum: 0, maximum: 40_075_017), "List a move only over this many metres (default 1)"),
                                      P.query("bbox", JSONSchema(type: "string", format: "bbox", pattern: "^\(P.number),\(P.number),\(P.number),\(P.number)$"), "Only wells in this box, minLon,minLat,maxLon,maxLat (their new place, or a gone well's last)"),
                                      P.query("limit", JSONSchema(type: "integer", minimum: 1, maximum: Double(configuration.maximumLimit)), "The most changes in the page (default 1000)"),
                                      P.query("offset", JSONSchema(type: "integer", minimum: 0, maximum: Double(configuration.maximumOffset)), "The changes to skip first")],
                         responses: ["200": .init("The changes", [FeaturesAPI.geoJSON: .object([:])]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound, "No such collection, source or release"), "503": .problem(.unavailable)])
        case .tile:
            let zooms = configuration.maximumZoom
            return .init(rawValue, "A vector tile of the wells (XYZ, Web Mercator), clustered at low zooms", tag: "Tiles",
                         parameters: [P.path("z", JSONSchema(type: "integer", minimum: 0, maximum: Double(zooms)), "The zoom"),
                                      P.path("x", JSONSchema(type: "integer", minimum: 0, maximum: Double((1 << zooms) - 1)), "The column, 0 at 180° W"),
                                      P.path("y", JSONSchema(type: "string", pattern: #"^[0-9]{1,7}\.(mvt|geojson)$"#), "The row (0 at the north) and the format: 12.mvt or 12.geojson"),
                                      P.query("cell", JSONSchema(type: "integer", enum: TileOptions.cellSizes.map { .integer($0) }), "The cluster cell, in tile units of 4096 a side")]
                            + P.selecting(configuration, tiles: true),
                         responses: ["200": .init("The tile", ["application/vnd.mapbox-vector-tile": .binary, FeaturesAPI.geoJSON: OpenAPI.Schemas.tile]),
                                     "304": .notModified, "400": .problem(.badRequest), "404": .problem(.notFound, "No such tile: x or y outside the zoom's grid"),
                                     "503": .problem(.unavailable)])
        case .mapAsset:
            return .init(rawValue, "The map page's stylesheet and script", tag: "Map",
                         parameters: [P.path("name", JSONSchema(type: "string", enum: MapPage.assets.keys.sorted().map { .string($0) }), "The file")],
                         responses: ["200": .init("The file", ["text/css": .string, "text/javascript": .string]),
                                     "304": .notModified, "404": .problem(.notFound, "No such file")])
        case .basemap:
            return .init(rawValue, "Outlines under the map: countries, US states or US counties, each feature with its name and a label point", tag: "Map",
                         parameters: [P.path("layer", JSONSchema(type: "string", enum: Basemap.Layer.allCases.map { .string($0.rawValue + ".geojson") }), "The layer")],
                         responses: ["200": .init("The outlines", [FeaturesAPI.geoJSON: .object([:])]), "304": .notModified,
                                     "404": .problem(.notFound, "No such layer, or no country outlines (a --basemap file that cannot be read)")])
        case .favicon:
            return .init(rawValue, "No icon", tag: "Map", responses: ["204": OpenAPI.Response("No content")])
        case .health:
            return .init(rawValue, "Liveness: the process answers", tag: "Operations",
                         responses: ["200": .init("Up", ["application/json": OpenAPI.Schemas.status])])
        case .ready:
            return .init(rawValue, "Readiness: the store answers", tag: "Operations",
                         responses: ["200": .init("Ready", ["application/json": OpenAPI.Schemas.status]), "503": .problem(.unavailable)])
        case .metrics:
            return .init(rawValue, "Metrics in Prometheus' text format", tag: "Operations",
                         responses: ["200": .init("The metrics", ["text/plain": .string])])
        }
    }

    /// The OpenAPI document of every route.
    static func document(_ configuration: ServerConfiguration) -> OpenAPI.Document {
        OpenAPI.Document(
            info: .init(title: "WellKit", version: "1.0.0",
                        description: "wells serve: OGC API – Features (Part 1 Core, GeoJSON, OpenAPI 3.0; Part 3 filtering with CQL2 text) over one collection, wells, with vector tiles and a map page. A well's feature id is its identifier (uwi)."),
            paths: Dictionary(uniqueKeysWithValues: allCases.map { ($0.openAPIPath, OpenAPI.PathItem(get: $0.operation(configuration))) }))
    }
}

/// The parts of an OpenAPI 3.0 document that `/api` uses, as `Codable` values.
enum OpenAPI {
    struct Document: Codable, Sendable {
        var openapi = "3.0.3"
        var info: Info
        var paths: [String: PathItem]
    }

    struct Info: Codable, Sendable {
        var title: String
        var version: String
        var description: String
    }

    struct PathItem: Codable, Sendable {
        var get: Operation
    }

    struct Operation: Codable, Sendable {
        var operationId: String
        var summary: String
        var description: String?
        var tags: [String]
        var parameters: [Parameter]?
        var responses: [String: Response]

        init(_ operationId: String, _ summary: String, description: String? = nil, tag: String, parameters: [Parameter] = [], responses: [String: Response]) {
            self.operationId = operationId
            self.summary = summary
            self.description = description
            tags = [tag]
            self.parameters = parameters.isEmpty ? nil : parameters
            self.responses = responses
        }
    }

    struct Parameter: Codable, Sendable {
        var name: String
        var `in`: String
        var required: Bool
        var description: String
        var schema: JSONSchema
        var style: String?
        var explode: Bool?

        static func query(_ name: String, _ schema: JSONSchema, _ description: String, style: String? = nil, explode: Bool? = nil) -> Parameter {
            Parameter(name: name, in: "query", required: false, description: description, schema: schema, style: style, explode: explode)
        }

        static func path(_ name: String, _ schema: JSONSchema, _ description: String) -> Parameter {
            Parameter(name: name, in: "path", required: true, description: description, schema: schema)
        }

        /// Selecting wells: `bbox` and its CRS (not for tiles), a CQL2 filter with its language and
        /// CRS, and one equality per filterable field (``FeatureQuery/filterFields``). GDAL's OAPIF
        /// driver (3.6 to this day) sends a `-where` to the server as `filter=…&filter-lang=cql-text`
        /// only when `filter-lang` lists `cql-text`, and only for the fields listed as parameters.
        static func selecting(_ configuration: ServerConfiguration, tiles: Bool) -> [Parameter] {
            let crs = JSONSchema(type: "string", enum: FeatureQuery.crs84Names.map { .string($0) })
            let box: [Parameter] = tiles ? [] : [
                query("bbox", JSONSchema(type: "string", format: "bbox", pattern: "^\(number),\(number),\(number),\(number)$"),
                      "minLon,minLat,maxLon,maxLat in degrees: longitudes from -180 to 180 (minLon > maxLon crosses the antimeridian), latitudes from -90 to 90 with minLat ≤ maxLat"),
                query("bbox-crs", crs, "The CRS of bbox: CRS84 only"),
                query("f", JSONSchema(type: "string", enum: ["json", "geojson"]), "The format: GeoJSON"),
            ]
            let filter: [Parameter] = [
                query("filter", JSONSchema(type: "string", format: "cql2-text"),
                      tiles ? "A CQL2 text filter without S_INTERSECTS, such as status = 'Abandoned' AND total_depth > 1000"
                            : "A CQL2 text filter, such as status = 'Abandoned' AND S_INTERSECTS(geometry, BBOX(-90.1,35,-89.9,35.2))"),
                // wells-where is left out of the enum: `filter`'s format is CQL2 text, which a schema
                // cannot make depend on the language.
                query("filter-lang", JSONSchema(type: "string", enum: ["cql2-text", "cql-text"], default: "cql2-text"),
                      "The filter's language: cql-text is CQL2 text's draft name. (The server also reads wells-where, the language of wells --where, whose syntax this document does not describe.)"),
                query("filter-crs", crs, "The CRS of the filter's coordinates: CRS84 only"),
            ]
            let fields = FeatureQuery.filterFields.map { field in
                query(FeatureQuery.parameterName(field), JSONSchema.field(field.kind), "Wells whose \(FeatureQuery.parameterName(field)) equals this value")
            }
            return box + filter + fields
        }

        /// `sortby`: fields, `-` for descending.
        static let sortby = query("sortby", JSONSchema(type: "string", pattern: "^\(sortTerm)(,\(sortTerm))*$"),
                                  "Fields (or extra.NAME) to sort by, - before a field for descending, such as -spud_date,name")

        /// Paging and choosing what a page holds.
        static func paging(_ configuration: ServerConfiguration) -> [Parameter] {
            let names = "(\(attributeNames))"
            let idsCount = configuration.maximumItemIDs - 1
            return [
                query("limit", JSONSchema(type: "integer", default: .integer(configuration.defaultLimit), minimum: 1, maximum: Double(configuration.maximumLimit)), "Wells per page"),
                query("offset", JSONSchema(type: "integer", minimum: 0, maximum: Double(configuration.maximumOffset)), "Wells to skip; narrow the box or filter rather than paging deep"),
                sortby,
                query("properties", JSONSchema(type: "string", pattern: #"^(\*|(\#(names)(,\#(names))*)?)$"#),
                      "The attributes to carry beside wellkit_id, uwi and name: field names and extra.NAME separated by commas, * for every field and every unmapped column, or nothing for pins alone; without it, every mapped field"),
                query("ids", JSONSchema(type: "string", pattern: "^-?[0-9]{1,18}(,-?[0-9]{1,18}){0,\(idsCount)}$"),
                      "Internal well ids (wellkit_id, as /ids lists them), at most \(configuration.maximumItemIDs), answered in this order"),
            ]
        }

        /// A decimal number as `bbox` takes it.
        static let number = #"-?[0-9]+(\.[0-9]+)?"#
        /// A field's name, or `extra.` and a source column's name.
        private static let attributeNames = (WellField.allCases.map(\.rawValue) + ["wellkit_id"]).joined(separator: "|") + #"|extra\.[^,]+"#
        private static let sortTerm = "[+-]?(\(attributeNames))"
    }

    struct Response: Codable, Sendable {
        struct MediaType: Codable, Sendable {
            var schema: JSONSchema
        }

        /// An operation a response leads to, with the values it takes from the response (OpenAPI's `links`).
        struct Link: Codable, Sendable {
            var operationId: String
            var parameters: [String: String]
            var description: String
        }

        var description: String
        var content: [String: MediaType]?
        var links: [String: Link]?

        init(_ description: String, _ content: [String: JSONSchema] = [:], links: [String: Link]? = nil) {
            self.description = description
            self.content = content.isEmpty ? nil : content.mapValues(MediaType.init)
            self.links = links
        }

        static let notModified = Response("Not modified: the client's If-None-Match holds the current ETag")

        enum Failure {
            case badRequest, notFound, unavailable
        }

        /// An RFC 9457 problem document.
        static func problem(_ failure: Failure, _ description: String? = nil) -> Response {
            let text = switch failure {
            case .badRequest: "A parameter is unknown, given twice or malformed: the problem names it"
            case .notFound: "No such collection or well"
            case .unavailable: "The store cannot answer now (busy, replaced or gone, or the query outlasted the server's limit): try again"
            }
            return Response(description ?? text, ["application/problem+json": Schemas.problem])
        }
    }

    /// The schemas of the responses.
    enum Schemas {
        static let link = JSONSchema.object(["href": .string, "rel": .string, "type": .string, "title": .string, "templated": JSONSchema(type: "boolean")],
                                            required: ["href", "rel"])
        static let links = JSONSchema.array(of: link)
        static let landing = JSONSchema.object(["title": .string, "description": .string, "links": links], required: ["links"])
        static let conformance = JSONSchema.object(["conformsTo": .array(of: .string)], required: ["conformsTo"])
        static let collection = JSONSchema.object([
            "id": .string, "title": .string, "description": .string, "itemType": .string,
            "extent": .object(["spatial": .object(["bbox": .array(of: JSONSchema(type: "array", minItems: 4, maxItems: 4, items: .number)), "crs": .string])]),
            "crs": .array(of: .string), "storageCrs": .string, "links": links,
        ], required: ["id", "links"])
        static let collections = JSONSchema.object(["links": links, "collections": .array(of: collection)], required: ["links", "collections"])
        static let queryables = JSONSchema.object(["$schema": .string, "$id": .string, "type": .string, "properties": .object([:])], required: ["type", "properties"])
        static let point = JSONSchema.object(["type": JSONSchema(type: "string", enum: ["Point"]),
                                              "coordinates": JSONSchema(type: "array", minItems: 2, maxItems: 2, items: .number)],
                                             required: ["type", "coordinates"])
        /// A well as a GeoJSON Feature: its id the uwi, its properties the store's id and the chosen attributes.
        static let feature = JSONSchema.object([
            "type": JSONSchema(type: "string", enum: ["Feature"]),
            "id": JSONSchema(type: "string", description: "The well's identifier (uwi)"),
            "geometry": point,
            "properties": .object(["wellkit_id": JSONSchema(type: "integer", description: "The store's internal id, renumbered by wells optimize"),
                                   "uwi": .string, "name": JSONSchema(type: "string", nullable: true)]
                                  .merging(WellField.detailValueFieldsInOrder.map { ($0.rawValue, JSONSchema.field($0.kind, nullable: true)) }) { a, _ in a },
                                  required: ["wellkit_id"]),
            "links": links,
        ], required: ["type", "id", "geometry", "properties"])
        static let featureCollection = JSONSchema.object([
            "type": JSONSchema(type: "string", enum: ["FeatureCollection"]), "features": .array(of: feature),
            "numberMatched": JSONSchema(type: "integer", minimum: 0), "numberReturned": JSONSchema(type: "integer", minimum: 0), "links": links,
        ], required: ["type", "features", "numberMatched", "numberReturned", "links"])
        static let tile = JSONSchema.object(["type": JSONSchema(type: "string", enum: ["FeatureCollection"]), "features": .array(of: .object([:]))],
                                            required: ["type", "features"])
        static let ids = JSONSchema.object(["numberMatched": JSONSchema(type: "integer", minimum: 0), "truncated": JSONSchema(type: "boolean"),
                                            "ids": .array(of: .integer)], required: ["numberMatched", "truncated", "ids"])
        static let problem = JSONSchema.object(["type": .string, "title": .string, "status": .integer, "detail": .string, "parameter": .string, "instance": .string],
                                               required: ["type", "title", "status", "detail"])
        static let status = JSONSchema.object(["status": .string], required: ["status"])
    }
}

extension JSONSchema {
    /// Any bytes: a vector tile.
    static let binary = JSONSchema(type: "string", format: "binary")
}

extension WellField {
    /// The typed detail fields, in column order (the item's properties after wellkit_id, uwi and name).
    static let detailValueFieldsInOrder = detailFields.filter { $0 != .identifier }
}

extension WellsServer {
    /// Each route of ``buildRouter()`` as `METHOD /path`, the path as OpenAPI writes it, from
    /// Hummingbird's own list: the test that keeps `/api` and the router together compares them.
    package var registeredRoutes: [String] {
        buildRouter().routes.map { "\($0.method) \(Route.openAPIPath($0.path.description))" }
    }
}
