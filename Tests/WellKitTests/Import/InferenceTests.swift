import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Content-aware inference on real agency files and on small files made to defeat name matching.
@Suite struct InferenceTests {
    // MARK: - Real files, no flags

    @Test func nwisPacificLoadsWithNoFlags() throws {
        let path = Fixtures.sharedData("usgs-nwis-hi-pacific-gw-sites.tsv")
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        #expect(summary.inserted == 5_223)
        #expect(summary.rejected == 180)
        #expect(summary.rejectReasons == ["missing coordinates": 180])
        #expect(summary.records == 5_403)
        #expect(summary.suspects.isEmpty)
        #expect(summary.commentLines == 1)
        #expect(summary.mapping["uwi"] == "site_no")
        // Lines count from the top of the file: the comment line is line 1, the header line 2.
        let first = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT min(line) FROM rejects") }
        let firstMissing = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            .firstIndex { $0.hasPrefix("USGS\t") && $0.split(separator: "\t", omittingEmptySubsequences: false)[3].isEmpty }
        #expect(first == firstMissing.map { $0 + 1 })
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT uwi FROM details WHERE uwi = '051930163003170'") == "051930163003170")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details WHERE uwi LIKE '0%'")! > 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM suspects") == 0)
            // Wells on both sides of the antimeridian.
            #expect(try Double.fetchOne(db, sql: "SELECT min(lon) FROM pins")! < -170)
            #expect(try Double.fetchOne(db, sql: "SELECT max(lon) FROM pins")! > 170)
            let inferences = try String.fetchOne(db, sql: "SELECT inferences FROM loads") ?? ""
            #expect(inferences.contains("\"subject\":\"datum\""))
        }
        // The quote in `Dorfay 6" Well` is a plain character in tab-separated text.
        #expect(try store.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM rejects WHERE raw LIKE '%Dorfay 6\"%' AND reason LIKE '%empty%'")
        } == 1)
    }

    /// The real lists raise no location stop and no suspect: a dry run reads, infers and runs the
    /// place check as a load does (``WellStore/scan(csvAt:options:name:)``), and writes nothing.
    @Test(.lane(.slow), arguments: ["tn-oilgas-wells.csv", "usgs-nwis-pa-gw-sites.tsv", "al-sogb-wells-multiline.csv", "usgs-nwis-hi-pacific-gw-sites.tsv"])
    func realFilesRaiseNoFalseAlarms(name: String) throws {
        let summary = try WellStore.dryRun(csvAt: Fixtures.sharedData(name))
        #expect(summary.suspects.isEmpty, "\(name): \(summary.suspects.prefix(3))")
        #expect(summary.identifierNotKey == nil)
    }

    @Test func indianaErrorListsCandidateCRSsWithEvidenceAndCommands() throws {
        let path = Fixtures.sharedData("in-igs-orphan-wells-utm16n.csv")
        do {
            _ = try WellStore.dryRun(csvAt: path)
            Issue.record("a file without latitude/longitude loaded")
        } catch let error as ImportError {
            #expect(error.code == .noCoordinateColumns)
            let text = error.description
            #expect(text.contains("EPSG:26916 for Utmx/Utmy: UTM zone 16N"))
            // The command to load with each candidate is the CLI's (ErrorAdviceTests); the library gives them as data.
            guard case .giveCRS(let candidates)? = error.remedy else { Issue.record("no CRS candidates"); return }
            #expect(candidates.first.map { [$0.crs, $0.xColumn, $0.yColumn] } == ["EPSG:26916", "Utmx", "Utmy"])
            #expect(text.contains("EPSG:3857 for x/y"))
            // The first candidate is the one the file's other pair agrees with best.
            #expect(text.range(of: "EPSG:26916")!.lowerBound < text.range(of: "EPSG:3857 for")!.lowerBound)
        }
    }

    /// Tennessee's wells of UTM zone 16 as NAD27 UTM metres, in columns named so (`UTM_X_NAD27`): NAD27
    /// and NAD83 UTM both put every well inside its county, tens of metres apart, and the first
    /// candidate, NAD83's, would have stored them there. The names now rank NAD27's first; the first
    /// candidate's options load every well where the published list has it.
    @Test func projectedColumnsNamingADatumRankItsCRSFirst() throws {
        var records = try Fixtures.records(ofFileAt: Fixtures.sharedData("tn-oilgas-wells.csv"))
        let header = records.removeFirst()
        let column = { (name: String) in header.firstIndex(of: name)! }
        let toUTM = try TransformCache.shared.transformer(from: "EPSG:4326", to: "EPSG:26716")
        var published: [String: (lat: Double, lon: Double)] = [:]
        func file(_ x: String, _ y: String) throws -> String {
            var csv = "api_num,stusps,county,\(x),\(y)\n"
            for record in records.prefix(1_500) {
                guard let lat = Double(record[column("latitude")]), let lon = Double(record[column("longitude")]), lon < -84 else { continue }
                let p = try toUTM.transform(x: lon, y: lat)
                published[record[0]] = (lat, lon)
                csv += "\(record[0]),\(record[column("stusps")]),\(record[column("county")]),\(String(format: "%.4f", p.x)),\(String(format: "%.4f", p.y))\n"
            }
            return try Fixtures.file(csv, name: "tn-utm-\(x).csv")
        }
        func candidates(_ path: String) throws -> [ImportError.CRSCandidate] {
            do {
                _ = try WellStore.dryRun(csvAt: path)
            } catch let error as ImportError {
                if case .giveCRS(let candidates)? = error.remedy { return candidates }
            }
            Issue.record("no CRS candidates for \(path)")
            return []
        }
        let named = try file("UTM_X_NAD27", "UTM_Y_NAD27")
        let ranked = try candidates(named)
        #expect(ranked.prefix(2).map(\.crs) == ["EPSG:26716", "EPSG:26916"], "\(ranked.map(\.crs))")
        #expect(ranked.first?.evidence.hasSuffix("; the columns' names say NAD27") == true)
        // Without a datum in the names, the values alone rank NAD83's first, as before.
        #expect(try candidates(try file("UTM_X", "UTM_Y")).first?.crs == "EPSG:26916")
        // The first candidate's options store every well where the published list has it (to 1e-6°).
        let first = try #require(ranked.first)
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(crs: first.crs, xColumn: first.xColumn, yColumn: first.yColumn)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: named, options: options)
        #expect(summary.inserted == published.count && published.count > 1_000)
        let stored = try store.pool.read { db in try Row.fetchAll(db, sql: "SELECT d.uwi, p.lat, p.lon FROM pins p JOIN details d ON d.pin_id = p.id") }
        #expect(stored.allSatisfy { row in published[row[0] as String].map { abs($0.lat - (row[1] as Double)) < 1e-6 && abs($0.lon - (row[2] as Double)) < 1e-6 } ?? false })
    }

    /// Real Tennessee wells with slips put in: each is flagged with its reason, and nothing else is.
    @Test func slipsInARealFileAreFlagged() throws {
        var lines = try String(contentsOfFile: Fixtures.sharedData("tn-oilgas-wells.csv"), encoding: .utf8)
            .components(separatedBy: "\r\n")
        // Latitude and longitude are the first pair of quoted numbers on a line.
        func edit(_ line: Int, _ change: (String, String) -> (String, String)) throws {
            let pair = try Regex(#""(-?[0-9]+\.[0-9]+)","(-?[0-9]+\.[0-9]+)""#)
            let match = try #require(lines[line - 1].firstMatch(of: pair))
            let (lat, lon) = change(String(match.output[1].substring!), String(match.output[2].substring!))
            lines[line - 1].replaceSubrange(match.range, with: "\"\(lat)\",\"\(lon)\"")
        }
        try edit(101) { lat, lon in (lat, String(lon.dropFirst())) }                 // lost minus sign
        try edit(2001) { lat, lon in (lon, lat) }                                    // swapped
        try edit(3001) { lat, lon in (lat, "-" + lon.dropFirst(2)) }                 // -85.x → -5.x, a lost digit
        let path = try Fixtures.file(lines.joined(separator: "\r\n"))
        let summary = try WellStore.dryRun(csvAt: path)
        #expect(summary.suspects.map(\.line) == [101, 2001, 3001])
        #expect(summary.suspects.map(\.reason) == ["longitude sign", "swapped", "lost digit"])
        var options = LoadOptions()
        options.rejectSuspects = true
        let strict = try WellStore.dryRun(csvAt: path, options: options)
        #expect(strict.suspects.isEmpty)
        #expect(strict.rejectReasons["suspect: longitude sign"] == 1)
        #expect(strict.inserted == summary.inserted - 3)
    }

    // MARK: - Columns that names alone do not settle

    @Test(arguments: [("Well API", 0), ("API#", 0), ("API Number", 0), ("UWI", 0), ("WELL_ID", 0), ("site_no", 0),
                      ("Permit_Number", 1), ("IGS_ID", 1), ("OBJECTID", 2), ("Id", 2)])
    func identifierHeaders(name: String, rank: Int) {
        #expect(ColumnInference.identifierRank(name) == rank)
    }

    @Test(arguments: ["Spud Date", "PermitDate", "Well Name", "Well Type", "Status", "County"])
    func headersThatNameNoIdentifier(name: String) {
        #expect(ColumnInference.identifierRank(name) == nil)
    }

    @Test func mostUniqueIdentifierWins() throws {
        // Tennessee's API numbers (state code 41) for wells in Tennessee: the load checks that they agree.
        var text = "Well API,Permit,Latitude,Longitude\n"
        for k in 0..<200 { text += "4112300000000\(k % 3),P-\(k),36.\(1000 + k),-85.\(2000 + k)\n" }
        let summary = try WellStore.dryRun(csvAt: try Fixtures.file(text))
        #expect(summary.mapping["uwi"] == "Permit")
        #expect(summary.extraColumns.contains("Well API"))
        #expect(summary.rejected == 0)
    }

    @Test func identifierThatIsNotAKeyLoadsEveryWell() throws {
        // One API column, rounded by a spreadsheet: 3 values over 300 different wells; 2 exact copies,
        // so that the second and third values appear 101 times each (the earlier one is reported).
        var rows: [String] = []
        for k in 0..<300 { rows.append("\(["4.21235E+13", "4.21236E+13", "4.21237E+13"][k % 3]),W \(k),36.\(1000 + k),-85.\(2000 + k)") }
        rows += [rows[10], rows[20]]
        let path = try Fixtures.file("Well API,Well Name,Latitude,Longitude\n" + rows.joined(separator: "\n") + "\n", name: "tx.csv")
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        let report = try #require(summary.identifierNotKey)
        #expect(report.column == "Well API")
        #expect(report.distinct == 3)
        #expect(report.mostRepeated == "4.21236E+13" && report.mostRepeatedCount == 101)
        #expect(summary.inserted == 300)
        #expect(summary.rejectReasons == ["duplicate well": 2])
        #expect(summary.warnings.contains { $0.contains("not a key") && $0.contains(#"LoadOptions.identifier = .column("Well API")"#) })
        let generated = "tx.csv@" + RecordValidator.fileTag(header: ["Well API", "Well Name", "Latitude", "Longitude"],
                                                             firstRecord: rows[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)) + ":9"
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT uwi FROM details JOIN pins ON pins.id = pin_id WHERE name = 'W 7'") == generated)
        }
        #expect(try store.well(identifier: generated)?.detail.extra["Well API"] == "4.21236E+13")
        // Loading again updates, and --id makes the column a key again.
        #expect(try store.load(csvAt: path).updated == 300)
        var options = LoadOptions()
        options.identifier = .column("Well API")
        #expect(try WellStore.dryRun(csvAt: path, options: options).inserted == 3)
        options.identifier = .none
        #expect(try WellStore.dryRun(csvAt: path, options: options).inserted == 302)
    }

    @Test func compactDMSWithDatumAndCountryNeedsNoFlags() throws {
        let text = """
            # comment
            site_no\tlat_va\tlong_va\tcoord_datum_cd\tcountry_cd
            15s\t11s\t12s\t10s\t2s
            012345678901234\t361416.67\t0863239.23\tNAD27\tUS
            012345678901235\t365457.40\t862826.59\tNAD83\tUS
            012345678901236\t365457.40\t0862826.59\t\tUS

            """
        let summary = try WellStore.dryRun(csvAt: try Fixtures.file(text, name: "dms.tsv"))
        #expect(summary.inserted == 3 && summary.rejected == 0)
        #expect(summary.commentLines == 1)
        let subjects = Dictionary(uniqueKeysWithValues: summary.inferences.map { ($0.subject, $0) })
        #expect(subjects["latitude"]?.value == "compact DMS")
        #expect(subjects["longitude"]?.column == "long_va")
        #expect(subjects["hemisphere"]?.value.hasPrefix("west") == true)
        #expect(subjects["datum"]?.column == "coord_datum_cd")
        #expect(summary.preview.first?["lon"]?.hasPrefix("-86.54") == true)
        #expect(summary.preview.first?["uwi"] == "012345678901234")
        #expect(Set(summary.transformations.map(\.source)) == ["EPSG:4267", "EPSG:4269"])
    }

    /// Tennessee's list with its coordinate columns named as agencies name NAD27 ones: every well is
    /// stored where `--crs EPSG:4267` stores it, not where the same numbers read as WGS 84 would put it.
    @Test(.lane(.slow)) func aDatumInTheCoordinateColumnsNamesIsTheirCRS() throws {
        let original = try String(contentsOfFile: Fixtures.sharedData("tn-oilgas-wells.csv"), encoding: .utf8)
        /// The list, or its first `lines` lines, with its coordinate columns named `lat` and `lon`.
        func renamed(_ lat: String, _ lon: String, lines: Int? = nil) throws -> String {
            let text = lines.map { original.split(separator: "\n", omittingEmptySubsequences: false).prefix($0).joined(separator: "\n") + "\n" } ?? original
            return try Fixtures.file(text.replacingOccurrences(of: "latitude,longitude", with: "\"\(lat)\",\"\(lon)\"", options: [],
                                                               range: text.startIndex..<text.index(text.startIndex, offsetBy: 200)),
                                     name: "tn-\(ColumnMapping.normalize(lat)).csv")
        }
        func wells(_ path: String, _ options: LoadOptions = LoadOptions()) throws -> [String: (lat: Double, lon: Double)] {
            let store = try Fixtures.makeStore()
            _ = try store.load(csvAt: path, options: options)
            return try store.pool.read { db in
                var wells: [String: (lat: Double, lon: Double)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT d.uwi, p.lat, p.lon FROM pins p JOIN details d ON d.pin_id = p.id") {
                    wells[row[0]] = (row[1], row[2])
                }
                return wells
            }
        }
        var nad27 = LoadOptions()
        nad27.coordinates.crs = "EPSG:4267"
        let given = try wells(Fixtures.sharedData("tn-oilgas-wells.csv"), nad27)
        let asWGS84 = try wells(Fixtures.sharedData("tn-oilgas-wells.csv"))
        let inferred = try wells(try renamed("lat_nad27", "long_nad27"))
        #expect(given.count == 16_464 && inferred.count == given.count)
        #expect(inferred.allSatisfy { uwi, point in given[uwi].map { $0 == point } ?? false }, "a well is not where --crs EPSG:4267 puts it")
        // The shift the inference saves: NAD27 read as WGS 84 is 9–15 m off here.
        let shifted = inferred.count { uwi, point in Geodesic.distance(fromLatitude: point.lat, longitude: point.lon, toLatitude: asWGS84[uwi]!.lat, longitude: asWGS84[uwi]!.lon) > 5 }
        #expect(shifted * 10 >= inferred.count * 9)

        for (lat, lon) in [("LAT_NAD27", "LONG_NAD27"), ("Latitude (NAD 1927)", "Longitude (NAD 1927)"), ("lat27", "long27"),
                           ("latitude", "Long_NAD27")] {
            let summary = try WellStore.dryRun(csvAt: try renamed(lat, lon, lines: 400))
            let datum = summary.inferences.first { $0.subject == "datum" }
            #expect(datum?.value == "NAD27 (EPSG:4267) for every row", "\(lat), \(lon)")
            #expect(datum?.override.hasSuffix("(EPSG:4326 if they are WGS 84)") == true)
            #expect(summary.transformations.map(\.source) == ["EPSG:4267"], "\(lat), \(lon)")
        }
        // NAD83 and WGS 84 names change nothing; names that disagree, or a CRS the user gave, decide nothing.
        var wgs84 = LoadOptions()
        wgs84.coordinates.crs = "EPSG:4326"
        for (lat, lon, options) in [("Lat_NAD83", "Long_NAD83", LoadOptions()), ("lat_wgs84", "lon_wgs84", LoadOptions()),
                                    ("lat_nad27", "long_nad83", LoadOptions()), ("lat_nad27", "long_nad27", wgs84)] {
            let summary = try WellStore.dryRun(csvAt: try renamed(lat, lon, lines: 400), options: options)
            #expect(!summary.inferences.contains { $0.subject == "datum" }, "\(lat), \(lon)")
            #expect(summary.transformations.isEmpty, "\(lat), \(lon)")
        }
    }

    /// Tennessee's list with each coordinate in degrees, minutes and seconds columns of their own, the
    /// longitudes unsigned, as older agency lists write them: every well where the published list has
    /// it, with no flag (read as the degrees alone, they all stood on 17 whole-degree corners).
    @Test(.lane(.slow)) func minutesAndSecondsInColumnsOfTheirOwn() throws {
        let path = Fixtures.sharedData("tn-oilgas-wells.csv")
        var records = try Fixtures.records(ofFileAt: path)
        let header = records.removeFirst()
        let (latColumn, lonColumn) = (header.firstIndex(of: "latitude")!, header.firstIndex(of: "longitude")!)
        /// The list with its coordinates split under `names` (degrees, minutes, seconds; latitude's then longitude's), `edit` applied per row.
        func split(_ names: [String], lines: Int = .max, seconds: Bool = true, edit: (Int, inout [String]) -> Void = { _, _ in }) throws -> String {
            func parts(_ value: Double) -> [String] {
                // Rounded first, so that no part is written as 60.
                if !seconds {
                    let minutes = (abs(value) * 60 * 1e7).rounded() / 1e7, degrees = (minutes / 60).rounded(.down)
                    return [String(Int(degrees)), String(format: "%.7f", minutes - degrees * 60)]
                }
                let total = (abs(value) * 3_600 * 1e5).rounded() / 1e5
                let degrees = (total / 3_600).rounded(.down), minutes = ((total - degrees * 3_600) / 60).rounded(.down)
                return [String(Int(degrees)), String(Int(minutes)), String(format: "%.5f", total - degrees * 3_600 - minutes * 60)]
            }
            let kept = header.indices.filter { $0 != latColumn && $0 != lonColumn }
            var rows: [[String]] = [kept.map { header[$0] } + names]
            for (k, record) in records.prefix(lines).enumerated() {
                guard let lat = Double(record[latColumn]), let lon = Double(record[lonColumn]) else { continue }
                var row: [String] = kept.map { record[$0] }
                row += parts(lat) + parts(lon)
                edit(k, &row)
                rows.append(row)
            }
            func quoted(_ field: String) -> String { "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            let csv = rows.map { $0.map(quoted).joined(separator: ",") }.joined(separator: "\n") + "\n"
            return try Fixtures.file(csv, name: "tn-split.csv")
        }
        func wells(_ path: String, _ options: LoadOptions = LoadOptions()) throws -> (LoadSummary, [String: (lat: Double, lon: Double)]) {
            let store = try Fixtures.makeStore()
            let summary = try store.load(csvAt: path, options: options)
            return (summary, try store.pool.read { db in
                Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT d.uwi, p.lat, p.lon FROM pins p JOIN details d ON d.pin_id = p.id")
                    .map { (($0[0] as String), (lat: $0[1] as Double, lon: $0[2] as Double)) })
            })
        }
        let names = ["LAT_DEG", "LAT_MIN", "LAT_SEC", "LONG_DEG", "LONG_MIN", "LONG_SEC"]
        let (_, published) = try wells(path)
        let (summary, read) = try wells(try split(names))
        #expect(summary.inserted == published.count && summary.rejected == 0)
        // Five decimals of a second are 1.4e-9°.
        #expect(read.allSatisfy { uwi, p in published[uwi].map { abs($0.lat - p.lat) < 1e-8 && abs($0.lon - p.lon) < 1e-8 } ?? false })
        let subjects = Dictionary(summary.inferences.map { ($0.subject, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(subjects["minutes and seconds"]?.value == "latitude LAT_DEG + LAT_MIN / 60 + LAT_SEC / 3600, longitude LONG_DEG + LONG_MIN / 60 + LONG_SEC / 3600")
        #expect(subjects["hemisphere"]?.evidence == "stusps names US states or Canadian provinces")
        #expect(subjects["latitude"]?.value == "whole degrees")

        // Other spellings, minutes without seconds, and the options given by hand instead.
        for (names, seconds) in [(["LatDeg", "LatMin", "LatSec", "LongDeg", "LongMin", "LongSec"], true),
                                 (["DEG_LAT", "MIN_LAT", "SEC_LAT", "DEG_LON", "MIN_LON", "SEC_LON"], true),
                                 (["lat d", "lat m", "lat s", "long d", "long m", "long s"], true),
                                 (["LAT_DEG", "LAT_MIN", "LONG_DEG", "LONG_MIN"], false)] {
            let file = try split(names, lines: 400, seconds: seconds)
            let summary = try WellStore.dryRun(csvAt: file)
            #expect(summary.inferences.contains { $0.subject == "minutes and seconds" }, "\(names)")
            #expect(summary.preview.first?["lat"]?.hasPrefix("36.46955") == true && summary.preview.first?["lon"]?.hasPrefix("-85.26130") == true,
                    "\(names): \(summary.preview.first ?? [:])")
        }
        var byHand = LoadOptions()
        byHand.infer = false
        byHand.mapping = ["lat": "LAT_DEG", "lon": "LONG_DEG"]
        byHand.coordinates.impliedWest = true
        byHand.coordinates.minutesAndSeconds = .init(latitudeMinutes: "LAT_MIN", longitudeMinutes: "LONG_MIN", latitudeSeconds: "LAT_SEC", longitudeSeconds: "LONG_SEC")
        #expect(try WellStore.dryRun(csvAt: try split(names, lines: 400), options: byHand).preview.first?["lat"]?.hasPrefix("36.46955") == true)

        // A bad part rejects its row, naming its column; the rest load.
        let damaged = try split(names, lines: 2_000) { k, row in
            switch k {
            case 10: row[row.count - 5] = "75"          // LAT_MIN
            case 11: row[row.count - 1] = "x"           // LONG_SEC
            case 12: row[row.count - 6] = "36.5"        // LAT_DEG with a fraction
            default: break
            }
        }
        let partly = try WellStore.dryRun(csvAt: damaged)
        #expect(partly.rejected == 3)
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: damaged)
        let reasons = try store.pool.read { db in try Row.fetchAll(db, sql: "SELECT \"column\", reason FROM rejects ORDER BY line").map { "\($0[0] as String): \($0[1] as String)" } }
        #expect(reasons == ["LAT_MIN: latitude minutes \"75\" are not a number from 0 to under 60",
                            "LONG_SEC: longitude seconds \"x\" are not a number from 0 to under 60",
                            "LAT_DEG: latitude degrees \"36.5\" have a fraction, but their minutes are in LAT_MIN; expected whole degrees beside minutes and seconds"])
        // With --dms too, the options contradict each other.
        var both = byHand
        both.coordinates.dms = true
        #expect(throws: ImportError.self) { _ = try WellStore.dryRun(csvAt: try split(names, lines: 50), options: both) }
    }

    @Test func unsignedDMSWithoutEvidenceAsksForTheHemisphere() throws {
        let path = try Fixtures.file("id,lat_va,long_va\n1,361416.67,0863239.23\n2,365457.40,0862826.59\n")
        #expect(throws: ImportError.self) { _ = try WellStore.dryRun(csvAt: path) }
        var options = LoadOptions()
        options.coordinates.impliedWest = true
        #expect(try WellStore.dryRun(csvAt: path, options: options).preview.first?["lon"]?.hasPrefix("-86.54") == true)
    }

    // MARK: - Encodings and malformed files

    @Test func malformedHeaderIsNamedWithItsLine() throws {
        let path = try Fixtures.file("# a comment\nlat;lon;\"name\n36;-85;x\n")
        do {
            _ = try WellStore.dryRun(csvAt: path)
            Issue.record("a malformed header loaded")
        } catch let error as ImportError {
            #expect(error.code == .malformedHeader)
            #expect(error.description == "\(path):2: the header is malformed: a quoted field opened on line 2 is never closed; close it with \" or remove the stray quote")
        }
    }

    @Test func utf16WithByteOrderMarkIsRead() throws {
        let text = "api,lat,lon,name\n41-1,36.1,-85.1,Café\n41-2,36.2,-85.2,Øst\n"
        for (bom, encoding) in [([UInt8(0xFF), 0xFE], String.Encoding.utf16LittleEndian), ([0xFE, 0xFF], .utf16BigEndian)] {
            let url = try Fixtures.temporaryDirectory().appendingPathComponent("u16.csv")
            try (Data(bom) + text.data(using: encoding)!).write(to: url)
            let summary = try WellStore.dryRun(csvAt: url.path)
            #expect(summary.inserted == 2)
            #expect(summary.preview.map { $0["name"] } == ["Café", "Øst"])
            #expect(summary.file == url.path)
        }
    }

    /// The transcoder goes a chunk at a time: a surrogate pair split by a chunk's end must arrive
    /// whole, in either byte order, whatever the chunk's size.
    @Test(arguments: [2, 3, 5, 64])
    func utf16IsTranscodedAcrossChunks(chunkUnits: Int) throws {
        let text = "api,name\n1,Café 𝔘 🛢️ Øst\n2,\u{10FFFF}x𝔘\n"
        let directory = try Fixtures.temporaryDirectory()
        for (bom, encoding, bigEndian) in [([UInt8(0xFF), 0xFE], String.Encoding.utf16LittleEndian, false), ([0xFE, 0xFF], .utf16BigEndian, true)] {
            let url = directory.appendingPathComponent("u16-\(chunkUnits)-\(bigEndian).csv"), spool = url.path + ".utf8"
            try (Data(bom) + text.data(using: encoding)!).write(to: url)
            try TextEncoding.transcodeUTF16(MappedFile(path: url.path), bigEndian: bigEndian, to: spool, chunkUnits: chunkUnits)
            #expect(try Data(contentsOf: URL(fileURLWithPath: spool)) == Data(text.utf8), "\(chunkUnits) units, big-endian \(bigEndian)")
        }
    }

    /// A lone surrogate, at the file's end or in its middle, and an odd number of bytes are refused,
    /// naming where: the line and the byte (counted from the file's start, its byte order mark included).
    @Test(arguments: [
        ([0x41, 0x00, 0x0A, 0x00, 0x00, 0xD8], "a lone surrogate (0xD800) on line 2, at byte 6"),
        ([0x41, 0x00, 0x0A, 0x00, 0x0A, 0x00, 0x00, 0xDC, 0x42, 0x00], "a lone surrogate (0xDC00) on line 3, at byte 8"),
        ([0x41, 0x00, 0x42], "it has an odd number of bytes (5)"),
    ] as [([UInt8], String)])
    func invalidUTF16IsRefused(body: [UInt8], message: String) throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("bad16.csv")
        try Data([0xFF, 0xFE] + body).write(to: url)
        do {
            try TextEncoding.transcodeUTF16(MappedFile(path: url.path), bigEndian: false, to: url.path + ".utf8", chunkUnits: 2)
            Issue.record("invalid UTF-16 was transcoded")
        } catch let error as ImportError {
            #expect(error.code == .notText)
            #expect(error.description.contains("not valid UTF-16: \(message);"), "\(error.description)")
        }
    }

    @Test(arguments: [([UInt8(0x1F), 0x8B, 8, 0], "gzip"), ([0x50, 0x4B, 3, 4], "ZIP"), ([0x53, 0x51, 0, 0x4C], "NUL byte")])
    func nonTextIsRefusedWithoutEchoingBytes(head: [UInt8], name: String) throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("bin.csv")
        try Data(head + [UInt8](repeating: 0xC8, count: 64)).write(to: url)
        do {
            _ = try WellStore.dryRun(csvAt: url.path)
            Issue.record("binary data loaded")
        } catch let error as ImportError {
            #expect(error.code == .notText)
            #expect(error.description.contains(name))
            #expect(!error.description.contains("\u{FFFD}") && !error.description.contains("È"))
        }
    }
}
