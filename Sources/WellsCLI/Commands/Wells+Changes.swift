import ArgumentParser
import Foundation
import WellKit

extension WellChange.Kind: ExpressibleByArgument {}

extension Wells {
    struct Changes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "changes",
            abstract: "What changed between two releases of a well list: new, gone, back, changed (per field) and moved wells.",
            discussion: """
                A release is a load of a source's complete current list (wells load FILE --release). Between two \
                releases of a source (by default its last two) this prints a summary to standard error (the counts \
                per kind, what changed for the whole release, such as re-spelled identifiers or a change of datum, \
                and the commonest changes of status, operator and the other looked-up fields), then one row per \
                change: kind, uwi, release, field, old, new, meters, lat, lon. A changed well has a row per field; \
                a moved well's meters are how far it moved (after a shift common to the whole release), and a \
                GeoJSON feature of a move is a line from its old place to its new one. Over several releases a \
                well's changes are taken together: a field's first old value against its last new one.

                Examples:
                  wells changes --list
                  wells changes --source co-orphans
                  wells changes --from 1 --to 3 --kind changed --field status --format csv
                  wells changes --since 2026-05-01 --format geojson > changes.geojson
                """)

        @OptionGroup var store: StoreOptions

        @Option(help: ArgumentHelp("The source (default: the store's only one).", valueName: "name"))
        var source: String?

        @Option(help: ArgumentHelp("The release compared from (default: the one before --to; 0 is before the first).", valueName: "n"))
        var from: Int?

        @Option(help: ArgumentHelp("The release compared to (default: the last).", valueName: "n"))
        var to: Int?

        @Option(help: ArgumentHelp("Compare from the last release loaded before this date (YYYY-MM-DD) or moment (ISO 8601).", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("Only changes of this kind: new, gone, back, changed or moved (repeatable).", valueName: "kind"))
        var kind: [WellChange.Kind] = []

        @Option(help: ArgumentHelp("Only changes of this field, such as status or extra.Permit (repeatable); names a whole-release field (uwi when identifiers were re-spelled) to list it.", valueName: "field"))
        var field: [String] = []

        @Option(name: .customLong("moved-over"), help: ArgumentHelp("List a moved well only when it moved more than this (default: 1 m, the precision of five decimal places).", valueName: "meters"))
        var movedOver: Double = ChangeQuery.defaultMovedOver

        @Option(help: ArgumentHelp("Only wells in this box (their new position, or a gone well's last), as minLon,minLat,maxLon,maxLat.", valueName: "box"))
        var within: BoxArgument?

        @Flag(help: "List the releases, with their files, dates and counts, instead of the changes.")
        var list = false

        @Option(help: "The output format.")
        var format: OutputFormat = .table

        func validate() throws {
            if let from, from < 0 { throw ValidationError("--from must be 0 or more, got \(from)") }
            if let to, to < 1 { throw ValidationError("--to must be 1 or more, got \(to)") }
            if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
            if since != nil && from != nil { throw ValidationError("give --since or --from, not both") }
            if since != nil { _ = try sinceDate() }
            if !movedOver.isFinite || movedOver < 0 { throw ValidationError("--moved-over must be zero or more metres") }
            _ = try within?.box()
        }

        func sinceDate() throws -> Date? {
            guard let since else { return nil }
            if let date = ChangeQuery.moment(since) { return date }
            throw ValidationError("--since \(since): expected a date as YYYY-MM-DD or an ISO 8601 moment such as 2026-05-01T12:00:00Z")
        }

        func run() throws {
            let wellStore = try store.open(.readOnly)
            do {
                if list { return try listReleases(wellStore) }
                var query = ChangeQuery(source: source, from: from, to: to)
                query.since = try sinceDate()
                query.kinds = Set(kind)
                query.fields = Set(field)
                query.movedOver = movedOver
                query.box = try within?.box()
                let result = try wellStore.changes(query)
                Terminal.error(Self.summary(result))
                let writer = ResultWriter(terminal: format, columns: WellChange.columns) { print($0, terminator: "") }
                for change in result.changes {
                    writer.write(change.row, geometry: format == .geojson ? change.geoJSONGeometry : nil)
                }
                writer.finish()
            } catch {
                throw Terminal.fail(error)
            }
        }

        private func listReleases(_ wellStore: WellStore) throws {
            let releases = try wellStore.releases(of: source)
            let writer = ResultWriter(terminal: format, columns: ["source", "release", "file", "loaded_at", "wells", "new", "gone", "back", "changed", "moved", "notes"]) {
                print($0, terminator: "")
            }
            for release in releases {
                let s = release.summary
                writer.write([.text(release.source), .integer(Int64(release.number)), .text(release.file), .text(release.loadedAt), .integer(Int64(release.wells)),
                              .integer(Int64(s.new)), .integer(Int64(s.gone)), .integer(Int64(s.back)), .integer(Int64(s.changed)), .integer(Int64(s.moved)),
                              .text(s.notes.joined(separator: "; "))])
            }
            writer.finish()
        }

        /// The summary before the rows: the releases compared, the counts per kind, the whole-release notes, the commonest transitions.
        static func summary(_ result: ReleaseChanges) -> String {
            var counts: [WellChange.Kind: Set<String>] = [:]
            for change in result.changes { counts[change.kind, default: []].insert(change.identifier) }
            var lines = ["\(result.source): release \(result.from) → release \(result.to)"
                         + (result.releases.count > 1 ? " (\(result.releases.count) releases taken together)" : "")]
            lines.append("  " + WellChange.Kind.allCases.map { "\($0.rawValue) \(grouped(counts[$0]?.count ?? 0))" }.joined(separator: ", ")
                         + (counts[.changed].map { _ in " (changed: wells with a changed field; \(grouped(result.changes.count { $0.kind == .changed })) field changes)" } ?? ""))
            for release in result.releases {
                if release.number == 1 {
                    lines.append("  release 1: the first, whose \(grouped(release.summary.new)) wells are all new (not listed one by one; wells list lists them)")
                }
                for note in release.summary.notes { lines.append("  release \(release.number): \(note)") }
            }
            var transitions: [String: [String: Int]] = [:]
            for change in result.changes where change.kind == .changed {
                guard let field = change.field, WellField(rawValue: field)?.lookupTable != nil else { continue }
                transitions[field, default: [:]]["\(change.old ?? "(none)") → \(change.new ?? "(none)")", default: 0] += 1
            }
            for (field, pairs) in transitions.sorted(by: { $0.key < $1.key }) {
                lines.append("  \(field): " + pairs.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(5)
                    .map { "\($0.key) \(grouped($0.value))" }.joined(separator: ", "))
            }
            return lines.map(SafeText.cell).joined(separator: "\n")
        }
    }
}
