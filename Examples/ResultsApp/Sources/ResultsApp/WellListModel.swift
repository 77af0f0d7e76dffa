import WellKit

/// A view model on the main actor, driven by a ``BatchedResults`` with sections by status: what a
/// list screen holds. Every callback checks, in release builds too, that it runs on the main actor.
@MainActor
final class WellListModel: BatchedResultsDelegate {
    let results: BatchedResults<WellPin>
    /// What the screen shows: each section's name and row count.
    private(set) var sections: [(name: String, count: Int)] = []
    private(set) var inserted = 0, deleted = 0, updated = 0, sectionsInserted = 0
    private(set) var callbacks = 0
    private var changing = false

    init(store: WellStore) throws {
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        results = try BatchedResults(store: store, request: request, sectionKey: .status)
        results.delegate = self
        try results.performFetch()
        show()
    }

    var rowCount: Int { sections.reduce(0) { $0 + $1.count } }

    /// The first row of each section, as a list shows it on screen.
    func visibleNames() throws -> [String] {
        try results.sections.indices.map { try results.object(at: ResultsIndexPath(section: $0, item: 0)).name ?? "" }
    }

    func resultsWillChange<E>(_ results: BatchedResults<E>) {
        MainActor.preconditionIsolated("a BatchedResultsDelegate callback ran off the main actor")
        callbacks += 1
        changing = true
    }

    func results<E>(_ results: BatchedResults<E>, didChange section: ResultsSection, atSectionIndex index: Int, for type: ChangeType) {
        MainActor.preconditionIsolated("a BatchedResultsDelegate callback ran off the main actor")
        callbacks += 1
        if type == .insert { sectionsInserted += 1 }
    }

    func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                    for type: ChangeType, newIndexPath: ResultsIndexPath?) {
        MainActor.preconditionIsolated("a BatchedResultsDelegate callback ran off the main actor")
        precondition(changing, "a row change outside resultsWillChange/resultsDidChange")
        callbacks += 1
        switch type {
        case .insert: inserted += 1
        case .delete: deleted += 1
        case .update: updated += 1
        case .move: break
        }
    }

    func resultsDidChange<E>(_ results: BatchedResults<E>) {
        MainActor.preconditionIsolated("a BatchedResultsDelegate callback ran off the main actor")
        callbacks += 1
        changing = false
        show()
    }

    private func show() {
        sections = results.sections.map { ($0.name ?? "(none)", $0.count) }
    }
}
