import Testing
@testable import WellKit
import WellKitSynthetic

/// The write order of a load: ``SpatialIndex/hilbertKey(x:y:)``, computed without a loop, gives
/// every cell the index of the textbook curve, so stores keep the ids and layout they had.
@Suite struct SpatialIndexTests {
    /// The textbook `xy2d` over the 16 levels of the 2¹⁶ × 2¹⁶ grid: what the store's order was computed with before.
    private static func reference(x x0: UInt32, y y0: UInt32) -> UInt64 {
        var (x, y, d) = (x0, y0, UInt64(0))
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0, ry: UInt32 = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 { x = 0xFFFF - x; y = 0xFFFF - y }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }

    @Test func everyCellTakesTheTextbookIndex() {
        var rng = SeededRandom(seed: 32)
        var cells: [(UInt32, UInt32)] = (0..<300_000).map { _ in (UInt32.random(in: 0...0xFFFF, using: &rng), UInt32.random(in: 0...0xFFFF, using: &rng)) }
        // The grid's edges and corners, and a block of neighbours around each quadrant's seams.
        for edge: UInt32 in [0, 1, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF] {
            for k in stride(from: UInt32(0), through: 0xFFFF, by: 257) { cells += [(edge, k), (k, edge)] }
        }
        for x in UInt32(0x7FF0)...0x8010 { for y in UInt32(0x7FF0)...0x8010 { cells.append((x, y)) } }
        let wrong = cells.filter { SpatialIndex.hilbertKey(x: $0.0, y: $0.1) != Self.reference(x: $0.0, y: $0.1) }
        #expect(wrong.isEmpty, "\(wrong.count) of \(cells.count) cells, the first \(wrong.prefix(3))")
    }

    /// Along the curve, each cell is next to the one before: on a 2⁸ corner of the grid's first cells.
    @Test func theCurveStepsToANeighbour() {
        var cellAt: [UInt64: (Int, Int)] = [:]
        for x in 0..<256 { for y in 0..<256 { cellAt[SpatialIndex.hilbertKey(x: UInt32(x), y: UInt32(y))] = (x, y) } }
        #expect(cellAt.count == 256 * 256)
        let steps = (1..<UInt64(256 * 256)).filter { d in
            guard let a = cellAt[d - 1], let b = cellAt[d] else { return true }
            return abs(a.0 - b.0) + abs(a.1 - b.1) != 1
        }
        #expect(steps.isEmpty, "\(steps.count) steps that are not to a neighbour, the first at \(steps.first ?? 0)")
    }
}
