import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Optimize: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "optimize",
            abstract: "Restore the pins' spatial order after incremental loads, and repack the spatial index.",
            discussion: """
                Pins are renumbered along a Hilbert curve so that nearby wells share pages again; their ids change.
                A store made by an earlier version of wells (schema version 2, 3 or 4) is first upgraded to this version's \
                layout, in the same way as by any command that writes (such as a load); read-only commands refuse \
                such a store until then. The upgrade leaves the old tables' pages free in the file, for later loads: \
                --vacuum gives them back to the disk.

                Examples:
                  wells optimize --db wells.sqlite
                  wells optimize --vacuum --db wells.sqlite
                """)

        @OptionGroup var store: StoreOptions

        @Flag(help: "Then rebuild the store file with SQLite's VACUUM, giving its free pages back to the disk (needs free space as large as the store).")
        var vacuum = false

        func run() throws {
            let summary = try store.open(.existing).optimize(vacuum: vacuum)
            print(String(format: "Renumbered %d of %d pins in %.2f s; out-of-order neighbours %.1f%% → %.1f%%.",
                         summary.renumbered, summary.pins, summary.seconds, summary.disorderBefore * 100, summary.disorderAfter * 100))
            if let before = summary.bytesBeforeVacuum, let after = summary.bytesAfterVacuum {
                print(String(format: "Vacuumed: %.1f MB → %.1f MB.", Double(before) / 1e6, Double(after) / 1e6))
            }
        }
    }
}
