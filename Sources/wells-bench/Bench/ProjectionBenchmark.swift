import WellKit
import WellKitSynthetic
import WellsCLI
import Foundation
import Synchronization

/// Projection against objects: what each way of fetching the same wells costs.
///
/// For example:
///
/// ```swift
/// let report = try ProjectionBenchmark.run(storePath: "wells.sqlite", request: WellFetchRequest(), repeats: 3)
/// for path in report.paths { print(path.name, path.retainedBytesPerRow) }
/// ```
///
/// Every path fetches the rows of one request in one process. Each path runs once untimed,
/// then `repeats` times; the figures are medians. Retained bytes are the growth of the heap
/// in use (``MemoryProbe/heapBytesInUse``) from before the fetch to after it, measured while
/// the result is still held. SQL statements are counted through the store's statement log.
public enum ProjectionBenchmark {
    public struct Path: Sendable, Codable {
        public var name: String
        public var description: String
        public var rows: Int
        public var medianSeconds: Double
        public var retainedBytesPerRow: Double
        /// nil when the process does not count allocations (only `wells` does).
        public var allocationsPerRow: Double?
        public var peakResidentBytes: Int
        public var statements: Int
        /// Time per row and bytes per row relative to full objects (1.0 = the same).
        public var timeRatio = 1.0
        public var bytesRatio = 1.0
    }

    public struct Report: Sendable, Codable {
        public var store: String
        public var request: String
        public var rows: Int
        public var repeats: Int
        public var paths: [Path]
    }

    /// A way of fetching: returns the result to hold while memory is measured, and its row count.
    public struct Contender {
        public var name: String
        public var description: String
        public var fetch: (WellStore, WellFetchRequest) throws -> (held: Any, rows: Int)

        public init(name: String, description: String, fetch: @escaping (WellStore, WellFetchRequest) throws -> (held: Any, rows: Int)) {
            self.name = name
            self.description = description
            self.fetch = fetch
        }
    }

    /// The standard paths; `faultLimit` caps the rows of the N+1 path, which issues one query per row.
    public static func standardContenders(faultLimit: Int) -> [Contender] {
        let four: [WellAttribute] = [.id, .name, .latitude, .longitude]
        return [
            Contender(name: "objects", description: "full Well objects, pin and detail, one join") { store, request in
                let wells = try store.fetchWells(request)
                return (wells, wells.count)
            },
            Contender(name: "pins", description: "WellPin: id, name, lat, lon") { store, request in
                let pins = try store.fetchPins(request)
                return (pins, pins.count)
            },
            Contender(name: "dict-4", description: "dictionary rows of id, name, lat, lon") { store, request in
                let rows = try store.fetchDictionaries(request, properties: four)
                return (rows, rows.count)
            },
            Contender(name: "dict-all", description: "dictionary rows of every property") { store, request in
                let rows = try store.fetchDictionaries(request, properties: WellAttribute.fields)
                return (rows, rows.count)
            },
            Contender(name: "faults-n+1", description: "ids, then one query per well as each fault fires (first \(faultLimit) rows)") { store, request in
                var limited = request
                limited.limit = min(request.limit ?? faultLimit, faultLimit)
                let faults = try store.faults(limited)
                for k in 0..<faults.count { _ = try faults.well(at: k) }
                return (faults, faults.count)
            },
            Contender(name: "faults-prefetch", description: "ids, then every well in one prefetch query") { store, request in
                let faults = try store.faults(request)
                try faults.prefetchAll()
                for k in 0..<faults.count { _ = try faults.well(at: k) }
                return (faults, faults.count)
            },
        ]
    }

    /// Runs each contender on `request` against the store at `storePath`.
    public static func run(storePath: String, request: WellFetchRequest, repeats: Int = 3,
                           contenders: [Contender] = standardContenders(faultLimit: 20_000)) throws -> Report {
        let counter = StatementCounter()
        let store = try WellStore(path: storePath, mode: .existing, trace: { counter.record($0) }, traceValues: false)
        var paths: [Path] = []
        for contender in contenders {
            _ = try contender.fetch(store, request)  // warm-up: page cache, statement cache
            var seconds: [Double] = [], bytes: [Double] = [], allocations: [Double] = [], statements: [Int] = []
            var rows = 0, peak = 0
            for _ in 0..<max(1, repeats) {
                MemoryProbe.resetPeakResident()
                counter.reset()
                let heapBefore = MemoryProbe.heapBytesInUse
                MemoryProbe.countAllocations(true)
                let allocationsBefore = MemoryProbe.allocations
                let start = ContinuousClock.now
                let (held, count) = try contender.fetch(store, request)
                let elapsed = (ContinuousClock.now - start).seconds
                let allocationsAfter = MemoryProbe.allocations
                MemoryProbe.countAllocations(false)
                let heapAfter = MemoryProbe.heapBytesInUse
                withExtendedLifetime(held) {}
                rows = count
                seconds.append(elapsed)
                bytes.append(Double(heapAfter - heapBefore) / Double(max(count, 1)))
                if let before = allocationsBefore, let after = allocationsAfter {
                    allocations.append(Double(after - before) / Double(max(count, 1)))
                }
                statements.append(counter.queries)
                peak = max(peak, MemoryProbe.peakResidentBytes)
            }
            paths.append(Path(
                name: contender.name, description: contender.description, rows: rows,
                medianSeconds: Statistics.median(seconds), retainedBytesPerRow: Statistics.median(bytes),
                allocationsPerRow: allocations.isEmpty ? nil : Statistics.median(allocations),
                peakResidentBytes: peak, statements: statements.sorted()[statements.count / 2]))
        }
        if let full = paths.first(where: { $0.name == "objects" }) {
            for k in paths.indices {
                // Per row: the N+1 path may fetch fewer rows than the others.
                let perRow = paths[k].medianSeconds / Double(max(paths[k].rows, 1))
                paths[k].timeRatio = perRow / max(full.medianSeconds / Double(max(full.rows, 1)), 1e-15)
                paths[k].bytesRatio = paths[k].retainedBytesPerRow / max(full.retainedBytesPerRow, 1e-12)
            }
        }
        return Report(store: storePath, request: String(describing: request.region.map { "\($0)" } ?? "all wells"),
                      rows: paths.first?.rows ?? 0, repeats: repeats, paths: paths)
    }
}

/// Counts the queries WellKit sends, from the store's statement log.
final class StatementCounter: Sendable {
    private let count = Mutex(0)

    func record(_ sql: String) {
        // WellKit's own queries read pins as `p`; GRDB's bookkeeping (schema checks,
        // transactions) does not count, just as Core Data's SQL count leaves it out.
        guard sql.hasPrefix("SELECT"), sql.contains(" pins p") else { return }
        count.withLock { $0 += 1 }
    }

    func reset() { count.withLock { $0 = 0 } }
    var queries: Int { count.withLock { $0 } }
}
