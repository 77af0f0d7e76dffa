import ArgumentParser
import Foundation
import Synchronization
import WellKit
import WellKitSynthetic
import WellsCLI
#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// `wells-bench postgis`: the PostgreSQL/PostGIS engine beside ogr2ogr, a hand-written psql load,
    /// pgbench on the SQL WellKit sends, and the file engine, in one run.
    struct PostGISSpeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "postgis",
            abstract: "Measure the PostgreSQL/PostGIS engine: loads beside ogr2ogr, psql and the file engine; queries beside pgbench.",
            discussion: """
                Starts a throwaway cluster (Tests/Support/pg-cluster.sh start, in a temporary folder; stopped and removed \
                at the end, also when interrupted) unless --server names one; every load goes into a fresh database made \
                with CREATE DATABASE … TEMPLATE wellkit_template (PostGIS and unaccent installed). The input is --csv, or, \
                without it, the 244,292 wells of `wells generate --seed 1`, written into the temporary folder (a few seconds).

                1. Loads, --rounds rounds, the tools taking turns in each round; the median, least and greatest wall time \
                (posix_spawn to wait4, the whole process) of each:
                  wells load CSV --db postgresql://…/fresh    (the wells built beside wells-bench)
                  psql reference: one `psql -v ON_ERROR_STOP=1 -f` run of one transaction doing the SQL work of a first \
                WellKit load: CREATE TABLE pins, details (the column list and types read from a database WellKit loaded) \
                and a one-row loads; \\copy of two tab-separated files (pins: id 1..n, name, lat, lon; details: pin_id, uwi, \
                the mapped columns, the unmapped ones as jsonb extra), split from the CSV by Python before the first \
                round, untimed; then, as WellKit's first load does, the primary keys (declared after the copy, a sorted build), \
                the two foreign keys, USING gist(geom) and the unique index on details(uwi), and ANALYZE (extra's statistics \
                target 0, as WellKit's schema sets it).
                  psql reference on two connections: the same statements, pins (copy, primary key, GiST) on one \
                connection and details (copy, primary key, uwi index) on another at once, each committed, then the \
                foreign keys, then ANALYZE of the two at once. Not atomic, so not a way to load; it shows how far a load \
                on two connections could go on this machine ("ogr2ogr ÷ psql on two connections").
                  ogr2ogr -f PostgreSQL PG:… CSV -nln wells_ogr -oo X/Y_POSSIBLE_NAMES=<lon/lat columns> -a_srs EPSG:4326 \
                --config PG_USE_COPY YES -lco GEOMETRY_NAME=geom -lco SPATIAL_INDEX=GIST (one table, its GiST index)
                  wells load CSV --db FILE.sqlite    (the file engine, for context)
                After each load the rows are counted (pins and details, wells_ogr, the file's wells) against the records \
                wells read less those it rejected; a mismatch is reported under "problems". Client peak RSS: ru_maxrss of the loading process from wait4 (not the \
                server's; as in `scale`, never below wells-bench's own resident set). Size: the database's bytes \
                beyond the empty template's (pg_database_size), or the store file's. Ratios: of the medians, and the \
                median of the per-round ratios.

                2. Latency, on the database of the last round's WellKit load (after a VACUUM of pins and details, what \
                autovacuum would do next, so that none runs while timing), for 200 city boxes (0.05°) centred on \
                wells of the list (seed 1; or the city_ lines of --queries) and points at their centres: WellKit in-process (WellStore(path: url, mode: \
                .readOnly)) times fetchPins of each box, fetchNearest(to:count: 10) and fetchPins of a 5 km radius, one \
                warm-up pass then --passes passes; p50, p99 and mean over every timed call. Beside them, pgbench \
                (one client, --pgbench-seconds each) runs the SQL WellKit sent for the same queries, captured with \
                WellStore's trace: one statement text per kind, its bound values picked per transaction by \
                `\\set i random(0, n-1)` and CASEs nested as a binary search over the queries' values (a few µs in the \
                client), so each transaction is that one statement. \
                Reported: pgbench -r's average latency of the statement, and p50 and p99 of its per-transaction log (-l). \
                Modes: -M prepared (parsed once) and -M extended (parsed each time, as postgres-nio sends an unnamed \
                statement). fetchNearest may send more than one statement (it widens a radius from 1 km until 10 wells \
                lie within it): SQL/call says how many, and pgbench replays each statement sent. The textbook \
                nearest-neighbour form, ORDER BY p.geom <-> point LIMIT 10 (planar order on the GiST index, with the \
                geodesic distance selected), is a second reference for nearest.

                3. Throughput for 1, 2, 4 and 8 clients (--clients), city boxes: WellKit with one thread per client, all \
                sharing one read-only WellStore (its pool lends each a connection), queries/s over --throughput-seconds; and pgbench -c N \
                -j N -M prepared on WellKit's box SQL, tps.

                4. The library's floor: postgres-nio alone (a PostgresClient, no WellKit) sends the box statement, \
                each row decoded to id, name, lat, lon, unnamed (client.query) and as a PostgresPreparedStatement \
                (client.execute): p50 and p99 over a warm-up pass then --passes passes, and queries/s from each count \
                of --clients tasks. Builds without the PostgreSQL trait leave it out.

                Examples:
                  wells-bench postgis --csv /tmp/wells.csv
                  wells-bench postgis --csv /tmp/wells.csv --rounds 5 --format json
                  wells-bench postgis --csv /tmp/wells.csv --server postgresql://wells@127.0.0.1:5432/wells
                """)

        @Option(help: ArgumentHelp("The well list to load (default: the 244,292 wells of wells generate --seed 1, written into the temporary folder).",
                                   valueName: "path"))
        var csv: String?

        @Option(help: ArgumentHelp("A PostgreSQL server to use instead of a throwaway cluster: a URL of a database on it, as a user that may CREATE DATABASE.",
                                   valueName: "url"))
        var server: String?

        @Option(help: ArgumentHelp("The template of the fresh databases, with PostGIS installed.", valueName: "name"))
        var template = "wellkit_template"

        @Option(help: "Load rounds, the tools taking turns; medians are reported.")
        var rounds = 3

        @Option(help: "Timed passes over the queries in-process, after a warm-up pass.")
        var passes = 3

        @Option(help: ArgumentHelp("Seconds of each pgbench latency run.", valueName: "seconds"))
        var pgbenchSeconds = 5

        @Option(help: ArgumentHelp("Seconds of each throughput run, WellKit's and pgbench's.", valueName: "seconds"))
        var throughputSeconds = 5

        @Option(help: ArgumentHelp("Client counts of the throughput runs, comma-separated.", valueName: "list"))
        var clients = "1,2,4,8"

        @Option(help: ArgumentHelp("A file of viewports (label minLon minLat maxLon maxLat); the city_ ones are used (default: 200 city boxes centred on wells of the CSV, seed 1).",
                                   valueName: "path"))
        var queries: String?

        @Option(name: .customLong("cluster-script"), help: ArgumentHelp("pg-cluster.sh, which starts the throwaway cluster.", valueName: "path"))
        var clusterScript = "Tests/Support/pg-cluster.sh"

        @Option(help: "The Python that runs the CSV split for psql's COPY.")
        var python = "python3"

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        func clientList() throws -> [Int] {
            try clients.split(separator: ",", omittingEmptySubsequences: false).map { part in
                let text = part.trimmingCharacters(in: .whitespaces)
                guard let count = Int(text), (1...256).contains(count) else {
                    throw ValidationError("--clients must be numbers from 1 to 256, comma-separated; \(SafeText.quoted(text)) is not")
                }
                return count
            }
        }

        func validate() throws {
            try CountLimits.check("--rounds", rounds, in: 1...CountLimits.maximumRepeats)
            try CountLimits.check("--passes", passes, in: 1...CountLimits.maximumRepeats)
            try CountLimits.check("--pgbench-seconds", pgbenchSeconds, in: 1...3_600)
            try CountLimits.check("--throughput-seconds", throughputSeconds, in: 1...3_600)
            _ = try clientList()
            if let server, !server.hasPrefix("postgresql://"), !server.hasPrefix("postgres://") {
                throw ValidationError("--server must be a postgresql:// URL")
            }
        }

        func run() async throws {
            for tool in ["psql", "pgbench", "ogr2ogr", python] where Subprocess.which(tool) == nil {
                throw StoreError(.notFound, "\(tool) is not installed or not on PATH")
            }
            let wells = Subprocess.sibling("wells")
            guard FileManager.default.isExecutableFile(atPath: wells) else {
                throw StoreError(.notFound, "no wells executable beside wells-bench at \(wells)")
            }
            if let csv, !FileManager.default.isReadableFile(atPath: csv) {
                throw StoreError(.notFound, "--csv \(SafeText.quoted(csv)): no readable file there")
            }
            if let queries, !FileManager.default.isReadableFile(atPath: queries) {
                throw StoreError(.notFound, "--queries \(SafeText.quoted(queries)): no readable file there")
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-bench-postgis-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Readable by the server's user (the cluster runs as wellkit-pg when we are root) is not needed:
            // psql reads the \copy files itself. The cluster gets its own folder under /tmp (short socket paths).
            let postgres: BenchPostgres
            if let server {
                postgres = try BenchPostgres(server: server)
            } else {
                guard FileManager.default.isReadableFile(atPath: clusterScript) else {
                    throw StoreError(.notFound, "--cluster-script \(SafeText.quoted(clusterScript)): no pg-cluster.sh there; run from the package folder or give its path")
                }
                PostGISBenchmark.progress("starting a throwaway PostgreSQL cluster")
                postgres = try BenchPostgres(clusterScript: clusterScript, directory: "/tmp/wells-bench-pg-\(getpid())")
            }
            let interruptions = ScaleBenchmark.onInterrupt {
                postgres.tearDown()
                try? FileManager.default.removeItem(at: directory)
            }
            defer {
                for source in interruptions { source.cancel() }
                postgres.tearDown()
                try? FileManager.default.removeItem(at: directory)
            }

            var input = csv ?? directory.appendingPathComponent("wells.csv").path
            if csv == nil {
                PostGISBenchmark.progress("generating 244,292 wells (wells generate, seed 1) into \(input)")
                _ = try WellGenerator(count: 244_292, seed: 1).write(toFileAt: input)
            }
            input = URL(fileURLWithPath: input).standardizedFileURL.path
            var boxes: [BoundingBox]
            if let queries {
                boxes = try BBoxBenchmark.viewports(file: URL(fileURLWithPath: queries).standardizedFileURL.path)
                    .filter { $0.label.hasPrefix("city") }.map(\.box)
            } else {
                // 200 city boxes (0.05°) centred on wells of the CSV, as `wells-bench bbox` draws them.
                let sample = directory.appendingPathComponent("viewports.sqlite").path
                _ = try Subprocess.capture(wells, ["load", input, "--db", sample, "--quiet"])
                boxes = try BBoxBenchmark.viewports(store: try WellStore(path: sample, mode: .readOnly), sizes: [0.05], perSize: 200, seed: 1).map(\.box)
                try? FileManager.default.removeItem(atPath: sample)
            }
            guard !boxes.isEmpty else { throw StoreError(.invalidArgument, "\(queries ?? input) has no city_ viewports") }

            let benchmark = PostGISBenchmark(postgres: postgres, template: template, wells: wells, csv: input, directory: directory,
                                             python: python, rounds: rounds, passes: passes, pgbenchSeconds: pgbenchSeconds,
                                             throughputSeconds: throughputSeconds, clients: try clientList(), boxes: boxes,
                                             queryFile: queries.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
            let report = try await benchmark.run()
            if format == .json {
                print(String(decoding: try JSONEncoder.pretty.encode(report), as: UTF8.self))
            } else {
                print(PostGISBenchmark.table(report))
            }
        }
    }
}

