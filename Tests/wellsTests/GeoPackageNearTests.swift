import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// `--format gpkg --out` on the query commands, read back by GDAL's `ogrinfo` and by SQLite with
/// SpatiaLite; and `wells near --from` (the proximity join) against a brute-force geodesic answer.
@Suite struct GeoPackageNearTests {
    static func wells(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try HardeningTests.wells(arguments)
    }

    /// A store of the Tennessee list (16,464 real wells), loaded once per test.
    static func tennessee(in directory: URL) throws -> String {
        let store = directory.appendingPathComponent("tn.sqlite").path
        let load = try wells(["load", RepositoryData.realList("tn-oilgas-wells.csv"), "--db", store, "--quiet"])
        #expect(load.status == 0, "\(load.err.prefix(500))")
        return store
    }

    /// Runs a tool (ogrinfo, sqlite3); nil when it is not installed here (never in CI, which installs both).
    static func tool(_ name: String, _ arguments: [String], input: String? = nil) throws -> String? {
        guard let path = ["/usr/bin/", "/usr/local/bin/"].map({ $0 + name }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "\(name) is not installed; CI installs it")
            return nil
        }
        let run = try Command(path, arguments, input: .data(Data((input ?? "").utf8)), errors: .discard).runWaiting()
        #expect(run.status == 0, "\(name) \(arguments)")
        return run.out
    }

    /// The rows of CSV text with a header, as dictionaries (no quoted commas in the columns compared here).
    static func rows(_ csv: String) -> [[String: String]] {
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return lines.map { line in
            Dictionary(uniqueKeysWithValues: zip(header, CSVSplit.fields(line)))
        }
    }

    // MARK: - GeoPackage

    @Test(.lane(.slow)) func findWritesAGeoPackageThatOgrinfoAndSpatiaLiteRead() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-gpkg") { directory in
                let store = try Self.tennessee(in: directory)
                let fields = "id,uwi,name,lat,lon,total_depth,spud_date"
                let condition = "county = Overton"
                let csv = try Self.wells(["find", "--where", condition, "--fields", fields, "--format", "csv", "--db", store])
                let expected = Self.rows(csv.out)
                #expect(csv.status == 0 && expected.count > 100)
                for (crs, epsg) in [(nil, "4326"), ("EPSG:32616", "32616")] as [(String?, String)] {
                    let gpkg = directory.appendingPathComponent("overton-\(epsg).gpkg").path
                    let run = try Self.wells(["find", "--where", condition, "--fields", fields, "--format", "gpkg", "--out", gpkg, "--db", store]
                                             + (crs.map { ["--to-crs", $0] } ?? []))
                    #expect(run.status == 0, "\(run.err)")
                    #expect(run.out.isEmpty)
                    guard let info = try Self.tool("ogrinfo", ["-so", "-al", gpkg]) else { continue }
                    #expect(info.contains("Layer name: overton_\(epsg)"), "\(info)")
                    #expect(info.contains("Geometry: Point"))
                    #expect(info.contains("Feature Count: \(expected.count)\n"), "\(info)")
                    for field in ["id: Integer64", "uwi: String", "name: String", "lat: Real", "lon: Real", "total_depth: Real", "spud_date: Date"] {
                        #expect(info.contains("\n\(field) "), "\(field) in \(info)")
                    }
                    #expect(info.contains(#"ID["EPSG",\#(epsg)]]"#), "\(info)")
                    // An independent read of one well's geometry: SQLite with SpatiaLite, against the CSV (and --to-crs's x, y).
                    let sample = expected[expected.count / 2]
                    let layer = "overton_\(epsg)"
                    let sql = """
                        .load mod_spatialite
                        SELECT ST_X(GeomFromGPB(geom)), ST_Y(GeomFromGPB(geom)), ST_SRID(GeomFromGPB(geom)) FROM \(layer) WHERE id = \(sample["id"]!);
                        SELECT count(*) FROM rtree_\(layer)_geom;
                        PRAGMA application_id; PRAGMA user_version;
                        SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rtree_\(layer)_geom_%';
                        SELECT count(*) FROM rtree_\(layer)_geom r JOIN \(layer) l ON r.id = l.fid
                            WHERE r.minx <= ST_X(GeomFromGPB(l.geom)) AND r.maxx >= ST_X(GeomFromGPB(l.geom))
                              AND r.miny <= ST_Y(GeomFromGPB(l.geom)) AND r.maxy >= ST_Y(GeomFromGPB(l.geom));
                        """
                    guard let read = try Self.tool("sqlite3", ["-batch", "-separator", ",", gpkg], input: sql) else { continue }
                    let lines = read.split(separator: "\n").map(String.init)
                    let xy = lines[0].split(separator: ",").compactMap { Double($0) }
                    if crs == nil {
                        #expect(abs(xy[0] - Double(sample["lon"]!)!) < 1e-9 && abs(xy[1] - Double(sample["lat"]!)!) < 1e-9 && xy[2] == 4326, "\(lines)")
                    } else {
                        let projected = try Self.wells(["find", "--where", "id = \(sample["id"]!)", "--to-crs", "EPSG:32616", "--format", "csv", "--db", store])
                        let row = Self.rows(projected.out)[0]
                        #expect(abs(xy[0] - Double(row["x"]!)!) < 0.001 && abs(xy[1] - Double(row["y"]!)!) < 0.001 && xy[2] == 32616, "\(lines) \(row)")
                    }
                    #expect(lines[1] == String(expected.count), "the R*Tree holds every feature")
                    #expect(lines[2] == "1196444487" && lines[3] == "10200", "GeoPackage 1.2's application_id and user_version")
                    // The R*Tree is filled after the rows, in one statement: its triggers are there for edits in
                    // QGIS, and each feature's entry holds its own point.
                    #expect(lines[4] == "6" && lines[5] == String(expected.count), "\(lines)")
                }
            }
        }
    }

    @Test(.lane(.slow)) func gpkgNeedsOutAndOutRefusesInputsAndOtherFiles() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-gpkg-refuse") { directory in
                let store = try Self.tennessee(in: directory)
                let base = ["find", "--where", "county = Overton", "--db", store]
                let noOut = try Self.wells(base + ["--format", "gpkg"])
                #expect(noOut.status == 64 && noOut.err.contains("--out"), "\(noOut.err)")
                let onStore = try Self.wells(base + ["--format", "gpkg", "--out", store])
                #expect(onStore.status == 64 && onStore.err.contains("the store"), "\(onStore.err)")
                // Checked in run(), where the store's path is known, and still worded with find's usage.
                #expect(onStore.err.contains("Usage: wells find ") && onStore.err.contains("See 'wells find --help'"), "\(onStore.err)")
                let area = directory.appendingPathComponent("area.geojson").path
                try Data(#"{"type":"Polygon","coordinates":[[[-86,36],[-85,36],[-85,37],[-86,37],[-86,36]]]}"#.utf8).write(to: URL(fileURLWithPath: area))
                let onArea = try Self.wells(base + ["--within", area, "--format", "csv", "--out", area])
                #expect(onArea.status == 64 && onArea.err.contains("--within"), "\(onArea.err)")
                // An existing file of another kind is kept unless --force; a GeoPackage is replaced.
                let notes = directory.appendingPathComponent("notes.gpkg")
                try Data("my notes\n".utf8).write(to: notes)
                let refused = try Self.wells(base + ["--format", "gpkg", "--out", notes.path])
                #expect(refused.status == 64 && refused.err.contains("--force"), "\(refused.err)")
                #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes\n")
                #expect(try Self.wells(base + ["--format", "gpkg", "--out", notes.path, "--force"]).status == 0)
                #expect(GeoPackageWriter.isGeoPackage(atPath: notes.path))
                #expect(try Self.wells(base + ["--format", "gpkg", "--out", notes.path]).status == 0, "a GeoPackage is replaced")
                // Text formats: the same rules; CSV replaces a CSV of the same columns.
                let text = directory.appendingPathComponent("overton.csv").path
                #expect(try Self.wells(base + ["--format", "csv", "--out", text]).status == 0)
                let direct = try Self.wells(base + ["--format", "csv"])
                #expect(try String(contentsOfFile: text, encoding: .utf8) == direct.out)
                #expect(try Self.wells(base + ["--format", "csv", "--out", text]).status == 0)
                #expect(try Self.wells(base + ["--format", "json", "--out", text]).status == 64)
                // A directory that does not exist: exit 73 and no file; no temporary file is left anywhere.
                let missing = try Self.wells(base + ["--format", "gpkg", "--out", directory.appendingPathComponent("no/such.gpkg").path])
                #expect(missing.status == 73, "\(missing.err)")
                let litter = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") || $0.contains("-journal") }
                #expect(litter.isEmpty, "\(litter)")
            }
        }
    }

    // MARK: - Proximity join

    /// 20 points near Tennessee wells ('schools'): every 800th well, moved about 300 to 900 m.
    static func schools() throws -> [(id: String, name: String, lat: Double, lon: Double)] {
        let lines = try String(contentsOfFile: RepositoryData.realList("tn-oilgas-wells.csv"), encoding: .isoLatin1)
            .split(whereSeparator: \.isNewline).dropFirst()
        return stride(from: 0, to: 16_000, by: 800).enumerated().map { k, line in
            let fields = CSVSplit.fields(String(lines[lines.startIndex + line]))
            let lat = Double(fields[2])! + Double(k % 5 + 3) * 0.001, lon = Double(fields[3])! - Double(k % 3 + 2) * 0.002
            return ("S\(100 + k)", "School \(k)", (lat * 1e6).rounded() / 1e6, (lon * 1e6).rounded() / 1e6)
        } + [("S999", "School in Memphis", 35.1495, -90.049)]   // no well within kilometres
    }

    /// Every well of the store within `meters` of each point, by `Geodesic.distance` on every pin, nearest first (then by id).
    static func bruteForce(_ store: String, _ points: [(lat: Double, lon: Double)], meters: Double,
                           keep: (Int64) -> Bool = { _ in true }) throws -> [[(id: Int64, meters: Double)]] {
        let pins = try WellStore(path: store, mode: .readOnly).fetchPins(WellFetchRequest()).filter { keep($0.id) }
        return points.map { point in
            pins.map { (id: $0.id, meters: Geodesic.distance(fromLatitude: point.lat, longitude: point.lon, toLatitude: $0.latitude, longitude: $0.longitude)) }
                .filter { $0.meters <= meters }
                .sorted { ($0.meters, $0.id) < ($1.meters, $1.id) }
        }
    }

    @Test(.lane(.slow)) func nearFromCountsTheNearestAndPairsAsABruteForceDoes() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-near-from") { directory in
                let store = try Self.tennessee(in: directory)
                let schools = try Self.schools()
                let csv = directory.appendingPathComponent("schools.csv")
                try Data(("school_id,name,latitude,longitude\n" + schools.map { "\($0.id),\($0.name),\($0.lat),\($0.lon)" }.joined(separator: "\n") + "\n").utf8)
                    .write(to: csv)
                let truth = try Self.bruteForce(store, schools.map { ($0.lat, $0.lon) }, meters: 2_000)
                #expect(truth.contains { $0.isEmpty } && truth.contains { $0.count > 3 }, "points with none and with several wells")

                let counts = try Self.wells(["near", "--from", csv.path, "--radius", "2km", "--format", "csv", "--db", store])
                #expect(counts.status == 0, "\(counts.err)")
                let rows = Self.rows(counts.out)
                #expect(rows.count == schools.count)
                for (k, row) in rows.enumerated() {
                    #expect(row["line"] == String(k + 2) && row["point_id"] == schools[k].id && row["point_name"] == schools[k].name)
                    #expect(row["wells"] == String(truth[k].count), "point \(k): \(row)")
                    #expect(row["nearest_id"] == truth[k].first.map { String($0.id) } ?? "", "point \(k): \(row)")
                    if let nearest = truth[k].first { #expect(abs(Double(row["nearest_m"]!)! - nearest.meters) <= 0.05) }
                }

                let pairs = try Self.wells(["near", "--from", csv.path, "--radius", "2km", "--pairs", "--format", "csv", "--db", store])
                let found = Self.rows(pairs.out).map { (line: Int($0["line"]!)!, id: Int64($0["well_id"]!)!, rank: Int($0["rank"]!)!, meters: Double($0["distance_m"]!)!) }
                let expected = truth.enumerated().flatMap { k, wells in wells.enumerated().map { (line: k + 2, id: $1.id, rank: $0 + 1, meters: $1.meters) } }
                #expect(found.map { "\($0.line):\($0.id):\($0.rank)" } == expected.map { "\($0.line):\($0.id):\($0.rank)" })
                #expect(zip(found, expected).allSatisfy { abs($0.meters - $1.meters) <= 0.05 })

                // --where narrows the wells, as it does for one point.
                let overton = Set(try WellStore(path: store, mode: .readOnly).fetchIDs(WellFetchRequest(predicate: .compare(.county, .equal, .text("Overton")))))
                let narrowed = try Self.bruteForce(store, schools.map { ($0.lat, $0.lon) }, meters: 5_000, keep: overton.contains)
                let filtered = try Self.wells(["near", "--from", csv.path, "--radius", "5km", "--where", "county = Overton", "--format", "csv", "--db", store])
                #expect(Self.rows(filtered.out).map { $0["wells"]! } == narrowed.map { String($0.count) })

                // --nearest K: the K nearest of each point, whatever their distance.
                let nearest = try Self.wells(["near", "--from", csv.path, "--nearest", "3", "--format", "csv", "--db", store])
                let far = try Self.bruteForce(store, schools.map { ($0.lat, $0.lon) }, meters: .infinity)
                #expect(Self.rows(nearest.out).map { $0["well_id"]! } == far.flatMap { $0.prefix(3).map { String($0.id) } })

                // The same points as GeoJSON give the same answer; GeoJSON output has the points as geometry.
                let geojson = directory.appendingPathComponent("schools.geojson")
                let features = schools.map { #"{"type":"Feature","id":"\#($0.id)","geometry":{"type":"Point","coordinates":[\#($0.lon),\#($0.lat)]},"properties":{"name":"\#($0.name)"}}"# }
                try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: geojson)
                let fromGeoJSON = try Self.wells(["near", "--from", geojson.path, "--radius", "2km", "--format", "csv", "--db", store])
                #expect(fromGeoJSON.status == 0, "\(fromGeoJSON.err)")
                #expect(Self.rows(fromGeoJSON.out).map { [$0["feature"]!, $0["point_id"]!, $0["point_name"]!, $0["wells"]!, $0["nearest_id"]!] }
                        == rows.enumerated().map { [String($0), schools[$0].id, schools[$0].name, $1["wells"]!, $1["nearest_id"]!] })
                let asGeoJSON = try Self.wells(["near", "--from", csv.path, "--radius", "2km", "--format", "geojson", "--db", store])
                let object = try JSONSerialization.jsonObject(with: Data(asGeoJSON.out.utf8)) as? [String: Any]
                let first = (object?["features"] as? [[String: Any]])?.first
                #expect((first?["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [schools[0].lon, schools[0].lat])
                #expect((first?["properties"] as? [String: Any])?["wells"] as? Int == truth[0].count)

                // And as a GeoPackage, for QGIS.
                let gpkg = directory.appendingPathComponent("schools-wells.gpkg").path
                #expect(try Self.wells(["near", "--from", csv.path, "--radius", "2km", "--format", "gpkg", "--out", gpkg, "--db", store]).status == 0)
                if let info = try Self.tool("ogrinfo", ["-so", "-al", gpkg]) {
                    #expect(info.contains("Feature Count: \(schools.count)\n") && info.contains("\nwells: Integer") && info.contains("\nnearest_m: Real"), "\(info)")
                }
            }
        }
    }

    @Test(.lane(.slow)) func nearFromReadsProjectedPointsAndRefusesBadOnes() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-near-projected") { directory in
                let store = try Self.tennessee(in: directory)
                let indiana = RepositoryData.realList("in-igs-orphan-wells-utm16n.csv")
                // Without the CRS, the loader's inference names the candidates; exit 65.
                let unknown = try Self.wells(["near", "--from", indiana, "--radius", "1km", "--db", store])
                #expect(unknown.status == 65 && unknown.err.contains("--from-crs EPSG:26916 --from-x Utmx --from-y Utmy"), "\(unknown.err.prefix(800))")
                // `wells load`'s names for them are not near's: the message names near's.
                let loadNames = try Self.wells(["near", "--from", indiana, "--crs", "EPSG:26916", "--x", "Utmx", "--y", "Utmy", "--radius", "1km", "--db", store])
                #expect(loadNames.status == 64 && loadNames.err.contains("'EPSG:26916' was read as the point")
                        && loadNames.err.contains("use --from-crs, not --crs; use --from-x, not --x; use --from-y, not --y"), "\(loadNames.err)")
                // With it, the points are where `wells load` puts the same rows. (One row per point
                // with --radius; --nearest 1 from Indiana to Tennessee widened each search to
                // thousands of wells, and made this most of the fast lane's time in a debug build.)
                let joined = try Self.wells(["near", "--from", indiana, "--from-crs", "EPSG:26916", "--from-x", "Utmx", "--from-y", "Utmy",
                                             "--radius", "1km", "--format", "csv", "--db", store])
                #expect(joined.status == 0, "\(joined.err.prefix(800))")
                let points = Self.rows(joined.out)
                let loaded = directory.appendingPathComponent("in.sqlite").path
                #expect(try Self.wells(["load", indiana, "--crs", "EPSG:26916", "--x", "Utmx", "--y", "Utmy", "--db", loaded, "--quiet"]).status == 0)
                let pins = try WellStore(path: loaded, mode: .readOnly).fetchDictionaries(WellFetchRequest(), properties: [.identifier, .latitude, .longitude])
                let byIdentifier = Dictionary(pins.map { ($0["uwi"]!.string!, ($0["lat"]!.double!, $0["lon"]!.double!)) }, uniquingKeysWith: { a, _ in a })
                #expect(points.count == pins.count && points.count > 400)
                for point in points {
                    let stored = byIdentifier[point["point_id"] ?? ""]
                    #expect(stored?.0 == Double(point["lat"]!) && stored?.1 == Double(point["lon"]!), "\(point)")
                }
                // A row that is not a point: the file, its line and why; exit 65.
                let bad = directory.appendingPathComponent("bad.csv")
                try Data("id,latitude,longitude\nA,36.1,-85.1\nB,36.2,-85.2\nC,123.4,-85.3\n".utf8).write(to: bad)
                let refused = try Self.wells(["near", "--from", bad.path, "--radius", "1km", "--db", store])
                #expect(refused.status == 65 && refused.err.contains("bad.csv:4"), "\(refused.err)")
                let badJSON = directory.appendingPathComponent("bad.geojson")
                try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}"#.utf8).write(to: badJSON)
                let refusedJSON = try Self.wells(["near", "--from", badJSON.path, "--radius", "1km", "--db", store])
                #expect(refusedJSON.status == 65 && refusedJSON.err.contains("feature 0 is a LineString"), "\(refusedJSON.err)")
                // A point and --from together, --pairs without --from: usage errors.
                #expect(try Self.wells(["near", "36,-85", "--from", bad.path, "--radius", "1km", "--db", store]).status == 64)
                #expect(try Self.wells(["near", "36,-85", "--radius", "1km", "--pairs", "--db", store]).status == 64)
            }
        }
    }
}

