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
            for tool in ["psql", "pgbench", "ogr2ogr", python] where Tools.which(tool) == nil {
                throw StoreError(.notFound, "\(tool) is not installed or not on PATH")
            }
            let wells = Tools.sibling("wells")
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
                postgres = try await BenchPostgres(clusterScript: clusterScript, directory: "/tmp/wells-bench-pg-\(getpid())")
            }
            let interruptions = ScaleBenchmark.onInterrupt {
                postgres.tearDownWaiting()
                try? FileManager.default.removeItem(at: directory)
            }
            // The server goes, and the folder, however the run ends.
            func finish() async {
                for source in interruptions { source.cancel() }
                await postgres.tearDown()
                try? FileManager.default.removeItem(at: directory)
            }
            do {
                try await measure(postgres: postgres, wells: wells, directory: directory)
            } catch {
                await finish()
                throw error
            }
            await finish()
        }

        /// The benchmark on `postgres`, its report printed.
        private func measure(postgres: BenchPostgres, wells: String, directory: URL) async throws {
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
                _ = try await Tools.run(wells, ["load", input, "--db", sample, "--quiet"])
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