// MARK: - The benchmark

struct PostGISBenchmark {
    let postgres: BenchPostgres
    let template: String
    let wells: String
    let csv: String
    let directory: URL
    let python: String
    let rounds: Int
    let passes: Int
    let pgbenchSeconds: Int
    let throughputSeconds: Int
    let clients: [Int]
    let boxes: [BoundingBox]
    /// The viewport file, when given (nil: city boxes centred on wells of the CSV).
    let queryFile: String?

    static let radiusMeters = 5_000.0
    static let nearestCount = 10

    struct LoadTool: Codable {
        var name: String
        var command: String
        var seconds: [Double]
        var medianSeconds: Double
        var minSeconds: Double
        var maxSeconds: Double
        /// Rows counted after each round's load (pins; wells_ogr; the file's wells).
        var rows: [Int]
        var peakRSSBytes: Int
        /// The last round's database bytes beyond the empty template's, or the store file's bytes.
        var bytes: Int
    }

    struct Ratio: Codable {
        var name: String
        var ofMedians: Double
        var medianPerRound: Double
    }

    struct PgbenchRun: Codable {
        var name: String
        var mode: String
        var clients: Int
        var seconds: Int
        var transactions: Int
        var tps: Double
        /// pgbench -r: the statement's average latency.
        var statementAverageMs: Double?
        /// From the per-transaction log (-l): each transaction is the one statement (and the client-side \set).
        var p50Ms: Double?
        var p99Ms: Double?
        var meanMs: Double?
    }

