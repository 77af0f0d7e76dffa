import Testing
@testable import WellKit
import WellKitSynthetic

/// ``Swift/Array/sortByHighHalves()``, the load's radix sort, orders keys as `sort()` does.
@Suite struct KeySortTests {
    /// Keys as the loader makes them, a 32-bit key over ascending positions: random keys, keys
    /// from a few values (long runs of ties), keys that differ only in one 16-bit digit.
    @Test(arguments: [0, 1, 2, 3] as [Int])
    func sortsAsSortDoes(shape: Int) {
        var rng = SeededRandom(seed: UInt64(40 + shape))
        for count in [0, 1, 2, 3, 100, 70_000] {
            var keys = (0..<count).map { position -> UInt64 in
                let high: UInt64 = switch shape {
                case 0: UInt64.random(in: 0...0xFFFF_FFFF, using: &rng)
                case 1: UInt64.random(in: 0..<5, using: &rng)
                case 2: UInt64.random(in: 0...0xFFFF, using: &rng) << 16
                default: UInt64.random(in: 0...0xFFFF, using: &rng) | 0xFFFF_0000
                }
                return high << 32 | UInt64(position)
            }
            let expected = keys.sorted()
            keys.sortByHighHalves()
            #expect(keys == expected, "shape \(shape), \(count) keys")
        }
    }

    /// Equal high halves keep their order, whatever their low halves: the sort is stable.
    @Test func equalHighHalvesKeepTheirOrder() {
        func key(_ high: UInt64, _ low: UInt64) -> UInt64 { high << 32 | low }
        var keys = [key(2, 9), key(1, 7), key(2, 3), key(1, 8), key(1, 1)]
        keys.sortByHighHalves()
        #expect(keys == [key(1, 7), key(1, 8), key(1, 1), key(2, 9), key(2, 3)])
    }
}
