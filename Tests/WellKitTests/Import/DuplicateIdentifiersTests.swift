import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

@Suite struct DuplicateIdentifiersTests {
    /// The rule as the loader first wrote it, with a dictionary: the oracle.
    static func oracle(_ ids: [String], rule: LoadOptions.DuplicateRule) -> (kept: [Int], losers: [(loser: Int, winner: Int)]) {
        var slotOf: [String: Int] = [:]
        var kept: [Int] = []
        var losers: [(loser: Int, winner: Int)] = []
        for (position, id) in ids.enumerated() {
            guard let slot = slotOf[id] else {
                slotOf[id] = kept.count
                kept.append(position)
                continue
            }
            switch rule {
            case .first:
                losers.append((position, kept[slot]))
            case .last:
                losers.append((kept[slot], position))
                kept[slot] = position
            }
        }
        return (kept, losers.sorted { $0.loser < $1.loser })
    }

    @Test(.lane(.slow), arguments: [LoadOptions.DuplicateRule.first, .last])
    func matchesTheDictionaryOracle(rule: LoadOptions.DuplicateRule) {
        var random = SeededRandom(seed: 11)
        var duplicatesSeen = 0
        for round in 0..<300 {
            // Few distinct identifiers, so that runs of two, three and more occur.
            let alphabet = Int.random(in: 1...40, using: &random)
            let ids = (0..<Int.random(in: 0...120, using: &random)).map { _ in "W\(Int.random(in: 0..<alphabet, using: &random))" }
            let expected = Self.oracle(ids, rule: rule)
            // The real hash, one that collides for every identifier of the same length, and one whose
            // high halves, which the sort orders by, are all the same.
            for hash in [DuplicateIdentifiers.fnv1a, { UInt64($0.utf8.count) }, { DuplicateIdentifiers.fnv1a($0) & 0xFFFF_FFFF }]
                as [(String) -> UInt64] {
                let got = DuplicateIdentifiers.resolve(ids, rule: rule, hash: hash)
                #expect(got.kept == expected.kept, "round \(round): \(ids)")
                #expect(got.losers.map(\.loser) == expected.losers.map(\.loser), "round \(round)")
                #expect(got.losers.map(\.winner) == expected.losers.map(\.winner), "round \(round)")
            }
            duplicatesSeen += expected.losers.count
        }
        #expect(duplicatesSeen > 1000)
    }

    @Test func fnv1aMatchesPublishedValues() {
        // From the FNV reference test vectors (64-bit FNV-1a).
        #expect(DuplicateIdentifiers.fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(DuplicateIdentifiers.fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(DuplicateIdentifiers.fnv1a("foobar") == 0x8594_4171_f739_67e8)
    }
}
