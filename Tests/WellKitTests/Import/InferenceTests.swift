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
    @Test(.tags(.slow), arguments: ["tn-oilgas-wells.csv", "usgs-nwis-pa-gw-sites.tsv", "al-sogb-wells-multiline.csv", "usgs-nwis-hi-pacific-gw-sites.tsv"])
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
    @Test(.tags(.slow)) func aDatumInTheCoordinateColumnsNamesIsTheirCRS() throws {
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
