import Foundation
import WellKit

/// `wells bench load`: one file loaded by wells and by the reference tools, each into a new file.
struct LoadRace {
    struct Tool: Codable {
        var name: String
        var medianSeconds: Double
        var runs: [Double]
    }

    struct Report: Codable {
        var file: String
        var rows: Int
        var bytes: Int
        var tools: [Tool]
    }

    var file: String?
    var count: Int
    var repeats: Int
    var referenceLoad: String?

    func run() throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-bench-load-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = file ?? directory.appendingPathComponent("wells.csv").path
        if file == nil { _ = try WellGenerator(count: count, seed: 1).write(toFileAt: csv) }
        let bytes = (try FileManager.default.attributesOfItem(atPath: csv)[.size] as? Int) ?? 0
        var rows = 0
        var lat = "latitude", lon = "longitude"
        func fresh(_ name: String) -> String {
            let path = directory.appendingPathComponent(name).path
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            return path
        }
        var tools: [Tool] = []
        func time(_ name: String, _ body: () throws -> Void) rethrows {
            var runs: [Double] = []
            for _ in 0..<max(1, repeats) {
                let start = ContinuousClock.now
                try body()
                runs.append((ContinuousClock.now - start).seconds)
            }
            tools.append(Tool(name: name, medianSeconds: Statistics.median(runs), runs: runs))
        }
        try time("wells load") {
            let store = try WellStore(path: fresh("wells.sqlite"))
            let summary = try store.load(csvAt: csv)
            rows = summary.records
            lat = summary.mapping["lat"] ?? lat
            lon = summary.mapping["lon"] ?? lon
        }
        if let referenceLoad {
            try time("C reference (limit_load, WAL, Hilbert, packed R*Tree, uwi index)") {
                try Subprocess.run(referenceLoad, ["--journal", "wal", "--order", "hilbert", "--rtree", "packed", "--uwi-index", csv, fresh("ref.db")])
            }
        }
        if Subprocess.which("sqlite3") != nil {
            try time("sqlite3 .import (one plain table, no index)") {
                try Subprocess.run("sqlite3", [fresh("import.db")], stdin: ".mode csv\n.import '\(csv)' wells\n")
            }
        }
        if Subprocess.which("ogr2ogr") != nil {
            try time("ogr2ogr to SpatiaLite (with spatial index)") {
                try Subprocess.run("ogr2ogr", ["-f", "SQLite", "-dsco", "SPATIALITE=YES", "-gt", "65536", fresh("ogr.sqlite"), csv,
                                               "-oo", "X_POSSIBLE_NAMES=\(lon)", "-oo", "Y_POSSIBLE_NAMES=\(lat)", "-a_srs", "EPSG:4326", "-nln", "wells"])
            }
        }
        return Report(file: file ?? "a generated list (seed 1)", rows: rows, bytes: bytes, tools: tools)
    }
}
