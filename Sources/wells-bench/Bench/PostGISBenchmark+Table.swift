import Foundation
import WellKit
import WellsCLI

/// The table `wells-bench postgis` prints (without `--format json`).
extension PostGISBenchmark {
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
