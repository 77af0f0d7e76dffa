import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a store for damage: SQLite's integrity check (amcheck on PostgreSQL) and WellKit's own invariants.",
            discussion: """
                Reads only. Runs PRAGMA integrity_check (quick_check with --quick) on a store file, or amcheck on a \
                PostgreSQL store where the extension is installed, then WellKit's invariants: every pin has one detail, \
                one point (a POINT in EPSG:4326 at its coordinates, for GIS tools) and one spatial index entry whose box holds it, every detail's load is recorded, \
                each load keeps the rejected rows it counts, and in a store file every name code has its row in its lookup table, \
                every date is a day number and every extra value has its column's name in extra_keys. Damage in pages the store does not use (free pages) is beyond its reach.

                Exit status: 0 sound, 65 damaged (each finding is listed), other codes as for every command.
                A damaged file: copy what SQLite can read into a new one with `sqlite3 wells.sqlite .recover | sqlite3 recovered.sqlite`, \
                or load the source lists again into a new store.

                Examples:
                  wells check --db wells.sqlite
                  wells check --quick --format json
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case table, json
        }

        @OptionGroup var store: StoreOptions

        @Flag(help: "SQLite's quick_check rather than integrity_check: indexes are not compared with their tables (SQLite's own check in about half the time).")
        var quick = false

        @Option(help: "The report's format: table or json.")
        var format: Format = .table

        func run() throws {
            let report: StoreCheck
            do {
                report = try store.open(.readOnly).check(quick: quick)
            } catch let error as StoreError where error.code == .damaged {
                // Damage where the store's schema is: it cannot even be opened, which is this command's answer.
                Terminal.error("wells: error: \(Terminal.describe(error))")
                throw ExitCode(65)
            }
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                var json = String(decoding: try encoder.encode(report), as: UTF8.self)
                json.insert(contentsOf: "\n  \"sound\" : \(report.isSound),", at: json.index(after: json.startIndex))
                print(json)
            case .table:
                print("Checked \(StoreEngines.redacted(store.path)) in \(String(format: "%.2f", report.seconds)) s: \(report.checks.joined(separator: ", ")).")
                for skipped in report.skipped { print("Skipped \(Terminal.printable(skipped)).") }
                if report.isSound {
                    print("Sound: no check found anything wrong.")
                } else {
                    print("Damaged: \(report.findings.count) finding\(report.findings.count == 1 ? "" : "s").")
                    for finding in report.findings { print("  \(finding.check): \(Terminal.printable(finding.problem))") }
                    print("Copy what SQLite can read into a new file with `sqlite3 STORE .recover | sqlite3 NEW.sqlite`, or load the source lists again.")
                }
            }
            if !report.isSound { throw ExitCode(65) }
        }
    }
}
