import Foundation
import GRDB
import Synchronization

/// Sectioned, sorted fetch results that keep only ids and load rows a batch at a time:
/// `NSFetchedResultsController` for WellKit on Linux.
///
/// For example:
///
/// ```swift
/// var request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.spudDate, ascending: false)])
/// let results = try BatchedResults<WellSummary>(store: store, request: request, sectionKey: .status)
/// try results.performFetch()                                   // 1 query: ids and statuses
/// print(results.numberOfSections, results.fetchedCount)
/// let row = try results.object(at: ResultsIndexPath(section: 0, item: 0))   // 1 query: its batch
/// ```
///
/// ``performFetch()`` runs one query for `p.id` (and the section key) in sort order and
/// keeps the ids as `[Int64]` with section boundaries: one `Int64` per well. ``object(at:)``
/// loads the whole batch holding the row with one query and keeps at most
/// `maxCachedBatches` batches, least recently used first out. ``refresh(isolation:)`` and
/// ``checkForChanges(isolation:)`` report what changed as a ``ResultsDiff``, to the ``delegate`` and to the
/// consumers of ``changes``, an `AsyncSequence` of the same diffs.
///
/// Thread safety: the controller's state lives in one `Mutex`, and each method holds it for
/// its whole duration, its queries included, so that a controller's queries and its state
/// updates never interleave. Delegate messages, `onChange` and the diffs of ``changes`` are sent
/// after the lock is released, in the order the changes were found, so that they may call back
/// into the controller. The delegate is on the main actor, and hears every change there (see
/// ``BatchedResultsDelegate``); `onChange` runs where the change is delivered (the thread that
/// found it, or the main actor while a delegate is set); ``changes`` is consumed wherever its
/// consumer runs.
public final class BatchedResults<Element: BatchLoadable>: Sendable {
    /// The store read from.
    public let store: WellStore
    /// The request, its sort descriptors starting with the section key when there is one.
    public let request: WellFetchRequest
    /// The rows per batch, the unit of loading and caching.
    public let batchSize: Int
    /// The field whose value groups rows into sections, or nil for one section.
    public let sectionKey: WellField?
    /// The name of a snapshot shared by controllers in this process; see ``performFetch()``.
    public let cacheName: String?
    /// The most batches kept loaded.
    public let maxCachedBatches: Int

    /// What the controller knows and holds, guarded by ``state``.
    struct State: Sendable {
        var current: ResultsSnapshot?
        var cache: [Int: CachedBatch<Element>] = [:]
        var tick: UInt64 = 0
        var statementCount = 0
        var baselineVersion: Int64?
        var monitor: ChangeMonitor?
        var observation: Observation?
        var observationGeneration: UInt64 = 0
        var delegate = DelegateReference()
        /// Diffs found but not yet sent to the delegate and `onChange`, oldest first.
        var outbox: [Delivery] = []
        /// Results found off the main actor while a delegate listens, for the main actor to take in, oldest first.
        var pending: [PendingRefresh<Element>] = []
        /// Whether the observation was started by the first consumer of ``changes`` (and stops with the last).
        var observationForConsumers = false
        /// Whether a call is sending the outbox; it sends what others add meanwhile.
        var delivering = false
        /// The consumers of ``changes``, by the order they started in.
        var consumers: [UInt64: AsyncStream<ResultsDiff>.Continuation] = [:]
        var nextConsumer: UInt64 = 0
        /// Above this many differing ids (after trimming the common prefix and suffix) the diff
        /// uses an O(n log n) longest-increasing-subsequence pass instead of Myers' `CollectionDifference`.
        var collectionDifferenceLimit = 2_048
    }

    /// The one lock: held for a whole method, queries included, and never while the delegate
    /// or an `onChange` handler runs. It is not recursive: methods call the `locked` helpers.
    let state = Mutex(State())

