import Dispatch
import Foundation
import Synchronization
import WellKit

/// The server's read-only connections to the store, used side by side, with the request
/// timeout and the change token that ETags are made of.
final class StoreReaders: Sendable {
    private let stores: [WellStore]
    private let next = Atomic<Int>(0)
    private let timeout: Duration
    /// Nil when the store's change token cannot be read (a store in a read-only directory opened
    /// immutable): responses then carry no ETag.
    private let changes: ChangeTokens?
    /// Distinguishes this run's tokens from another run's, whose data_version may repeat.
    let runID: String

    init(path: String, count: Int, timeout: Duration) throws {
        stores = try (0..<max(1, count)).map { _ in try WellStore(path: path, mode: .readOnly) }
        self.timeout = timeout
        changes = try? stores[0].changeTokens()
        runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    }

    /// The store's change token now; read it before the query whose answer it tags.
    func changeToken() -> Int64? {
        try? changes?.current()
    }

    /// Runs `body` on one of the connections; when it runs past the timeout, its statement is
    /// interrupted and the request answers 503.
    func read<T>(_ body: (WellStore) throws -> T) throws -> T {
        let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let store = stores[abs(k % stores.count)]
        let timedOut = Flag()
        let alarm = DispatchWorkItem {
            timedOut.value.store(true, ordering: .releasing)
            store.interrupt()
        }
        let (seconds, attoseconds) = timeout.components
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(seconds) + Double(attoseconds) / 1e18, execute: alarm)
        defer { alarm.cancel() }
        do {
            return try body(store)
        } catch where timedOut.value.load(ordering: .acquiring) {
            throw Problem(.serviceUnavailable, "the query ran longer than the server's limit of \(timeout) and was stopped; ask for a smaller box or fewer wells")
        }
    }
}

/// A flag an escaping closure can set.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}
