import ArgumentParser
import WellKit

extension Wells {
    struct Find: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "find",
            abstract: "Print the wells that match conditions, sorted, like a Core Data fetch request.",
            discussion: """
                Conditions use the fields of `wells show` and the operators = != < <= > >= contains beginswith \
                endswith between in and is null; [c] and [d] make text comparisons case- and diacritic-insensitive.

                Examples:
                  wells find --where 'status = Abandoned' --where 'operator contains[cd] "acme"' --sort detail.spud_date:desc --limit 50
                  wells find --where 'total_depth between 1000 and 2000 or status in (Flowing, Pumping)' --format csv
                """)

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        func run() throws {
            try QueryRunner.run(store: try store.open(.readOnly), request: try query.request(), options: query)
        }
    }
}
