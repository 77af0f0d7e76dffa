import Foundation
import GRDB

/// One loaded batch and when it was last used.
struct CachedBatch<Element: Sendable>: Sendable {
    var ids: [Int64]
    /// The rows, in id order; nil for a row deleted since the fetch.
    var objects: [Element?]
    var lastUse: UInt64
}

extension BatchedResults {
    /// The row at `indexPath`, loading its whole batch with one query if it is not cached.
    ///
    /// For example:
    ///
    /// ```swift
    /// let well = try results.object(at: ResultsIndexPath(section: 2, item: 14))
    /// ```
    ///
    /// - Throws: ``QueryError/Code/indexPathOutOfRange`` when the index path is out of range or
    ///   nothing was fetched; ``StoreError/Code/notFound`` when the row was deleted since the
    ///   last fetch (``refresh(isolation:)`` then reports it).
    public func object(at indexPath: ResultsIndexPath) throws -> Element {
        try withLock { state in
            let current = try fetched(state.current)
            let offset = try offset(of: indexPath, in: current)
            guard let object = try batch(containing: offset, in: current, &state)[offset % batchSize] else {
                throw StoreError(.notFound, "well \(current.ids[offset]) was deleted after the fetch; call refresh() or checkForChanges()")
            }
            return object
        }
    }

    /// The rows of the batch holding the row at `offset`, from the cache or with one query; nil for
    /// a row deleted since the fetch, so that the rest of its batch still loads.
    func batch(containing offset: Int, in snapshot: ResultsSnapshot, _ state: inout State) throws -> [Element?] {
        let index = offset / batchSize
        state.tick += 1
        if let hit = state.cache[index] {
            state.cache[index]?.lastUse = state.tick
            return hit.objects
        }
        let ids = Array(snapshot.ids[index * batchSize ..< min(snapshot.ids.count, (index + 1) * batchSize)])
        if !ids.isEmpty { state.statementCount += 1 }
        let loaded = try store.engine.load(ids, as: Element.self)
        let objects = ids.map { loaded[$0] }
        if state.cache.count >= maxCachedBatches, let oldest = state.cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            state.cache[oldest] = nil
        }
        state.cache[index] = CachedBatch(ids: ids, objects: objects, lastUse: state.tick)
        return objects
    }

    /// The id query: `p.id` and the section key in sort order (see ``QueryCompiler/ids(_:sectionKey:)``).
    func idQuery() throws -> CompiledFetch {
        try QueryCompiler.sqlite.ids(request, sectionKey: sectionKey)
    }
}
