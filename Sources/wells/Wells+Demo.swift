import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the main job on the built-in default: generate a well list, load it, and query it.",
            discussion: """
                Writes Data/wells.csv (244,292 synthetic Alberta-like wells, seed 1) unless it exists, loads it into \
                Data/wells.sqlite, then runs a bounding-box, a nearest and a filtered query, printing each command.
                """)

        @Option(help: "The directory for the generated file and the store.")
        var directory = "Data"

        @Option(help: "Wells to generate.")
        var count = WellGenerator.defaultCount

        func run() async throws {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let csv = "\(directory)/wells.csv", db = "\(directory)/wells.sqlite"
                if !FileManager.default.fileExists(atPath: csv) {
                    print("$ wells generate --count \(count) --seed 1 --out \(csv)")
                    try WellGenerator(count: count, seed: 1).write(toFileAt: csv)
                }
                print("$ wells load \(csv) --db \(db)")
                let store = try WellStore(path: db)
                let summary = try store.load(csvAt: csv)
                print(LoadReport(summary: summary, store: db, dryRun: false).text)
                try show("wells bbox -114.2,50.9,-113.9,51.2 --db \(db) --limit 10",
                         FetchRequest(region: .box(try BoundingBox(parsing: "-114.2,50.9,-113.9,51.2")), limit: 10), store)
                let calgary = Coordinate(latitude: 51.05, longitude: -114.07)
                print("\n$ wells near 51.05,-114.07 --nearest 5 --db \(db)")
                for (pin, meters) in try store.fetchNearest(to: calgary, count: 5) {
                    print(String(format: "%8.0f m  %@", meters, pin.name ?? "(no name)"))
                }
                try show("wells find --where 'status = Abandoned' --where 'operator contains[cd] \"acme\"' --sort detail.spud_date:desc --limit 5 --db \(db)",
                         FetchRequest(predicate: .and([.compare(.status, .equal, "Abandoned"),
                                                       .string(.operator, .contains, "acme", options: [.caseInsensitive, .diacriticInsensitive])]),
                                      sortDescriptors: [SortDescriptor(.spudDate, ascending: false)], limit: 5), store)
            } catch {
                throw Terminal.fail(error)
            }
        }

        private func show(_ command: String, _ request: WellKit.FetchRequest, _ store: WellStore) throws {
            print("\n$ \(command)")
            let fields: [WellField] = [.identifier, .name, .latitude, .longitude, .status, .spudDate]
            let writer = ResultWriter(format: .table, columns: fields.map(\.rawValue)) { print($0, terminator: "") }
            try store.forEachRow(request, fields: fields) { writer.write(Array($0.databaseValues)) }
            writer.finish()
        }
    }
}
