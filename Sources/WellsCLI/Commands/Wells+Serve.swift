import ArgumentParser
import Foundation
import WellKit
#if Server
import Logging
import WellsServer

extension Wells {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a store over HTTP: OGC API – Features, vector tiles and a map page.",
            discussion: """
                The store (a file or a postgresql:// URL) is opened read-only. The server binds to 127.0.0.1:8080 unless --bind \
                (or --host and --port) says otherwise; it has no authentication, so it warns when it listens on anything but loopback. \
                It runs until SIGTERM or Ctrl-C (SIGINT), then stops accepting, lets requests in flight finish within --shutdown-timeout \
                and exits 0. Endpoints (all described in /api, OpenAPI 3.0): / (the map for a browser; JSON for other clients \
                or with ?f=json), /conformance, /collections, \
                /collections/wells/items?bbox=…&limit=…&offset=…&sortby=…&properties=…&FIELD=VALUE&filter=…, /collections/wells/items/UWI, \
                /collections/wells/queryables, /collections/wells/ids?bbox=…&sortby=…, \
                /tiles/Z/X/Y.mvt and /tiles/Z/X/Y.geojson, /basemap/countries.geojson, /basemap/states.geojson and \
                /basemap/counties.geojson (the map's background: outlines with a label point each), /health, /ready and /metrics. \
                A feature's id is its well's uwi, which wells optimize keeps; \
                its internal id is the property wellkit_id. Features carry every mapped field; properties= narrows them \
                (properties=name: pins alone, * adds the unmapped columns). filter= is CQL2 text (OGC API – Features Part 3): \
                comparisons, AND/OR/NOT, LIKE, BETWEEN, IN, IS NULL, CASEI/ACCENTI with LIKE, and \
                S_INTERSECTS(geometry, POLYGON/MULTIPOLYGON/BBOX/POINT) at the top level of the AND chain; \
                filter-lang=wells-where takes the language of --where instead. \
                Bad parameters answer 400 with an RFC 9457 problem document naming the parameter (and, for a filter, the character).

                Operations: /health answers 200 while the process runs; /ready answers 200 when the store answers, else 503; \
                /metrics is Prometheus' text format (wells_http_requests_total{route,status}, wells_http_request_duration_seconds, \
                wells_cache_hits_total, wells_cache_misses_total, wells_store_queries_total, wells_unavailable_total, wells_http_requests_in_flight; \
                for a postgresql:// store its connection pools' use: wells_postgres_connections{state="open|leased"}, wells_postgres_leases_total, \
                wells_postgres_lease_waits_total). \
                JSON, GeoJSON and MVT bodies of 1 KB or more are gzipped (or deflated) when Accept-Encoding asks. \
                Every request writes one logfmt line to standard error at level info (method, path with its query, \
                passwords and tokens redacted, status, bytes, duration_ms, request_id, also sent as X-Request-Id); \
                --log-level warning or --quiet keeps only warnings and errors.

                Examples:
                  wells serve --db wells.sqlite
                  wells serve --db wells.sqlite --bind 0.0.0.0:8080 --log-level warning
                  ogrinfo OAPIF:http://127.0.0.1:8080 wells
                  curl 'http://127.0.0.1:8080/collections/wells/items?bbox=-114.2,50.9,-113.9,51.2&limit=100'
                  curl -G http://127.0.0.1:8080/collections/wells/items --data-urlencode "filter=S_INTERSECTS(geometry, POLYGON((-85.6 36.2, -85.1 36.2, -85.1 36.6, -85.6 36.2))) AND type = 'Oil'"
                  curl http://127.0.0.1:8080/collections/wells/items/41-049-20001
                  curl -o t.mvt http://127.0.0.1:8080/tiles/11/372/700.mvt
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("The address and port to listen on: 127.0.0.1:8080, 0.0.0.0:8080 (other machines too: the server has no authentication), [::1]:8080, or an address alone (port 8080 or --port).", valueName: "address[:port]"))
        var bind: String?

        @Option(help: "The address to listen on, as --bind without a port; 0.0.0.0 serves other machines too.")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on; 0 picks a free one.")
        var port = 8080

        @Option(name: .customLong("log-level"),
                help: ArgumentHelp("What standard error shows: trace, debug, info (one access-log line per request; the default), notice, warning, error or critical.", valueName: "level"))
        var logLevel: String = "info"

        @Flag(name: .shortAndLong, help: "No access log: --log-level warning.")
        var quiet = false

        @Option(name: .customLong("shutdown-timeout"),
                help: ArgumentHelp("Seconds that requests in flight have to finish after SIGTERM or Ctrl-C before they are cancelled.", valueName: "seconds"))
        var shutdownTimeout = 10.0

        @Option(name: .customLong("cors-origin"), help: ArgumentHelp("Lets pages from this origin (or * for any) call the API; CORS is off without it.", valueName: "origin"))
        var corsOrigin: String?

        @Option(name: .customLong("max-limit"), help: "The largest page of items; a larger limit answers 400.")
        var maximumLimit = 10_000

        @Option(help: ArgumentHelp("Seconds a request may run before its query is stopped and it answers 503 (on PostgreSQL also when the server stops answering; its statement_timeout stops the statement there).", valueName: "seconds"))
        var timeout = 10.0

        @Option(name: .customLong("cluster-below-zoom"), help: "Tiles below this zoom merge the wells of each grid cell into a cluster with a count.")
        var clusterBelowZoom = 13

        @Option(help: ArgumentHelp("Leaflet's folder, served to the map page (Debian's libjs-leaflet).", valueName: "dir"))
        var leaflet = "/usr/share/javascript/leaflet"

        @Option(help: ArgumentHelp("A shapefile of country outlines for the map's background, instead of the Natural Earth 1:50m countries built in (with the US states and counties).", valueName: "file.shp"))
        var basemap: String?

        @Option(name: .customLong("cache-mb"),
                help: ArgumentHelp("Megabytes of tiles and items pages kept as encoded until the store changes; 0 makes every response anew.", valueName: "MB"))
        var cacheMegabytes = 64

        @Option(name: .customLong("max-waiting"),
                help: ArgumentHelp("Requests of each kind (a box's page; a sort of the whole store, ids, tiles) that may wait for a connection; one more answers 503 with Retry-After.", valueName: "n"))
        var maximumWaiting = 256

        @Option(help: ArgumentHelp("The store's name in the server's documents and answers, instead of its file's name or its database's name.", valueName: "name"))
        var name: String?

        @Flag(name: .customLong("exit-with-stdin"), help: ArgumentHelp("Stop when standard input closes, so that a test harness's server dies with it.", visibility: .hidden))
        var exitWithStandardInput = false

        func validate() throws {
            _ = try address()
            guard Logger.Level(rawValue: logLevel) != nil else {
                throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(logLevel)'")
            }
            guard shutdownTimeout.isFinite, shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
                throw ValidationError("--shutdown-timeout must be 0 to 3600 seconds, got '\(shutdownTimeout)'")
            }
            guard (0...65_536).contains(cacheMegabytes) else { throw ValidationError("--cache-mb must be 0 to 65536, got '\(cacheMegabytes)'") }
            guard (1...1_000_000).contains(maximumWaiting) else { throw ValidationError("--max-waiting must be 1 to 1,000,000, got '\(maximumWaiting)'") }
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got '\(port)'") }
            guard (1...1_000_000).contains(maximumLimit) else { throw ValidationError("--max-limit must be 1 to 1,000,000, got '\(maximumLimit)'") }
            guard timeout.isFinite, timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds, got '\(timeout)'") }
            if let name, name.isEmpty || name.count > 200 || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ValidationError("--name must be 1 to 200 characters with no control characters, got \(SafeText.quoted(name))")
            }
            guard (0...TileID.maximumZoom + 1).contains(clusterBelowZoom) else {
                throw ValidationError("--cluster-below-zoom must be 0 to \(TileID.maximumZoom + 1), got '\(clusterBelowZoom)'")
            }
        }

        /// The host and port to listen on: --bind's, its port defaulting to --port, or --host and --port.
        func address() throws -> (host: String, port: Int) {
            guard let bind else { return (host, port) }
            let usage = "--bind takes ADDRESS or ADDRESS:PORT (an IPv6 address in brackets: [::1]:8080), got '\(bind)'"
            var host = Substring(bind), port = self.port
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else { throw ValidationError(usage) }
                let rest = host[host.index(after: close)...]
                host = host[host.index(after: host.startIndex)..<close]
                if !rest.isEmpty {
                    guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { throw ValidationError(usage) }
                    port = number
                }
            } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
                guard let number = Int(host[host.index(after: colon)...]) else { throw ValidationError(usage) }
                port = number
                host = host[..<colon]
            }
            guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "@" }) else { throw ValidationError(usage) }
            guard (0...65_535).contains(port) else { throw ValidationError("--bind's port must be 0 to 65535, got '\(port)'") }
            return (String(host), port)
        }

        func run() async throws {
            let (host, port) = try address()
            var configuration = ServerConfiguration(storePath: store.path)
            configuration.host = host
            configuration.port = port
            configuration.shutdownTimeout = .milliseconds(Int64(shutdownTimeout * 1_000))
            configuration.corsOrigins = corsOrigin.map { [$0] } ?? []
            configuration.maximumLimit = maximumLimit
            configuration.defaultLimit = min(configuration.defaultLimit, maximumLimit)
            configuration.requestTimeout = .milliseconds(Int64(timeout * 1_000))
            configuration.tileOptions.clusterBelowZoom = clusterBelowZoom
            configuration.leafletDirectory = leaflet
            configuration.basemapPath = basemap
            configuration.cacheBytes = cacheMegabytes << 20
            configuration.maximumWaiting = maximumWaiting
            configuration.name = name
            let server = try WellsServer(configuration: configuration)
            if !FileManager.default.fileExists(atPath: leaflet + "/leaflet.js") {
                Terminal.error("wells serve: warning: no leaflet.js in \(leaflet); the map page needs it (apt install libjs-leaflet, or --leaflet DIR); the API works without it")
            }
            if let problem = server.basemapProblem {
                Terminal.error("wells serve: warning: the map has no country outlines: \(problem)")
            }
            if !ServerConfiguration.isLoopback(host) {
                Terminal.error("wells serve: warning: listening on \(host), not only loopback: the server has no authentication, "
                    + "so anyone who can reach this address can read the store; put a proxy with authentication in front, or --bind 127.0.0.1")
            }
            var logger = Logger(label: "wells serve") { AccessLog(label: $0) }
            logger.logLevel = quiet ? .warning : Logger.Level(rawValue: logLevel) ?? .info
            let path = WellStore.displayName(of: store.path)
            if exitWithStandardInput {
                Thread.detachNewThread {
                    _ = FileHandle.standardInput.readDataToEndOfFile()
                    Foundation.exit(0)
                }
            }
            do {
                try await server.run(logger: logger) { url in
                    Terminal.error("wells serve: serving \(path) at \(url) (Ctrl-C stops)")
                }
            } catch where "\(error)".contains("Address already in use") {
                Terminal.error("wells: error: cannot listen on \(host):\(port): the address is in use; choose another --port")
                throw ExitCode(75)
            }
        }
    }
}
#else
extension Wells {
    /// `wells serve` in a build without the server (the `Server` trait off, as the README's main job
    /// builds): says so and how to get it, with exit 69 (sysexits' EX_UNAVAILABLE).
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a store over HTTP (not in this build: build wells with the Server trait).")

        @Argument(parsing: .allUnrecognized) var arguments: [String] = []

        func run() throws {
            Terminal.error("wells: error: this wells was built without the server; build it with `swift build -c release` "
                + "(the Server trait is on by default) or `--traits Server`")
            throw ExitCode(69)
        }
    }
}
#endif