    struct Latency: Codable {
        var query: String
        var calls: Int
        var rowsP50: Double
        var rowsMin: Int
        var rowsMax: Int
        /// Statements WellKit sent per call (fetchNearest widens its radius until it has k wells).
        var statementsPerCall: Double
        var p50Ms: Double
        var p99Ms: Double
        var meanMs: Double
        /// WellKit's statement, placeholders as pgbench variables.
        var sql: String
        var references: [PgbenchRun]
    }

    struct Throughput: Codable {
        var clients: Int
        var wellKitQueriesPerSecond: Double
        var wellKitQueries: Int
        /// The same boxes from one task per client through ``WellStore/pins(matching:)``, the async fetch.
        var wellKitAsyncQueriesPerSecond: Double
        var pgbenchTPS: Double
        var pgbenchTransactions: Int
    }

    struct Report: Codable {
        var csv: String
        var csvBytes: Int
        var records: Int
        var rejected: Int
        var expectedRows: Int
        var server: String
        var throwawayCluster: Bool
        var postgresVersion: String
        var postgisVersion: String
        var gdalVersion: String
        var rounds: Int
        var loads: [LoadTool]
        var ratios: [Ratio]
        var queryDatabase: String
        var queryFile: String
        var passes: Int
        var latency: [Latency]
        var throughputSeconds: Int
        var throughput: [Throughput]
        /// postgres-nio alone on the box statement (``libraryFloor(database:sql:values:clients:seconds:)``); empty without the PostgreSQL trait.
        var library: [LibraryRun]
        var problems: [String]
    }

    /// What `wells load --format json` prints that the benchmark reads.
    struct LoadOutput: Decodable {
        var records: Int
        var inserted: Int
        var updated: Int
        var rejected: Int
        var mapping: [String: String]
        var extraColumns: [String]?
    }

    static func progress(_ text: String) {
        Terminal.error("postgis: \(text)")
    }

    // MARK: Running

