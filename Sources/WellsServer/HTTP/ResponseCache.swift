import NIOCore
import Synchronization

/// Encoded response bodies (tiles, `items` pages) kept for the store version they were made at,
/// up to a byte budget; when it is full, the oldest go first.
///
/// Every entry belongs to one ``StoreVersion``: the first body kept for another version empties
/// the cache, so an answer made before a load, a delete or the store file's replacement is never
/// served after it. A lookup with a version other than the cache's misses (a change token alone
/// could repeat on a replacing file; the version names the file too).
///
/// For example:
///
/// ```swift
/// if let body = cache.body(for: key, token: token) { return body }
/// let body = ByteBuffer(bytes: try encode())
/// cache.keep(body, for: key, token: token)
/// ```
final class ResponseCache: Sendable {
    private struct State {
        var token: StoreVersion?
        var entries: [String: ByteBuffer] = [:]
        /// Keys in the order they were kept, oldest from `head` on.
        var order: [String] = []
        var head = 0
        var bytes = 0
    }

    /// The most bytes of bodies kept; 0 keeps none.
    let budget: Int
    private let state = Mutex(State())

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// The body kept for `key` at `token`, or nil.
    func body(for key: String, token: StoreVersion?) -> ByteBuffer? {
        guard budget > 0, let token else { return nil }
        return state.withLock { $0.token == token ? $0.entries[key] : nil }
    }

    /// Keeps `body` for `key` at `token` (nothing without a token, or a body larger than the budget).
    func keep(_ body: ByteBuffer, for key: String, token: StoreVersion?) {
        guard let token, Self.cost(body, key) <= budget else { return }
        state.withLock { state in
            if state.token != token { state = State(token: token) }
            if let old = state.entries.updateValue(body, forKey: key) {
                state.bytes -= Self.cost(old, key)
            } else {
                state.order.append(key)
            }
            state.bytes += Self.cost(body, key)
            while state.bytes > budget, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let gone = state.entries.removeValue(forKey: oldest) { state.bytes -= Self.cost(gone, oldest) }
            }
            if state.head > 1_024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// What an entry counts against the budget: its body, its key and a share for the table, so
    /// that empty bodies (an empty tile is 0 bytes) cannot pile up without limit.
    static func cost(_ body: ByteBuffer, _ key: String) -> Int {
        body.readableBytes + key.utf8.count + 64
    }

    /// The bytes counted and the number of bodies kept.
    var usage: (bytes: Int, count: Int) {
        state.withLock { ($0.bytes, $0.entries.count) }
    }
}

/// One value kept for the store version it was computed at: the collection's extent (a pass over
/// every pin) and the tiles' flagged pin ids are read once per version, not once per request.
final class VersionedValue<Value: Sendable>: Sendable {
    private let kept = Mutex<(token: StoreVersion, value: Value)?>(nil)

    /// The value kept for `token`, else `compute()`'s, kept for `token` (nothing is kept without one).
    func value(for token: StoreVersion?, _ compute: () throws -> Value) rethrows -> Value {
        if let token, let kept = kept.withLock({ $0 }), kept.token == token { return kept.value }
        let value = try compute()
        if let token { kept.withLock { $0 = (token, value) } }
        return value
    }
}
