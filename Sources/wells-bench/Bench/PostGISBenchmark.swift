import Foundation
import ProcessRunner
import WellKit
import WellsCLI

/// `wells-bench postgis` itself: the loads, then the latency, throughput and library-floor runs on
/// the last WellKit database (``Bench/PostGISSpeed`` parses the options and starts the server).
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
        let templateBytes = try await postgres.number(nil, "SELECT pg_database_size('\(template)')")
        let gdal = (try? await Tools.run("ogr2ogr", ["--version"]).out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "?"

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
        func runReference(_ k: Int, round: Int, _ program: String, _ arguments: (String) -> [String]) async throws -> Double {
            let database = "wb_psql\(k == 1 ? "" : "2")_\(round)"
            try await postgres.createDatabase(database, template: template)
            let argv = arguments(postgres.url(database))
            commands[k] = ([program] + argv).joined(separator: " ")
            let run = try Tools.measure(program, argv)
            let counts = try await postgres.psql(database, "SELECT (SELECT count(*) FROM pins), (SELECT count(*) FROM details)").first?.compactMap { Int($0) } ?? []
            if counts != [reference!.rows, reference!.rows] {
                problems.append("round \(round): \(names[k]): counted pins, details = \(counts), expected \(reference!.rows)")
            }
            seconds[k].append(run.seconds)
            rows[k].append(counts.first ?? -1)
            peaks[k] = max(peaks[k], run.peakResidentBytes)
            bytes[k] = try await postgres.number(database, "SELECT pg_database_size(current_database())") - templateBytes
            await postgres.dropDatabase(database)
            return run.seconds
        }
        for round in 1...rounds {
            var line = "load round \(round) of \(rounds):"
            // WellKit into PostgreSQL.
            let wellKitDatabase = "wb_wellkit_\(round)"
            try await postgres.createDatabase(wellKitDatabase, template: template)
            let arguments = ["load", csv, "--db", postgres.url(wellKitDatabase), "--format", "json", "--quiet"]
            commands[0] = ([wells] + arguments).joined(separator: " ")
            let load = try Tools.measure(wells, arguments)
            guard let output = try? JSONDecoder().decode(LoadOutput.self, from: load.stdout) else {
                throw StoreError(.invalidArgument, "wells load into PostgreSQL printed no load summary: \(String(decoding: load.stdout.prefix(300), as: UTF8.self)) \(load.stderr.suffix(300))")
            }
            summary = output
            let expected = output.records - output.rejected
            let counts = try await postgres.psql(wellKitDatabase, "SELECT (SELECT count(*) FROM pins), (SELECT count(*) FROM details)").first?.compactMap { Int($0) } ?? []
            if counts != [expected, expected] || output.inserted != expected {
                problems.append("round \(round): wells load into PostgreSQL: read \(output.records), rejected \(output.rejected), inserted \(output.inserted); counted pins, details = \(counts)")
            }
            seconds[0].append(load.seconds)
            rows[0].append(counts.first ?? -1)
            peaks[0] = max(peaks[0], load.peakResidentBytes)
            bytes[0] = try await postgres.number(wellKitDatabase, "SELECT pg_database_size(current_database())") - templateBytes
            line += String(format: " WellKit-PG %.2f s", load.seconds)
            if reference == nil {
                reference = try await prepareReference(from: wellKitDatabase, summary: output)
                if reference!.rows != output.records {
                    problems.append("the CSV split for the psql reference has \(reference!.rows) rows; wells read \(output.records) records")
                }
            }
            if round == rounds {
                // Kept for the queries; vacuumed now, as autovacuum would do soon, so that it does not run while timing.
                queryDatabase = wellKitDatabase
                try await postgres.psql(wellKitDatabase, "VACUUM pins")
                try await postgres.psql(wellKitDatabase, "VACUUM details")
            } else {
                await postgres.dropDatabase(wellKitDatabase)
            }

            // The psql references.
            let one = try await runReference(1, round: round, "psql") { ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", $0, "-f", reference!.script] }
            let two = try await runReference(2, round: round, "bash") { [reference!.twoConnections[0], $0] + reference!.twoConnections.dropFirst() }
            line += String(format: ", psql %.2f s, psql on two connections %.2f s", one, two)

            // ogr2ogr.
            let ogrDatabase = "wb_ogr_\(round)"
            try await postgres.createDatabase(ogrDatabase, template: template)
            let ogrArguments = ["-f", "PostgreSQL", "PG:" + postgres.keywords(ogrDatabase), csv, "-nln", "wells_ogr",
                                "-oo", "X_POSSIBLE_NAMES=\(output.mapping["lon"] ?? "longitude")", "-oo", "Y_POSSIBLE_NAMES=\(output.mapping["lat"] ?? "latitude")",
                                "-a_srs", "EPSG:4326", "--config", "PG_USE_COPY", "YES", "-lco", "GEOMETRY_NAME=geom", "-lco", "SPATIAL_INDEX=GIST"]
            commands[3] = "ogr2ogr " + ogrArguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
            let ogr = try Tools.measure("ogr2ogr", ogrArguments)
            let ogrCount = try await postgres.number(ogrDatabase, "SELECT count(*) FROM wells_ogr")
            let ogrIndexed = try await postgres.number(ogrDatabase, "SELECT count(*) FROM pg_indexes WHERE tablename = 'wells_ogr' AND indexdef LIKE '%USING gist%'")
            if ogrCount != output.records { problems.append("round \(round): ogr2ogr: counted \(ogrCount) rows in wells_ogr, expected \(output.records)") }
            if ogrIndexed != 1 { problems.append("round \(round): ogr2ogr: wells_ogr has \(ogrIndexed) GiST indexes, expected 1") }
            seconds[3].append(ogr.seconds)
            rows[3].append(ogrCount)
            peaks[3] = max(peaks[3], ogr.peakResidentBytes)
            bytes[3] = try await postgres.number(ogrDatabase, "SELECT pg_database_size(current_database())") - templateBytes
            await postgres.dropDatabase(ogrDatabase)
            line += String(format: ", ogr2ogr %.2f s", ogr.seconds)

            // WellKit into a file.
            let file = directory.appendingPathComponent("wellkit-\(round).sqlite").path
            ScaleBenchmark.removeStore(file)
            let fileArguments = ["load", csv, "--db", file, "--format", "json", "--quiet"]
            commands[4] = ([wells] + fileArguments).joined(separator: " ")
            let fileLoad = try Tools.measure(wells, fileArguments)
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
        let versions = try await postgres.psql(queryDatabase, "SELECT current_setting('server_version'), postgis_lib_version()").first ?? ["?", "?"]
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
                    latency[k].references.append(try await pgbench(name: script.name, script: script.file, database: queryDatabase, mode: mode,
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
                let theirs = try await pgbench(name: "pgbench, WellKit's SQL", script: file, database: queryDatabase, mode: "prepared",
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
        await postgres.dropDatabase(queryDatabase)

        return Report(csv: csv, csvBytes: csvBytes, records: summary?.records ?? 0, rejected: summary?.rejected ?? 0,
                      expectedRows: (summary?.records ?? 0) - (summary?.rejected ?? 0), server: postgres.displayURL(nil),
                      throwawayCluster: postgres.cluster != nil, postgresVersion: versions.first ?? "?", postgisVersion: versions.dropFirst().first ?? "?",
                      gdalVersion: gdal, rounds: rounds, loads: loads, ratios: ratios, queryDatabase: postgres.displayURL(queryDatabase),
                      queryFile: queryFile ?? "200 city boxes (0.05°) centred on wells of the CSV, seed 1", passes: passes, latency: latency,
                      throughputSeconds: throughputSeconds, throughput: throughput, library: library, problems: problems)
    }
}
