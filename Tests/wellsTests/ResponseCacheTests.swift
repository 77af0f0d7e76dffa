import NIOCore
import Testing
@testable import WellsServer

/// The server's cache of encoded responses: bodies live for one change token, within a byte budget.
@Suite struct ResponseCacheTests {
    static func body(_ count: Int, _ byte: UInt8 = 1) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: byte, count: count)) }

    @Test func aBodyIsServedOnlyForItsToken() {
        let cache = ResponseCache(budget: 1_000)
        cache.keep(Self.body(10), for: "a", token: 1)
        #expect(cache.body(for: "a", token: 1) == Self.body(10))
        #expect(cache.body(for: "a", token: 2) == nil)
        #expect(cache.body(for: "b", token: 1) == nil)
        #expect(cache.body(for: "a", token: nil) == nil)
        // A body for a newer token empties the cache of the older ones.
        cache.keep(Self.body(20), for: "b", token: 2)
        #expect(cache.usage.count == 1 && cache.usage.bytes == 20)
        #expect(cache.body(for: "a", token: 1) == nil)
    }

    @Test func theOldestGoFirstWhenTheBudgetIsFull() {
        let cache = ResponseCache(budget: 100)
        for key in 0..<5 { cache.keep(Self.body(30), for: "\(key)", token: 7) }
        // 150 bytes kept in turn into 100: the first two are gone.
        #expect(cache.usage.bytes == 90 && cache.usage.count == 3)
        #expect(cache.body(for: "0", token: 7) == nil && cache.body(for: "1", token: 7) == nil)
        #expect(cache.body(for: "4", token: 7) != nil)
        // A body replaced under its key counts once.
        cache.keep(Self.body(5, 9), for: "4", token: 7)
        #expect(cache.usage.bytes == 65 && cache.body(for: "4", token: 7) == Self.body(5, 9))
        // Larger than the budget: not kept; a budget of 0 keeps nothing.
        cache.keep(Self.body(101), for: "big", token: 7)
        #expect(cache.body(for: "big", token: 7) == nil)
        let off = ResponseCache(budget: 0)
        off.keep(Self.body(0), for: "a", token: 1)
        #expect(off.body(for: "a", token: 1) == nil)
    }

    @Test func manyEvictionsKeepTheCountsRight() {
        let cache = ResponseCache(budget: 1_000)
        for key in 0..<10_000 { cache.keep(Self.body(10), for: "\(key)", token: 1) }
        #expect(cache.usage.count == 100 && cache.usage.bytes == 1_000)
        #expect(cache.body(for: "9999", token: 1) != nil && cache.body(for: "9899", token: 1) == nil)
    }
}
