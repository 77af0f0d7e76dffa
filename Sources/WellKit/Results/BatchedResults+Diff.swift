import Foundation
import GRDB

/// Receives the changes ``BatchedResults`` finds, on the main actor, like the delegate of an
/// `NSFetchedResultsController` on a main-queue context.
///
/// For example:
///
/// ```swift
/// @MainActor final class Printer: BatchedResultsDelegate {
///     func results<E>(_ results: BatchedResults<E>, didChange id: Int64, at indexPath: ResultsIndexPath?,
///                     for type: ChangeType, newIndexPath: ResultsIndexPath?) { print(type, id) }
/// }
/// results.delegate = printer
/// ```
///
/// Every method has an empty default. Messages come in ``ResultsDiff`` order between
/// `resultsWillChange` and `resultsDidChange`, only when something changed, and always on the main
/// actor, whoever found the change: a ``BatchedResults/refresh(isolation:)`` on the main actor tells the
/// delegate before it returns; the observation, or a refresh on another thread, finds the change
/// there and hands it to the main actor, where the controller takes it in and tells the delegate at
/// once. So the controller shows the results a message describes: the new ones from
/// `resultsWillChange` on, never a later change's. Its lock is not held, so the delegate may call
/// back into it.
@MainActor
public protocol BatchedResultsDelegate: AnyObject, Sendable {
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

@MainActor
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
    /// batch, and dropped otherwise.
    ///
    /// Called on the main actor, or with no delegate set, the controller shows the new results when
    /// this returns, and the delegate has heard of them (after the lock is released; when another
    /// call is already delivering changes, as when the delegate calls `refresh()` from a callback,
    /// that call delivers these next, in order). Called on another thread while a delegate is set,
    /// it returns the diff at once, and the controller takes the new results in on the main actor,
    /// telling the delegate there: what the main actor reads of the controller always matches what
    /// its delegate has heard.
    ///
    /// - Complexity: O(n) with few changes. Myers' `CollectionDifference` runs on the ids left
    ///   after trimming the common prefix and suffix while they are at most 2,048; beyond that,
    ///   an O(n log n) longest-increasing-subsequence pass finds the same kind of result.
    ///
    /// - Parameter isolation: the caller's actor, which the compiler passes (`#isolation`): a call
    ///   on the main actor takes the new results in and tells the delegate before it returns.
    public func refresh(isolation: isolated (any Actor)? = #isolation) throws -> ResultsDiff? {
        let onMainActor = Self.isMainActor(isolation)
        let diff = try withLock { try refresh(locked: &$0, onMainActor: onMainActor) }
        deliverOutbox(onMainActor: onMainActor)
        return diff
    }

    /// Whether `isolation` is the main actor. Decided by the caller's static isolation, not by the
    /// thread: on Linux (Swift 6.3) the main actor's jobs need not run on the main thread, nor on
    /// the main dispatch queue, once the process has handed its main thread to the runtime, as
    /// `swift test` does.
    static func isMainActor(_ isolation: (any Actor)?) -> Bool {
        isolation === MainActor.shared
    }

