import ArgumentParser
import Foundation
import ProcessRunner
import WellKit
import WellKitSynthetic
import WellsCLI

extension Bench {
    struct BBox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bbox",
            abstract: "Time bounding-box fetches from street to province size: p50, p99 and rows per query.",
            discussion: """
                Viewports come from --queries (lines of label minLon minLat maxLon maxLat, one viewport a line) \
                or are centred on random wells. With --reference-query (Benchmarks/Reference/bbox_query.c built with gcc) the plain \
                C R*Tree query runs on the same store and viewports, and its p50 is shown beside ours.
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Viewport sizes in degrees, comma-separated.", valueName: "list"))
        var sizes = "0.005,0.05,0.5,5"

        @Option(name: .customLong("per-size"), help: "Viewports per size.")
        var perSize = 200

        @Option(help: "A file of viewports to use instead of generated ones.")
        var queries: String?

        @Option(help: "Timed passes over all viewports, after a warm-up pass.")
        var passes = 3

        @Option(name: .customLong("reference-query"), help: "A build of Benchmarks/Reference/bbox_query.c to run on the same store and viewports.")
        var referenceQuery: String?

        @Option(help: ArgumentHelp(
            "Also time this many whole `wells bbox` processes, start-up included, on the smallest viewports, in turn with `ogrinfo -spat` when GDAL is installed and with the `sqlite3` shell running the same R*Tree join when it is.",
            valueName: "n"))
        var processes = 0

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        /// The viewport sizes, each a finite number of degrees from 0 (exclusive) to 360.
        func sizeList() throws -> [Double] {
            try sizes.split(separator: ",", omittingEmptySubsequences: false).map { part in
                let text = part.trimmingCharacters(in: .whitespaces)
                guard let size = Double(text), size.isFinite, size > 0, size <= 360 else {
                    throw ValidationError("--sizes must be degrees greater than 0 and at most 360, comma-separated; \(SafeText.quoted(text)) is not")
                }
                return size
            }
        }

        func validate() throws {
            _ = try sizeList()
            try CountLimits.check("--per-size", perSize, in: 1...CountLimits.maximumCount / 1_000)
            try CountLimits.check("--passes", passes, in: 1...CountLimits.maximumRepeats)
            try CountLimits.check("--processes", processes, in: 0...CountLimits.maximumRepeats * 100)
        }

        func run() async throws {
            if let queries, !FileManager.default.isReadableFile(atPath: queries) {
                throw StoreError(.notFound, "--queries \(SafeText.quoted(queries)): no readable file there")
            }
            let wellStore = try store.open(.existing)
            let viewports = try queries.map { try BBoxBenchmark.viewports(file: $0) }
                ?? BBoxBenchmark.viewports(store: wellStore, sizes: try sizeList(), perSize: perSize, seed: 1)
            let results = try BBoxBenchmark.run(store: wellStore, viewports: viewports, passes: passes)
            var references: [(name: String, label: String, p50: Double, p99: Double)] = []
            // The programs' runs wait for them: off Swift's cooperative pool, whose threads their runs need.
            if let referenceQuery {
                references = try await offThePool { try Self.limitQuery(referenceQuery, store: store.path, viewports: viewports, passes: passes) }
            }
            var whole: [(name: String, label: String, p50: Double, p99: Double)] = []
            if processes > 0, let smallest = results.first?.label {
                whole = try await offThePool { try Self.processes(store: store.path, viewports: viewports.filter { $0.label == smallest }, count: processes) }
            }
            if format == .json {
                struct Reference: Encodable { var name: String; var label: String; var p50_us: Double; var p99_us: Double }
                struct Output: Encodable { var wellkit: [BBoxBenchmark.Result]; var references: [Reference]; var processes: [Reference] }
                func encoded(_ rows: [(name: String, label: String, p50: Double, p99: Double)]) -> [Reference] {
                    rows.map { Reference(name: $0.name, label: $0.label, p50_us: $0.p50, p99_us: $0.p99) }
                }
                let output = Output(wellkit: results, references: encoded(references), processes: encoded(whole))
                print(String(decoding: try JSONEncoder.pretty.encode(output), as: UTF8.self))
            } else {
                print("Bounding-box fetches of WellPin from \(SafeText.escaped(store.path)): median over \(passes) passes of each statistic")
                print(BenchTables.bbox(results, references: references))
                if let ours = whole.first {
                    print("\nWhole processes, start-up included, \(processes) runs on \(ours.label) viewports:")
                    print(BenchTables.grid([["program", "p50 ms", "p99 ms", "× wells"]] + whole.map {
                        [$0.name, String(format: "%.2f", $0.p50 / 1000), String(format: "%.2f", $0.p99 / 1000), String(format: "%.2f", $0.p50 / ours.p50)]
                    }).joined(separator: "\n"))
                }
            }
        }

        /// Times `count` whole processes of `wells bbox`, and in turn of `ogrinfo -spat` and `sqlite3` when they are installed, over `viewports`.
        ///
        /// The result rows are per process, start-up included, in microseconds, labelled with the viewports' label.
        static func processes(store: String, viewports: [BBoxBenchmark.Viewport], count: Int) throws
            -> [(name: String, label: String, p50: Double, p99: Double)]
        {
            guard let label = viewports.first?.label else { return [] }
            // The `wells` built beside this `wells-bench`: the shipped binary, without the counting malloc.
            let wells = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("wells").path
            var tools: [(name: String, arguments: (BoundingBox) -> [String], program: String)] = [
                ("wells bbox process", { ["bbox", "\($0.minLongitude),\($0.minLatitude),\($0.maxLongitude),\($0.maxLatitude)", "--db", store, "--format", "csv"] }, wells),
            ]
            if Tools.which("ogrinfo") != nil {
                tools.append(("ogrinfo -spat process", { ["-ro", "-q", "-spat", "\($0.minLongitude)", "\($0.minLatitude)", "\($0.maxLongitude)", "\($0.maxLatitude)", store, "pins"] }, "ogrinfo"))
            }
            // The floor of a whole process: the sqlite3 shell running the R*Tree join `wells bbox` runs, as CSV.
            if Tools.which("sqlite3") != nil {
                tools.append(("sqlite3 process", { box in
                    // The shell binds ?1…?4 with -cmd '.parameter set', as the C reference binds them.
                    ["-csv", "-header"] + zip(1..., [box.minLongitude, box.minLatitude, box.maxLongitude, box.maxLatitude])
                        .flatMap { ["-cmd", ".parameter set ?\($0) \($1)"] } + [store, rtreeJoin]
                }, "sqlite3"))
            }
            for tool in tools {
                for viewport in viewports.prefix(3) { try Tools.runWaiting(tool.program, tool.arguments(viewport.box)) }  // warm-up
            }
            // The tools take turns, so that a machine that slows down or speeds up weighs on each alike.
            var micros = [[Double]](repeating: [], count: tools.count)
            for k in 0..<count {
                for (t, tool) in tools.enumerated() {
                    micros[t].append(try Tools.runWaiting(tool.program, tool.arguments(viewports[k % viewports.count].box)).seconds * 1e6)
                }
            }
            return zip(tools, micros).map { tool, micros in
                (tool.name, label, Statistics.median(micros), Statistics.percentile(micros, 0.99))
            }
        }

        /// The R*Tree join WellKit issues for a box of pins, ?1…?4 the box's minLon, minLat, maxLon, maxLat:
        /// what the C reference and the `sqlite3` shell run beside it.
        static let rtreeJoin = """
            SELECT p.id, p.name, p.lat, p.lon FROM idx_pins_geom r JOIN pins p ON p.id = r.pkid \
            WHERE r.xmin <= ?3 AND r.xmax >= ?1 AND r.ymin <= ?4 AND r.ymax >= ?2 \
            AND p.lon BETWEEN ?1 AND ?3 AND p.lat BETWEEN ?2 AND ?4
            """

        /// Runs the C reference (bbox_query.c) with the same R*Tree join WellKit issues, and reads its JSON lines.
        static func limitQuery(_ binary: String, store: String, viewports: [BBoxBenchmark.Viewport], passes: Int) throws
            -> [(name: String, label: String, p50: Double, p99: Double)]
        {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("wells-viewports-\(getpid()).tsv").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try viewports.map { "\($0.label) \($0.box.minLongitude) \($0.box.minLatitude) \($0.box.maxLongitude) \($0.box.maxLatitude)" }
                .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let output = try Tools.runWaiting(binary, ["--passes", "\(passes)", "--name", "c_rtree", store, file, rtreeJoin]).out
            return output.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      let label = object["label"] as? String, let p50 = object["p50_us"] as? Double else { return nil }
                return ("C R*Tree", label, p50, object["p99_us"] as? Double ?? 0)
            }
        }
    }

    struct LoadSpeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load",
            abstract: "Time wells load on a file, beside sqlite3 .import, ogr2ogr and the C reference loader when available.",
            discussion: """
                Each tool loads the same file into a new file; the tools take turns, --repeat rounds, and medians are \
                reported with rows per second and wells' time divided by each tool's: of the medians, and the median \
                of the per-round ratios. sqlite3 and ogr2ogr run when they are on PATH; the C reference loader \
                (limit_load.c) runs when --reference-load names it, with Hilbert order, a packed R*Tree and a unique \
                identifier index, once in WAL mode and once with a rollback journal, the journal wells uses for a \
                first load. --reference-same-schema names a build of Benchmarks/Reference/limit_load_wellkit.c, the \
                same loader writing WellKit's own, wider schema (geometry blobs, the unmapped columns as JSON) with a \
                rollback journal and synchronous=FULL like a first wells load: the SQLite work of wells load, at C \
                speed, without validation. --reference-geopandas names Benchmarks/Reference/peer_geopandas.py, \
                run by --python: geopandas with pyogrio and Arrow writing a GeoPackage, the fastest peer.
                """)

        @Option(help: "The well list to load (default: a generated synthetic file).")
        var file: String?

        @Option(help: "Rows to generate when no file is given.")
        var count = 244_292

        @Option(name: .customLong("repeat"), help: "Runs per tool; medians are reported.")
        var repeats = 3

        @Option(name: .customLong("reference-load"), help: "The limit_load binary (the C reference loader) to run beside wells.")
        var referenceLoad: String?

        @Option(name: .customLong("reference-same-schema"), help: "A build of Benchmarks/Reference/limit_load_wellkit.c to run beside wells.")
        var sameSchemaLoad: String?

        @Option(name: .customLong("reference-geopandas"),
                help: "Benchmarks/Reference/peer_geopandas.py, to run the geopandas + pyogrio + Arrow peer beside wells.")
        var geopandasScript: String?

        @Option(help: "The Python that runs --reference-geopandas, with geopandas, pyogrio and pyarrow installed.")
        var python = "python3"

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        func validate() throws {
            try CountLimits.check("--count", count, in: 1...CountLimits.maximumCount)
            try CountLimits.check("--repeat", repeats, in: 1...CountLimits.maximumRepeats)
        }

        func run() async throws {
            // Off Swift's cooperative pool: the race waits for each tool's process, and their runs need the pool's threads.
            let race = LoadRace(file: file, count: count, repeats: repeats, referenceLoad: referenceLoad, sameSchemaLoad: sameSchemaLoad,
                                geopandasScript: geopandasScript, python: python)
            let report = try await offThePool { try race.run() }
            if format == .json {
                print(String(decoding: try JSONEncoder.pretty.encode(report), as: UTF8.self))
            } else {
                print("Load of \(report.file) (\(report.rows) rows, \(report.bytes / 1_048_576) MB), median of \(repeats) runs:")
                let rows = [["tool", "median", "rows/s", "wells ÷ tool", "per round"]] + report.tools.map {
                    [$0.name, String(format: "%.2f s", $0.medianSeconds), String(format: "%.0f", Double(report.rows) / $0.medianSeconds),
                     String(format: "%.2f", report.tools[0].medianSeconds / $0.medianSeconds), String(format: "%.2f", $0.wellsRatio)]
                }
                print(BenchTables.grid(rows).joined(separator: "\n"))
            }
        }
    }
}
