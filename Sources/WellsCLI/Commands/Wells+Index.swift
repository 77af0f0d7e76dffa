import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Create the index that lets `wells list` read a sort in order instead of sorting every well.",
            discussion: """
                `wells list` only reads the store; when no index serves its sort it says so and prints this \
                command. An index is on detail fields only (pins sorts need none), costs about 0.3 s to build \
                on 244,292 wells, and later loads keep it up to date.

                Example:
                  wells index --sort detail.spud_date:desc --section status --db wells.sqlite
                """)

        @Option(help: ArgumentHelp("A field to sort by, with :asc or :desc, such as detail.spud_date:desc; repeat for more.", valueName: "field[:desc]"))
        var sort: [String] = []

        @Option(help: ArgumentHelp("The field `wells list --section` groups by, which sorts first.", valueName: "field"))
        var section: String?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if sort.isEmpty && section == nil { throw ValidationError("give the sort to index with --sort, such as --sort detail.spud_date:desc") }
            let sorts = try sortDescriptors()
            guard WellStore.sortCanUseIndex(sorts) else {
                let extras = sorts.filter { $0.field.field == nil }.map(\.field.name)
                if !extras.isEmpty {
                    throw ValidationError("no index can serve '\(extras.joined(separator: ","))': extra columns are keys of each well's JSON object, not columns; index detail fields only")
                }
                let pins = sorts.filter { $0.field.table == .pins }.map(\.field.name)
                throw ValidationError("no index is needed for '\(pins.joined(separator: ","))': pins fields sort on the narrow pins table; index detail fields only")
            }
        }

        /// The sort as `wells list` runs it: the section key first, keeping a direction the sorts give it.
        func sortDescriptors() throws -> [WellSortDescriptor] {
            var sorts = try sort.flatMap { $0.split(separator: ",") }.map { try WellSortDescriptor(parsing: String($0)) }
            if let section {
                let key = WellAttribute(try WellField(keyPath: section))
                let given = sorts.first { $0.field == key }
                sorts.removeAll { $0.field == key }
                sorts.insert(given ?? WellSortDescriptor(key), at: 0)
            }
            return sorts
        }

        func run() throws {
            do {
                let opened = try store.open(.existing)
                if let name = try opened.ensureSortIndex(try sortDescriptors()) { print(name) }
            } catch {
                throw Terminal.failSafely(error)
            }
        }
    }
}
