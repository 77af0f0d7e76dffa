import NIOCore
import Testing
@testable import WellsServer

/// The server's cache of encoded responses: bodies live for one change token, within a byte budget.
@Suite struct ResponseCacheTests {
    static func body(_ count: Int, _ byte: UInt8 = 1) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: byte, count: count)) }

    /// A body whose entry (with its one-character key) costs `cost` bytes of the budget.
    static func entry(_ cost: Int, _ byte: UInt8 = 1) -> ByteBuffer { body(cost - ResponseCache.cost(ByteBuffer(), "k"), byte) }

    @Test func aBodyIsServedOnlyForItsToken() {
        let cache = ResponseCache(budget: 1_000)
        cache.keep(Self.body(10), for: "a", token: 1)
        #expect(cache.body(for: "a", token: 1) == Self.body(10))
        #expect(cache.body(for: "a", token: 2) == nil)
        #expect(cache.body(for: "b", token: 1) == nil)
        #expect(cache.body(for: "a", token: nil) == nil)
        // A body for a newer token empties the cache of the older ones.
        cache.keep(Self.body(20), for: "b", token: 2)
        #expect(cache.usage.count == 1 && cache.usage.bytes == ResponseCache.cost(Self.body(20), "b"))
        #expect(cache.body(for: "a", token: 1) == nil)
    }

    /// A store file replaced by another starts a new opening whose tokens may repeat the old
    /// file's: its bodies never match the old file's.
    @Test func aBodyIsServedOnlyForItsOpeningOfTheStore() {
        let cache = ResponseCache(budget: 1_000)
        let old = StoreVersion(opening: 0, file: "801.5fz3", token: 5), new = StoreVersion(opening: 1, file: "801.5fz9", token: 5)
        cache.keep(Self.body(10), for: "a", token: old)
        #expect(cache.body(for: "a", token: old) == Self.body(10))
        #expect(cache.body(for: "a", token: new) == nil)
    }

    @Test func theOldestGoFirstWhenTheBudgetIsFull() {
        let cache = ResponseCache(budget: 1_000)
        for key in 0..<5 { cache.keep(Self.entry(300), for: "\(key)", token: 7) }
        // 1,500 bytes kept in turn into 1,000: the first two are gone.
        #expect(cache.usage.bytes == 900 && cache.usage.count == 3)
        #expect(cache.body(for: "0", token: 7) == nil && cache.body(for: "1", token: 7) == nil)
        #expect(cache.body(for: "4", token: 7) != nil)
        // A body replaced under its key counts once.
        cache.keep(Self.entry(150, 9), for: "4", token: 7)
        #expect(cache.usage.bytes == 750 && cache.body(for: "4", token: 7) == Self.entry(150, 9))
        // Larger than the budget: not kept; a budget of 0 keeps nothing.
        cache.keep(Self.entry(1_001), for: "b", token: 7)
        #expect(cache.body(for: "b", token: 7) == nil)
        let off = ResponseCache(budget: 0)
        off.keep(Self.body(0), for: "a", token: 1)
        #expect(off.body(for: "a", token: 1) == nil && off.usage.count == 0)
    }

    @Test func manyEvictionsKeepTheCountsRight() {
        let cache = ResponseCache(budget: 10_000)
        for key in 0..<10_000 { cache.keep(Self.body(10), for: String(format: "%04d", key), token: 1) }
        let each = ResponseCache.cost(Self.body(10), "0000")
        #expect(cache.usage.count == 10_000 / each && cache.usage.bytes == 10_000 / each * each)
        #expect(cache.body(for: "9999", token: 1) != nil && cache.body(for: "0000", token: 1) == nil)
    }

    @Test func emptyBodiesCountAgainstTheBudget() {
        // Empty tiles under ever new keys: the cache stays within its budget.
        let cache = ResponseCache(budget: 10_000)
        for key in 0..<100_000 { cache.keep(ByteBuffer(), for: "/tiles/22/\(key)/0.mvt", token: 1) }
        #expect(cache.usage.bytes <= 10_000 && cache.usage.count < 200)
    }
}

/// The tests above name versions by their token alone: `token: 7` is the first opening's token 7.
extension StoreVersion: ExpressibleByIntegerLiteral {
    public init(integerLiteral token: Int64) {
        self.init(opening: 0, file: "", token: token)
    }
}
