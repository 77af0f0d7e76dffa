import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Optimize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "optimize",
            abstract: "Restore the pins' spatial order after incremental loads, and repack the spatial index.",
            discussion: """
                Pins are renumbered along a Hilbert curve so that nearby wells share pages again; their ids change.
                A store made by an earlier version of wells (schema version 2 or 3) is first upgraded to this version's \
                layout, in the same way as by any command that writes (such as a load); read-only commands refuse \
                such a store until then.

                Example:
                  wells optimize --db wells.sqlite
                """)

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let summary = try store.open(.existing).optimize()
            print(String(format: "Renumbered %d of %d pins in %.2f s; out-of-order neighbours %.1f%% → %.1f%%.",
                         summary.renumbered, summary.pins, summary.seconds, summary.disorderBefore * 100, summary.disorderAfter * 100))
        }
    }
}
