import Benchmark
import Foundation
import WellKit
import WellKitSynthetic

/// A store of 50,000 synthetic wells, built once in `setup`.
nonisolated(unsafe) private var store: WellStore!
nonisolated(unsafe) private var csvPath = ""

private let city = try! BoundingBox(minLongitude: -114.1, minLatitude: 51.0, maxLongitude: -114.05, maxLatitude: 51.05)
private let region = try! BoundingBox(minLongitude: -114.5, minLatitude: 50.75, maxLongitude: -114.0, maxLatitude: 51.25)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident, .throughput],
        maxDuration: .seconds(5),
        maxIterations: 1_000)

    Benchmark.setup = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wellkit-benchmarks")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        csvPath = directory.appendingPathComponent("wells.csv").path
        try WellGenerator(count: 50_000, seed: 1).write(toFileAt: csvPath)
        store = try WellStore(path: directory.appendingPathComponent("wells.sqlite").path)
        _ = try store.load(csvAt: csvPath)
    }

    Benchmark("Pins in a city box") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try store.fetchPins(WellFetchRequest(region: .box(city)))) }
    }

    Benchmark("Full wells in a city box") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try store.fetchWells(WellFetchRequest(region: .box(city)))) }
    }

    Benchmark("Pins in a region box") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try store.fetchPins(WellFetchRequest(region: .box(region)))) }
    }

    Benchmark("Dictionary rows of 4 properties in a region box") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try store.fetchDictionaries(WellFetchRequest(region: .box(region)), properties: [.id, .name, .latitude, .longitude]))
        }
    }

    Benchmark("10 nearest wells") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try store.fetchNearest(to: Coordinate(latitude: 51.05, longitude: -114.07), count: 10)) }
    }

    Benchmark("CSV read of 50,000 wells", configuration: .init(maxIterations: 20)) { benchmark in
        for _ in benchmark.scaledIterations {
            let reader = try CSVReader(path: csvPath)
            var records = 0
            while try reader.next() != nil { records += 1 }
            blackHole(records)
        }
    }
}
