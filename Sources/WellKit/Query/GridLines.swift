import Foundation

/// The lines of a square grid of `size` (``WellGrouping/grid(size:crs:)``), and the cell a
/// coordinate falls in, by exact arithmetic on both engines and in Swift.
///
/// A grid's line `n` is the decimal `n × size`, written as the double nearest to it: the size's
/// shortest decimal (`0.1`) is `steps / scale` with integers (`1 / 10`), and the line is
/// `(n × steps) / scale`, a product of integers (exact below 2⁵³) and one correctly rounded
/// division. A well read from `51.8` is that same double, so it lies on line 518 of a 0.1° grid
/// and belongs to the cell north of it (`floor(51.8 / 0.1)` in doubles is 517: the division
/// rounds down). A coordinate's cell is `n` with `line(n) ≤ x < line(n + 1)`: `floor(x / size)`,
/// then moved by one where the comparison with its lines says so (the quotient is never off by
/// more). SQLite and PostgreSQL compute the same IEEE operations (``sql(_:)``), and so does
/// ``cell(of:)`` for grids in another CRS, so the engines and the projected grid agree.
///
/// Sizes with no short decimal (1/3) use `n × size`; lines of more than about 15 significant
/// digits are as exact as the doubles allow.
package struct GridLines: Sendable, Equatable {
    package let size: Double
    /// `size` = `steps` / `scale`, both integers held as doubles; `(size, 1)` when the size has no
    /// decimal of at most ``maximumDecimals`` places.
    let steps: Double
    let scale: Double

    /// The most decimal places a size is read with: `n × steps` is about `360 × scale` on a degree
    /// grid's last line, exact while below 2⁵³ (9 × 10¹⁵); sizes of more places fall back.
    static let maximumDecimals = 12

    package init(size: Double) {
        self.size = size
        var scale = 1.0, found: Double?
        for _ in 0...Self.maximumDecimals {
            let steps = (size * scale).rounded()
            if steps >= 1, steps < 9_007_199_254_740_992, steps / scale == size {
                found = steps
                break
            }
            scale *= 10
        }
        steps = found ?? size
        self.scale = found == nil ? 1 : scale
    }

    /// Line `index`: the double nearest to the decimal `index × size`.
    package func line(_ index: Double) -> Double {
        index * steps / scale
    }

    /// The cell of `x`, counted from the origin: `n` with `line(n) ≤ x < line(n + 1)`, as a double
    /// (callers check that it fits an integer).
    package func cell(of x: Double) -> Double {
        let n = (x / size).rounded(.down)
        guard n.isFinite, abs(n) < 1e15 else { return n }
        if x < line(n) { return n - 1 }
        if x >= line(n + 1) { return n + 1 }
        return n
    }

    /// ``cell(of:)`` in SQL, for `column` (trusted text, `p.lon` or `p.lat`): the same operations
    /// in the same order, which SQLite and PostgreSQL compute in IEEE doubles as Swift does.
    func sql(_ column: String) -> BoundSQL {
        let n: BoundSQL = "floor(\(sql: column) / \(size))"
        return "(\(n) + CASE WHEN \(sql: column) < \(n) * \(steps) / \(scale) THEN -1 WHEN \(sql: column) >= (\(n) + 1) * \(steps) / \(scale) THEN 1 ELSE 0 END)"
    }
}
