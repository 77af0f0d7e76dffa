import Foundation
import WellKit

/// The text summary `wells load` prints.
struct LoadReport {
    let summary: LoadSummary
    let store: String
    let dryRun: Bool
    /// Whether the store is a PostgreSQL database, read with `psql` rather than `sqlite3`.
    var postgreSQL = false

    var text: String {
        var lines: [String] = []
        let file = summary.file
        if dryRun {
            lines.append("Dry run of \(file): nothing was written.")
            lines.append("Column mapping (field ← source column):")
            lines.append(summary.mappingDescription)
            if !summary.inferences.isEmpty {
                lines.append("Inferred from the file (with the evidence, and the flag that overrides each):")
                for inference in summary.inferences { lines.append("  \(inference)") }
            }
            lines.append("First records as they would be stored:")
            for (k, record) in summary.preview.enumerated() {
                lines.append("  [\(k + 1)] " + record.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "  "))
            }
        } else {
            lines.append("Loaded \(file) into \(store) in \(String(format: "%.2f", summary.seconds)) s (load \(summary.loadID ?? 0)).")
        }
        if summary.titleLines > 0 {
            lines.append("  lines before header    \(grouped(summary.titleLines)) skipped"
                + (summary.firstTitleLine.map { ", the first: \(SafeText.quoted($0))" } ?? ""))
        }
        lines.append("  records read           \(grouped(summary.records))")
        for source in summary.sources {
            // Each sheet of a workbook, member of an archive or file of features, and what it gave.
            if let skipped = source.skipped {
                lines.append("    \(source.title): \(grouped(source.records)) rows, not loaded: \(skipped)")
                continue
            }
            lines.append("    \(source.title): \(grouped(source.records)) \(source.kind == "sheet" ? "rows" : "records"), \(grouped(source.wells)) wells, "
                + "\(grouped(source.rejected)) rejected" + (source.merged > 0 ? ", \(grouped(source.merged)) merged into the same wells listed before" : ""))
        }
        lines.append(dryRun ? "  would load             \(grouped(summary.inserted))" : "  inserted               \(grouped(summary.inserted))")
        if !dryRun { lines.append("  updated                \(grouped(summary.updated))") }
        lines.append("  rejected               \(grouped(summary.rejected))")
        if let release = summary.release {
            let r = release.summary
            if r.reloaded {
                lines.append("  release                \(release.number) of \(release.source), loaded again: no change")
            } else if release.number == 1 {
                lines.append("  release                1 of \(release.source): \(grouped(r.wells)) wells")
            } else {
                lines.append("  release                \(release.number) of \(release.source): \(grouped(r.wells)) wells; new \(grouped(r.new)), gone \(grouped(r.gone)), "
                             + "back \(grouped(r.back)), changed \(grouped(r.changed)), moved \(grouped(r.moved)) (wells changes lists them)")
            }
            for note in r.notes { lines.append("    \(note)") }
        }
        for (reason, n) in summary.rejectReasons.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            lines.append("    \(reason.padding(toLength: 28, withPad: " ", startingAt: 0)) \(grouped(n))")
        }
        if !summary.landed.isEmpty {
            lines.append("  landed                 " + summary.landed.prefix(3).map(\.description).joined(separator: ", ")
                + (summary.landed.count > 3 ? ", …" : ""))
        }
        if !summary.suspects.isEmpty {
            let reasons = summary.suspectReasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            lines.append("  suspect coordinates    \(grouped(summary.suspects.count)) (\(dryRun ? "would load" : "loaded") and flagged; --reject-suspects rejects them)")
            for (reason, n) in reasons { lines.append("    \(reason.padding(toLength: 28, withPad: " ", startingAt: 0)) \(grouped(n))") }
            for suspect in summary.suspects.prefix(5) {
                lines.append("    line \(suspect.line) \(suspect.identifier): \(suspect.reason); \(suspect.detail)")
            }
        }
        if let notKey = summary.identifierNotKey {
            lines.append("  identifier             \"\(notKey.column)\" is NOT A KEY: \(grouped(notKey.distinct)) distinct values over \(grouped(notKey.rows)) rows")
            if summary.duplicates > 0 {
                lines.append("  duplicate wells        \(grouped(summary.duplicates)) (the same \(notKey.column) at the same place as an earlier row)")
            }
            lines.append("  generated identifiers  \(grouped(summary.generatedIdentifiers)) (FILE@TAG:LINE, since \"\(notKey.column)\" is not a key)")
        } else {
            if summary.duplicates > 0 {
                lines.append("  duplicate identifiers  \(grouped(summary.duplicates)) (rows rejected so that one row per identifier loads)")
            }
            if summary.generatedIdentifiers > 0 {
                lines.append("  generated identifiers  \(grouped(summary.generatedIdentifiers)) (rows without one got FILE@TAG:LINE)")
            }
        }
        if summary.badValues > 0 {
            let fields = summary.badValuesByField.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("  bad values kept as text \(grouped(summary.badValues)) (\(fields)); in details.extra")
        }
        if !summary.dateColumns.isEmpty {
            lines.append("  date columns")
            for column in summary.dateColumns { lines.append("    \(column)") }
        }
        if summary.crs != "EPSG:4326" || !summary.transformations.isEmpty {
            lines.append("  coordinates            \(summary.crs)")
            for transformation in summary.transformations { lines.append("    \(transformation)") }
        }
        if !summary.units.isEmpty {
            lines.append("  units                  " + summary.units.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + " in the source; stored in metres")
        }
        for warning in summary.warnings { lines.append("warning: \(warning)") }
        if !summary.suspects.isEmpty && !dryRun {
            lines.append("Suspect wells: " + shellQuery("SELECT line, reason, detail FROM suspects WHERE load_id = \(summary.loadID ?? 0)"))
        }
        if summary.rejected > 0 && !dryRun {
            lines.append("Rejected rows: " + shellQuery("SELECT line, \\\"column\\\", reason FROM rejects WHERE load_id = \(summary.loadID ?? 0)"))
        }
        return lines.joined(separator: "\n")
    }

    /// The shell command that runs `sql` (already quoted for double quotes) on the store.
    private func shellQuery(_ sql: String) -> String {
        postgreSQL ? "psql \(store) -c \"\(sql)\"" : "sqlite3 \(store) \"\(sql)\""
    }
}