    /// Creates a controller; nothing is fetched until ``performFetch()``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.spudDate, ascending: false)])
    /// let results = try BatchedResults<Well>(store: store, request: request, batchSize: 50, sectionKey: .status)
    /// print(results.request.sortDescriptors.map(\.field))   // [status, spudDate]
    /// ```
    ///
    /// With a `sectionKey`, the first sort descriptor must sort by it, as Core Data requires;
    /// if it does not, the key is moved first (keeping a direction the request gave it) or
    /// inserted first, ascending. ``request`` shows the sorts actually used.
    ///
    /// - Throws: ``QueryError`` when the request has no sort descriptors
    ///   (batches are ranges of a stable order), or `batchSize` or `maxCachedBatches` is below 1.
    public init(store: WellStore, request: WellFetchRequest, batchSize: Int = 20, sectionKey: WellField? = nil,
                cacheName: String? = nil, maxCachedBatches: Int = 8) throws {
        guard !request.sortDescriptors.isEmpty else {
            throw QueryError(.unsortedRequest, "BatchedResults needs a sorted request, because batches are ranges of a stable order",
                             remedy: .addSortDescriptor(.id))
        }
        guard batchSize >= 1 else { throw QueryError(.outOfRange, "batch size \(batchSize) must be 1 or more", subject: .batchSize) }
        guard maxCachedBatches >= 1 else { throw QueryError(.outOfRange, "maxCachedBatches \(maxCachedBatches) must be 1 or more", subject: .cacheSize) }
        var request = request
        if let sectionKey, request.sortDescriptors[0].field.field != sectionKey {
            let given = request.sortDescriptors.first { $0.field.field == sectionKey }
            request.sortDescriptors.removeAll { $0.field.field == sectionKey }
            request.sortDescriptors.insert(given ?? WellSortDescriptor(WellAttribute(sectionKey)), at: 0)
        }
        self.store = store
        self.request = request
        self.batchSize = batchSize
        self.sectionKey = sectionKey
        self.cacheName = cacheName
        self.maxCachedBatches = maxCachedBatches
    }

    deinit {
        state.withLock { $0.observation?.stop() }
        finishChanges()
    }

    /// Runs `body` holding the controller's lock; `body` must not call a method that takes it.
    ///
    /// The lock is told to the thread sanitizer (``ThreadSanitizer``): the controller is taken by
    /// the observation's queue and the main actor in turn.
    func withLock<T: Sendable, E: Error>(_ body: (inout State) throws(E) -> T) throws(E) -> T {
        try state.withLock { (state: inout State) throws(E) -> T in
            try ThreadSanitizer.holding(self) { () throws(E) -> T in try body(&state) }
        }
    }

    /// Receives change notifications; held weakly.
    public var delegate: (any BatchedResultsDelegate)? {
        get { withLock { $0.delegate }.object }
        set { withLock { $0.delegate = DelegateReference(object: newValue) } }
    }

    /// Above this many differing ids the diff uses the longest-increasing-subsequence pass.
    var collectionDifferenceLimit: Int {
        get { withLock { $0.collectionDifferenceLimit } }
        set { withLock { $0.collectionDifferenceLimit = newValue } }
    }

    // MARK: - Fetching

    /// Fetches the ids and section boundaries with one query, and empties the batch cache.
    ///
    /// For example:
    ///
    /// ```swift
    /// try results.performFetch()
    /// for section in results.sections { print(section.name ?? "(none)", section.count) }
    /// ```
    ///
    /// With a ``cacheName``, a snapshot taken by another controller of this process with the same
    /// name, store file, request and section key is reused without a query when the store has not
    /// changed since (its `PRAGMA data_version` is the same); see ``deleteCache(named:)``.
    public func performFetch() throws {
        try withLock { try performFetch(locked: &$0) }
    }

    /// ``performFetch()`` with the lock held.
    func performFetch(locked state: inout State) throws {
        let monitor = try changeMonitor(&state)
        let version = try monitor.version()
        if let cacheName, let shared = NamedSnapshots.lookup(cacheName, store: store.path, request: request,
                                                              sectionKey: sectionKey, monitor: monitor.generation, version: version) {
            state.current = shared
        } else {
            state.statementCount += 1
            let current = try store.engine.snapshot(request, sectionKey: sectionKey)
            state.current = current
            if let cacheName {
                NamedSnapshots.save(cacheName, store: store.path, request: request, sectionKey: sectionKey,
                                    monitor: monitor.generation, version: version, snapshot: current)
            }
        }
        state.baselineVersion = version
        state.cache.removeAll()
        // Changes found before are part of the new results: no one hears of them.
        state.pending.removeAll()
    }

