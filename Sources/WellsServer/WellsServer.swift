import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import WellKit

/// `wells serve`: a store over HTTP. OGC API – Features (``FeaturesAPI``), vector tiles
/// (``TileService``) and the map page (``MapPage``), read-only, with ETags that follow the store.
///
/// For example:
///
/// ```swift
/// let server = try WellsServer(configuration: ServerConfiguration(storePath: "wells.sqlite"))
/// try await server.run { url in print("serving at", url) }
/// ```
///
/// Tests build the same application in process with ``buildApplication(configuration:logger:onRunning:)``
/// and HummingbirdTesting's `app.test(.router)`.
package struct WellsServer: Sendable {
    package let configuration: ServerConfiguration
    let readers: StoreReaders
    let api: FeaturesAPI
    let tiles: TileService
    /// Tiles and `items` pages as encoded, until the store changes.
    let cache: ResponseCache
    /// The map's background: countries, states and counties.
    let basemap: Basemap
    /// The basemap's layers gzipped and deflated, each made on the first request that asks.
    let basemapCoded = CodedBodies()
    /// Requests, latencies, cache and store use, for `/metrics`.
    let metrics = ServerMetrics()

    /// Opens the store read-only and reads the basemap.
    ///
    /// - Throws: ``StoreError`` when the store is missing or not a WellKit store.
    package init(configuration: ServerConfiguration) throws {
        self.configuration = configuration
        readers = try StoreReaders(path: configuration.storePath, name: configuration.storeName, count: configuration.readers,
                                   timeout: configuration.requestTimeout, maximumWaiting: configuration.maximumWaiting)
        api = FeaturesAPI(configuration: configuration)
        tiles = TileService(configuration: configuration)
        cache = ResponseCache(budget: configuration.cacheBytes)
        basemap = Basemap(countriesShapefile: configuration.basemapPath)
    }

    /// Why the `--basemap` shapefile gives the map no country outlines, or nil.
    package var basemapProblem: String? {
        basemap.problem.map { "\($0)" }
    }

    /// Serves until SIGINT or SIGTERM; `onRunning` receives the URL once the port is bound.
    ///
    /// A signal starts a graceful shutdown (swift-service-lifecycle's `ServiceGroup`): the listener
    /// closes at once, so new connections are refused, requests in flight finish and their
    /// connections close; what still runs after ``ServerConfiguration/shutdownTimeout`` is
    /// cancelled. Either way this returns, and `wells serve` exits 0.
    package func run(logger: Logger? = nil, onRunning: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let logger = logger ?? Self.quietLogger
        var group = ServiceGroupConfiguration(services: [buildApplication(logger: logger, onRunning: onRunning)],
                                              gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        try await ServiceGroup(configuration: group).run()
    }

    /// The application: ``buildRouter()`` behind HEAD handling and ``OperationsResponder`` (request
    /// ids, the access log at `info` on `logger`, metrics), bound to the configured address.
    package func buildApplication(logger: Logger, onRunning: @escaping @Sendable (String) async -> Void = { _ in }) -> some ApplicationProtocol {
        let host = configuration.host
        return Application(
            responder: OperationsResponder(base: HeadResponder(base: buildRouter().buildResponder()), metrics: metrics, logger: logger),
            // Heads as long as the documented limits admit, and a problem document for one that is not (HeadLimits).
            server: .http1(configuration: .init(additionalChannelHandlers: [HeadProblemHandler()],
                                                idleTimeout: .seconds(Int64(configuration.idleTimeout.components.seconds)),
                                                httpDecoderConfiguration: HeadLimits.decoder)),
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "wells serve"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                await onRunning("http://\(host.contains(":") ? "[\(host)]" : host):\(port)/")
            },
            logger: logger)
    }

    /// The application of a new server for `configuration`, as `wells serve` runs it (Hummingbird 2's
    /// `buildApplication`): tests run it in process with HummingbirdTesting.
    ///
    /// - Throws: ``StoreError`` when the store is missing or not a WellKit store.
    package static func buildApplication(configuration: ServerConfiguration, logger: Logger,
                                         onRunning: @escaping @Sendable (String) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        try WellsServer(configuration: configuration).buildApplication(logger: logger, onRunning: onRunning)
    }

    /// Every route: ``router()``'s (the API, tiles, the page and its files) and the operations'
    /// (`/health`, `/ready`, `/metrics`).
    package func buildRouter() -> Router<BasicRequestContext> {
        let router = router()
        addOperationsRoutes(to: router)
        return router
    }

    private static var quietLogger: Logger {
        var logger = Logger(label: "wells serve")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }

    /// Every route: the API, tiles, the page, its assets and the basemap.
    package func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: NotFoundMiddleware())
        if let origin = configuration.corsOrigins.first {
            router.add(middleware: CORSMiddleware(allowOrigin: origin == "*" ? .all : .custom(origin), allowMethods: [.get, .head]))
        }
        router.add(middleware: ByteRangeMiddleware(directory: configuration.leafletDirectory, urlBasePath: "/assets/leaflet"))
        router.add(middleware: FileMiddleware(configuration.leafletDirectory, urlBasePath: "/assets/leaflet",
                                              cacheControl: .init([(MediaType(type: .any), [.maxAge(3600)])]), logger: Self.quietLogger))
        // Each path comes from the route table (Route), which /api describes.
        router.get(.init(Route.landing.path)) { request, _ in
            if try Self.wantsJSON(request) {
                return try await respond(request, contentType: "application/json", variant: "json") { _ in api.landing(request) }
            }
            return try await respond(request, contentType: "text/html; charset=utf-8", variant: "html") { _ in MapPage.html }
        }
        router.get(.init(Route.mapAsset.path)) { request, context in
            let name = context.parameters.get("name") ?? ""
            guard let asset = MapPage.assets[name] else { throw Problem(.notFound, "no file '\(FeatureQuery.shown(name))' in /assets/map/") }
            return try await respond(request, contentType: asset.contentType, variant: name) { _ in asset.bytes }
        }
        // Every route reads its query through FeaturesAPI.parameters, which refuses a repeated
        // parameter; those that take none of their own read it for that alone.
        router.get(.init(Route.conformance.path)) { request, _ in
            _ = try FeaturesAPI.parameters(request)
            return try await respond(request, contentType: "application/json") { _ in api.conformanceDocument() }
        }
        router.get(.init(Route.api.path)) { request, _ in
            _ = try FeaturesAPI.parameters(request)
            return try await respond(request, contentType: FeaturesAPI.openAPI) { _ in api.apiDocument() }
        }
        router.get(.init(Route.collections.path)) { request, _ in
            _ = try FeaturesAPI.parameters(request)
            return try await respondReading(request, contentType: "application/json") { token, lease in try api.collections(request, token: token, lease: lease) }
        }
        router.get(.init(Route.collection.path)) { request, context in
            try Self.checkCollection(context)
            _ = try FeaturesAPI.parameters(request)
            return try await respondReading(request, contentType: "application/json") { token, lease in try api.collection(request, token: token, lease: lease) }
        }
        router.get(.init(Route.queryables.path)) { request, context in
            try Self.checkCollection(context)
            _ = try FeaturesAPI.parameters(request)
            return try await respond(request, contentType: FeaturesAPI.schemaJSON) { _ in api.queryables(request) }
        }
        router.get(.init(Route.items.path)) { request, context in
            try Self.checkCollection(context)
            // A box's page without a sort reads at most `limit` rows through the R*Tree: small work.
            let parameters = try FeaturesAPI.parameters(request)
            let small = parameters.contains { $0.name == "bbox" } && !parameters.contains { $0.name == "sortby" }
            return try await respondReading(request, contentType: FeaturesAPI.geoJSON, small: small, cachedAs: Self.cacheKey(request)) { _, lease in
                try api.items(request, parameters: parameters, lease: lease)
            }
        }
        router.get(.init(Route.item.path)) { request, context in
            try Self.checkCollection(context)
            let id = context.parameters.get("featureId") ?? ""
            let parameters = try FeaturesAPI.parameters(request)
            return try await respondReading(request, contentType: FeaturesAPI.geoJSON, small: true) { _, lease in
                Array(try api.item(request, id: id, parameters: parameters, lease: lease).utf8)
            }
        }
        router.get(.init(Route.ids.path)) { request, context in
            try Self.checkCollection(context)
            let parameters = try FeaturesAPI.parameters(request)
            return try await respondReading(request, contentType: "application/json") { _, lease in Array(try api.ids(parameters, lease: lease).utf8) }
        }
        router.get(.init(Route.changes.path)) { request, context in
            try Self.checkCollection(context)
            let parameters = try FeaturesAPI.parameters(request)
            return try await respondReading(request, contentType: FeaturesAPI.geoJSON, cachedAs: Self.cacheKey(request)) { _, lease in
                try api.changes(request, parameters: parameters, lease: lease)
            }
        }
        router.get(.init(Route.tile.path)) { request, context in
            let (tile, format, options) = try tiles.parse(
                z: context.parameters.get("z") ?? "", x: context.parameters.get("x") ?? "", name: context.parameters.get("y") ?? "",
                parameters: try FeaturesAPI.parameters(request))
            // Filtered tiles are not kept: a filter is one user's question, not a shared map.
            return try await respondReading(request, contentType: format.contentType, variant: format.rawValue,
                                            cachedAs: options.predicate == nil ? request.uri.string : nil) { version, lease in
                try tiles.bytes(tile, format, options, version: version, lease: lease)
            }
        }
        router.get(.init(Route.basemap.path)) { request, context in try basemapResponse(request, name: context.parameters.get("layer") ?? "") }
        router.get(.init(Route.favicon.path)) { _, _ in Response(status: .noContent) }
        return router
    }

    // MARK: - Responses

    /// A `200` with `body`, made for the store's version read before it, or a `304` when the
    /// client's `If-None-Match` holds the current ETag: that version with this run's id, so that a
    /// load, a delete, a store file replaced or a restart changes it. For documents that read
    /// nothing of the store: while the store cannot be read they are answered without an ETag
    /// (and a read that outlasts the timeout, a PostgreSQL server that stopped answering, is a 503).
    private func respond(_ request: Request, contentType: String, variant: String = "", _ body: (StoreVersion?) throws -> [UInt8]) async throws -> Response {
        let token: StoreVersion?
        do {
            token = try await self.token(for: request, until: readers.newDeadline)
        } catch let problem as Problem where problem.detail.hasPrefix(StoreReaders.notAnswering) {
            throw problem
        } catch {
            token = nil
        }
        let coding = ContentCoding.negotiate(request, contentType: contentType)
        return try respond(request, contentType: contentType, variant: variant, coding: coding, token: token) { token in
            let identity = ByteBuffer(bytes: try body(token))
            return coding?.encode(identity).map { ($0, coding) } ?? (identity, nil)
        }
    }

    /// A body as sent, with the coding it was compressed with (nil: as it is).
    typealias Coded = (body: ByteBuffer, coding: ContentCoding?)

    /// The response for `token`: a `304` when the client holds its ETag (the one for `coding`,
    /// which the client's `Accept-Encoding` chose), else a `200` with `body`.
    private func respond(_ request: Request, contentType: String, variant: String, coding: ContentCoding?, token: StoreVersion?,
                         _ body: (StoreVersion?) throws -> Coded) throws -> Response {
        let etag = etag(token, variant, coding)
        var headers: HTTPFields = [.cacheControl: "no-cache"]
        let vary = (variant == "json" || variant == "html" ? ["Accept"] : []) + (ContentCoding.compressible(contentType) ? ["Accept-Encoding"] : [])
        if !vary.isEmpty { headers[.vary] = vary.joined(separator: ", ") }
        if let etag {
            headers[.eTag] = etag
            if Self.request(request, holds: etag) { return Response(status: .notModified, headers: headers) }
        }
        headers[.contentType] = contentType
        let (buffer, applied) = try body(token)
        headers[.contentEncoding] = applied?.rawValue
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }

    /// `body`, kept in ``cache`` under `key` (when there is one) for `token`.
    private func kept(_ body: ByteBuffer, as key: String?, token: StoreVersion?) -> ByteBuffer {
        if let key { cache.keep(body, for: key, token: token) }
        return body
    }

    /// What a cached body is kept under: the request's target with the host it named, which the
    /// links of `items` pages repeat.
    private static func cacheKey(_ request: Request) -> String {
        (request.head.authority ?? "") + request.uri.string
    }

    /// As ``respond(_:contentType:variant:_:)``, for a body that reads the store: it runs with a
    /// connection of its own, on that connection's thread (``StoreReaders/withLease(_:)``), while the
    /// request's task waits suspended, so a slow query never holds the threads that answer the other
    /// requests (`small` work may run on the caller's thread; see ``StoreReaders/withLease(small:_:)``).
    /// With `key`, the body comes from ``cache`` when it holds one made at the same version,
    /// and a new one is kept there; a cached body and a `304` need no connection. A client that
    /// asks for gzip or deflate gets the body compressed (``ContentCoding``), kept in the cache
    /// beside the identity one, so a hit costs no compression. While the store's path holds no
    /// store (replaced by a file that is none, or removed), a 503 problem document.
    private func respondReading(_ request: Request, contentType: String, variant: String = "", small: Bool = false, cachedAs key: String? = nil,
                                _ body: @escaping @Sendable (StoreVersion?, StoreReaders.Lease) throws -> [UInt8]) async throws -> Response {
        let deadline = readers.newDeadline
        let token = try await token(for: request, until: deadline)
        let coding = ContentCoding.negotiate(request, contentType: contentType)
        var coded: Coded?
        if etag(token, variant, coding).map({ !Self.request(request, holds: $0) }) ?? true {
            coded = try await codedBody(coding, token: token, cachedAs: key, small: small, deadline: deadline, body)
        }
        // Without a body, the client holds the current ETag: a 304, whose body is never asked for.
        return try respond(request, contentType: contentType, variant: variant, coding: coding, token: token) { [coded] _ in coded ?? (ByteBuffer(), nil) }
    }

    /// The body for `token` in `coding`: the cache's coded one, else the cache's identity one
    /// coded now, else one read from the store (and coded on the reader's thread); what was made
    /// is kept under `key`, the coded body under the key and the coding's name.
    private func codedBody(_ coding: ContentCoding?, token: StoreVersion?, cachedAs key: String?, small: Bool, deadline: ContinuousClock.Instant,
                           _ body: @escaping @Sendable (StoreVersion?, StoreReaders.Lease) throws -> [UInt8]) async throws -> Coded {
        // A space never occurs in a request target, so a coded entry's key is no other request's.
        let codedKey = coding.flatMap { coding in key.map { $0 + " " + coding.rawValue } }
        if let codedKey, let coding, let hit = cache.body(for: codedKey, token: token) {
            metrics.cacheHits.increment()
            return (hit, coding)
        }
        var identity = key.flatMap { cache.body(for: $0, token: token) }
        var made: ByteBuffer?
        if key != nil { (identity == nil ? metrics.cacheMisses : metrics.cacheHits).increment() }
        if let identity {
            made = coding?.encode(identity)
        } else {
            metrics.storeQueries.increment()
            let read = try await readers.withLease(small: small, deadline: deadline) { lease in
                let identity = ByteBuffer(bytes: try body(token, lease))
                return (identity, coding?.encode(identity))
            }
            identity = kept(read.0, as: key, token: token)
            made = read.1
        }
        guard let made else { return (identity ?? ByteBuffer(), nil) }
        return (kept(made, as: codedKey, token: token), coding)
    }

    /// `"run-opening.device.inode-token-variant-coding"`: the store's version (which opening of
    /// which file, and its change token) with this run's id, the representation and the content
    /// coding the client asked for, so a gzip body and an identity one never share an ETag.
    private func etag(_ token: StoreVersion?, _ variant: String, _ coding: ContentCoding?) -> String? {
        token.map { "\"\(readers.runID)-\($0.tag)\(variant.isEmpty ? "" : "-" + variant)\(coding?.suffix ?? "")\"" }
    }

    /// Whether the request's `If-None-Match` names `etag` (or `*`).
    static func request(_ request: Request, holds etag: String) -> Bool {
        request.headers[.ifNoneMatch]?.split(separator: ",").contains {
            let tag = $0.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "*"
        } ?? false
    }

    /// The store version to answer `request` with: read now for a conditional request, whose 304
    /// must not hide a commit or a replaced file; else the last one read, while the token's reuse
    /// (``StoreReaders``) lasts. A read that outlasts the request's `deadline` answers 503, as its
    /// query would.
    ///
    /// - Throws: ``Problem`` 503 while the store's path holds no store, or when the read outlasts `deadline`.
    private func token(for request: Request, until deadline: ContinuousClock.Instant) async throws -> StoreVersion? {
        try await readers.tag(fresh: request.headers[.ifNoneMatch] != nil, until: deadline)
    }

    /// Whether `/` should answer the JSON landing page: `f=json`, or an Accept header that does not
    /// ask for HTML (GDAL's `application/json`, OWSLib's and curl's `*/*`, none); browsers, which
    /// ask for `text/html`, get the map.
    static func wantsJSON(_ request: Request) throws -> Bool {
        for (name, value) in try FeaturesAPI.parameters(request) {
            guard name == "f" else { throw Problem.badParameter(name, "unknown parameter '\(FeatureQuery.shown(name))'; the landing page takes f=json or f=html") }
            switch value {
            case "json": return true
            case "html": return false
            default: throw Problem.badParameter("f", "f '\(FeatureQuery.shown(value))' is not a format served here; use f=json or f=html")
            }
        }
        return !(request.headers[.accept] ?? "").contains("text/html")
    }

    static func checkCollection(_ context: BasicRequestContext) throws {
        let name = context.parameters.get("collectionId") ?? ""
        guard name == FeaturesAPI.collectionID else {
            throw Problem(.notFound, "no collection '\(FeatureQuery.shown(name))'; this server has one, \(FeaturesAPI.collectionID)")
        }
    }
}
