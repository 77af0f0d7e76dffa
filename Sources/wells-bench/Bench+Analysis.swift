import ArgumentParser
import Foundation
import WellKit
import WellKitSynthetic
import WellsCLI
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// `wells-bench analysis`: `wells count` beside GeoPandas and DuckDB, whole processes, and a
    /// query within a county against the same query in the county's box.
    struct AnalysisSpeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "analysis",
            abstract: "Measure wells count per county and per grid cell beside GeoPandas and DuckDB, and within-area queries beside boxes.",
            discussion: """
                Inputs: the 46,754 wells of Data/real/usgs-nwis-pa-gw-sites.tsv with the US counties of \
                Data/boundaries/us-counties-fips.geojson, and the 244,292 wells of `wells generate --seed 1`. Each list is \
                loaded once, untimed, into a WellKit store (wells load) and a DuckDB database (a table with a point per well \
                and an RTREE index, Benchmarks/Reference/peer_counts.py make).

                1. Wells per county, all 3,222 counties of the file (a spatial join), --rounds rounds, the tools taking turns:
                  wells count --db PA.sqlite --by-area COUNTIES:NAME --skip-empty --format csv
                  GeoPandas: read the TSV (pyarrow) and the counties (pyogrio), sjoin(predicate="intersects"), groupby(NAME).size()
                  DuckDB: its database, ST_Read of the counties, JOIN ON ST_Intersects, GROUP BY NAME
                2. Wells per 0.1° cell of the 244,292 synthetic wells: wells count --grid 0.1; GeoPandas: read the CSV, floor, \
                groupby; DuckDB: floor(ST_X/0.1), floor(ST_Y/0.1), GROUP BY.
                Wall time of each whole process (posix_spawn to wait4): medians, and ratios of the medians against wells. \
                Each answer is checked: the counts per county of wells and GeoPandas, the cell counts' totals.
                3. In process, for each Pennsylvania county holding wells: fetchPins within the county against fetchPins \
                of its bounding box, one warm-up pass then --passes passes; p50 of each and their ratio.

                Python: --python, a Python with Benchmarks/Reference/requirements.txt installed (geopandas, pyogrio, \
                pyarrow, duckdb 1.5.5 and its spatial extension from PyPI).

                Example:
                  python3 -m venv /tmp/peers && /tmp/peers/bin/pip install -r Benchmarks/Reference/requirements.txt
                  wells-bench analysis --python /tmp/peers/bin/python
                """)

        @Option(help: ArgumentHelp("A Python with the peers' packages (Benchmarks/Reference/requirements.txt).", valueName: "path"))
        var python = "python3"

        @Option(help: "Rounds of the whole-process comparisons.")
        var rounds = 5

        @Option(help: "Passes of the in-process within/box comparison.")
        var passes = 20

        @Option(help: "Output format: text or json.")
        var format: String = "text"

        func run() async throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let peer = root.appendingPathComponent("Benchmarks/Reference/peer_counts.py").path
            let counties = root.appendingPathComponent("Data/boundaries/us-counties-fips.geojson").path
            let pennsylvania = root.appendingPathComponent("Data/real/usgs-nwis-pa-gw-sites.tsv").path
            let wells = Tools.sibling("wells")
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellkit-analysis-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

            PostGISBenchmark.progress("loading the lists (untimed)")
            let synthetic = path("synthetic.csv")
            _ = try WellGenerator(count: 244_292, seed: 1).write(toFileAt: synthetic)
            for (source, store, duck, lat, lon) in [(pennsylvania, "pa.sqlite", "pa.duckdb", "dec_lat_va", "dec_long_va"),
                                                    (synthetic, "synthetic.sqlite", "synthetic.duckdb", "surface_latitude", "surface_longitude")] {
                _ = try await Tools.run(wells, ["load", source, "--db", path(store), "--quiet"])
                _ = try await Tools.run(python, [peer, "duckdb", "make", source, lat, lon, path(duck)])
            }

            struct Tool { var name: String; var program: String; var arguments: [String]; var seconds: [Double] = []; var output = "" }
            func race(_ tools: inout [Tool], label: String) throws {
                for round in 1...rounds {
                    PostGISBenchmark.progress("\(label): round \(round) of \(rounds)")
                    for k in tools.indices {
                        let run = try Tools.measure(tools[k].program, tools[k].arguments)
                        tools[k].seconds.append(run.seconds)
                        tools[k].output = run.text
                    }
                }
            }
            var areas = [Tool(name: "wells count --by-area", program: wells, arguments: ["count", "--db", path("pa.sqlite"), "--by-area", counties + ":NAME", "--skip-empty", "--format", "csv"]),
                         Tool(name: "GeoPandas sjoin", program: python, arguments: [peer, "geopandas", "areas", pennsylvania, "dec_lat_va", "dec_long_va", counties]),
                         Tool(name: "DuckDB spatial", program: python, arguments: [peer, "duckdb", "areas", path("pa.duckdb"), counties])]
            try race(&areas, label: "wells per county")
            var grid = [Tool(name: "wells count --grid", program: wells, arguments: ["count", "--db", path("synthetic.sqlite"), "--grid", "0.1", "--format", "csv"]),
                        Tool(name: "GeoPandas groupby", program: python, arguments: [peer, "geopandas", "grid", synthetic, "surface_latitude", "surface_longitude", "0.1"]),
                        Tool(name: "DuckDB spatial", program: python, arguments: [peer, "duckdb", "grid", path("synthetic.duckdb"), "0.1"])]
            try race(&grid, label: "wells per 0.1° cell")

            // The answers: counts per county by name (wells' CSV has a header; the peers' have none).
            func byName(_ text: String, header: Bool) -> [String: Int] {
                var result: [String: Int] = [:]
                for line in text.split(separator: "\n").dropFirst(header ? 1 : 0) {
                    guard let comma = line.lastIndex(of: ","), let count = Int(line[line.index(after: comma)...]) else { continue }
                    result[String(line[..<comma]).trimmingCharacters(in: CharacterSet(charactersIn: "\"")), default: 0] += count
                }
                return result
            }
            let ours = byName(areas[0].output, header: true), geopandas = byName(areas[1].output, header: false), duck = byName(areas[2].output, header: false)
            let differing = Set(ours.keys).union(geopandas.keys).filter { ours[$0] != geopandas[$0] }.sorted()
            func total(_ text: String, header: Bool) -> Int {
                var sum = 0
                for line in text.split(separator: "\n").dropFirst(header ? 1 : 0) {
                    if let last = line.split(separator: ",").last, let count = Int(last) { sum += count }
                }
                return sum
            }
            let cellTotals = [total(grid[0].output, header: true), total(grid[1].output, header: false), total(grid[2].output, header: false)]

            // Within a county against its box, in process.
            PostGISBenchmark.progress("within a county against its box: \(passes) passes")
            let store = try WellStore(path: path("pa.sqlite"), mode: .readOnly)
            let chosen = try Area.features(geoJSONAt: URL(fileURLWithPath: counties)).filter { $0.property("STATE") == .text("42") }
            var withinTimes: [Double] = [], boxTimes: [Double] = [], withinRows = 0, boxRows = 0
            let requests = try chosen.map { area -> (WellFetchRequest, WellFetchRequest) in
                let boxes = try area.boxes()
                let box = try BoundingBox(minLongitude: boxes.map(\.minLongitude).min()!, minLatitude: boxes.map(\.minLatitude).min()!,
                                          maxLongitude: boxes.map(\.maxLongitude).max()!, maxLatitude: boxes.map(\.maxLatitude).max()!)
                return (WellFetchRequest(within: area), WellFetchRequest(region: .box(box)))
            }
            for pass in 0...passes {
                for (within, box) in requests {
                    let a = ContinuousClock.now
                    let inside = try store.fetchPins(within).count
                    let b = ContinuousClock.now
                    let boxed = try store.fetchPins(box).count
                    let c = ContinuousClock.now
                    guard pass > 0 else { continue }
                    withinTimes.append((b - a).seconds); boxTimes.append((c - b).seconds)
                    withinRows += inside; boxRows += boxed
                }
            }

            let median = { (tool: Tool) in Statistics.median(tool.seconds) }
            if format == "json" {
                func tools(_ list: [Tool]) -> String {
                    "[" + list.map { #"{"name":"\#($0.name)","medianSeconds":\#(median($0)),"seconds":\#($0.seconds),"ratioToWells":\#(median($0) / median(list[0]))}"# }.joined(separator: ",") + "]"
                }
                print(#"{"rounds":\#(rounds),"perCounty":\#(tools(areas)),"countiesDiffering":\#(differing.count),"perCell":\#(tools(grid)),"cellTotals":\#(cellTotals),"# +
                      #""withinP50Ms":\#(Statistics.median(withinTimes) * 1000),"boxP50Ms":\#(Statistics.median(boxTimes) * 1000),"withinToBox":\#(Statistics.median(withinTimes) / Statistics.median(boxTimes)),"counties":\#(requests.count),"passes":\#(passes)}"#)
                return
            }
            func table(_ title: String, _ list: [Tool]) -> String {
                var rows = [["tool", "median", "least", "greatest", "÷ wells"]]
                for tool in list {
                    rows.append([tool.name, String(format: "%.3f s", median(tool)), String(format: "%.3f s", tool.seconds.min()!),
                                 String(format: "%.3f s", tool.seconds.max()!), String(format: "%.2f×", median(tool) / median(list[0]))])
                }
                return title + "\n" + BenchTables.grid(rows).joined(separator: "\n")
            }
            print(table("Wells per county: 46,754 Pennsylvania wells, 3,222 US counties, \(rounds) rounds, whole processes", areas))
            print("answers: \(ours.count) counties with wells; wells and GeoPandas differ in \(differing.count)\(differing.isEmpty ? "" : " (" + differing.prefix(5).joined(separator: ", ") + ")"); DuckDB in \(Set(ours.keys).union(duck.keys).filter { ours[$0] != duck[$0] }.count)")
            print()
            print(table("Wells per 0.1° cell: 244,292 synthetic wells, \(rounds) rounds, whole processes", grid))
            print("answers: cell totals \(cellTotals.map(String.init).joined(separator: " / ")) (wells / GeoPandas / DuckDB)")
            print()
            print(String(format: "Within a county against its box: %d Pennsylvania counties, %d passes; p50 %.3f ms within (%d rows a pass) against %.3f ms for the box (%d rows): %.2f×",
                         requests.count, passes, Statistics.median(withinTimes) * 1000, withinRows / passes, Statistics.median(boxTimes) * 1000, boxRows / passes,
                         Statistics.median(withinTimes) / Statistics.median(boxTimes)))
        }
    }
}
