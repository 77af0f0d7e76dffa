import ArgumentParser
import WellKit

extension Wells {
    struct Suspects: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suspects",
            abstract: "List the wells whose coordinates a load flagged as suspect, with the line, reason and detail.",
            discussion: """
                A load flags a well, and still loads it, when its coordinates are valid numbers but one slip \
                (a lost minus sign or digit, latitude and longitude swapped) would put it among the file's other \
                wells, or when it lies far outside them. `wells load --reject-suspects` rejects such wells instead.

                Examples:
                  wells suspects --db wells.sqlite
                  wells suspects --reason "longitude sign" --format geojson > suspects.geojson
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("Only this reason: longitude sign, latitude sign, swapped, lost digit or far from the others.", valueName: "reason"))
        var reason: String?

        @Option(help: "The most wells to list.")
        var limit: Int?

        @Option(help: "The output format.")
        var format: OutputFormat = .table

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be zero or more, got '\(limit)'") }
        }

        func run() throws {
            let wells = try store.open(.readOnly).suspects(reason: reason, limit: limit)
            let writer = ResultWriter(terminal: format, columns: ["id", "uwi", "name", "lat", "lon", "line", "reason", "detail"]) {
                print($0, terminator: "")
            }
            for well in wells {
                writer.write([.integer(well.id), .text(well.identifier), WellValue(well.name),
                              .real(well.latitude), .real(well.longitude), .integer(Int64(well.line)),
                              .text(well.reason), .text(well.detail)])
            }
            writer.finish()
        }
    }
}
