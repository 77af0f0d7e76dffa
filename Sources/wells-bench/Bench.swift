import ArgumentParser
import CAllocationCounter
import Foundation
import WellKit
import WellKitSynthetic
import WellsCLI

/// `wells-bench`: what fetching, loading and listing cost, beside references run in the same run.
///
/// A separate executable from `wells`, because its probes replace `malloc` (to count allocations)
/// and read glibc's heap statistics: the shipped `wells` binary does neither.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wells-bench",
        abstract: "Measure what fetching, loading and listing cost on your own data.",
        discussion: """
            Speeds are medians over repeats, reported beside a reference run in the same process or the same run.

            Examples:
              wells-bench projection --db wells.sqlite --all
              wells-bench bbox --db wells.sqlite --format json
              wells-bench load --count 244292
              wells-bench scale --sizes 24429,244292,2442920 --reference-load /tmp/limit_load
              wells-bench list --db wells.sqlite --sort detail.spud_date:desc --section status
              wells-bench serve --db wells.sqlite --connections 16
            """,
        version: wellKitVersion,
        subcommands: [Projection.self, BBox.self, LoadSpeed.self, Scale.self, ListCost.self, ServeSpeed.self, PostGISSpeed.self, AnalysisSpeed.self])

    static func main() {
        Wells.run(Wells.positionalCoordinates(Array(CommandLine.arguments.dropFirst())), root: Bench.self)
    }
}

extension Bench {
    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    struct Projection: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "projection",
            abstract: "Compare full objects, pins, dictionary rows, faults and the batched controller on one result set.",
            discussion: """
                Retained bytes per row: the growth of glibc's heap in use (mallinfo2) from before a fetch to after it, \
                while its result is still held, after one warm-up run. Allocations: malloc calls counted by the wells \
                executable. Statements: WellKit's SELECTs in the SQL log. Ratios are against full objects.
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Fetch the wells in this box (minLon,minLat,maxLon,maxLat).", valueName: "box"))
        var bbox: BoxArgument?

        @Flag(help: "Fetch every well in the store (the default when no box is given).")
        var all = false

        @Option(name: .customLong("repeat"), help: "Runs per path after the warm-up; medians are reported.")
        var repeats: Int = 3

        @Option(name: .customLong("fault-limit"), help: "The most rows the N+1 fault path fetches, one query each.")
        var faultLimit = 20_000

        @Option(help: "The report format.")
        var format: ReportFormat = .table

        func validate() throws {
            if bbox != nil && all { throw ValidationError("give --bbox or --all, not both") }
            try CountLimits.check("--repeat", repeats, in: 1...CountLimits.maximumRepeats)
            try CountLimits.check("--fault-limit", faultLimit, in: 0...CountLimits.maximumCount)
        }

        func run() async throws {
            var request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)])
            if let bbox { request.region = .box(try bbox.box()) }
            var contenders = ProjectionBenchmark.standardContenders(faultLimit: faultLimit)
            contenders += BenchmarkExtras.controllerContenders()
            let report = try ProjectionBenchmark.run(storePath: store.path, request: request, repeats: repeats, contenders: contenders)
            if format == .json {
                print(String(decoding: try JSONEncoder.pretty.encode(report), as: UTF8.self))
            } else {
                print(BenchTables.projection(report))
            }
        }
    }
}
