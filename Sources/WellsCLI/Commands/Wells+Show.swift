import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print everything known about one well: its pin, its detail, its unmapped source columns and the units its load read.",
            discussion: """
                Examples:
                  wells show 100/06-12-034-05W4/00
                  wells show 41-133-21968 --format json
                """)

        @Argument(help: "The well's source identifier (UWI, API number, site number…).")
        var identifier: String

        @Option(help: "The output format: a table of field and value, or the one well as a CSV row, a JSON array, an NDJSON line or a GeoJSON feature collection.")
        var format: OutputFormat = .table

        @OptionGroup var store: StoreOptions

        func run() throws {
            let wellStore = try store.open(.readOnly)
            let well = try wellStore.well(identifier: identifier)
            let flag = try well.flatMap { try wellStore.suspects(pinID: $0.pin.id).first }
            guard let well else {
                let prefix = String(identifier.prefix(6))
                Terminal.error("wells: error: no well with identifier \(SafeText.quoted(identifier)); try `wells find --where 'uwi beginswith \(SafeText.quoted(prefix))'`")
                throw ExitCode(1)
            }
            var pairs = well.properties(suspect: flag)
            // The source units of the load that wrote the well: its depths and elevations are in metres.
            if let loadID = well.detail.loadID {
                let units: [String: String] = try wellStore.sourceUnits(loadID: loadID)
                if !units.isEmpty {
                    let listed: String = units.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    let text: String = listed + " (load \(loadID)); stored in metres"
                    pairs.append((name: "source_units", value: WellValue.text(text)))
                }
            }
            if format == .table {
                let keys = pairs.map { SafeText.cell($0.0) }
                let width = keys.map(\.count).max() ?? 0
                for (key, (_, value)) in zip(keys, pairs) {
                    print("\(key.padding(toLength: width, withPad: " ", startingAt: 0))  \(SafeText.cell(ResultWriter.text(value)))")
                }
            } else {
                // The one well as a result of one row: the same columns as the table, in every format.
                let writer = ResultWriter(terminal: format, columns: pairs.map(\.0)) { print($0, terminator: "") }
                writer.write(pairs.map(\.1))
                writer.finish()
            }
        }
    }
}
