import Foundation
import GRDB

/// Receives the changes ``BatchedResults`` finds, like `NSFetchedResultsControllerDelegate`.
///
/// For example:
///
/// ```swift
/// final class Printer: BatchedResultsDelegate {
///     func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
///                     for type: ChangeType, newIndexPath: ResultsIndexPath?) { print(type, id) }
/// }
/// results.delegate = printer
/// ```
///
/// Every method has an empty default. Messages come in ``ResultsDiff`` order between
/// `resultsWillChange` and `resultsDidChange`, only when something changed, on the thread
/// that called ``BatchedResults/refresh()``; the controller already shows the new results, and
/// its lock is not held, so the delegate may call back into it.
public protocol BatchedResultsDelegate: AnyObject {
    /// Changes are about to be reported.
    func resultsWillChange<E>(_ results: BatchedResults<E>)
    /// A row was inserted (`newIndexPath`), deleted (`indexPath`), moved or updated (both).
    func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                    for type: ChangeType, newIndexPath: ResultsIndexPath?)
    /// A section was inserted (at its new index) or deleted (at its old index).
    func results<E>(_ results: BatchedResults<E>, didChange section: ResultsSection, atSectionIndex index: Int, for type: ChangeType)
    /// All changes have been reported.
    func resultsDidChange<E>(_ results: BatchedResults<E>)
}

extension BatchedResultsDelegate {
    public func resultsWillChange<E>(_ results: BatchedResults<E>) {}
    public func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
                           for type: ChangeType, newIndexPath: ResultsIndexPath?) {}
    public func results<E>(_ results: BatchedResults<E>, didChange section: ResultsSection, atSectionIndex index: Int, for type: ChangeType) {}
    public func resultsDidChange<E>(_ results: BatchedResults<E>) {}
}

extension BatchedResults {
    /// Re-runs the id query and reports what changed since the last fetch, or nil if nothing did.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let diff = try results.refresh() { print(diff.rows(.insert).count, "new wells") }
    /// ```
    ///
    /// Inserts, deletes and moves come from the ordered ids and section keys. Updates come from
    /// the loaded rows: in the same read as the id query, the rows of the cached batches are
    /// loaded again (one more query) and compared; a row whose position did not change and whose
    /// value did is an update. Rows in no cached batch are not compared, since no view can be
    /// showing them, and load fresh when next touched; a changed row that moved is a move only.
    /// Cached batches are then rebuilt from the reloaded rows where they cover a whole new
    /// batch, and dropped otherwise. The delegate hears of the changes before this returns, after
    /// the lock is released; when another call is already delivering changes (another thread, or
    /// this delegate calling `refresh()` from a callback), that call delivers these next, in order.
    ///
    /// - Complexity: O(n) with few changes. Myers' `CollectionDifference` runs on the ids left
    ///   after trimming the common prefix and suffix while they are at most 2,048; beyond that,
    ///   an O(n log n) longest-increasing-subsequence pass finds the same kind of result.
    public func refresh() throws -> ResultsDiff? {
        let diff = try withLock { try refresh(locked: &$0) }
        deliverOutbox()
        return diff
    }

    /// ``refresh()`` with the lock held: a non-empty diff goes to the outbox, with `onChange`,
    /// for ``deliverOutbox()`` to send once the lock is released.
    func refresh(locked state: inout State, onChange: (@Sendable (ResultsDiff) -> Void)? = nil) throws -> ResultsDiff? {
        guard let old = state.current else {
            try performFetch(locked: &state)
            return nil
        }
        let baselineVersion = try changeMonitor(&state).version()
        state.baselineVersion = baselineVersion
        let oldCached = state.cache
        let cachedIDs = oldCached.values.flatMap(\.ids)
        state.statementCount += cachedIDs.isEmpty ? 1 : 2
        let (new, reloaded) = try store.engine.snapshot(request, sectionKey: sectionKey, reloading: cachedIDs, as: Element.self)
        var updated = Set<Int64>()
        for batch in oldCached.values {
            for (id, object) in zip(batch.ids, batch.objects) where object != nil && reloaded[id].map({ $0 != object }) == true {
                updated.insert(id)
            }
        }
        let changes = IDDiff(old: old, new: new, limit: state.collectionDifferenceLimit)
        let diff = changes.resultsDiff(updated: updated)
        state.current = new
        state.cache = rebuiltCache(from: oldCached, reloaded: reloaded, new: new)
        if let cacheName, let monitor = state.monitor {
            NamedSnapshots.save(cacheName, store: store.path, request: request, sectionKey: sectionKey,
                                monitor: monitor.generation, version: baselineVersion, snapshot: new)
        }
        guard !diff.isEmpty else { return nil }
        state.outbox.append(Delivery(diff: diff, onChange: onChange))
        return diff
    }

    /// Keeps the new batches that the reloaded rows fully cover, most recently used first.
    private func rebuiltCache(from old: [Int: CachedBatch<Element>], reloaded: [Int64: Element],
                              new: ResultsSnapshot) -> [Int: CachedBatch<Element>] {
        var cache: [Int: CachedBatch<Element>] = [:]
        guard !reloaded.isEmpty else { return cache }
        var lastUse: [Int64: UInt64] = [:]
        for batch in old.values { for id in batch.ids { lastUse[id] = batch.lastUse } }
        var candidates: [Int: UInt64] = [:]
        for (offset, id) in new.ids.enumerated() where reloaded[id] != nil {
            candidates[offset / batchSize] = max(candidates[offset / batchSize] ?? 0, lastUse[id] ?? 0)
        }
        for (index, use) in candidates.sorted(by: { $0.value > $1.value }).prefix(maxCachedBatches) {
            let ids = Array(new.ids[index * batchSize ..< min(new.ids.count, (index + 1) * batchSize)])
            let objects = ids.map { reloaded[$0] }
            if !objects.contains(where: { $0 == nil }) { cache[index] = CachedBatch(ids: ids, objects: objects, lastUse: use) }
        }
        return cache
    }

    /// Sends the outbox to the delegate, the `onChange` handlers and the consumers of ``changes``,
    /// oldest diff first, without holding the lock, so that they may call back into the controller.
    ///
    /// One call at a time sends: a call that finds another sending (on another thread, or the
    /// delegate's own call back into the controller) returns at once, and the sending call
    /// sends its diffs too, in order.
    func deliverOutbox() {
        guard withLock({ state in
            guard !state.delivering, !state.outbox.isEmpty else { return false }
            state.delivering = true
            return true
        }) else { return }
        while let (delivery, delegate, consumers) = withLock({ state -> (Delivery, DelegateReference, [AsyncStream<ResultsDiff>.Continuation])? in
            guard !state.outbox.isEmpty else {
                state.delivering = false
                return nil
            }
            return (state.outbox.removeFirst(), state.delegate, state.consumers.sorted { $0.key < $1.key }.map(\.value))
        }) {
            if let delegate = delegate.object { notify(delegate, of: delivery.diff) }
            delivery.onChange?(delivery.diff)
            for consumer in consumers { consumer.yield(delivery.diff) }
        }
    }

    /// Tells the delegate, in ``ResultsDiff`` order.
    private func notify(_ delegate: any BatchedResultsDelegate, of diff: ResultsDiff) {
        delegate.resultsWillChange(self)
        for change in diff.sectionChanges {
            delegate.results(self, didChange: change.section, atSectionIndex: change.index, for: change.type)
        }
        for change in diff.rowChanges {
            delegate.results(self, didChange: change.id, at: change.indexPath, for: change.type, newIndexPath: change.newIndexPath)
        }
        delegate.resultsDidChange(self)
    }
}
