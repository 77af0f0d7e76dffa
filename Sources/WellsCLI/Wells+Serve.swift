import ArgumentParser
import Foundation
import WellKit
#if Server
import WellsServer

extension Wells {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a store over HTTP: OGC API – Features, vector tiles and a map page.",
            discussion: """
                The store (a file or a postgresql:// URL) is opened read-only. The server binds to 127.0.0.1 unless --host says otherwise, \
                and runs until Ctrl-C. Endpoints (all described in /api, OpenAPI 3.0): / (the map for a browser; JSON for other clients \
                or with ?f=json), /conformance, /collections, \
                /collections/wells/items?bbox=…&limit=…&offset=…&sortby=…&properties=…&FIELD=VALUE&filter=…, /collections/wells/items/UWI, \
                /collections/wells/queryables, /collections/wells/ids?bbox=…&sortby=…, \
                /tiles/Z/X/Y.mvt and /tiles/Z/X/Y.geojson. A feature's id is its well's uwi, which wells optimize keeps; \
                its internal id is the property wellkit_id. Features carry every mapped field; properties= narrows them \
                (properties=name: pins alone, * adds the unmapped columns). filter= is CQL2 text (OGC API – Features Part 3): \
                comparisons, AND/OR/NOT, LIKE, BETWEEN, IN, IS NULL, CASEI/ACCENTI with LIKE, and \
                S_INTERSECTS(geometry, POLYGON/MULTIPOLYGON/BBOX/POINT) at the top level of the AND chain; \
                filter-lang=wells-where takes the language of --where instead. \
                Bad parameters answer 400 with an RFC 9457 problem document naming the parameter (and, for a filter, the character).

                Examples:
                  wells serve --db wells.sqlite
                  ogrinfo OAPIF:http://127.0.0.1:8080 wells
                  curl 'http://127.0.0.1:8080/collections/wells/items?bbox=-114.2,50.9,-113.9,51.2&limit=100'
                  curl -G http://127.0.0.1:8080/collections/wells/items --data-urlencode "filter=S_INTERSECTS(geometry, POLYGON((-85.6 36.2, -85.1 36.2, -85.1 36.6, -85.6 36.2))) AND type = 'Oil'"
                  curl http://127.0.0.1:8080/collections/wells/items/41-049-20001
                  curl -o t.mvt http://127.0.0.1:8080/tiles/11/372/700.mvt
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: "The address to listen on; 0.0.0.0 serves other machines too.")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on; 0 picks a free one.")
        var port = 8080

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

        @Option(help: ArgumentHelp("A shapefile of country outlines for the map's background (Natural Earth, from Debian's python3-geopandas).", valueName: "file.shp"))
        var basemap = ServerConfiguration.naturalEarthCountries

        @Option(name: .customLong("cache-mb"),
                help: ArgumentHelp("Megabytes of tiles and items pages kept as encoded until the store changes; 0 makes every response anew.", valueName: "MB"))
        var cacheMegabytes = 64

        @Option(name: .customLong("max-waiting"),
                help: ArgumentHelp("Requests of each kind (a box's page; a sort of the whole store, ids, tiles) that may wait for a connection; one more answers 503 with Retry-After.", valueName: "n"))
        var maximumWaiting = 256

        @Flag(name: .customLong("exit-with-stdin"), help: ArgumentHelp("Stop when standard input closes, so that a test harness's server dies with it.", visibility: .hidden))
        var exitWithStandardInput = false

        func validate() throws {
            guard (0...65_536).contains(cacheMegabytes) else { throw ValidationError("--cache-mb must be 0 to 65536, got '\(cacheMegabytes)'") }
            guard (1...1_000_000).contains(maximumWaiting) else { throw ValidationError("--max-waiting must be 1 to 1,000,000, got '\(maximumWaiting)'") }
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got '\(port)'") }
            guard (1...1_000_000).contains(maximumLimit) else { throw ValidationError("--max-limit must be 1 to 1,000,000, got '\(maximumLimit)'") }
            guard timeout.isFinite, timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout must be more than 0 and at most 3600 seconds, got '\(timeout)'") }
            guard (0...TileID.maximumZoom + 1).contains(clusterBelowZoom) else {
                throw ValidationError("--cluster-below-zoom must be 0 to \(TileID.maximumZoom + 1), got '\(clusterBelowZoom)'")
            }
        }

        func run() async throws {
            var configuration = ServerConfiguration(storePath: store.path)
            configuration.host = host
            configuration.port = port
            configuration.corsOrigins = corsOrigin.map { [$0] } ?? []
            configuration.maximumLimit = maximumLimit
            configuration.defaultLimit = min(configuration.defaultLimit, maximumLimit)
            configuration.requestTimeout = .milliseconds(Int64(timeout * 1_000))
            configuration.tileOptions.clusterBelowZoom = clusterBelowZoom
            configuration.leafletDirectory = leaflet
            configuration.basemapPath = basemap
            configuration.cacheBytes = cacheMegabytes << 20
            configuration.maximumWaiting = maximumWaiting
            let server = try WellsServer(configuration: configuration)
            if !FileManager.default.fileExists(atPath: leaflet + "/leaflet.js") {
                Terminal.error("wells serve: warning: no leaflet.js in \(leaflet); the map page needs it (apt install libjs-leaflet, or --leaflet DIR); the API works without it")
            }
            if let problem = server.basemapProblem {
                Terminal.error("wells serve: warning: the map has no country outlines: \(problem)")
            }
            let path = WellStore.displayName(of: store.path)
            if exitWithStandardInput {
                Thread.detachNewThread {
                    _ = FileHandle.standardInput.readDataToEndOfFile()
                    Foundation.exit(0)
                }
            }
            do {
                try await server.run { url in
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
