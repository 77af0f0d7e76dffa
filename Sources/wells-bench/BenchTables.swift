import Foundation
import WellKit
import WellKitSynthetic
import WellsCLI

/// Text tables for the benchmark reports.
enum BenchTables {
    /// The fewest rows whose times, bytes and allocations per row mean anything: below it a path's
    /// fixed costs (statements, connections, allocator pages) swamp the per-row ones.
    static let minimumComparedRows = 100

    static func projection(_ report: ProjectionBenchmark.Report) -> String {
        var lines = ["Projection vs objects: \(report.rows) rows (\(SafeText.cell(report.request))) from \(SafeText.cell(report.store)), median of \(report.repeats) runs after a warm-up"]
        guard report.rows >= minimumComparedRows else {
            // Per-row figures of a handful of rows are noise: say so, and print what was counted.
            lines.append("Too few rows to compare: \(report.rows), below the minimum of \(minimumComparedRows); counts only. Choose a larger --bbox or --all.")
            lines += grid([["path", "rows", "SQL"]] + report.paths.map { [$0.name, "\($0.rows)", "\($0.statements)"] })
            return lines.joined(separator: "\n")
        }
        let header = ["path", "rows", "time", "bytes/row", "allocs/row", "peak RSS", "SQL", "time/row ×", "bytes/row ×"]
        var rows = [header]
        for path in report.paths {
            rows.append([
                path.name, "\(path.rows)", String(format: "%.1f ms", path.medianSeconds * 1000),
                String(format: "%.0f", path.retainedBytesPerRow), path.allocationsPerRow.map { String(format: "%.1f", $0) } ?? "n/a",
                String(format: "%.0f MB", Double(path.peakResidentBytes) / 1_048_576), "\(path.statements)",
                String(format: "%.2f", path.timeRatio), String(format: "%.2f", path.bytesRatio),
            ])
        }
        lines += grid(rows)
        if let pins = report.paths.first(where: { $0.name == "pins" }) {
            lines.append(String(format: "Pins retain %.0f%% of the bytes per row of full objects (a %.0f%% saving).", pins.bytesRatio * 100, (1 - pins.bytesRatio) * 100))
        }
        return lines.joined(separator: "\n")
    }

    static func bbox(_ results: [BBoxBenchmark.Result], references: [(name: String, label: String, p50: Double, p99: Double)]) -> String {
        var rows = [["viewport", "queries", "rows p50", "p50 µs", "p99 µs"] + references.map(\.name).uniqued().map { "\($0) p50 µs" }]
        for result in results {
            var row = [result.label, "\(result.queries)", String(format: "%.0f", result.rowsP50),
                       String(format: "%.0f", result.p50Microseconds), String(format: "%.0f", result.p99Microseconds)]
            for name in references.map(\.name).uniqued() {
                let match = references.first { $0.name == name && $0.label == result.label }
                row.append(match.map { String(format: "%.0f (×%.2f)", $0.p50, result.p50Microseconds / max($0.p50, 1e-9)) } ?? "")
            }
            rows.append(row)
        }
        return grid(rows).joined(separator: "\n")
    }

    static func grid(_ rows: [[String]]) -> [String] {
        let rows = rows.map { $0.map(SafeText.cell) }   // labels from --queries files, paths
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { k in rows.map { k < $0.count ? $0[k].count : 0 }.max() ?? 0 }
        return rows.enumerated().flatMap { index, row -> [String] in
            let line = row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
            return index == 0 ? [line, widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] : [line]
        }
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

/// Benchmark paths that live outside the standard set.
enum BenchmarkExtras {
    /// The batched controller, scrolled through the whole result: ids first, then every batch in turn.
    static func controllerContenders() -> [ProjectionBenchmark.Contender] {
        [ProjectionBenchmark.Contender(name: "controller", description: "BatchedResults<WellPin>, batches of 20, scrolled to the end") { store, request in
            let results = try BatchedResults<WellPin>(store: store, request: request, batchSize: 20)
            try results.performFetch()
            var count = 0
            for section in 0..<results.numberOfSections {
                for item in 0..<results.numberOfObjects(inSection: section) {
                    _ = try results.object(at: ResultsIndexPath(section: section, item: item))
                    count += 1
                }
            }
            return (results, count)
        }]
    }
}
