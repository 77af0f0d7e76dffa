import Synchronization

/// Wells fetched as ids first, each loaded on first access: Core Data's faults.
///
/// For example:
///
/// ```swift
/// let faults = try store.faults(request)     // 1 query: the ids
/// let first = try faults.well(at: 0)         // 1 more query: that well
/// try faults.prefetchAll()                   // 1 query for all the rest
/// ```
///
/// Accessing n wells one by one costs n + 1 queries (the N+1 problem); ``prefetchAll()``
/// loads every unloaded well in one query, `WHERE id IN (SELECT value FROM json_each(?))`.
public final class WellFaults: Sendable {
    /// The ids, in request order.
    public let ids: [Int64]
    private let store: WellStore
    /// The wells loaded so far. The lock is never held across a query: two threads may fire the
    /// same fault at once and both query, and the second result replaces the first (an equal well).
    private let loaded = Mutex<[Int64: Well]>([:])

    init(ids: [Int64], store: WellStore) {
        self.ids = ids
        self.store = store
    }

    public var count: Int { ids.count }

    /// The well at `index`, fired from its fault with one query if not yet loaded.
    public func well(at index: Int) throws -> Well {
        let id = ids[index]
        if let well = loaded.withLock({ $0[id] }) { return well }
        guard let well = try store.fetchWells(WellFetchRequest(predicate: .compare(.id, .equal, .number(Double(id))))).first else {
            throw StoreError(.notFound, "well \(id) was deleted after its id was fetched")
        }
        loaded.withLock { $0[id] = well }
        return well
    }

    /// Loads every well not yet loaded, with one query.
    public func prefetchAll() throws {
        let missing = loaded.withLock { loaded in ids.filter { loaded[$0] == nil } }
        guard !missing.isEmpty else { return }
        let wells = try store.engine.wells(ids: missing)
        loaded.withLock { loaded in
            for well in wells { loaded[well.id] = well }
        }
    }
}

extension WellStore {
    /// Fetches the ids of the request's wells, as faults to load later.
    public func faults(_ request: WellFetchRequest) throws -> WellFaults {
        WellFaults(ids: try fetchIDs(request), store: self)
    }
}
