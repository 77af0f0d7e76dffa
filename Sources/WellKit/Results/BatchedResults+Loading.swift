import Foundation
import GRDB

/// One loaded batch and when it was last used.
struct CachedBatch<Element> {
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
    ///   last fetch (``refresh()`` then reports it).
    public func object(at indexPath: ResultsIndexPath) throws -> Element {
        try withLock {
            let current = try fetched()
            let offset = try offset(of: indexPath, in: current)
            guard let object = try batch(containing: offset, in: current)[offset % batchSize] else {
                throw StoreError(.notFound, "well \(current.ids[offset]) was deleted after the fetch; call refresh() or checkForChanges()")
            }
            return object
        }
    }

    /// The rows of the batch holding the row at `offset`, from the cache or with one query; nil for
    /// a row deleted since the fetch, so that the rest of its batch still loads.
    func batch(containing offset: Int, in snapshot: ResultsSnapshot) throws -> [Element?] {
        let index = offset / batchSize
        tick += 1
        if let hit = cache[index] {
            cache[index]?.lastUse = tick
            return hit.objects
        }
        let ids = Array(snapshot.ids[index * batchSize ..< min(snapshot.ids.count, (index + 1) * batchSize)])
        let clock = ContinuousClock.now
        let loaded = try store.pool.read { try load(ids, $0) }
        store.engine.reportFetch(since: clock, count: loaded.count)
        let objects = ids.map { loaded[$0] }
        if cache.count >= maxCachedBatches, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            cache[oldest] = nil
        }
        cache[index] = CachedBatch(ids: ids, objects: objects, lastUse: tick)
        return objects
    }

    /// Loads the rows of `ids` with one query, by id; deleted ids are absent from the result.
    func load(_ ids: [Int64], _ db: Database) throws -> [Int64: Element] {
        guard !ids.isEmpty else { return [:] }
        statementCount += 1
        return try store.engine.load(ids, as: Element.self, db)
    }

    /// The id query: `p.id` and the section key in sort order (see ``QueryCompiler/ids(_:sectionKey:)``).
    func idQuery() throws -> CompiledFetch {
        try QueryCompiler.sqlite.ids(request, sectionKey: sectionKey)
    }

    /// Runs the id query (see ``SQLiteEngine/snapshot(_:sectionKey:_:)``).
    func fetchSnapshot(_ db: Database) throws -> ResultsSnapshot {
        statementCount += 1
        return try store.engine.snapshot(request, sectionKey: sectionKey, db)
    }
}