    /// ``refresh(isolation:)`` with the lock held: a non-empty diff goes to the outbox, with `onChange`,
    /// for ``deliverOutbox(onMainActor:)`` to send once the lock is released.
    ///
    /// Off the main actor while a delegate is set, or while earlier results wait, the new results
    /// are not taken in here: they wait in `pending`, diffed against the last pending results, and
    /// the main actor takes each in as it tells the delegate of it (``deliverOutbox(onMainActor:)``).
    func refresh(locked state: inout State, onChange: (@Sendable (ResultsDiff) -> Void)? = nil,
                 onMainActor: Bool) throws -> ResultsDiff? {
        guard state.current != nil else {
            try performFetch(locked: &state)
            return nil
        }
        let deferred = !state.pending.isEmpty || (!onMainActor && state.delegate.object != nil)
        guard let old = state.pending.last?.snapshot ?? state.current else { return nil }
        let baselineVersion = try changeMonitor(&state).version()
        state.baselineVersion = baselineVersion
        let cachedIDs = state.cache.values.flatMap(\.ids)
        state.statementCount += cachedIDs.isEmpty ? 1 : 2
        let (new, reloaded) = try store.engine.snapshot(request, sectionKey: sectionKey, reloading: cachedIDs, as: Element.self)
        var updated = Set<Int64>()
        let reported = state.pending.last?.reloaded ?? [:]
        for batch in state.cache.values {
            for (id, cached) in zip(batch.ids, batch.objects) {
                // Compared with the value last reported: a pending refresh's reload, else the cached row.
                guard let known = reported[id] ?? cached, let now = reloaded[id], now != known else { continue }
                updated.insert(id)
            }
        }
        let changes = IDDiff(old: old, new: new, limit: state.collectionDifferenceLimit)
        let diff = changes.resultsDiff(updated: updated)
        if let cacheName, let monitor = state.monitor {
            NamedSnapshots.save(cacheName, store: store.path, request: request, sectionKey: sectionKey,
                                monitor: monitor.generation, version: baselineVersion, snapshot: new)
        }
        let delivery = Delivery(diff: diff, onChange: onChange)
        if deferred {
            guard !diff.isEmpty else { return nil }
            state.pending.append(PendingRefresh(snapshot: new, reloaded: reloaded, delivery: delivery))
            if !onMainActor { hopToTheMainActor() }
            return diff
        }
        state.current = new
        state.cache = rebuiltCache(from: state.cache, reloaded: reloaded, new: new)
        guard !diff.isEmpty else { return nil }
        state.outbox.append(delivery)
        return diff
    }

    /// Has the main actor deliver what waits. Each hop delivers everything waiting, so one hop too
    /// many costs a lock, and hops may run in any order.
    func hopToTheMainActor() {
        Task { @MainActor [weak self] in self?.deliverOutbox(onMainActor: true) }
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

    /// Sends the outbox, then the pending results, to the delegate (on the main actor), the
    /// `onChange` handlers and the consumers of ``changes``, oldest diff first, without holding the
    /// lock, so that they may call back into the controller.
    ///
    /// The outbox holds diffs whose results the controller already shows; pending results, found
    /// off the main actor while a delegate listens, come after them, and only the main actor takes
    /// them in: one at a time, each just before its diff is sent, so that the delegate reads the
    /// results each message describes. Off the main actor, the sending stops at the first pending
    /// results and hands the rest to the main actor.
    ///
    /// One call at a time sends: a call that finds another sending (on another thread, or the
    /// delegate's own call back into the controller) returns at once, and the sending call
    /// sends its diffs too, in order.
    ///
    /// - Parameter onMainActor: whether the caller is isolated to the main actor, as its static
    ///   isolation says (``isMainActor(_:)``); the runtime checks it again before the delegate runs.
    func deliverOutbox(onMainActor: Bool) {
        guard withLock({ state in
            guard !state.delivering, !state.outbox.isEmpty || (onMainActor && !state.pending.isEmpty) else { return false }
            state.delivering = true
            return true
        }) else { return }
        var handOver = false
        while let (delivery, delegate, consumers) = withLock({ state -> (Delivery, DelegateReference, [AsyncStream<ResultsDiff>.Continuation])? in
            let next: Delivery
            if !state.outbox.isEmpty {
                // With a delegate, every diff goes out on the main actor, to the delegate and the
                // consumers together: one told off it, and the other later by a hop, heard them in
                // different orders when the main actor delivered a later diff meanwhile.
                if !onMainActor, state.delegate.object != nil {
                    handOver = true
                    state.delivering = false
                    return nil
                }
                next = state.outbox.removeFirst()
            } else if onMainActor, !state.pending.isEmpty {
                let pending = state.pending.removeFirst()
                state.current = pending.snapshot
                state.cache = rebuiltCache(from: state.cache, reloaded: pending.reloaded, new: pending.snapshot)
                next = pending.delivery
            } else {
                handOver = !state.pending.isEmpty
                state.delivering = false
                return nil
            }
            return (next, state.delegate, state.consumers.sorted { $0.key < $1.key }.map(\.value))
        }) {
            // Off the main actor there is no delegate (see above).
            if onMainActor, let delegate = delegate.object {
                MainActor.assumeIsolated { notify(delegate, of: delivery.diff) }
            }
            delivery.onChange?(delivery.diff)
            for consumer in consumers { consumer.yield(delivery.diff) }
        }
        if handOver { hopToTheMainActor() }
    }

    /// Tells the delegate, in ``ResultsDiff`` order.
    @MainActor
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
