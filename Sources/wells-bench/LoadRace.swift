import Foundation
import WellKit
import WellKitSynthetic
import WellsCLI

/// `wells bench load`: one file loaded by wells and by the reference tools, each into a new file.
struct LoadRace {
    struct Tool: Codable {
        var name: String
        var medianSeconds: Double
        var runs: [Double]
        /// The median, over the rounds, of wells' time divided by this tool's in the same round.
        var wellsRatio: Double
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
    /// `Benchmarks/Reference/limit_load_wellkit.c` built: the C loader writing WellKit's own schema.
    var sameSchemaLoad: String?
    /// `Benchmarks/Reference/peer_geopandas.py`, run by `python`: geopandas, pyogrio and Arrow to GeoPackage.
    var geopandasScript: String?
    var python = "python3"

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
        // The tools run in rounds, one run of each per round, so that a noisy spell on a shared
        // machine slows every tool rather than one.
        var contenders: [(name: String, run: () throws -> Void)] = []
        contenders.append(("wells load", {
            let store = try WellStore(path: fresh("wells.sqlite"))
            let summary = try store.load(csvAt: csv)
            rows = summary.records
            lat = summary.mapping["lat"] ?? lat
            lon = summary.mapping["lon"] ?? lon
        }))
        let referenceWork = ["--order", "hilbert", "--rtree", "packed", "--uwi-index"]
        if let referenceLoad {
            contenders.append(("C reference (limit_load, WAL, Hilbert, packed R*Tree, uwi index)", {
                try Tools.runWaiting(referenceLoad, ["--journal", "wal"] + referenceWork + [csv, fresh("ref.db")])
            }))
            // wells commits a first load through a rollback journal: this is the reference in that mode.
            contenders.append(("C reference, rollback journal (limit_load --journal delete)", {
                try Tools.runWaiting(referenceLoad, ["--journal", "delete"] + referenceWork + [csv, fresh("ref-delete.db")])
            }))
        }
        if let sameSchemaLoad {
            contenders.append(("C, WellKit's schema, rollback journal, synchronous=FULL (limit_load_wellkit)", {
                try Tools.runWaiting(sameSchemaLoad, ["--journal", "delete", "--sync", "full"] + referenceWork + [csv, fresh("same.db")])
            }))
        }
        if Tools.which("sqlite3") != nil {
            contenders.append(("sqlite3 .import (one plain table, no index)", {
                try Tools.runWaiting("sqlite3", [fresh("import.db")], stdin: ".mode csv\n.import '\(csv)' wells\n")
            }))
        }
        if let geopandasScript {
            contenders.append(("geopandas + pyogrio + Arrow to GeoPackage (with spatial index)", {
                try Tools.runWaiting(python, [geopandasScript, csv, fresh("peer.gpkg"), lat, lon])
            }))
        }
        if Tools.which("ogr2ogr") != nil {
            contenders.append(("ogr2ogr to SpatiaLite (with spatial index)", {
                try Tools.runWaiting("ogr2ogr", ["-f", "SQLite", "-dsco", "SPATIALITE=YES", "-gt", "65536", fresh("ogr.sqlite"), csv,
                                               "-oo", "X_POSSIBLE_NAMES=\(lon)", "-oo", "Y_POSSIBLE_NAMES=\(lat)", "-a_srs", "EPSG:4326", "-nln", "wells"])
            }))
        }
        var runs = [[Double]](repeating: [], count: contenders.count)
        for _ in 0..<max(1, repeats) {
            for (k, contender) in contenders.enumerated() {
                let start = ContinuousClock.now
                try contender.run()
                runs[k].append((ContinuousClock.now - start).seconds)
            }
        }
        let tools = zip(contenders, runs).map { contender, times in
            Tool(name: contender.name, medianSeconds: Statistics.median(times), runs: times,
                 wellsRatio: Statistics.median(zip(runs[0], times).map { $0 / $1 }))
        }
        return Report(file: file ?? "a generated list (seed 1)", rows: rows, bytes: bytes, tools: tools)
    }
}
