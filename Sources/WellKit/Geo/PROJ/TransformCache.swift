import Foundation
import Synchronization

/// Caches one `CoordinateTransformer` per (source, target) CRS pair.
///
/// Creating a transformer queries PROJ's database (milliseconds); reusing one is
/// cheap. CRS strings are normalised ("4326" and "epsg:4326" share an entry).
/// Failures are not cached, so installing a grid or fixing a typo takes effect.
///
/// Thread safety: the dictionary lives in a `Mutex`; each cached transformer has its own
/// lock (see `CoordinateTransformer`), so one pair's transforms never block another pair.
///
/// For example:
///
/// ```swift
/// let toWGS84 = try TransformCache.shared.transformer(from: "EPSG:26916", to: "4326")
/// let (lon, lat) = try toWGS84.transform(x: 500_000, y: 4_400_000)
/// let again = try TransformCache.shared.transform(x: 500_000, y: 4_400_000,
///                                                 from: "EPSG:26916", to: "EPSG:4326")
/// ```
package final class TransformCache: Sendable {
    /// The process-wide cache.
    package static let shared = TransformCache()

    private struct Key: Hashable {
        let source: String
        let target: String
        let area: CRSInfo.Area?
    }

    private struct Entries {
        var transformers: [Key: CoordinateTransformer] = [:]
        var order: [Key] = []   // insertion order, oldest first
    }

    private let entries = Mutex(Entries())
    private let capacity: Int

    /// Creates an empty cache holding at most `capacity` transformers (oldest dropped first).
    package init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// Returns the cached transformer for the pair, creating it on first use.
    ///
    /// Creation happens under the cache lock, so concurrent first uses of the same pair
    /// build one transformer, not several.
    package func transformer(from source: String, to target: String,
                            area: CRSInfo.Area? = nil) throws -> CoordinateTransformer {
        let key = Key(source: CRSString.normalize(source), target: CRSString.normalize(target),
                      area: area)
        return try entries.withLock { entries in
            if let cached = entries.transformers[key] { return cached }
            let created = try CoordinateTransformer(from: source, to: target, area: area)
            if entries.transformers.count >= capacity, let victim = entries.order.first {
                entries.transformers[victim] = nil
                entries.order.removeFirst()
            }
            entries.transformers[key] = created
            entries.order.append(key)
            return created
        }
    }

    /// Transforms one point with the cached transformer for the pair.
    package func transform(x: Double, y: Double, from source: String,
                          to target: String) throws -> (x: Double, y: Double) {
        try transformer(from: source, to: target).transform(x: x, y: y)
    }

    /// The number of cached transformers.
    package var count: Int { entries.withLock { $0.transformers.count } }

    /// Drops every cached transformer (e.g. after installing PROJ grids).
    package func removeAll() {
        entries.withLock { entries in
            entries.transformers.removeAll()
            entries.order.removeAll()
        }
    }
}
