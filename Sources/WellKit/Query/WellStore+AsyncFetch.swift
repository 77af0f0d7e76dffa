import Foundation

extension WellStore {
    // The fetches for async code: the same requests and answers as ``fetchPins(_:)``,
    // ``fetchWells(_:)``, ``fetchIDs(_:)`` and ``fetchCount(_:)``, without blocking the caller's
    // thread or Swift's cooperative pool. They are named for what they return, as Swift's async
    // APIs are (`URLSession.data(for:)`), rather than overloading the `fetch…` methods: async code
    // that calls those without `await` keeps compiling and blocking as before.

    /// The pins of `request`, read without blocking: ``fetchPins(_:)`` for async code.
    ///
    /// For example:
    ///
    /// ```swift
    /// let box = try BoundingBox(parsing: "-114.2,50.9,-113.9,51.2")
    /// let pins = try await store.pins(matching: WellFetchRequest(region: .box(box)))
    /// ```
    ///
    /// A store file reads through GRDB's asynchronous reads: the query runs on one of the pool's
    /// reader connections, on that connection's dispatch queue, while the task waits without a
    /// thread (also for a reader, when every one is busy). Cancelling the task interrupts the
    /// query, which throws `CancellationError`.
    ///
    /// A PostgreSQL store's query runs on a connection leased from the store's pool, while the
    /// task waits without a thread (also for a connection, when every one is lent). Cancelling
    /// the task closes that connection (or stops the wait for one), and the query throws
    /// `CancellationError`; the pool connects anew for the next.
    public func pins(matching request: WellFetchRequest) async throws -> [WellPin] {
        try await engine.pins(request)
    }

    /// Whole wells, pin and detail, read without blocking: ``fetchWells(_:)`` for async code
    /// (see ``pins(matching:)`` for where the query runs).
    public func wells(matching request: WellFetchRequest) async throws -> [Well] {
        try await engine.wells(request)
    }

    /// The ids in request order, read without blocking: ``fetchIDs(_:)`` for async code
    /// (see ``pins(matching:)`` for where the query runs).
    public func ids(matching request: WellFetchRequest) async throws -> [Int64] {
        try await engine.ids(request)
    }

    /// The number of wells the request matches (limit and offset apply), counted without
    /// blocking: ``fetchCount(_:)`` for async code (see ``pins(matching:)`` for where the query runs).
    public func count(matching request: WellFetchRequest) async throws -> Int {
        try await engine.count(request)
    }
}
