import WellKit
import WellKitSynthetic
import WellsCLI
import Foundation

/// Bounding-box latency over many viewports: p50, p99 and rows per query, per viewport size.
///
/// For example:
///
/// ```swift
/// let viewports = try BBoxBenchmark.viewports(store: store, sizes: [0.05, 0.5], perSize: 200, seed: 1)
/// let results = try BBoxBenchmark.run(store: store, viewports: viewports, passes: 3)
/// ```
///
/// Each viewport is timed from the fetch call to the last decoded ``WellPin``, after one
/// untimed warm-up pass; the figures are medians over the passes of each statistic, as
/// `Benchmarks/Reference/bbox_query.c` reports them, so the two can be compared in one run.
public enum BBoxBenchmark {
    /// One viewport with its label, such as "city_0.05".
    public struct Viewport: Sendable {
        public var label: String
        public var box: BoundingBox
    }

    public struct Result: Sendable, Codable {
        public var label: String
        public var queries: Int
        public var p50Microseconds: Double
        public var p99Microseconds: Double
        public var meanMicroseconds: Double
        public var rowsP50: Double
        public var rowsMin: Int
        public var rowsMax: Int
    }

    /// Square viewports of each size centred on randomly chosen wells, so they fall where wells are.
    public static func viewports(store: WellStore, sizes: [Double], perSize: Int, seed: UInt64) throws -> [Viewport] {
        let ids = try store.fetchIDs(WellFetchRequest())
        guard !ids.isEmpty else { return [] }
        var random = SeededRandom(seed: seed)
        var result: [Viewport] = []
        for size in sizes {
            let centres = (0..<perSize).map { _ in ids[Int(random.next() % UInt64(ids.count))] }
            // In lists of at most 500 ids, the predicates' limit on comparisons.
            var byID: [Int64: WellPin] = [:]
            for start in stride(from: 0, to: centres.count, by: 500) {
                let part = centres[start ..< min(centres.count, start + 500)]
                for pin in try store.fetchPins(WellFetchRequest(predicate: .in(.id, part.map { .number(Double($0)) }))) { byID[pin.id] = pin }
            }
            for id in centres {
                guard let pin = byID[id] else { continue }
                let half = size / 2
                let box = try BoundingBox(
                    minLongitude: max(-180, pin.longitude - half), minLatitude: max(-90, pin.latitude - half),
                    maxLongitude: min(180, pin.longitude + half), maxLatitude: min(90, pin.latitude + half))
                result.append(Viewport(label: label(for: size), box: box))
            }
        }
        return result
    }

    /// Reads viewports from a file of `label minLon minLat maxLon maxLat` lines.
    public static func viewports(file: String) throws -> [Viewport] {
        try String(contentsOfFile: file, encoding: .utf8).split(whereSeparator: \.isNewline).compactMap { line in
            let parts = line.split(whereSeparator: \.isWhitespace)
            guard parts.count >= 5, !parts[0].hasPrefix("#") else { return nil }
            let v = parts[1...4].compactMap { Double($0) }
            guard v.count == 4 else { throw StoreError(.invalidArgument, "\(file): bad viewport line \"\(line)\"") }
            return Viewport(label: String(parts[0]), box: try BoundingBox(minLongitude: v[0], minLatitude: v[1], maxLongitude: v[2], maxLatitude: v[3]))
        }
    }

    /// Times every viewport `passes` times after a warm-up pass.
    public static func run(store: WellStore, viewports: [Viewport], passes: Int = 3) throws -> [Result] {
        let labels = viewports.reduce(into: [String]()) { if !$0.contains($1.label) { $0.append($1.label) } }
        for viewport in viewports { _ = try store.fetchPins(WellFetchRequest(region: .box(viewport.box))) }
        var perPass: [String: [(p50: Double, p99: Double, mean: Double)]] = [:]
        var rows: [String: [Int]] = [:]
        for pass in 0..<max(1, passes) {
            var times: [String: [Double]] = [:]
            for viewport in viewports {
                let start = ContinuousClock.now
                let pins = try store.fetchPins(WellFetchRequest(region: .box(viewport.box)))
                times[viewport.label, default: []].append((ContinuousClock.now - start).seconds * 1e6)
                if pass == 0 { rows[viewport.label, default: []].append(pins.count) }
            }
            for (label, values) in times {
                perPass[label, default: []].append((Statistics.median(values), Statistics.percentile(values, 0.99),
                                                    values.reduce(0, +) / Double(values.count)))
            }
        }
        return labels.map { label in
            let passes = perPass[label] ?? []
            let counts = rows[label] ?? []
            return Result(
                label: label, queries: counts.count,
                p50Microseconds: Statistics.median(passes.map(\.p50)), p99Microseconds: Statistics.median(passes.map(\.p99)),
                meanMicroseconds: Statistics.median(passes.map(\.mean)),
                rowsP50: Statistics.median(counts.map(Double.init)), rowsMin: counts.min() ?? 0, rowsMax: counts.max() ?? 0)
        }
    }

    /// `5` for 5.0, `0.05` for 0.05.
    static func format(_ size: Double) -> String {
        size.rounded() == size ? String(Int(size)) : String(size)
    }

    static func label(for size: Double) -> String {
        let name = size <= 0.01 ? "street" : size <= 0.1 ? "city" : size <= 1 ? "region" : "province"
        return "\(name)_\(BBoxBenchmark.format(size))"
    }
}