    func run() async throws -> Report {
        var problems: [String] = []
        let csvBytes = (try? FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int) ?? 0
        try ScaleBenchmark.readThrough(csv)
        let templateBytes = try postgres.number(nil, "SELECT pg_database_size('\(template)')")
        let gdal = (try? Subprocess.capture("ogr2ogr", ["--version"]).text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"

        // 1. Loads.
        let names = ["WellKit → PostgreSQL (wells load --db postgresql://…)", "psql reference (same SQL work, one transaction)",
                     "psql reference on two connections (not atomic)", "ogr2ogr → PostgreSQL (one table + GiST)",
                     "WellKit → file (wells load --db FILE.sqlite)"]
        var seconds = [[Double]](repeating: [], count: names.count), rows = [[Int]](repeating: [], count: names.count)
        var peaks = [Int](repeating: 0, count: names.count), bytes = [Int](repeating: 0, count: names.count)
        var summary: LoadOutput?
        var reference: Reference?
        var queryDatabase = ""
        var commands = [String](repeating: "", count: names.count)
        /// Runs a psql reference (`k`: 1, one transaction; 2, two connections) into a fresh database and checks its counts.
        func runReference(_ k: Int, round: Int, _ program: String, _ arguments: (String) -> [String]) throws -> Double {
            let database = "wb_psql\(k == 1 ? "" : "2")_\(round)"
            try postgres.createDatabase(database, template: template)
            let argv = arguments(postgres.url(database))
            commands[k] = ([program] + argv).joined(separator: " ")
            let run = try Subprocess.measure(program, argv)
            let counts = try postgres.psql(database, "SELECT (SELECT count(*) FROM pins), (SELECT count(*) FROM details)").first?.compactMap { Int($0) } ?? []
            if counts != [reference!.rows, reference!.rows] {
                problems.append("round \(round): \(names[k]): counted pins, details = \(counts), expected \(reference!.rows)")
            }
            seconds[k].append(run.seconds)
            rows[k].append(counts.first ?? -1)
            peaks[k] = max(peaks[k], run.peakResidentBytes)
            bytes[k] = try postgres.number(database, "SELECT pg_database_size(current_database())") - templateBytes
            postgres.dropDatabase(database)
            return run.seconds
        }
        for round in 1...rounds {
            var line = "load round \(round) of \(rounds):"
            // WellKit into PostgreSQL.
            let wellKitDatabase = "wb_wellkit_\(round)"
            try postgres.createDatabase(wellKitDatabase, template: template)
            let arguments = ["load", csv, "--db", postgres.url(wellKitDatabase), "--format", "json", "--quiet"]
            commands[0] = ([wells] + arguments).joined(separator: " ")
            let load = try Subprocess.measure(wells, arguments)
            guard let output = try? JSONDecoder().decode(LoadOutput.self, from: load.stdout) else {
                throw StoreError(.invalidArgument, "wells load into PostgreSQL printed no load summary: \(String(decoding: load.stdout.prefix(300), as: UTF8.self)) \(load.stderr.suffix(300))")
            }
            summary = output
            let expected = output.records - output.rejected
            let counts = try postgres.psql(wellKitDatabase, "SELECT (SELECT count(*) FROM pins), (SELECT count(*) FROM details)").first?.compactMap { Int($0) } ?? []
            if counts != [expected, expected] || output.inserted != expected {
                problems.append("round \(round): wells load into PostgreSQL: read \(output.records), rejected \(output.rejected), inserted \(output.inserted); counted pins, details = \(counts)")
            }
            seconds[0].append(load.seconds)
            rows[0].append(counts.first ?? -1)
            peaks[0] = max(peaks[0], load.peakResidentBytes)
            bytes[0] = try postgres.number(wellKitDatabase, "SELECT pg_database_size(current_database())") - templateBytes
            line += String(format: " WellKit-PG %.2f s", load.seconds)
            if reference == nil {
                reference = try prepareReference(from: wellKitDatabase, summary: output)
                if reference!.rows != output.records {
                    problems.append("the CSV split for the psql reference has \(reference!.rows) rows; wells read \(output.records) records")
                }
            }
            if round == rounds {
                // Kept for the queries; vacuumed now, as autovacuum would do soon, so that it does not run while timing.
                queryDatabase = wellKitDatabase
                try postgres.psql(wellKitDatabase, "VACUUM pins")
                try postgres.psql(wellKitDatabase, "VACUUM details")
            } else {
                postgres.dropDatabase(wellKitDatabase)
            }

            // The psql references.
            let one = try runReference(1, round: round, "psql") { ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", $0, "-f", reference!.script] }
            let two = try runReference(2, round: round, "bash") { [reference!.twoConnections[0], $0] + reference!.twoConnections.dropFirst() }
            line += String(format: ", psql %.2f s, psql on two connections %.2f s", one, two)

            // ogr2ogr.
            let ogrDatabase = "wb_ogr_\(round)"
            try postgres.createDatabase(ogrDatabase, template: template)
            let ogrArguments = ["-f", "PostgreSQL", "PG:" + postgres.keywords(ogrDatabase), csv, "-nln", "wells_ogr",
                                "-oo", "X_POSSIBLE_NAMES=\(output.mapping["lon"] ?? "longitude")", "-oo", "Y_POSSIBLE_NAMES=\(output.mapping["lat"] ?? "latitude")",
                                "-a_srs", "EPSG:4326", "--config", "PG_USE_COPY", "YES", "-lco", "GEOMETRY_NAME=geom", "-lco", "SPATIAL_INDEX=GIST"]
            commands[3] = "ogr2ogr " + ogrArguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
            let ogr = try Subprocess.measure("ogr2ogr", ogrArguments)
            let ogrCount = try postgres.number(ogrDatabase, "SELECT count(*) FROM wells_ogr")
            let ogrIndexed = try postgres.number(ogrDatabase, "SELECT count(*) FROM pg_indexes WHERE tablename = 'wells_ogr' AND indexdef LIKE '%USING gist%'")
            if ogrCount != output.records { problems.append("round \(round): ogr2ogr: counted \(ogrCount) rows in wells_ogr, expected \(output.records)") }
            if ogrIndexed != 1 { problems.append("round \(round): ogr2ogr: wells_ogr has \(ogrIndexed) GiST indexes, expected 1") }
            seconds[3].append(ogr.seconds)
            rows[3].append(ogrCount)
            peaks[3] = max(peaks[3], ogr.peakResidentBytes)
            bytes[3] = try postgres.number(ogrDatabase, "SELECT pg_database_size(current_database())") - templateBytes
            postgres.dropDatabase(ogrDatabase)
            line += String(format: ", ogr2ogr %.2f s", ogr.seconds)

            // WellKit into a file.
            let file = directory.appendingPathComponent("wellkit-\(round).sqlite").path
            ScaleBenchmark.removeStore(file)
            let fileArguments = ["load", csv, "--db", file, "--format", "json", "--quiet"]
            commands[4] = ([wells] + fileArguments).joined(separator: " ")
            let fileLoad = try Subprocess.measure(wells, fileArguments)
            let fileOutput = try? JSONDecoder().decode(LoadOutput.self, from: fileLoad.stdout)
            let fileCount = try WellStore(path: file, mode: .readOnly).fetchCount(WellFetchRequest())
            if fileCount != expected || fileOutput?.inserted != expected {
                problems.append("round \(round): wells load into a file: inserted \(fileOutput?.inserted ?? -1), counted \(fileCount), expected \(expected)")
            }
            seconds[4].append(fileLoad.seconds)
            rows[4].append(fileCount)
            peaks[4] = max(peaks[4], fileLoad.peakResidentBytes)
            bytes[4] = ScaleBenchmark.storeBytes(file)
            ScaleBenchmark.removeStore(file)
            line += String(format: ", WellKit-file %.2f s", fileLoad.seconds)
            Self.progress(line)
        }
        let loads = names.indices.map { k in
            LoadTool(name: names[k], command: commands[k], seconds: seconds[k], medianSeconds: Statistics.median(seconds[k]),
                     minSeconds: seconds[k].min() ?? 0, maxSeconds: seconds[k].max() ?? 0, rows: rows[k], peakRSSBytes: peaks[k], bytes: bytes[k])
        }
        func ratio(_ name: String, _ a: Int, _ b: Int) -> Ratio {
            Ratio(name: name, ofMedians: loads[a].medianSeconds / loads[b].medianSeconds,
                  medianPerRound: Statistics.median(zip(seconds[a], seconds[b]).map { $0 / $1 }))
        }
        let ratios = [ratio("WellKit-PG ÷ psql reference", 0, 1), ratio("ogr2ogr ÷ WellKit-PG", 3, 0), ratio("WellKit-PG ÷ WellKit-file", 0, 4),
                      ratio("ogr2ogr ÷ psql reference", 3, 1), ratio("ogr2ogr ÷ psql on two connections", 3, 2)]

        // 2. Latency, and 3. throughput, on the last WellKit database.
        let versions = try postgres.psql(queryDatabase, "SELECT current_setting('server_version'), postgis_lib_version()").first ?? ["?", "?"]
        let url = postgres.url(queryDatabase)
        Self.progress("capturing WellKit's SQL")
        let captured = try captureSQL(url: url)
        Self.progress("timing WellKit in-process: \(boxes.count) queries of each kind, a warm-up pass and \(passes) passes")
        var latency = try wellKitLatency(url: url, captured: captured)
        for k in latency.indices {
            let kind = captured[k]
            var scripts: [(name: String, file: String, modes: [String])] = []
            if kind.uniform {
                let file = directory.appendingPathComponent("\(kind.tag).pgbench").path
                try Self.pgbenchScript(sql: kind.sql, values: kind.values).write(toFile: file, atomically: true, encoding: .utf8)
                scripts.append(("pgbench, WellKit's SQL", file, ["prepared", "extended"]))
            } else {
                problems.append("\(kind.query): WellKit sent different statement texts, so pgbench cannot replay them: \(Set(kind.texts).prefix(3).joined(separator: " | "))")
            }
            if kind.tag == "nearest" {
                let file = directory.appendingPathComponent("knn.pgbench").path
                let centres = boxes.map { [String(($0.minLongitude + $0.maxLongitude) / 2), String(($0.minLatitude + $0.maxLatitude) / 2)] }
                try Self.pgbenchScript(sql: Self.knnSQL, values: centres).write(toFile: file, atomically: true, encoding: .utf8)
                scripts.append(("pgbench, KNN ORDER BY geom <-> point LIMIT 10", file, ["prepared"]))
            }
            for script in scripts {
                for mode in script.modes {
                    Self.progress("pgbench -M \(mode), \(kind.query): \(pgbenchSeconds) s")
                    latency[k].references.append(try pgbench(name: script.name, script: script.file, database: queryDatabase, mode: mode,
                                                             clients: 1, seconds: pgbenchSeconds, latencies: true))
                }
            }
        }
        var throughput: [Throughput] = []
        if let box = captured.first, box.uniform {
            let file = directory.appendingPathComponent("\(box.tag).pgbench").path
            for count in clients {
                Self.progress("throughput, \(count) client\(count == 1 ? "" : "s"): WellKit, then pgbench, \(throughputSeconds) s each")
                let ours = try wellKitThroughput(url: url, clients: count, seconds: Double(throughputSeconds))
                let ourAsync = try await wellKitAsyncThroughput(url: url, clients: count, seconds: Double(throughputSeconds))
                let theirs = try pgbench(name: "pgbench, WellKit's SQL", script: file, database: queryDatabase, mode: "prepared",
                                         clients: count, seconds: throughputSeconds, latencies: false)
                throughput.append(Throughput(clients: count, wellKitQueriesPerSecond: ours.rate, wellKitQueries: ours.queries,
                                             wellKitAsyncQueriesPerSecond: ourAsync.rate,
                                             pgbenchTPS: theirs.tps, pgbenchTransactions: theirs.transactions))
            }
        }
        var library: [LibraryRun] = []
        #if canImport(PostgresNIO)
        if let box = captured.first, box.uniform {
            Self.progress("postgres-nio alone, the box statement: latency, then throughput, \(throughputSeconds) s per run")
            // Back from pgbench's `:vN` to the `$N` the server takes.
            var sql = box.sql
            for n in stride(from: box.values.first?.count ?? 0, through: 1, by: -1) { sql = sql.replacingOccurrences(of: ":v\(n)", with: "$\(n)") }
            do {
                library = try await libraryFloor(database: queryDatabase, sql: sql, values: box.values.map { $0.compactMap(Double.init) },
                                                 clients: clients, seconds: Double(throughputSeconds))
            } catch {
                // A --server that asks for TLS, say: the floor is a reference, not the benchmark's subject.
                problems.append("postgres-nio alone (plain TCP, no TLS) could not run the box statement: \(String(reflecting: error).prefix(300))")
            }
        }
        #endif
        postgres.dropDatabase(queryDatabase)

        return Report(csv: csv, csvBytes: csvBytes, records: summary?.records ?? 0, rejected: summary?.rejected ?? 0,
                      expectedRows: (summary?.records ?? 0) - (summary?.rejected ?? 0), server: postgres.displayURL(nil),
                      throwawayCluster: postgres.cluster != nil, postgresVersion: versions.first ?? "?", postgisVersion: versions.dropFirst().first ?? "?",
                      gdalVersion: gdal, rounds: rounds, loads: loads, ratios: ratios, queryDatabase: postgres.displayURL(queryDatabase),
                      queryFile: queryFile ?? "200 city boxes (0.05°) centred on wells of the CSV, seed 1", passes: passes, latency: latency,
                      throughputSeconds: throughputSeconds, throughput: throughput, library: library, problems: problems)
    }

    // MARK: The psql reference

    /// The psql references' scripts, and the rows of the CSV split they copy.
    struct Reference {
        /// The one-transaction script, for `psql -f`.
        var script: String
        /// The two-connection run: the bash script of ``PostGISBenchmark/twoConnections``, then its SQL
        /// scripts (pins, details, the keys between them); bash takes the database URL before those.
        var twoConnections: [String]
        var rows: Int
    }

    /// Splits the CSV into the COPY files of the psql references and writes their scripts, with the details
    /// columns and types of `database`, which WellKit loaded, and the column mapping of its load.
    ///
    /// The same statements make both: the one-transaction script, and the three of the two-connection
    /// run, which copies and indexes pins on one connection and details on another, at once, each
    /// committed, then adds the foreign keys between them. That run is not atomic (a failure leaves
    /// half a store); it is the floor of what a load on two connections could take, for comparison.
    func prepareReference(from database: String, summary: LoadOutput) throws -> Reference {
        let pins = directory.appendingPathComponent("pins.tsv").path, details = directory.appendingPathComponent("details.tsv").path
        let columns = try postgres.psql(database, """
            SELECT quote_ident(a.attname), format_type(a.atttypid, a.atttypmod),
                   CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN quote_ident(c.collname) ELSE '' END,
                   a.attnotnull, a.attname
            FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_collation c ON c.oid = a.attcollation
            WHERE a.attrelid = 'details'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """)
        guard columns.first?.last == "pin_id", columns.allSatisfy({ $0.count == 5 }) else {
            throw StoreError(.invalidArgument, "unexpected details table in \(database): \(columns.prefix(3))")
        }
        let declarations = columns.map { column -> String in
            if column[4] == "pin_id" { return "  pin_id bigint NOT NULL" }
            return "  \(column[0]) \(column[1])" + (column[2].isEmpty ? "" : " COLLATE \(column[2])") + (column[3] == "t" ? " NOT NULL" : "")
        }
        let detailNames = columns.dropFirst().map { $0[4] }
        let mapping = String(decoding: try JSONEncoder().encode(summary.mapping), as: UTF8.self)
        let names = String(decoding: try JSONEncoder().encode(detailNames), as: UTF8.self)
        Self.progress("splitting the CSV into COPY files for the psql references (untimed)")
        let split = try Subprocess.capture(python, ["-c", Self.splitScript, csv, mapping, names, pins, details])
        guard let count = Int(split.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw StoreError(.invalidArgument, "the CSV split printed no row count: \(split.text.prefix(200)) \(split.stderr.prefix(300))")
        }
        let pinsWork = """
            CREATE TABLE pins(
              id bigint NOT NULL,
              name text COLLATE "C",
              lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
              lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
              geom geometry(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)) STORED);
            \\copy pins(id, name, lat, lon) FROM '\(pins)'
            ALTER TABLE pins ADD PRIMARY KEY (id);
            CREATE INDEX pins_geom ON pins USING gist(geom);
            """
        let detailsWork = """
            CREATE TABLE loads(id bigint PRIMARY KEY);
            INSERT INTO loads VALUES (1);
            CREATE TABLE details(
            \(declarations.joined(separator: ",\n")));
            \\copy details FROM '\(details)'
            ALTER TABLE details ALTER COLUMN extra SET STATISTICS 0;
            ALTER TABLE details ADD PRIMARY KEY (pin_id);
            CREATE UNIQUE INDEX details_uwi ON details(uwi);
            """
        let keys = """
            ALTER TABLE details ADD CONSTRAINT details_pin_id_fkey FOREIGN KEY (pin_id) REFERENCES pins(id) ON DELETE CASCADE;
            ALTER TABLE details ADD CONSTRAINT details_load_id_fkey FOREIGN KEY (load_id) REFERENCES loads(id);
            """
        let scripts = [("reference.sql", "BEGIN;\n\(pinsWork)\n\(detailsWork)\n\(keys)\nANALYZE pins;\nANALYZE details;\nCOMMIT;\n"),
                       ("reference-pins.sql", "BEGIN;\n\(pinsWork)\nCOMMIT;\n"),
                       ("reference-details.sql", "BEGIN;\n\(detailsWork)\nCOMMIT;\n"),
                       ("reference-keys.sql", "BEGIN;\n\(keys)\nCOMMIT;\n"),
                       ("reference-two-connections.sh", Self.twoConnections)]
        let paths = try scripts.map { name, text in
            let path = directory.appendingPathComponent(name).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        return Reference(script: paths[0], twoConnections: [paths[4]] + paths[1...3], rows: count)
    }

    /// Bash, with the database URL and the SQL scripts of ``Reference/twoConnections``: pins and details
    /// at once on two psql connections, then the keys, then ANALYZE of the two at once, as WellKit's load does it.
    static let twoConnections = #"""
        set -e
        psql() { command psql -X -q -v ON_ERROR_STOP=1 -d "$1" "${@:2}"; }
        psql "$1" -f "$2" & pins=$!
        psql "$1" -f "$3" & details=$!
        wait $pins; wait $details
        psql "$1" -f "$4"
        psql "$1" -c "ANALYZE pins" & pins=$!
        psql "$1" -c "ANALYZE details"
        wait $pins
        """#

    /// Python: CSV → pins.tsv (id, name, lat, lon; ids 1..n) and details.tsv (pin_id, then the details
    /// columns named in argv[3]: mapped CSV columns, `extra` the unmapped ones as JSON, `load_id` 1,
    /// others null), in COPY text format. Prints the rows.
    static let splitScript = #"""
        import csv, json, sys
        src, mapping, columns, pins_out, details_out = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
        def esc(v):
            if v is None or v == "":
                return "\\N"
            return v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
        n = 0
        with open(src, newline="", encoding="utf-8-sig") as f, open(pins_out, "w", encoding="utf-8") as p, open(details_out, "w", encoding="utf-8") as d:
            r = csv.reader(f)
            header = next(r)
            pos = {name: k for k, name in enumerate(header)}
            used = set(mapping.values())
            extra = [(name, k) for k, name in enumerate(header) if name not in used]
            def at(field):
                return pos.get(mapping.get(field, ""))
            name_k, lat_k, lon_k = at("name"), at("lat"), at("lon")
            plan = []
            for c in columns:
                if c == "extra":
                    plan.append(("extra", None))
                elif c == "load_id":
                    plan.append(("const", "1"))
                elif at(c) is not None:
                    plan.append(("col", at(c)))
                else:
                    plan.append(("const", "\\N"))
            for row in r:
                n += 1
                get = lambda k: row[k] if k is not None and k < len(row) else ""
                p.write("%d\t%s\t%s\t%s\n" % (n, esc(get(name_k)), esc(get(lat_k)), esc(get(lon_k))))
                out = [str(n)]
                for kind, k in plan:
                    if kind == "col":
                        out.append(esc(get(k)))
                    elif kind == "extra":
                        obj = {name: row[j] for name, j in extra if j < len(row) and row[j] != ""}
                        out.append(esc(json.dumps(obj, ensure_ascii=False)) if obj else "\\N")
                    else:
                        out.append(k)
                d.write("\t".join(out) + "\n")
        print(n)
        """#

    // MARK: Report

    static func table(_ report: Report) -> String {
        func mb(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1_048_576) }
        func ms(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "–" }
        func ratio(_ a: Double?, _ b: Double?) -> String {
            guard let a, let b, b > 0 else { return "–" }
            return String(format: "%.2f", a / b)
        }
        var lines: [String] = []
        lines.append("PostgreSQL \(report.postgresVersion), PostGIS \(report.postgisVersion), \(report.gdalVersion); "
            + (report.throwawayCluster ? "throwaway cluster (fsync off) at \(report.server)" : "server \(report.server)"))
        lines.append("Load of \(report.csv) (\(grouped(report.records)) records, \(grouped(report.rejected)) rejected, \(mb(report.csvBytes))), "
            + "each into a fresh database (or file), median of \(report.rounds) round\(report.rounds == 1 ? "" : "s") (tools interleaved):")
        lines += BenchTables.grid([["tool", "median", "min", "max", "rows/s", "rows counted", "size", "client peak RSS"]] + report.loads.map { tool in
            [tool.name, String(format: "%.2f s", tool.medianSeconds), String(format: "%.2f s", tool.minSeconds), String(format: "%.2f s", tool.maxSeconds),
             String(format: "%.0f", Double(report.expectedRows) / tool.medianSeconds),
             Set(tool.rows).count == 1 ? grouped(tool.rows[0]) : tool.rows.map(grouped).joined(separator: "/"),
             mb(tool.bytes), mb(tool.peakRSSBytes)]
        })
        lines.append("")
        lines += BenchTables.grid([["ratio", "of medians", "median per round"]] + report.ratios.map {
            [$0.name, String(format: "%.2f", $0.ofMedians), String(format: "%.2f", $0.medianPerRound)]
        })
        lines.append("")
        lines.append("Query latency on \(report.queryDatabase), \(report.latency.first?.calls ?? 0) queries of each kind (centres: the city boxes'); "
            + "WellKit in-process over \(report.passes) passes after a warm-up; pgbench one client, its statement average (-r) and per-transaction p50/p99 (-l):")
        var rows = [["query", "rows p50 (min–max)", "SQL/call", "WellKit p50 ms", "p99 ms", "mean ms", "reference", "avg ms", "p50 ms", "p99 ms", "WK÷ref p50", "WK÷ref mean"]]
        for row in report.latency {
            let ours = [row.query, String(format: "%.0f (%d–%d)", row.rowsP50, row.rowsMin, row.rowsMax), String(format: "%.2f", row.statementsPerCall),
                        ms(row.p50Ms), ms(row.p99Ms), ms(row.meanMs)]
            if row.references.isEmpty { rows.append(ours + ["(none)"]) }
            for (k, reference) in row.references.enumerated() {
                let prefix = k == 0 ? ours : ["", "", "", "", "", ""]
                rows.append(prefix + ["\(reference.name), -M \(reference.mode)", ms(reference.statementAverageMs), ms(reference.p50Ms), ms(reference.p99Ms),
                                      ratio(row.p50Ms, reference.p50Ms), ratio(row.meanMs, reference.statementAverageMs)])
            }
        }
        lines += BenchTables.grid(rows)
        lines.append("avg ms: pgbench -r, the SELECT's average. p50/p99 ms: pgbench -l, per transaction (the SELECT and the client's \\set of its values), "
            + "each client's first (preparing) transaction left out. WK÷ref: WellKit p50 ÷ reference p50; WellKit mean ÷ reference avg. "
            + "SQL/call: statements per WellKit call; pgbench runs one statement per transaction.")
        if let box = report.latency.first {
            lines.append("box SQL (WellKit's, as pgbench runs it): \(box.sql)")
        }
        if !report.throughput.isEmpty {
            lines.append("")
            lines.append("Throughput, city boxes, \(report.throughputSeconds) s per run: WellKit one thread per client (fetchPins), and one task per client "
                + "(async pins(matching:)), one read-only WellStore (its pool); pgbench -c N -j N -M prepared, WellKit's box SQL:")
            lines += BenchTables.grid([["clients", "WellKit q/s", "WellKit async q/s", "pgbench tps", "WellKit ÷ pgbench", "async ÷ pgbench"]] + report.throughput.map {
                ["\($0.clients)", String(format: "%.0f", $0.wellKitQueriesPerSecond), String(format: "%.0f", $0.wellKitAsyncQueriesPerSecond),
                 String(format: "%.0f", $0.pgbenchTPS), String(format: "%.2f", $0.wellKitQueriesPerSecond / max($0.pgbenchTPS, 1e-9)),
                 String(format: "%.2f", $0.wellKitAsyncQueriesPerSecond / max($0.pgbenchTPS, 1e-9))]
            })
        }
        if !report.library.isEmpty, let box = report.latency.first {
            let prepared = box.references.first { $0.mode == "prepared" }
            lines.append("")
            lines.append("postgres-nio alone (PostgresClient, the box statement, each row decoded to id, name, lat, lon; nothing of WellKit's), "
                + "beside WellKit and pgbench -M prepared in this run:")
            var grid = [["client", "p50 ms", "p99 ms", "p50 ÷ pgbench prepared p50"] + report.throughput.map { "\($0.clients) clients q/s (÷ pgbench)" }]
            grid.append(["WellKit", ms(box.p50Ms), ms(box.p99Ms), prepared.map { ratio(box.p50Ms, $0.p50Ms) } ?? "–"]
                + report.throughput.map { String(format: "%.0f (%.2f)", $0.wellKitAsyncQueriesPerSecond, $0.wellKitAsyncQueriesPerSecond / max($0.pgbenchTPS, 1e-9)) })
            for run in report.library {
                grid.append(["postgres-nio, \(run.mode)", ms(run.p50Ms), ms(run.p99Ms), prepared.map { ratio(run.p50Ms, $0.p50Ms) } ?? "–"]
                    + report.throughput.map { t in
                        let rate = run.throughput.first { $0.clients == t.clients }?.queriesPerSecond ?? 0
                        return String(format: "%.0f (%.2f)", rate, rate / max(t.pgbenchTPS, 1e-9))
                    })
            }
            grid.append(["pgbench -M prepared", prepared.map { ms($0.p50Ms) } ?? "–", prepared.map { ms($0.p99Ms) } ?? "–", "1.00"]
                + report.throughput.map { String(format: "%.0f (1.00)", $0.pgbenchTPS) })
            lines += BenchTables.grid(grid)
        }
        lines.append("")
        lines.append("Commands (last round):")
        for tool in report.loads { lines.append("  \(tool.command)") }
        if report.problems.isEmpty {
            lines.append("Counts: every load has the expected rows (\(grouped(report.expectedRows)); ogr2ogr \(grouped(report.records)) records).")
        } else {
            lines.append("Problems:")
            for problem in report.problems { lines.append("  " + problem) }
        }
        return lines.joined(separator: "\n")
    }
}
