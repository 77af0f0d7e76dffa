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
                  wells show 41-133-21968 --history
                """)

        @Argument(help: "The well's source identifier (UWI, API number, site number…).")
        var identifier: String

        @Option(help: "The output format: a table of field and value, or the one well as a CSV row, a JSON array, an NDJSON line or a GeoJSON feature collection.")
        var format: OutputFormat = .table

        @Flag(help: "Print each release's values of the well instead (wells load --release): one row per release, with what the release did to it; a gone well too.")
        var history = false

        @OptionGroup var store: StoreOptions

        func run() throws {
            let wellStore = try store.open(.readOnly)
            if history { return try printHistory(wellStore) }
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

        /// One row per release: the release, what it did to the well, and the well's values then.
        private func printHistory(_ wellStore: WellStore) throws {
            let entries = try wellStore.history(of: identifier)
            guard !entries.isEmpty else {
                Terminal.error("wells: error: no release lists a well with identifier \(SafeText.quoted(identifier)); `wells changes --list` lists the releases")
                throw ExitCode(1)
            }
            let leading = ["uwi", "name", "lat", "lon"]
            let names = Set(entries.flatMap { $0.values?.keys.map { $0 } ?? [] })
            let columns = leading.filter(names.contains) + names.subtracting(leading).sorted()
            let writer = ResultWriter(terminal: format, columns: ["source", "release", "kinds", "listed"] + columns) { print($0, terminator: "") }
            for entry in entries {
                writer.write([.text(entry.source), .integer(Int64(entry.release)), .text(entry.kinds.map(\.rawValue).joined(separator: ",")),
                              .text(entry.values == nil ? "no" : "yes")] + columns.map { WellValue(entry.values?[$0]) })
            }
            writer.finish()
        }
    }
}