    /// The last fetched ids and sections, or nil before ``performFetch()``.
    public var snapshot: ResultsSnapshot? { withLock { $0.current } }

    /// The number of fetched rows.
    public var fetchedCount: Int { withLock { $0.current?.ids.count ?? 0 } }

    /// The sections: name, offset, count and index title. Unsectioned results have one.
    public var sections: [ResultsSection] { withLock { $0.current?.sections ?? [] } }

    /// The number of sections; 0 before ``performFetch()``.
    public var numberOfSections: Int { withLock { $0.current?.sections.count ?? 0 } }

    /// The number of rows in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        withLock { $0.current?.sections[section].count ?? 0 }
    }

    /// The section index titles: each section's ``ResultsSection/indexTitle``, first occurrences only.
    public var sectionIndexTitles: [String] {
        let sections = withLock { $0.current?.sections ?? [] }
        var seen = Set<String>()
        return sections.map(\.indexTitle).filter { seen.insert($0).inserted }
    }

    /// The index path of a fetched id, or nil.
    ///
    /// - Complexity: O(n): a linear scan of the ids (fast next to a fetch's query) and a binary
    ///   search of the sections. No id-to-position table is kept, to stay at one `Int64` per well.
    public func indexPath(for id: Int64) -> ResultsIndexPath? {
        guard let current = snapshot, let offset = current.ids.firstIndex(of: id) else { return nil }
        return current.indexPath(ofOffset: offset)
    }

    /// The id at an index path, without loading the row.
    public func id(at indexPath: ResultsIndexPath) throws -> Int64 {
        let current = try fetched(snapshot)
        return current.ids[try offset(of: indexPath, in: current)]
    }

    /// The statements this controller has run: id queries and batch loads (not `PRAGMA data_version`).
    public var statementsExecuted: Int { withLock { $0.statementCount } }

    /// Bytes held by the id storage: the capacity of the id array and of the section array.
    public var idStorageBytes: Int {
        withLock {
            guard let current = $0.current else { return 0 }
            return current.ids.capacity * MemoryLayout<Int64>.stride
                + current.sections.capacity * MemoryLayout<ResultsSection>.stride
        }
    }

    /// The number of batches loaded now.
    public var cachedBatchCount: Int { withLock { $0.cache.count } }

    // MARK: - Helpers

    func fetched(_ current: ResultsSnapshot?) throws -> ResultsSnapshot {
        guard let current else {
            throw QueryError(.notFetched, "BatchedResults has not fetched yet; call performFetch() first")
        }
        return current
    }

    /// The offset in the id list of `indexPath`, checked.
    func offset(of indexPath: ResultsIndexPath, in snapshot: ResultsSnapshot) throws -> Int {
        guard snapshot.sections.indices.contains(indexPath.section),
              (0 ..< snapshot.sections[indexPath.section].count).contains(indexPath.item) else {
            let sizes = snapshot.sections.map { String($0.count) }.joined(separator: ", ")
            throw QueryError(.indexPathOutOfRange, "index path \(indexPath) is out of range; the section sizes are [\(sizes)]", subject: .indexPath)
        }
        return snapshot.sections[indexPath.section].offset + indexPath.item
    }
}

/// The delegate, held weakly. Sendable since the delegate is (it lives on the main actor, where
/// the controller calls it).
struct DelegateReference: Sendable {
    weak var object: (any BatchedResultsDelegate)?
}

/// Results a refresh off the main actor found while a delegate listens: the main actor takes them in.
struct PendingRefresh<Element: Sendable>: Sendable {
    var snapshot: ResultsSnapshot
    /// The cached rows as the refresh read them again.
    var reloaded: [Int64: Element]
    var delivery: Delivery
}

/// A diff waiting to be sent to the delegate, and to the `onChange` handler of the observation that found it.
struct Delivery: Sendable {
    var diff: ResultsDiff
    var onChange: (@Sendable (ResultsDiff) -> Void)?
}
