import Foundation
import GRDB

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
/// keeps the ids as `[Int64]` with section boundaries: 8 bytes per well. ``object(at:)``
/// loads the whole batch holding the row with one query and keeps at most
/// `maxCachedBatches` batches, least recently used first out. ``refresh()`` and
/// ``checkForChanges()`` report what changed as a ``ResultsDiff`` and to the ``delegate``.
///
/// Thread safety: every method takes one recursive lock for its whole duration, queries
/// included, so the controller is `Sendable` and a delegate may call back into it. Delegate
/// messages and `onChange` run on the thread that found the change: hop to your own actor.
public final class BatchedResults<Element: BatchLoadable>: @unchecked Sendable {
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

    let lock = NSRecursiveLock()
    var current: ResultsSnapshot?
    var cache: [Int: CachedBatch<Element>] = [:]
    var tick: UInt64 = 0
    var statementCount = 0
    var baselineVersion: Int64?
    var monitor: ChangeMonitor?
    var observation: Observation?
    var observationGeneration: UInt64 = 0
    weak var delegateStorage: (any BatchedResultsDelegate)?
    /// Above this many differing ids (after trimming the common prefix and suffix) the diff
    /// uses an O(n log n) longest-increasing-subsequence pass instead of Myers' `CollectionDifference`.
    var collectionDifferenceLimit = 2_048

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
        if let sectionKey, request.sortDescriptors[0].field != sectionKey {
            let given = request.sortDescriptors.first { $0.field == sectionKey }
            request.sortDescriptors.removeAll { $0.field == sectionKey }
            request.sortDescriptors.insert(given ?? WellSortDescriptor(sectionKey), at: 0)
        }
        self.store = store
        self.request = request
        self.batchSize = batchSize
        self.sectionKey = sectionKey
        self.cacheName = cacheName
        self.maxCachedBatches = maxCachedBatches
    }

    deinit {
        observation?.stop()
    }

    /// Runs `body` holding the controller's lock.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Receives change notifications; held weakly.
    public var delegate: (any BatchedResultsDelegate)? {
        get { withLock { delegateStorage } }
        set { withLock { delegateStorage = newValue } }
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
        try withLock {
            let monitor = try changeMonitor()
            let version = try monitor.version()
            if let cacheName, let shared = NamedSnapshots.lookup(cacheName, store: store.path, request: request,
                                                                  sectionKey: sectionKey, monitor: monitor.generation, version: version) {
                current = shared
            } else {
                current = try store.pool.read { try fetchSnapshot($0) }
                if let cacheName, let current {
                    NamedSnapshots.save(cacheName, store: store.path, request: request, sectionKey: sectionKey,
                                        monitor: monitor.generation, version: version, snapshot: current)
                }
            }
            baselineVersion = version
            cache.removeAll()
        }
    }

    /// The last fetched ids and sections, or nil before ``performFetch()``.
    public var snapshot: ResultsSnapshot? { withLock { current } }

    /// The number of fetched rows.
    public var fetchedCount: Int { withLock { current?.ids.count ?? 0 } }

    /// The sections: name, offset, count and index title. Unsectioned results have one.
    public var sections: [ResultsSection] { withLock { current?.sections ?? [] } }

    /// The number of sections; 0 before ``performFetch()``.
    public var numberOfSections: Int { withLock { current?.sections.count ?? 0 } }

    /// The number of rows in a section.
    public func numberOfObjects(inSection section: Int) -> Int {
        withLock { current?.sections[section].count ?? 0 }
    }

    /// The section index titles: each section's ``ResultsSection/indexTitle``, first occurrences only.
    public var sectionIndexTitles: [String] {
        withLock {
            var seen = Set<String>()
            return (current?.sections ?? []).map(\.indexTitle).filter { seen.insert($0).inserted }
        }
    }

    /// The index path of a fetched id, or nil.
    ///
    /// - Complexity: O(n): a linear scan of the ids (about 0.1 ms for 244,292 wells) and a
    ///   binary search of the sections. No id-to-position table is kept, to stay at 8 bytes per well.
    public func indexPath(for id: Int64) -> ResultsIndexPath? {
        withLock {
            guard let current, let offset = current.ids.firstIndex(of: id) else { return nil }
            return current.indexPath(ofOffset: offset)
        }
    }

    /// The id at an index path, without loading the row.
    public func id(at indexPath: ResultsIndexPath) throws -> Int64 {
        try withLock {
            let current = try fetched()
            return current.ids[try offset(of: indexPath, in: current)]
        }
    }

    /// The statements this controller has run: id queries and batch loads (not `PRAGMA data_version`).
    public var statementsExecuted: Int { withLock { statementCount } }

    /// Bytes held by the id storage: the capacity of the id array and of the section array.
    public var idStorageBytes: Int {
        withLock {
            guard let current else { return 0 }
            return current.ids.capacity * MemoryLayout<Int64>.stride
                + current.sections.capacity * MemoryLayout<ResultsSection>.stride
        }
    }

    /// The number of batches loaded now.
    public var cachedBatchCount: Int { withLock { cache.count } }

    // MARK: - Helpers

    func fetched() throws -> ResultsSnapshot {
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
