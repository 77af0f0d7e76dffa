import ArgumentParser
import Foundation
import ProcessRunner
import WellKit
import WellKitSynthetic
import WellsCLI
import WellsServer

extension Bench {
    /// `wells-bench serve`: `wells serve` under wrk on loopback, each API request beside a static
    /// file served by the same server in the same run, and the sizes of the clustered tiles.
    struct ServeSpeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Measure wells serve under wrk: items for city boxes, z11 tiles and a static file from the same server.",
            discussion: """
                Starts two `wells serve` (the wells built beside wells-bench) on free loopback ports, one with its cache \
                off (--cache-mb 0, so that every response is made anew) and one as users run it (its cache on), then runs \
                wrk against them in rounds, interleaving the targets: a static file (Leaflet's CSS, served from disk by the \
                server), `items` for city boxes (0.05°) around random wells, and z11 tiles under random wells, each target \
                cycling through --paths different URLs; `items` and tiles once from each server (the cached server has \
                answered each URL once before its runs). Reports requests/s and the p50 and p99 latency (medians over \
                rounds), at --connections and at one connection, and the largest clustered tile.

                Example:
                  wells-bench serve --db Data/wells.sqlite --connections 16 --duration 10 --rounds 3
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: "Open connections per wrk run.")
        var connections = 16

        @Option(help: ArgumentHelp("Seconds per wrk run.", valueName: "seconds"))
        var duration = 10

        @Option(help: "Rounds over all targets; medians are reported.")
        var rounds = 3

        @Option(help: "Different URLs each target cycles through.")
        var paths = 200

        @Option(help: "The seed of the random wells the boxes and tiles are centred on: the same seed and store give the same URLs, so that two builds' runs compare.")
        var seed: UInt64 = 1

        @Option(help: ArgumentHelp("The highest zoom whose tiles are all measured for the largest clustered tile.", valueName: "zoom"))
        var sizeZoom = 10

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        func validate() throws {
            try CountLimits.check("--connections", connections, in: 1...1_000)
            try CountLimits.check("--duration", duration, in: 1...3_600)
            try CountLimits.check("--rounds", rounds, in: 1...CountLimits.maximumRepeats)
            try CountLimits.check("--paths", paths, in: 1...100_000)
            try CountLimits.check("--size-zoom", sizeZoom, in: 0...12)
        }

        struct Row: Codable {
            var target: String
            var connections: Int
            var requestsPerSecond: Double
            var p50Milliseconds: Double
            var p99Milliseconds: Double
            var bytesPerResponse: Int
            var ratioToStatic: Double
        }

        struct Report: Codable {
            var store: String
            var wells: Int
            var rounds: Int
            var durationSeconds: Int
            var rows: [Row]
            var largestClusteredTile: String
            var largestClusteredTileBytes: Int
            var clusteredTilesMeasured: Int
        }

        func run() async throws {
            // Off Swift's cooperative pool: the benchmark waits for wrk's runs and the servers, whose runs need the pool's threads.
            try await offThePool { try measure() }
        }

        func measure() throws {
            guard Tools.which("wrk") != nil else { throw StoreError(.notFound, "wrk is not installed (apt install wrk)") }
            let wellStore = try store.open(.readOnly)
            let (extent, wells) = try wellStore.fetchExtent()
            guard wells > 0, let extent else { throw StoreError(.notFound, "the store holds no wells", path: store.path) }

            // Targets: city boxes and z11 tiles around random wells, and Leaflet's CSS. The wells come
            // from --seed: drawn anew each run, the pages' sizes changed from run to run, and two
            // builds' figures did not compare.
            var generator = SeededRandom(seed: seed)
            var boxes: [String] = [], tiles: [String] = []
            for _ in 0..<paths {
                let offset = Int.random(in: 0..<wells, using: &generator)
                guard let pin = try wellStore.fetchPins(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)], limit: 1, offset: offset)).first else { continue }
                boxes.append("/collections/wells/items?bbox=\(pin.longitude - 0.025),\(pin.latitude - 0.025),\(pin.longitude + 0.025),\(pin.latitude + 0.025)&limit=1000")
                let n = Double(1 << 11), lat = pin.latitude * .pi / 180
                tiles.append("/tiles/11/\(Int((pin.longitude + 180) / 360 * n))/\(Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)).mvt")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-bench-serve-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let server = try ServedProcess(store: store.path, arguments: ["--cache-mb", "0"])
            defer { server.stop() }
            let cached = try ServedProcess(store: store.path)
            defer { cached.stop() }
            // Every URL of the cached server's targets at least once, so that its runs measure the
            // cache: four connections of one wrk thread go through them in turn, 0.1 s a URL, longer
            // than a page of up to 1,000 wells with their fields takes (reading wrk's output fails on
            // any error response).
            let warm = directory.appendingPathComponent("warm.lua")
            try Self.script(boxes + tiles).write(to: warm, atomically: true, encoding: .utf8)
            let warming = try WrkResult(parsing: try Tools.runWaiting("wrk", ["-t", "1", "-c", "4", "-d", "\(2 + paths / 10)s", "--latency", "-s", warm.path, cached.url]).out)
            guard warming.requests >= Double(boxes.count + tiles.count) else {
                throw StoreError(.invalidArgument, "wells serve answered only \(Int(warming.requests)) of the \(boxes.count + tiles.count) URLs to cache")
            }
            let targets: [(name: String, paths: [String], url: String)] = [
                ("static file (leaflet.css)", ["/assets/leaflet/leaflet.css"], server.url),
                ("items, city box", boxes, server.url), ("items, city box, cached", boxes, cached.url),
                ("tile z11 (.mvt)", tiles, server.url), ("tile z11 (.mvt), cached", tiles, cached.url),
            ]

            var results: [String: [WrkResult]] = [:]
            for round in 1...rounds {
                for (name, list, url) in targets {
                    for c in Set([connections, 1]).sorted(by: >) {
                        let script = directory.appendingPathComponent("paths.lua")
                        try Self.script(list).write(to: script, atomically: true, encoding: .utf8)
                        let output = try Tools.runWaiting("wrk", ["-t", String(min(2, c)), "-c", String(c), "-d", "\(c == 1 ? max(1, duration / 2) : duration)s",
                                                                "--latency", "-s", script.path, url])
                        let result = try WrkResult(parsing: output.out)
                        results["\(name)|\(c)", default: []].append(result)
                        if format == .table { Terminal.error("round \(round): \(name), \(c) connection\(c == 1 ? "" : "s"): \(Int(result.requestsPerSecond)) req/s, p50 \(result.p50) ms, p99 \(result.p99) ms") }
                    }
                }
            }
            var rows: [Row] = []
            for c in Set([connections, 1]).sorted(by: >) {
                let reference = Statistics.median(results["\(targets[0].0)|\(c)"]!.map(\.requestsPerSecond))
                for (name, _, _) in targets {
                    let runs = results["\(name)|\(c)"]!
                    let rps = Statistics.median(runs.map(\.requestsPerSecond))
                    rows.append(Row(target: name, connections: c, requestsPerSecond: rps, p50Milliseconds: Statistics.median(runs.map(\.p50)),
                                    p99Milliseconds: Statistics.median(runs.map(\.p99)), bytesPerResponse: Int(Statistics.median(runs.map(\.bytesPerResponse))),
                                    ratioToStatic: rps / reference))
                }
            }

            // The largest clustered tile: every tile over the store's extent, zoom 0 to --size-zoom.
            var largest = (tile: "", bytes: 0), measured = 0
            for z in 0...sizeZoom {
                let nw = try TileID(z: z, x: 0, y: 0).pixel(latitude: extent.maxLatitude, longitude: extent.minLongitude, extent: 1)
                let se = try TileID(z: z, x: 0, y: 0).pixel(latitude: extent.minLatitude, longitude: extent.maxLongitude, extent: 1)
                let last = (1 << z) - 1
                for x in max(0, Int(nw.x))...min(last, Int(se.x)) {
                    for y in max(0, Int(nw.y))...min(last, Int(se.y)) {
                        let tile = try TileID(z: z, x: x, y: y)
                        let bytes = VectorTileEncoder.encode(try wellStore.tile(tile)).count
                        measured += 1
                        if bytes > largest.bytes { largest = ("\(tile)", bytes) }
                    }
                }
            }
            let report = Report(store: store.path, wells: wells, rounds: rounds, durationSeconds: duration, rows: rows,
                                largestClusteredTile: largest.tile, largestClusteredTileBytes: largest.bytes, clusteredTilesMeasured: measured)
            if format == .json {
                print(String(decoding: try JSONEncoder.pretty.encode(report), as: UTF8.self))
            } else {
                print("wells serve, \(wells) wells, wrk \(duration) s per run, medians of \(rounds) rounds (targets interleaved)")
                print("target                        conns     req/s   p50 ms   p99 ms   bytes   vs static")
                for row in rows {
                    print(row.target.padding(toLength: 28, withPad: " ", startingAt: 0)
                          + String(format: "  %5d  %8.0f  %7.3f  %7.3f  %6d  %8.2fx", row.connections, row.requestsPerSecond, row.p50Milliseconds,
                                   row.p99Milliseconds, row.bytesPerResponse, row.ratioToStatic))
                }
                print("largest clustered tile (z0–\(sizeZoom), \(measured) tiles): \(largest.tile), \(largest.bytes) bytes")
            }
        }

        /// A wrk script that cycles through `paths`.
        static func script(_ paths: [String]) -> String {
            "paths = {" + paths.map { "\"\($0)\"" }.joined(separator: ",") + "}\n"
                + "i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(\"GET\", paths[i])\nend\n"
        }
    }
}

/// wrk's summary: requests per second, the 50th and 99th percentile latency in milliseconds, bytes per response.
struct WrkResult {
    var requests: Double
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    var bytesPerResponse: Double

    init(parsing text: String) throws {
        func value(after label: String) -> String? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }?
                .split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }
        func milliseconds(_ text: String?) -> Double? {
            guard let text else { return nil }
            for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1_000.0)] where text.hasSuffix(unit) {
                return Double(text.dropLast(unit.count)).map { $0 * scale }
            }
            return nil
        }
        let requests = text.split(separator: "\n").first { $0.contains("requests in") }?.split(separator: " ").first.flatMap { Double($0) }
        // wrk's summary line: "N requests in SECONDSs, SIZE read", SIZE in B, KB, MB or GB.
        let transfer = text.split(separator: "\n").first { $0.contains("requests in") }?.split(separator: " ").dropLast().last.map(String.init)
        guard let rps = value(after: "Requests/sec:").flatMap(Double.init), let p50 = milliseconds(value(after: "50%")),
              let p99 = milliseconds(value(after: "99%")), let requests, requests > 0 else {
            throw StoreError(.invalidArgument, "cannot read wrk's output: \(text.prefix(400))")
        }
        let nonOK = text.contains("Non-2xx") ? " (wrk saw non-2xx responses)" : ""
        guard nonOK.isEmpty else { throw StoreError(.invalidArgument, "wrk saw error responses: \(text.prefix(600))") }
        self.requests = requests
        requestsPerSecond = rps
        self.p50 = p50
        self.p99 = p99
        var bytes = 0.0
        if let transfer {
            for (unit, scale) in [("KB", 1024.0), ("MB", 1_048_576.0), ("GB", 1_073_741_824.0), ("B", 1.0)] where transfer.hasSuffix(unit) {
                bytes = (Double(transfer.dropLast(unit.count)) ?? 0) * scale
                break
            }
        }
        bytesPerResponse = bytes / requests
    }
}

/// `wells serve` as a child process on a free loopback port, with `arguments` added.
final class ServedProcess {
    let process: RunningCommand
    let url: String

    init(store: String, arguments: [String] = []) throws {
        // No access log: a line per request is not what the figures measure.
        process = try Command(Tools.sibling("wells"), ["serve", "--db", store, "--port", "0", "--log-level", "warning"] + arguments).start()
        let text = try waitFor { [process] in await process.errorOutput(containing: "(Ctrl-C stops)") }
        guard text.contains("(Ctrl-C stops)") else { throw StoreError(.invalidArgument, "wells serve stopped: \(text)") }
        guard let range = text.range(of: #"http://[0-9.]+:[0-9]+/"#, options: .regularExpression) else {
            throw StoreError(.invalidArgument, "wells serve did not say its address: \(text)")
        }
        url = String(text[range])
    }

    /// SIGTERM, and waits for the server to exit.
    func stop() {
        process.send(SIGTERM)
        _ = try? process.waitUntilExit()
    }
}
