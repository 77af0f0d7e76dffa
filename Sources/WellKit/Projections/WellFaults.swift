import GRDB

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
public final class WellFaults: @unchecked Sendable {
    /// The ids, in request order.
    public let ids: [Int64]
    private let store: WellStore
    private var loaded: [Int64: Well] = [:]

    init(ids: [Int64], store: WellStore) {
        self.ids = ids
        self.store = store
    }

    public var count: Int { ids.count }

    /// The well at `index`, fired from its fault with one query if not yet loaded.
    public func well(at index: Int) throws -> Well {
        let id = ids[index]
        if let well = loaded[id] { return well }
        guard let well = try store.fetchWells(WellFetchRequest(predicate: .compare(.id, .equal, .number(Double(id))))).first else {
            throw StoreError(.notFound, "well \(id) was deleted after its id was fetched")
        }
        loaded[id] = well
        return well
    }

    /// Loads every well not yet loaded, with one query.
    public func prefetchAll() throws {
        let missing = ids.filter { loaded[$0] == nil }
        guard !missing.isEmpty else { return }
        let json = "[" + missing.map(String.init).joined(separator: ",") + "]"
        let compiled = try WellFetchRequest().compile(selection: Well.selection, joinDetails: true)
        let sql = compiled.sql + " WHERE p.id IN (SELECT value FROM json_each(?))"
        let clock = ContinuousClock.now
        let wells = try store.pool.read { try Well.fetchAll($0, sql: sql, arguments: [json]) }
        store.trace?("total fetch execution time: \(String(format: "%.4f", (ContinuousClock.now - clock).seconds))s for \(wells.count) rows")
        for well in wells { loaded[well.id] = well }
    }
}

extension WellStore {
    /// Fetches the ids of the request's wells, as faults to load later.
    public func faults(_ request: WellFetchRequest) throws -> WellFaults {
        WellFaults(ids: try fetchIDs(request), store: self)
    }
}