extension GeoPackageNearTests {
    /// The measurement of `wells near --from` in the README: 1,000 points over Pennsylvania against the
    /// 46,754 wells of the NWIS list, the whole process, beside the brute force over every pin in this
    /// process, answers compared. Opt-in (`WELLS_MEASURE_NEAR=1`): it loads the list and takes a minute in a debug build.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["WELLS_MEASURE_NEAR"] != nil))
    func measureNearFromOnPennsylvania() async throws {
        try await runBlocking {
            try withTemporaryDirectory("wells-near-measure") { directory in
                let store = directory.appendingPathComponent("pa.sqlite").path
                #expect(try Self.wells(["load", RepositoryData.realList("usgs-nwis-pa-gw-sites.tsv"), "--db", store, "--quiet"]).status == 0)
                var random = SystemRandomNumberGenerator()
                let points = (0..<1_000).map { _ in (lat: (Double.random(in: 39.7...42.3, using: &random) * 1e6).rounded() / 1e6,
                                                     lon: (Double.random(in: -80.5...(-74.7), using: &random) * 1e6).rounded() / 1e6) }
                let csv = directory.appendingPathComponent("points.csv")
                try Data(("latitude,longitude\n" + points.map { "\($0.lat),\($0.lon)" }.joined(separator: "\n") + "\n").utf8).write(to: csv)
                var times: [Double] = []
                var output = ""
                for _ in 0..<3 {
                    let clock = ContinuousClock.now
                    let run = try Self.wells(["near", "--from", csv.path, "--radius", "1km", "--format", "csv", "--db", store])
                    times.append((ContinuousClock.now - clock).seconds)
                    output = run.out
                }
                let clock = ContinuousClock.now
                let truth = try Self.bruteForce(store, points, meters: 1_000)
                let brute = (ContinuousClock.now - clock).seconds
                #expect(Self.rows(output).map { $0["wells"]! } == truth.map { String($0.count) })
                print("wells near --from, 1,000 points, 46,754 wells, 1 km: \(times.sorted().map { String(format: "%.2f", $0) }) s (whole process); "
                      + "brute force over every pin, in process: \(String(format: "%.2f", brute)) s; \(truth.reduce(0) { $0 + $1.count }) pairs")
            }
        }
    }
}

/// Splits one CSV line, with quoted fields, for the tests' own reading.
enum CSVSplit {
    static func fields(_ line: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false
        var characters = Array(line.trimmingCharacters(in: .newlines)).makeIterator()
        while let c = characters.next() {
            if quoted {
                if c == "\"" { quoted = false } else { field.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(c)
            }
        }
        fields.append(field)
        return fields
    }
}
