import Foundation

/// Caches one `CoordinateTransformer` per (source, target) CRS pair.
///
/// Creating a transformer queries PROJ's database (milliseconds); reusing one is
/// cheap. CRS strings are normalised ("4326" and "epsg:4326" share an entry).
/// Failures are not cached, so installing a grid or fixing a typo takes effect.
///
/// Thread safety: the dictionary is guarded by an `NSLock`, hence
/// `@unchecked Sendable`; each cached transformer has its own lock (see
/// `CoordinateTransformer`), so one pair's transforms never block another pair.
///
/// For example:
///
/// ```swift
/// let toWGS84 = try TransformCache.shared.transformer(from: "EPSG:26916", to: "4326")
/// let (lon, lat) = try toWGS84.transform(x: 500_000, y: 4_400_000)
/// let again = try TransformCache.shared.transform(x: 500_000, y: 4_400_000,
///                                                 from: "EPSG:26916", to: "EPSG:4326")
/// ```
public final class TransformCache: @unchecked Sendable {
    /// The process-wide cache.
    public static let shared = TransformCache()

    private struct Key: Hashable {
        let source: String
        let target: String
        let area: CRSInfo.Area?
    }

    private let lock = NSLock()
    private var transformers: [Key: CoordinateTransformer] = [:]
    private var order: [Key] = []   // insertion order, oldest first
    private let capacity: Int

    /// Creates an empty cache holding at most `capacity` transformers (oldest dropped first).
    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// Returns the cached transformer for the pair, creating it on first use.
    ///
    /// Creation happens under the cache lock, so concurrent first uses of the same pair
    /// build one transformer, not several.
    public func transformer(from source: String, to target: String,
                            area: CRSInfo.Area? = nil) throws -> CoordinateTransformer {
        let key = Key(source: CRSString.normalize(source), target: CRSString.normalize(target),
                      area: area)
        return try lock.withLock {
            if let cached = transformers[key] { return cached }
            let created = try CoordinateTransformer(from: source, to: target, area: area)
            if transformers.count >= capacity, let victim = order.first {
                transformers[victim] = nil
                order.removeFirst()
            }
            transformers[key] = created
            order.append(key)
            return created
        }
    }

    /// Transforms one point with the cached transformer for the pair.
    public func transform(x: Double, y: Double, from source: String,
                          to target: String) throws -> (x: Double, y: Double) {
        try transformer(from: source, to: target).transform(x: x, y: y)
    }

    /// The number of cached transformers.
    public var count: Int { lock.withLock { transformers.count } }

    /// Drops every cached transformer (e.g. after installing PROJ grids).
    public func removeAll() {
        lock.withLock {
            transformers.removeAll()
            order.removeAll()
        }
    }
}
