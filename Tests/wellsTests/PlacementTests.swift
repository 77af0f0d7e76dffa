import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
import WellKitSynthetic

/// Files made the way agencies publish them (`Tests/Fixtures/Placement`, made by its
/// `make_fixtures.py`), each with a slip that used to load its wells onto the wrong continent with
/// exit 0. Each must now stop with exit 65 and a command that, pasted, loads the wells where their
/// rows say; or load with its wells where they belong.
@Suite(.lane(.slow), .blocking) struct PlacementTests {
    static let fixtures = RepositoryData.root.appendingPathComponent("Tests/Fixtures/Placement")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// A path for a new store, in a directory removed at exit.
    static func newStorePath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wells-placement-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(UUID().uuidString + ".sqlite").path
    }

    /// The command after "load with: " in a message, split as a shell would split it.
    static func suggestedCommand(_ message: String, after marker: String = "load with: ") -> [String]? {
        guard let line = message.split(separator: "\n").first(where: { $0.contains(marker) }),
              let range = line.range(of: marker) else { return nil }
        var words: [String] = [], word = "", quoted = false, any = false
        for c in line[range.upperBound...] {
            if c == "'" { quoted.toggle(); any = true } else if c == " " && !quoted {
                if any { words.append(word) }
                word = ""; any = false
            } else { word.append(c); any = true }
        }
        if any { words.append(word) }
        return words
    }

    /// Every well of a store, by identifier.
    static func wells(in store: WellStore) throws -> [(uwi: String, lat: Double, lon: Double)] {
        try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT uwi, lat, lon FROM pins JOIN details ON details.pin_id = pins.id ORDER BY uwi")
                .map { ($0["uwi"], $0["lat"], $0["lon"]) }
        }
    }

    /// Runs the suggested command (without its leading `wells`) and returns what it stored.
    static func paste(_ message: String) throws -> [(uwi: String, lat: Double, lon: Double)] {
        let command = try #require(suggestedCommand(message), "no command in: \(message)")
        #expect(command.prefix(2) == ["wells", "load"])
        let result = try HardeningTests.wells(Array(command.dropFirst()))
        #expect(result.status == 0, "the pasted command failed: \(command) \(result.err)")
        let db = try #require(command.firstIndex(of: "--db").map { command[$0 + 1] })
        return try wells(in: WellStore(path: db, mode: .existing))
    }

    /// Loads `published` into a new store and expects `pasted` (what a suggested command stored) to
    /// hold the same `count` wells at the same positions; returns the load's summary.
    @discardableResult
    static func expectPublished(_ pasted: [(uwi: String, lat: Double, lon: Double)], _ published: String,
                                options: LoadOptions = LoadOptions(), count: Int) throws -> LoadSummary {
        let store = try WellStore(path: newStorePath())
        let summary = try store.load(csvAt: published, options: options)
        let expected = try wells(in: store)
        #expect(pasted.count == count && expected.count == count)
        #expect(zip(pasted, expected).allSatisfy { $0.uwi == $1.uwi && $0.lat == $1.lat && $0.lon == $1.lon },
                "the pasted command's wells are not where the published list has them")
        return summary
    }

    /// Whether every well lies inside `state` (by its counties' outlines, to the check's tolerance).
    static func allInside(_ wells: [(uwi: String, lat: Double, lon: Double)], _ postal: String) throws -> Bool {
        let places = try #require(Places.shared)
        let state = try #require(USState.named(postal, fips: false))
        let outline = try #require(places.stateByFIPS[state.fips])
        return wells.allSatisfy { places.distance(to: [outline], longitude: $0.lon, latitude: $0.lat) <= Places.tolerance }
    }

    @Test func lostMinusSignsWithAStateColumnStopWithImpliedWest() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("ok.sqlite").path
            let result = try HardeningTests.wells(["load", Self.fixture("ok-lost-sign.csv"), "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("300 of 300 wells lie outside the state named on their rows (State)"), "\(result.err)")
            #expect(result.err.contains("(China)") && result.err.contains("Oklahoma 300"))
            #expect(result.err.contains("--implied-west"))
            #expect(!FileManager.default.fileExists(atPath: db), "a stopped first load leaves no store")
            let wells = try Self.paste(result.err)
            #expect(wells.count == 300)
            #expect(try Self.allInside(wells, "OK"))
        }
    }

    @Test func aFewLostSignsAreFlaggedWithTheirSlipAndTheirState() throws {
        let summary = try WellStore(path: Self.newStorePath()).load(csvAt: Self.fixture("ok-four-slips.csv"))
        #expect(summary.inserted == 300)
        #expect(summary.suspects.map(\.line) == [9, 72, 172, 272])
        #expect(summary.suspects.allSatisfy { $0.reason == "longitude sign" && $0.detail.contains("outside Oklahoma named on its row") })
        #expect(summary.inferences.contains { $0.subject == "state" && $0.column == "State" })
    }

    /// A county column is checked too: in the state on each row, or in the one state whose counties a file names.
    @Test func aWellOutsideItsRowsCountyIsFlagged() throws {
        let summary = try WellStore(path: Self.newStorePath()).load(csvAt: Self.fixture("tn-wrong-county.csv"))
        #expect(summary.inserted == 60)
        #expect(summary.inferences.contains { $0.subject == "county" && $0.column == "county" })
        #expect(summary.suspects.count == 1)
        let suspect = try #require(summary.suspects.first)
        #expect(suspect.line == 12 && suspect.reason == "outside named place", "\(suspect)")
        #expect(suspect.detail.hasPrefix("outside Overton County, TN named on its row ("), "\(suspect.detail)")
        // Indiana's list names counties and no state: Indiana is implied, and no well is outside its county.
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(crs: "EPSG:26916", xColumn: "Utmx", yColumn: "Utmy")
        let indiana = try WellStore(path: Self.newStorePath()).load(csvAt: RepositoryData.realList("in-igs-orphan-wells-utm16n.csv"), options: options)
        #expect(indiana.inferences.contains { $0.subject == "county" && $0.evidence.contains("Indiana, the only state") })
        #expect(indiana.suspects.isEmpty)
        #expect(Places.countyKey("St. Louis County") == "STLOUIS" && Places.countyKey("DOÑA ANA") == "DONAANA")
    }

    @Test func statePlaneFeetReadAsMetresStopWithTheFeetCRS() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("sp.sqlite").path
            let result = try HardeningTests.wells(["load", Self.fixture("ok-stateplane-ftus.csv"), "--db", db,
                                                   "--crs", "EPSG:32124", "--x", "X_COORD", "--y", "Y_COORD"])
            #expect(result.status == 65)
            #expect(result.err.contains("US survey feet") && result.err.contains("--crs EPSG:2267"), "\(result.err)")
            try Self.expectTheKey(try Self.paste(result.err))
        }
    }

    /// The answer key's positions, to the fixture's rounding.
    static func expectTheKey(_ wells: [(uwi: String, lat: Double, lon: Double)]) throws {
        let key = try String(contentsOfFile: fixture("ok-stateplane-ftus-key.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        #expect(wells.count == key.count)
        for (well, row) in zip(wells, key) {
            #expect(well.uwi == row[0])
            let error = Geodesic.distance(fromLatitude: well.lat, longitude: well.lon, toLatitude: Double(row[1])!, longitude: Double(row[2])!)
            // The fixture rounds x and y to 0.01 ft (3 mm), so a well may lie up to about 2 mm off either way.
            #expect(error < 0.003, "\(well.uwi) is \(error) m from the key")
        }
    }

    @Test func projectedCandidatesAreTheNamedStatesZonesAndLand() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("sp.sqlite").path
            let result = try HardeningTests.wells(["load", Self.fixture("ok-stateplane-ftus.csv"), "--db", db])
            #expect(result.status == 65)
            let first = try #require(Self.suggestedCommand(result.err, after: "    "), "\(result.err)")
            #expect(first.contains("EPSG:2267"), "the first candidate is NAD83 / Oklahoma North (ftUS): \(result.err)")
            #expect(!result.err.contains("EPSG:3857"), "Web Mercator puts these wells in Africa: never offered")
            var pasted = Array(first.dropFirst())
            pasted += ["--db", db]
            #expect(try HardeningTests.wells(pasted).status == 0)
            try Self.expectTheKey(try Self.wells(in: WellStore(path: db, mode: .existing)))
        }
    }

    @Test func swappedXAndYStopWithTheSwap() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("sp.sqlite").path
            let result = try HardeningTests.wells(["load", Self.fixture("ok-stateplane-ftus.csv"), "--db", db,
                                                   "--crs", "EPSG:2267", "--x", "Y_COORD", "--y", "X_COORD"])
            #expect(result.status == 65)
            #expect(result.err.contains("the x and y columns are swapped"), "\(result.err)")
            try Self.expectTheKey(try Self.paste(result.err))
        }
    }

    /// Indiana's UTM columns swapped: its County column (Indiana's counties, implied) is the evidence;
    /// without it, the CRS's area of use is.
    @Test(arguments: [true, false])
    func aUserCRSIsCheckedAgainstTheFilesEvidence(withCounty: Bool) throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("in.sqlite").path
            var file = RepositoryData.realList("in-igs-orphan-wells-utm16n.csv")
            if !withCounty {
                let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: ",County,", with: ",Area,")
                file = directory.appendingPathComponent("in-no-county.csv").path
                try text.write(toFile: file, atomically: true, encoding: .utf8)
            }
            let result = try HardeningTests.wells(["load", file, "--db", db, "--crs", "EPSG:26916", "--x", "Utmy", "--y", "Utmx"])
            #expect(result.status == 65)
            #expect(result.err.contains(withCounty ? "492 of 492 wells lie outside the county named on their rows (County)"
                                                   : "outside the area of use of EPSG:26916"), "\(result.err)")
            let wells = try Self.paste(result.err)
            #expect(wells.count == 492)
            #expect(try Self.allInside(wells, "IN"))
            // --no-location-check loads them as given, flagged.
            let forced = try HardeningTests.wells(["load", file, "--db", directory.appendingPathComponent("f.sqlite").path, "--crs", "EPSG:26916",
                                                   "--x", "Utmy", "--y", "Utmx", "--no-location-check", "--format", "json"])
            #expect(forced.status == 0)
            #expect(forced.out.contains("Loaded anyway"))
        }
    }

    @Test func swappedColumnsStopWithTheMapping() throws {
        for name in ["pa-swapped.csv", "pa-swapped-no-state.csv"] {
            try withTemporaryDirectory("placement") { directory in
                let db = directory.appendingPathComponent("pa.sqlite").path
                let result = try HardeningTests.wells(["load", Self.fixture(name), "--db", db])
                #expect(result.status == 65, "\(name)")
                #expect(result.err.contains("(Antarctica)") && result.err.contains("--map lat=Longitude --map lon=Latitude"), "\(result.err)")
                let wells = try Self.paste(result.err)
                #expect(wells.count == 300)
                #expect(try Self.allInside(wells, "PA"))
            }
        }
    }

    @Test func aFileWhoseEveryRowIsRejectedExits65WithTheFix() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("all.sqlite").path
            let result = try HardeningTests.wells(["load", Self.fixture("ok-all-swapped.csv"), "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("none of the 300 records loaded") && result.err.contains("coordinates swapped"), "\(result.err)")
            #expect(!FileManager.default.fileExists(atPath: db), "no empty store is left")
            let wells = try Self.paste(result.err)
            #expect(wells.count == 300)
            #expect(try Self.allInside(wells, "OK"))
        }
    }

    /// NAD27 written seven ways among NAD83 and WGS84: every NAD27 row goes through the NAD27 operation.
    @Test func datumsAreReadByAnyUsualSpelling() throws {
        let summary = try WellStore(path: Self.newStorePath()).load(csvAt: Self.fixture("datums.tsv"))
        #expect(summary.inserted == 200 && summary.rejected == 0)
        let byCRS = Dictionary(summary.transformations.map { ($0.source, $0.wells) }, uniquingKeysWith: +)
        #expect(byCRS["EPSG:4267"] == 140, "\(byCRS)")
        #expect(byCRS["EPSG:4269"] == 20)
        #expect(summary.inferences.contains { $0.subject == "datum" && $0.value.hasPrefix("per row: NAD27 120") })
        for spelling in ["NAD 27", "NAD-27", "NAD1927", "nad27", "North American Datum 1927", "GCS_North_American_1927", "4267", "EPSG:4267"] {
            #expect(CoordinateOptions.datumKey(spelling) == CoordinateOptions.datumKey("NAD27") || CoordinateOptions.datumKey(spelling) == "EPSG:4267",
                    "\(spelling)")
        }
        #expect(CoordinateOptions.datumKey("WGS 1984") == "WGS84" && CoordinateOptions.datumKey("NAD83(HARN)") == "NAD83HARN")
    }

    /// Title lines, `;` with decimal commas, Windows-1252 punctuation and a short row: every well
    /// loads where its row says, its text as written, and the summary names what it read.
    @Test func anExportWithTitleLinesDecimalCommasAndWindows1252Loads() throws {
        let store = try WellStore(path: Self.newStorePath())
        let summary = try store.load(csvAt: Self.fixture("ok-export-1252.csv"))
        #expect(summary.inserted == 40 && summary.rejected == 0 && summary.suspects.isEmpty)
        #expect(summary.titleLines == 2)
        let inferred = Dictionary(summary.inferences.map { ($0.subject, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(inferred["encoding"] == "Windows-1252" && inferred["delimiter"] == "semicolon")
        #expect(inferred["decimal mark"]?.hasPrefix("comma") == true)
        #expect(inferred["title"]?.contains("Oklahoma Corporation Commission - Well Data Export") == true)
        #expect(summary.warnings.contains { $0.contains("fewer fields than the header (the first on line 9)") })
        let first = try store.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT name, lat, lon, operator FROM wells WHERE uwi = '35-000000'")
        }
        let key = try String(contentsOfFile: Self.fixture("ok-lost-sign.csv"), encoding: .utf8).split(separator: "\n")[1].split(separator: ",")
        #expect(first?["name"] == "\u{201C}Smith\u{201D} \u{2013} 0" && first?["operator"] == "Acme \u{2013} Oil")
        #expect(first?["lat"] == Double(key[2])! && first?["lon"] == -Double(key[3])!)
        #expect(try Self.allInside(try Self.wells(in: store), "OK"))
    }

    /// Coordinates in one column (WKT, EWKT, a (lat, lon) tuple, a DMS pair) and degrees under X/Y
    /// headers load where they are, inferred from the values; `--map lat=COLUMN` onto a point column works too.
    @Test(arguments: ["points-wkt.csv", "points-ewkt.csv", "points-tuple.csv", "points-dms.csv", "degrees-xy.csv"])
    func coordinatesInOneColumnOrUnderXAndY(name: String) throws {
        let store = try WellStore(path: Self.newStorePath())
        let summary = try store.load(csvAt: Self.fixture(name))
        #expect(summary.inserted == 50 && summary.rejected == 0 && summary.suspects.isEmpty, "\(name): \(summary.rejectReasons)")
        let key = try String(contentsOfFile: Self.fixture("ok-lost-sign.csv"), encoding: .utf8).split(separator: "\n").dropFirst().prefix(50)
            .map { $0.split(separator: ",").map(String.init) }
        let stored = try Self.wells(in: store)
        // DMS to a tenth of a second is within about 3 m; the other forms keep every digit.
        let tolerance = name == "points-dms.csv" ? 5.0 : 0.001
        for (well, row) in zip(stored, key) {
            #expect(well.uwi == row[0])
            #expect(Geodesic.distance(fromLatitude: well.lat, longitude: well.lon, toLatitude: Double(row[2])!, longitude: -Double(row[3])!) < tolerance, "\(well)")
        }
        if name == "points-wkt.csv" {
            var options = LoadOptions()
            options.infer = false
            options.mapping["lat"] = "geometry"
            #expect(try WellStore(path: Self.newStorePath()).load(csvAt: Self.fixture(name), options: options).inserted == 50)
        }
    }

    /// An NWIS list (Pennsylvania's unless `list` names another) as published, with the minus sign
    /// taken off the longitudes of the data rows whose number is in `rows` (all when nil): it names
    /// each row's datum and no state.
    static func nwisList(losingSigns rows: Set<Int>?, in directory: URL,
                         list: String = "usgs-nwis-pa-gw-sites.tsv") throws -> String {
        let text = try String(contentsOfFile: RepositoryData.realList(list), encoding: .utf8)
        var header: [Substring]?, row = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let header, !line.hasPrefix("#"), !line.hasPrefix("5s") else {
                if line.hasPrefix("agency_cd") { header = line.split(separator: "\t", omittingEmptySubsequences: false) }
                return String(line)
            }
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let lon = header.firstIndex(of: "dec_long_va")!
            row += 1
            if lon < fields.count, rows?.contains(row) ?? true { fields[lon] = Substring(fields[lon].replacingOccurrences(of: "-", with: "")) }
            return fields.joined(separator: "\t")
        }
        let path = directory.appendingPathComponent("lost-\(rows?.count ?? 0)-" + list).path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A list that names each row's datum is checked against the datums' areas of use: NWIS's
    /// Pennsylvania list with every longitude's minus sign lost (its wells in China) used to load
    /// with exit 0. It stops, and the command it suggests loads the wells where the published list has them.
    @Test func lostMinusSignsInAListWithADatumColumnStopWithImpliedWest() throws {
        try withTemporaryDirectory("placement") { directory in
            let lost = try Self.nwisList(losingSigns: nil, in: directory)
            let db = directory.appendingPathComponent("lost.sqlite").path
            let result = try HardeningTests.wells(["load", lost, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("46,754 of 46,754 wells lie outside the areas of use of the datums named on their rows (dec_coord_datum_cd)"),
                    "\(result.err)")
            #expect(result.err.contains("(China), where their rows' datums are used: NAD83 (EPSG:4269) 46,754."))
            #expect(result.err.contains("--implied-west"))
            #expect(!FileManager.default.fileExists(atPath: db), "a stopped first load leaves no store")
            try Self.expectPublished(try Self.paste(result.err), RepositoryData.realList("usgs-nwis-pa-gw-sites.tsv"), count: 46_754)
        }
    }

    /// A few lost signs in such a list are suspects with their slip; the wells NWIS puts in NAD83 on
    /// Guam, Saipan and American Samoa, outside NAD83's area of use, are not (``InferenceTests``).
    @Test func aFewLostSignsInAListWithADatumColumnAreFlagged() throws {
        try withTemporaryDirectory("placement") { directory in
            let few = try Self.nwisList(losingSigns: [100, 2_000, 30_000], in: directory)
            let summary = try WellStore(path: Self.newStorePath()).load(csvAt: few)
            #expect(summary.inserted == 46_754)
            #expect(summary.suspects.map(\.reason) == ["longitude sign", "longitude sign", "longitude sign"], "\(summary.suspects)")
            #expect(summary.suspects.allSatisfy { $0.detail.hasPrefix("outside the area of use of NAD83 (EPSG:4269); at ") })
        }
    }

    /// NWIS's Hawaii/Pacific list with every longitude's minus sign lost stops, suggesting
    /// `--implied-west`, which is right for Hawaii and American Samoa; but the list writes the wells
    /// of Guam, the Northern Mariana and Marshall Islands and Yap east, rightly unsigned, and read
    /// as west they land in the open Pacific. Pasted, the command used to load those 411 wells there
    /// with no flag; each is now a suspect whose repair puts it back on its island.
    @Test func impliedWestFlagsTheWellsItPutsInTheOpenSea() throws {
        try withTemporaryDirectory("placement") { directory in
            let lost = try Self.nwisList(losingSigns: nil, in: directory, list: "usgs-nwis-hi-pacific-gw-sites.tsv")
            let db = directory.appendingPathComponent("lost.sqlite").path
            let result = try HardeningTests.wells(["load", lost, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("--implied-west"), "\(result.err)")
            let pasted = try Self.paste(result.err)
            let published = try WellStore(path: Self.newStorePath())
            try published.load(csvAt: RepositoryData.realList("usgs-nwis-hi-pacific-gw-sites.tsv"))
            let east = Set(try Self.wells(in: published).filter { $0.lon > 0 }.map(\.uwi))
            #expect(east.count == 411)
            let suspects = try WellStore(path: db, mode: .existing).pool.read { db in
                try Row.fetchAll(db, sql: "SELECT uwi, reason, detail FROM suspects JOIN details ON details.pin_id = suspects.pin_id")
            }
            let flagged = Set(suspects.map { $0["uwi"] as String })
            // 410 of the 411 are flagged, and no well of Hawaii or Samoa: those whose eastern reading lies
            // on the outlines' land, and those on an atoll the 1:50m outlines leave out (the 32 of
            // Roi-Namur, Kwajalein, 9.4°N 167.47°E, 204 km from the Marshall Islands' outline; two of
            // Tinian's), within reach of land read east and in the open sea read west. Kosrae's well,
            // read west, lies about 120 km from Palmyra: at sea within reach of land, as an offshore well may be.
            let kosrae: Set = ["051930163003170"]
            #expect(flagged == east.subtracting(kosrae),
                    "\(flagged.count) flagged; missed: \(east.subtracting(flagged).subtracting(kosrae).sorted().prefix(5)); wrongly: \(flagged.subtracting(east).sorted().prefix(5))")
            let kwajalein = try #require(suspects.first { ($0["uwi"] as String) == "092344167280501" })
            #expect((kwajalein["detail"] as String).hasSuffix("it would be 204 km from the outline of Marshall Islands, not in the open sea"), "\(kwajalein["detail"] as String)")
            #expect(suspects.allSatisfy { ($0["reason"] as String) == "longitude sign" })
            let guam = try #require(suspects.first { ($0["detail"] as String).hasSuffix("(Guam)") })
            #expect((guam["detail"] as String).hasPrefix("in the open sea, over 400 km from land, with its longitude read as west (--implied-west); at "))
            #expect(pasted.count == 5_223)
        }
    }

    /// Offshore wells are real (Louisiana's, Texas's, California's lists hold thousands): the fix a
    /// stop offers counts the wells it puts at sea off their state, as the check itself accepts them.
    /// A Louisiana list, half of it offshore, with its minus signs lost, used to be offered no fix.
    @Test func lostMinusSignsInAListWithOffshoreWellsStopWithImpliedWest() throws {
        try withTemporaryDirectory("placement") { directory in
            var lines = ["uwi,name,lat,lon,state"]
            for i in 0..<20 {
                let (row, column) = (Double(i / 5), Double(i % 5))
                lines.append("ON-\(i),Onshore \(i),\(30.3 + row * 0.3),\(92.0 + column * 0.2),LA")
                lines.append("OFF-\(i),Offshore \(i),\(28.3 + row * 0.15),\(90.5 + column * 0.4),LA")
            }
            let file = directory.appendingPathComponent("louisiana.csv").path
            try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let db = directory.appendingPathComponent("la.sqlite").path
            let result = try HardeningTests.wells(["load", file, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("It looks as if the longitudes lost their minus sign: read so, 40 of 40 sampled wells land where their rows say."),
                    "\(result.err)")
            let pasted = try Self.paste(result.err)
            #expect(pasted.count == 40 && pasted.allSatisfy { $0.lon < -90 })
            // Offshore, within reach of land: not "in the open sea" (``impliedWestFlagsTheWellsItPutsInTheOpenSea()``).
            #expect(try WellStore(path: db, mode: .existing).suspects(reason: nil, limit: nil).isEmpty)
        }
    }

    /// Southern lists lose their latitudes' minus signs too: Queensland bores with a country column
    /// land in the Pacific east of Japan, Neuquén wells that lost both signs in Tajikistan. Each stops
    /// with the fix (`--implied-south`, with `--implied-west` for both), and the pasted command loads
    /// the wells where they were made; DMS latitudes without their `S` read south with the flag.
    @Test func lostLatitudeSignsOfSouthernListsStopWithImpliedSouth() throws {
        try withTemporaryDirectory("placement") { directory in
            for (name, country, latitude, longitude, fix) in [("queensland", "Australia", 21.0, 141.5, "--implied-south"),
                                                                ("neuquen", "AR", 37.0, -68.2, "--implied-south --implied-west")] {
                let published: [[Double]] = (0..<40).map { k in
                    let lat: Double = -(latitude + Double(k / 8) * 1.2), lon: Double = longitude + Double(k % 8) * 0.3
                    return [lat, lon]
                }
                let rows: [String] = published.indices.map { k in "\(name)-\(k),\(country),\(-published[k][0]),\(abs(published[k][1]))" }
                let file = directory.appendingPathComponent(name + ".csv").path
                try (["id,country,lat,lon"] + rows).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
                let result = try HardeningTests.wells(["load", file, "--db", directory.appendingPathComponent(name + ".sqlite").path])
                #expect(result.status == 65)
                #expect(result.err.contains("--db \(directory.appendingPathComponent(name + ".sqlite").path) \(fix)\n"), "\(result.err)")
                let pasted = try Self.paste(result.err).sorted { Int($0.uwi.split(separator: "-")[1])! < Int($1.uwi.split(separator: "-")[1])! }
                #expect(pasted.map { [$0.lat, $0.lon] } == published)
            }
            let dms = directory.appendingPathComponent("dms.csv").path
            try "id,lat,lon\nQ-1,213000,1413000\n".write(toFile: dms, atomically: true, encoding: .utf8)
            var options = LoadOptions()
            options.coordinates = CoordinateOptions(dms: true, impliedEast: true, impliedSouth: true)
            let store = try WellStore(path: Self.newStorePath())
            try store.load(csvAt: dms, options: options)
            #expect(try Self.wells(in: store).map { [$0.lat, $0.lon] } == [[-21.5, 141.5]])
            // A well that `--implied-south` puts in the open sea, on land as written, is a suspect (an
            // Anchorage well in a list of Queensland bores lands 1,300 km off Antarctica).
            let mixed = directory.appendingPathComponent("mixed.csv").path
            try (["id,lat,lon"] + (0..<30).map { "Q-\($0),\(21 + Double($0 / 6)),\(141.5 + Double($0 % 6))" } + ["AK-1,61.2,-149.9"])
                .joined(separator: "\n").write(toFile: mixed, atomically: true, encoding: .utf8)
            options = LoadOptions()
            options.coordinates.impliedSouth = true
            let summary = try WellStore(path: Self.newStorePath()).load(csvAt: mixed, options: options)
            #expect(summary.suspects.map(\.identifier) == ["AK-1"] && summary.suspects.first?.reason == "latitude sign", "\(summary.suspects)")
            #expect(summary.suspects.first?.detail.hasSuffix("with its latitude read as south (CoordinateOptions.impliedSouth = true); "
                + "at 61.2, -149.9 it would be on land (United States of America)") == true, "\(summary.suspects)")
        }
    }

    /// Alabama's list names counties (Lamar, Choctaw, Covington) and no state; Mississippi has
    /// counties of the same names, so no one state is implied. Its wells are checked against their
    /// counties in either: with every longitude's minus sign lost (its wells in China), it used to
    /// load with exit 0; it stops, and the command it suggests loads the published positions.
    @Test func lostMinusSignsInAListWhoseCountiesTwoStatesNameStop() throws {
        try withTemporaryDirectory("placement") { directory in
            let published = RepositoryData.realList("al-sogb-wells-multiline.csv")
            let text = try String(contentsOfFile: published, encoding: .utf8)
            let lost = directory.appendingPathComponent("al-lost.csv").path
            // Longitude, then Latitude: `,-88.04578,33.85512,` → `,88.04578,33.85512,` (25 wells).
            try text.replacing(/,-(8[5-8]\.\d+),(3[0-5]\.\d+),/) { ",\($0.1),\($0.2)," }
                .write(toFile: lost, atomically: true, encoding: .utf8)
            let db = directory.appendingPathComponent("al.sqlite").path
            let result = try HardeningTests.wells(["load", lost, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("25 of 25 wells lie outside the county named on their rows (County)"), "\(result.err)")
            #expect(result.err.contains("(China), where the file says Lamar County, AL or MS 16, Choctaw County, AL or MS 5, Covington County, AL or MS 4."))
            #expect(result.err.contains("--implied-west"))
            #expect(!FileManager.default.fileExists(atPath: db))
            let summary = try Self.expectPublished(try Self.paste(result.err), published, count: 25)
            #expect(summary.inferences.contains { $0.subject == "county" && $0.evidence.contains("a county of Alabama or Mississippi") },
                    "\(summary.inferences)")
            #expect(summary.suspects.isEmpty)
        }
    }

    /// Indiana's UTM zone 16N list read in the neighbouring zone lands in West Virginia, its counties
    /// say Indiana: the load stops, and the fix it finds is the zone the values are in, of the datum given.
    @Test(arguments: [("EPSG:32617", "EPSG:32616 (WGS 84 / UTM zone 16N)"), ("EPSG:26915", "EPSG:26916 (NAD83 / UTM zone 16N)")])
    func projectedValuesReadInTheWrongZoneStopWithTheirZone(given: String, found: String) throws {
        try withTemporaryDirectory("placement") { directory in
            let file = RepositoryData.realList("in-igs-orphan-wells-utm16n.csv")
            let db = directory.appendingPathComponent("in.sqlite").path
            let result = try HardeningTests.wells(["load", file, "--db", db, "--crs", given, "--x", "Utmx", "--y", "Utmy"])
            #expect(result.status == 65)
            #expect(result.err.contains("492 of 492 wells lie outside the county named on their rows (County)"), "\(result.err)")
            #expect(result.err.contains("It looks as if the values are in \(found), not in \(given) ("), "\(result.err)")
            let crs = String(found.prefix { $0 != " " })
            #expect(result.err.contains("--crs \(crs) --x Utmx --y Utmy"))
            #expect(!FileManager.default.fileExists(atPath: db))
            var options = LoadOptions()
            options.coordinates = CoordinateOptions(crs: crs, xColumn: "Utmx", yColumn: "Utmy")
            #expect(try Self.expectPublished(try Self.paste(result.err), file, options: options, count: 492).suspects.isEmpty)
        }
    }

    /// Tennessee's list with its coordinate columns' names exchanged and its longitudes' minus signs
    /// lost lands in the Arctic: two slips at once, and the fix names both.
    @Test func swappedColumnsWithLostSignsStopWithBothFixes() throws {
        try withTemporaryDirectory("placement") { directory in
            let published = RepositoryData.realList("tn-oilgas-wells.csv")
            var lines = try String(contentsOfFile: published, encoding: .utf8).components(separatedBy: "\n")
            #expect(lines[0].hasPrefix("api_num,other_id,latitude,longitude,"))
            lines[0] = lines[0].replacingOccurrences(of: "latitude,longitude", with: "longitude,latitude")
            let slipped = directory.appendingPathComponent("tn-slipped.csv").path
            try lines.map { $0.replacingOccurrences(of: ",\"-8", with: ",\"8") }.joined(separator: "\n")
                .write(toFile: slipped, atomically: true, encoding: .utf8)
            let db = directory.appendingPathComponent("tn.sqlite").path
            let result = try HardeningTests.wells(["load", slipped, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("It looks as if the latitude and longitude columns are swapped, and the longitudes lost their minus sign"),
                    "\(result.err)")
            #expect(result.err.contains("--implied-west --map lat=longitude --map lon=latitude"))
            try Self.expectPublished(try Self.paste(result.err), published, count: 16_464)
        }
    }

    /// Tennessee's list without its stusps, county and municipality columns (and `api_num` unless
    /// `apiNumbers`), as published and with the minus signs of its longitudes lost (those of the 6
    /// wells west of 90°W, `"-90.…`, kept).
    static func tennesseeWithoutPlaces(in directory: URL, apiNumbers: Bool) throws -> (published: String, lost: String) {
        let rows = try String(contentsOfFile: RepositoryData.realList("tn-oilgas-wells.csv"), encoding: .utf8).components(separatedBy: "\r\n")
        #expect(rows[0] == "api_num,other_id,latitude,longitude,stusps,county,municipality,well_name,operator,spud_date,plug_date,"
            + "well_type,well_status,well_configuration,ft_category,wellwiki,src_url")
        // Every row has them unquoted (`,Tennessee,Overton,,`); the API number is the first field.
        func bare(_ line: String) -> String {
            guard let range = line.range(of: #",(stusps|Tennessee),[^,"]*,[^,"]*,"#, options: .regularExpression) else { return line }
            let kept = line.replacingCharacters(in: range, with: ",")
            return apiNumbers ? kept : String(kept.drop { $0 != "," }.dropFirst())
        }
        let published = directory.appendingPathComponent("tn-bare.csv").path, lost = directory.appendingPathComponent("tn-lost.csv").path
        try rows.map(bare).joined(separator: "\r\n").write(toFile: published, atomically: true, encoding: .utf8)
        try rows.map { bare($0).replacingOccurrences(of: ",\"-8", with: ",\"8") }.joined(separator: "\r\n")
            .write(toFile: lost, atomically: true, encoding: .utf8)
        return (published, lost)
    }

    /// Tennessee's list without its state and county columns still names each well's state: its API
    /// number begins with Tennessee's code, 41. With its minus signs lost (its wells in China) it used
    /// to load with exit 0; it stops, and the command it suggests loads the published positions.
    @Test func lostMinusSignsInAListWithOnlyAPINumbersStop() throws {
        try withTemporaryDirectory("placement") { directory in
            let (bare, lost) = try Self.tennesseeWithoutPlaces(in: directory, apiNumbers: true)
            let db = directory.appendingPathComponent("tn.sqlite").path
            let result = try HardeningTests.wells(["load", lost, "--db", db])
            #expect(result.status == 65)
            #expect(result.err.contains("wells lie outside the state named by their API numbers (api_num)"), "\(result.err)")
            #expect(result.err.contains("(China), where the file says Tennessee "))
            #expect(result.err.contains("--implied-west"))
            let summary = try Self.expectPublished(try Self.paste(result.err), bare, count: 16_464)
            #expect(summary.inferences.contains { $0.subject == "state" && $0.column == "api_num" && $0.value.hasSuffix("code: Tennessee 1,957") },
                    "\(summary.inferences)")
            #expect(summary.mapping["state"] == nil && summary.suspects.isEmpty)
        }
    }

    /// Degrees named with --x/--y and a geographic CRS, as a NAD 83 or NAD 27 list is loaded: the
    /// lost minus signs were read as given even with --implied-west, and without it no fix was
    /// found ("No usual slip"): both took x/y for projected values.
    @Test func lostMinusSignsOfDegreesUnderXAndYStopWithImpliedWest() throws {
        try withTemporaryDirectory("placement") { directory in
            let (bare, lost) = try Self.tennesseeWithoutPlaces(in: directory, apiNumbers: true)
            let degrees = ["--crs", "EPSG:4269", "--x", "longitude", "--y", "latitude"]
            let result = try HardeningTests.wells(["load", lost, "--db", directory.appendingPathComponent("a.sqlite").path] + degrees)
            #expect(result.status == 65)
            #expect(result.err.contains("It looks as if the longitudes lost their minus sign"), "\(result.err)")
            var options = LoadOptions()
            options.coordinates = CoordinateOptions(crs: "EPSG:4269", xColumn: "longitude", yColumn: "latitude")
            let pasted = try Self.paste(result.err)
            try Self.expectPublished(pasted, bare, options: options, count: 16_464)
            // Given at once, --implied-west is read: every well lands in Tennessee.
            let given = directory.appendingPathComponent("b.sqlite").path
            let direct = try HardeningTests.wells(["load", lost, "--db", given, "--implied-west"] + degrees)
            #expect(direct.status == 0, "\(direct.err)")
            #expect(direct.out.contains("landed                 Tennessee, US"), "\(direct.out)")
            let wells = try Self.wells(in: WellStore(path: given, mode: .existing))
            #expect(zip(wells, pasted).allSatisfy { $0.uwi == $1.uwi && $0.lat == $1.lat && $0.lon == $1.lon } && wells.count == 16_464)
            // Swapped --x and --y stop with the two exchanged (not with a --map the load would not read).
            let swapped = try HardeningTests.wells(["load", bare, "--db", directory.appendingPathComponent("c.sqlite").path,
                                                    "--crs", "EPSG:4269", "--x", "latitude", "--y", "longitude"])
            #expect(swapped.status == 65)
            let command = try #require(Self.suggestedCommand(swapped.err), "\(swapped.err)")
            #expect(command.suffix(4) == ["--x", "longitude", "--y", "latitude"] && !command.contains("--map"), "\(command)")
        }
    }

    /// An --implied-south or --implied-west given by habit to a list that is north or east put every
    /// well in the wrong hemisphere, and the stop found "No usual slip": it now says which option
    /// did it, and the command it suggests leaves that option out.
    @Test func aHabitualImpliedHemisphereStopsWithTheCommandWithoutIt() throws {
        try withTemporaryDirectory("placement") { directory in
            let tennessee = RepositoryData.realList("tn-oilgas-wells.csv")
            let south = try HardeningTests.wells(["load", tennessee, "--db", directory.appendingPathComponent("s.sqlite").path, "--implied-south"])
            #expect(south.status == 65)
            #expect(south.err.contains("It looks as if the latitudes are north, not south as --implied-south reads them"), "\(south.err)")
            let command = try #require(Self.suggestedCommand(south.err))
            #expect(!command.contains("--implied-south"), "\(command)")
            try Self.expectPublished(try Self.paste(south.err), tennessee, count: 16_464)
            // Wells across India, with their country: read west they land around the Gulf of Mexico.
            let india = directory.appendingPathComponent("india.csv").path
            try (["id,country,lat,lon"] + (0..<100).map { "IN-\($0),India,\(12 + Double($0 / 10) * 1.6),\(74 + Double($0 % 10) * 1.2)" })
                .joined(separator: "\n").write(toFile: india, atomically: true, encoding: .utf8)
            let west = try HardeningTests.wells(["load", india, "--db", directory.appendingPathComponent("w.sqlite").path, "--implied-west"])
            #expect(west.status == 65)
            #expect(west.err.contains("It looks as if the longitudes are east, not west as --implied-west reads them"), "\(west.err)")
            let pasted = try Self.paste(west.err)
            #expect(pasted.count == 100 && pasted.allSatisfy { $0.lon > 70 }, "\(pasted.prefix(3))")
            // The library words it in its own terms.
            var options = LoadOptions()
            options.coordinates.impliedSouth = true
            #expect {
                try WellStore(path: Self.newStorePath()).load(csvAt: tennessee, options: options)
            } throws: { error in
                guard let error = error as? ImportError, case .relocate(let fix?)? = error.remedy else { return false }
                return fix.withoutImpliedSouth && error.message.contains("Load with CoordinateOptions.impliedSouth = false")
            }
        }
    }

    /// --implied-west, --implied-south, --implied-east and --dms read degrees: given with projected
    /// x/y (Indiana's UTM metres) they changed nothing, and the load said nothing of it.
    @Test func degreeOptionsWithProjectedValuesAreRefused() throws {
        try withTemporaryDirectory("placement") { directory in
            let file = RepositoryData.realList("in-igs-orphan-wells-utm16n.csv"), db = directory.appendingPathComponent("in.sqlite").path
            let utm = ["--crs", "EPSG:32616", "--x", "Utmx", "--y", "Utmy"]
            let west = try HardeningTests.wells(["load", file, "--db", db, "--implied-west"] + utm)
            #expect(west.status == 64)
            #expect(west.err.contains("--implied-west reads degrees, but the x and y columns (Utmx, Utmy) are in EPSG:32616 (WGS 84 / UTM zone 16N)"),
                    "\(west.err)")
            let both = try HardeningTests.wells(["load", file, "--db", db, "--implied-south", "--dms"] + utm)
            #expect(both.status == 64 && both.err.contains("--implied-south and --dms read degrees"), "\(both.err)")
            #expect(!FileManager.default.fileExists(atPath: db), "a refused load makes no store")
            // The library refuses it too, in the API's words; a geographic CRS under x/y takes it.
            var options = LoadOptions()
            options.coordinates = CoordinateOptions(crs: "EPSG:26916", xColumn: "Utmx", yColumn: "Utmy", impliedWest: true)
            #expect {
                try WellStore(path: Self.newStorePath()).load(csvAt: file, options: options)
            } throws: { error in
                let error = error as? ImportError
                return error?.code == .invalidOption && error?.message.hasPrefix("CoordinateOptions.impliedWest = true reads degrees") == true
            }
            #expect(CoordinateOptions(crs: "EPSG:4267", xColumn: "x", yColumn: "y", impliedWest: true)
                .degreeOptionsOnProjectedValues(describe: \.apiText)?.reason == nil)
        }
    }

    /// Degrees written as whole numbers (times 1,000,000, as databases that keep fixed-point degrees
    /// export them), longitudes from 0 to 360, and (without inference) DDMMSS: every row was rejected
    /// as out of range, and the stop said nothing of why. It now names the reading, with where it puts the wells, and a
    /// command that, pasted, stores every well where the published list has it.
    @Test func wholeNumberDegreesAndLongitudesFrom0To360StopWithTheirReading() throws {
        try withTemporaryDirectory("placement") { directory in
            let tennessee = RepositoryData.realList("tn-oilgas-wells.csv")
            let rows = try String(contentsOfFile: tennessee, encoding: .utf8).components(separatedBy: "\r\n")
            /// Tennessee's list with each row's latitude and longitude (quoted decimals) rewritten by `change`.
            func rewrite(_ name: String, _ change: (Double, Double) -> (String, String)) throws -> String {
                var changed = 0
                let lines = rows.map { line -> String in
                    guard let range = line.range(of: #","-?[0-9]+\.[0-9]+","-?[0-9]+\.[0-9]+","#, options: .regularExpression) else { return line }
                    let numbers = line[range].split(separator: ",").compactMap { Double($0.filter { $0 != "\"" }) }
                    let (lat, lon) = change(numbers[0], numbers[1])
                    changed += 1
                    return line.replacingCharacters(in: range, with: ",\"\(lat)\",\"\(lon)\",")
                }
                #expect(changed == 16_464)
                let path = directory.appendingPathComponent(name).path
                try lines.joined(separator: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let published = try Self.wells(in: { let store = try WellStore(path: Self.newStorePath()); _ = try store.load(csvAt: tennessee); return store }())
            #expect(published.count == 16_464)
            /// The wells a pasted command stored are the published ones, to a micrometre (the rewritten text rounds).
            func expectPublished(_ pasted: [(uwi: String, lat: Double, lon: Double)]) {
                #expect(pasted.count == published.count && zip(pasted, published).allSatisfy {
                    $0.uwi == $1.uwi && abs($0.lat - $1.lat) < 1e-9 && abs($0.lon - $1.lon) < 1e-9
                }, "the pasted command's wells are not where the published list has them")
            }
            let whole = try rewrite("tn-e6.csv") { (String(Int64(($0 * 1e6).rounded())), String(Int64(($1 * 1e6).rounded()))) }
            let scaled = try HardeningTests.wells(["load", whole, "--db", directory.appendingPathComponent("a.sqlite").path])
            #expect(scaled.status == 65)
            #expect(scaled.err.contains("It looks as if the coordinates are degrees written as whole numbers, times 1,000,000: read so, "
                + "402 of 402 sampled rows are in range and land in Tennessee, US 100%."), "\(scaled.err)")
            #expect(Self.suggestedCommand(scaled.err)?.suffix(2) == ["--degree-divisor", "1000000"])
            expectPublished(try Self.paste(scaled.err))
            // A divisor off by ten stops at the place check, with the right one.
            let off = try HardeningTests.wells(["load", whole, "--db", directory.appendingPathComponent("b.sqlite").path, "--degree-divisor", "10000000"])
            #expect(off.status == 65)
            #expect(off.err.contains("It looks as if the coordinates are degrees times 1,000,000, not 10,000,000"), "\(off.err)")
            let command = try #require(Self.suggestedCommand(off.err))
            #expect(command.filter { $0 == "--degree-divisor" }.count == 1 && command.suffix(2) == ["--degree-divisor", "1000000"], "\(command)")
            expectPublished(try Self.paste(off.err))
            // Longitudes from 0 to 360.
            let east = try rewrite("tn-360.csv") { (String($0), String($1 + 360)) }
            let wrapped = try HardeningTests.wells(["load", east, "--db", directory.appendingPathComponent("c.sqlite").path])
            #expect(wrapped.status == 65)
            #expect(wrapped.err.contains("It looks as if the longitudes run from 0 to 360 east: read so, 402 of 402 sampled rows are in range "
                + "and land in Tennessee, US 100%."), "\(wrapped.err)")
            expectPublished(try Self.paste(wrapped.err))
            // Decimal commas, quoted in a comma-separated file (no inference there: a comma may group thousands).
            let commas = try rewrite("tn-comma.csv") { (String($0).replacingOccurrences(of: ".", with: ","), String($1).replacingOccurrences(of: ".", with: ",")) }
            let decimalComma = try HardeningTests.wells(["load", commas, "--db", directory.appendingPathComponent("g.sqlite").path])
            #expect(decimalComma.status == 65)
            #expect(decimalComma.err.contains("It looks as if the numbers are written with a decimal comma (36,46955600000007, -85,26130599999999): "
                + "read so, 402 of 402 sampled rows are in range and land in Tennessee, US 100%."), "\(decimalComma.err)")
            #expect(Self.suggestedCommand(decimalComma.err)?.suffix(1) == ["--decimal-comma"])
            expectPublished(try Self.paste(decimalComma.err))
            // Degrees, minutes and seconds run together (DDMMSS) are not whole-number degrees: read times 10,000 they
            // would land 20 to 40 km off, in the same state. DMS inference reads them; without it the stop says DMS.
            let packed = try rewrite("tn-dms.csv") { lat, lon in
                func dms(_ value: Double) -> String {
                    let seconds = Int((abs(value) * 3600).rounded())
                    return (value < 0 ? "-" : "") + String(seconds / 3600) + String(format: "%02d%02d", seconds / 60 % 60, seconds % 60)
                }
                return (dms(lat), dms(lon))
            }
            let noInference = try HardeningTests.wells(["load", packed, "--db", directory.appendingPathComponent("e.sqlite").path, "--no-infer"])
            #expect(noInference.status == 65)
            #expect(noInference.err.contains("It looks as if the coordinates are degrees, minutes and seconds run together (DDMMSS)"), "\(noInference.err)")
            #expect(Self.suggestedCommand(noInference.err)?.suffix(2) == ["--no-infer", "--dms"])
            let seconds = try Self.paste(noInference.err)
            #expect(seconds.count == published.count && zip(seconds, published).allSatisfy {
                $0.uwi == $1.uwi && abs($0.lat - $1.lat) < 0.51 / 3600 && abs($0.lon - $1.lon) < 0.51 / 3600
            }, "the pasted command's wells are not within half a second of the published ones")
            // The library takes them as options; they read degrees, so not with DMS, implied signs or projected values.
            var options = LoadOptions()
            options.coordinates.degreeDivisor = 1_000_000
            let store = try WellStore(path: Self.newStorePath())
            #expect(try store.load(csvAt: whole, options: options).loaded == 16_464)
            expectPublished(try Self.wells(in: store))
            for refused in [["--degree-divisor", "1000000", "--dms"], ["--longitudes-0-360", "--implied-west"], ["--degree-divisor", "0"],
                            ["--degree-divisor", "1e308"], ["--degree-divisor", "nan"],
                            ["--degree-divisor", "10", "--crs", "EPSG:32616", "--x", "latitude", "--y", "longitude"]] {
                let result = try HardeningTests.wells(["load", whole, "--db", directory.appendingPathComponent("d.sqlite").path] + refused)
                #expect(result.status == 64, "\(refused): \(result.err)")
            }
        }
    }

    /// A list that names no place at all (Tennessee's without its state, county, municipality and API
    /// columns) has nothing to check its wells against: with its minus signs lost it loaded in China
    /// with exit 0 and said nothing. It still loads (nothing in the file says the wells are not
    /// there), but it says where they landed, and that read west they would all lie in Tennessee.
    /// A list truly in Asia, whose wells read west would not lie in one state, gets no warning.
    @Test func aListThatNamesNoPlaceSaysWhereItsWellsLanded() throws {
        try withTemporaryDirectory("placement") { directory in
            let (published, lost) = try Self.tennesseeWithoutPlaces(in: directory, apiNumbers: false)
            let db = directory.appendingPathComponent("tn.sqlite").path
            let slipped = try HardeningTests.wells(["load", lost, "--db", db])
            #expect(slipped.status == 0)
            #expect(slipped.out.contains("  landed                 China 100%, Tennessee, US <1%\n"), "\(slipped.out)")
            #expect(slipped.out.contains("so where the wells land was not checked: they land in China 100%, Tennessee, US <1%. "
                + "Read with their longitudes west, 100% of them would lie in Tennessee, US: if that is where they belong, "
                + "their minus signs were lost; load the file again with --implied-west"), "\(slipped.out)")
            let again = try HardeningTests.wells(["load", lost, "--db", db, "--implied-west"])
            #expect(again.status == 0 && again.out.contains("  updated                16,464\n"), "\(again.out)")
            // No warning of where the wells are; Tennessee's empty status and date columns are said (EmptyColumnsTests).
            let placeWarnings = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("warning:") && !$0.contains("is empty in all") } }
            #expect(again.out.contains("  landed                 Tennessee, US 100%") && placeWarnings(again.out).isEmpty, "\(again.out)")
            // As published: in Tennessee, at the positions the reload gave, and no warning but the empty columns'.
            let store = try WellStore(path: Self.newStorePath())
            let asPublished = try store.load(csvAt: published)
            #expect(asPublished.landed.first?.place == "Tennessee, US" && asPublished.warnings.allSatisfy { $0.contains("is empty in all") },
                    "\(asPublished.warnings)")
            func positions(_ wells: [(uwi: String, lat: Double, lon: Double)]) -> [[Double]] { wells.map { [$0.lat, $0.lon] }.sorted { $0.lexicographicallyPrecedes($1) } }
            #expect(positions(try Self.wells(in: WellStore(path: db, mode: .existing))) == positions(try Self.wells(in: store)))
            // Wells across India read west would lie around the Gulf of Mexico and the Caribbean, in no one state.
            let india = directory.appendingPathComponent("india.csv").path
            try (["id,lat,lon"] + (0..<100).map { "IN-\($0),\(12 + Double($0 / 10) * 1.6),\(74 + Double($0 % 10) * 1.2)" })
                .joined(separator: "\n").write(toFile: india, atomically: true, encoding: .utf8)
            let asia = try WellStore(path: Self.newStorePath()).load(csvAt: india)
            #expect(asia.landed.first?.place == "India" && asia.warnings.isEmpty, "\(asia.landed) \(asia.warnings)")
        }
    }

    /// A datum column is evidence through each datum's area of use, but WGS 84's is the world: NWIS's
    /// Pennsylvania list with every row's datum WGS84 and its minus signs lost loaded in China and
    /// Kyrgyzstan with exit 0 and no word. It warns as a list that names no place does; with its
    /// datums as published (NAD83), the same slip stops (``lostMinusSignsInAListWithADatumColumnStopWithImpliedWest``).
    @Test func aListWhoseEveryDatumIsWGS84WarnsWhenReadWestItLiesInOneState() throws {
        try withTemporaryDirectory("placement") { directory in
            let lost = try Self.nwisList(losingSigns: nil, in: directory)
            let wgs84 = directory.appendingPathComponent("wgs84.tsv").path
            try String(contentsOfFile: lost, encoding: .utf8).replacingOccurrences(of: "\tNAD83\t", with: "\tWGS84\t")
                .replacingOccurrences(of: "\tNAD27\t", with: "\tWGS84\t").write(toFile: wgs84, atomically: true, encoding: .utf8)
            let result = try HardeningTests.wells(["load", wgs84, "--db", directory.appendingPathComponent("w.sqlite").path])
            #expect(result.status == 0)
            #expect(result.out.contains("  landed                 China "), "\(result.out)")
            #expect(result.out.contains("warning: every row's datum (dec_coord_datum_cd) is one used worldwide, such as WGS 84, and nothing else "
                + "in the file names a place"), "\(result.out)")
            #expect(result.out.contains("100% of them would lie in Pennsylvania, US: if that is where they belong, their minus signs were lost; "
                + "load the file again with --implied-west"))
            let again = try HardeningTests.wells(["load", wgs84, "--db", directory.appendingPathComponent("w.sqlite").path, "--implied-west"])
            #expect(again.status == 0 && again.out.contains("  landed                 Pennsylvania, US ") && !again.out.contains("warning:"), "\(again.out)")
        }
    }

    /// A county column of 5-digit FIPS codes in a file that names no state implies the codes' own
    /// state (each code names one county, whatever state a row is read with): Tennessee's wells of
    /// eight counties, their names replaced by their codes and the state column removed.
    @Test func countyFIPSCodesImplyTheirOwnState() throws {
        try withTemporaryDirectory("placement") { directory in
            let codes = ["Overton": "47133", "Morgan": "47129", "Scott": "47151", "Fentress": "47049", "Pickett": "47137",
                         "Campbell": "47013", "Anderson": "47001", "Clay": "47027"]
            let rows = try String(contentsOfFile: RepositoryData.realList("tn-oilgas-wells.csv"), encoding: .utf8).components(separatedBy: "\r\n")
            var kept = [rows[0].replacingOccurrences(of: ",stusps,", with: ",")]
            for row in rows.dropFirst() {
                for (name, code) in codes where row.contains(",Tennessee,\(name),") {
                    kept.append(row.replacingOccurrences(of: ",Tennessee,\(name),", with: ",\(code),"))
                }
            }
            let path = directory.appendingPathComponent("tn-fips.csv").path
            try kept.joined(separator: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
            let summary = try WellStore.dryRun(csvAt: path)
            #expect(kept.count > 13_000 && summary.rejected == 0)
            let county = try #require(summary.inferences.first { $0.subject == "county" })
            #expect(county.evidence.contains("a county of Tennessee, the only state whose counties they name"), "\(county.evidence)")
            #expect(summary.suspects.isEmpty)
        }
    }

    /// Two different lists, both called wells.csv, without identifiers, add up; a reload still updates.
    @Test func twoFilesOfOneNameAddUp() throws {
        let store = try WellStore(path: Self.newStorePath())
        #expect(try store.load(csvAt: Self.fixture("a/wells.csv")).inserted == 150)
        #expect(try store.load(csvAt: Self.fixture("b/wells.csv")).inserted == 150)
        let again = try store.load(csvAt: Self.fixture("b/wells.csv"))
        #expect(again.inserted == 0 && again.updated == 150)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pins") } == 300)
    }

    /// Two different streams on standard input add up too; the same stream again updates.
    @Test func twoStreamsOnStandardInputAddUp() throws {
        try withTemporaryDirectory("placement") { directory in
            let db = directory.appendingPathComponent("stdin.sqlite").path
            func load(_ name: String) throws -> String {
                let run = try Command("/bin/sh", ["-c", "cat \"$1\" | \"$2\" load - --db \"$3\" --format json", "sh", Self.fixture(name), HardeningTests.executable, db]).runWaiting()
                let json = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
                return "\(json?["inserted"] as? Int ?? -1) \(json?["updated"] as? Int ?? -1)"
            }
            let counts = [try load("a/wells.csv"), try load("b/wells.csv"), try load("b/wells.csv")]
            #expect(counts == ["150 0", "150 0", "0 150"])
        }
    }
}

/// Endings a script can trust: an interrupted first load leaves no store, a refused one leaves a
/// foreign file byte for byte, and arguments that are almost certainly a mistake are named.
@Suite(.blocking) struct HonestEndingTests {
    /// Signalled at the first moment its temporary `.creating-` file exists, or the store itself:
    /// the handler waits for the store's creation to finish (``WellStore/creationGate``), then
    /// removes the whole store, so nothing named after it is left in either case.
    @Test(.lane(.slow), arguments: [SIGINT, SIGTERM], [".creating-", ""])
    func anInterruptedFirstLoadRemovesTheStoreItCreated(signal: Int32, moment: String) throws {
        try withTemporaryDirectory("wells-interrupt") { directory in
            let store = directory.appendingPathComponent("wells.sqlite").path
            let big = directory.appendingPathComponent("big.csv").path
            try WellGenerator(count: 244_292, seed: 7).write(toFileAt: big)
            let process = try InterruptedLoadTests.startLoad(big, into: store)
            let ended = try InterruptedLoadTests.interrupt(process, with: signal, watching: directory.path) {
                moment.isEmpty ? FileManager.default.fileExists(atPath: store)
                    : ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).contains { $0.hasPrefix("wells.sqlite" + moment) }
            }
            #expect(ended.status == 128 + signal)
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("wells.sqlite") }
            #expect(left.isEmpty, "left behind: \(left)")
            let query = try HardeningTests.wells(["bbox", "-114.2,50.9,-113.9,51.2", "--db", store])
            #expect(query.status == 66 && query.err.contains("no store here"))
        }
    }

    @Test func aLoadRefusedForAForeignSQLiteFileLeavesItByteIdentical() throws {
        try withTemporaryDirectory("wells-foreign") { directory in
            let gpkg = directory.appendingPathComponent("layer.gpkg").path
            _ = try Command("/usr/bin/ogr2ogr", ["-f", "GPKG", gpkg, PlacementTests.fixture("a/wells.csv"), "-oo", "X_POSSIBLE_NAMES=Longitude",
                                                 "-oo", "Y_POSSIBLE_NAMES=Latitude"]).runWaiting()
            let before = try Data(contentsOf: URL(fileURLWithPath: gpkg))
            let result = try HardeningTests.wells(["load", PlacementTests.fixture("b/wells.csv"), "--db", gpkg])
            #expect(result.status == 65 && result.err.contains("not a WellKit store"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: gpkg)) == before)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files == ["layer.gpkg"], "\(files)")
        }
    }

    /// `--rejects` replaces only a rejects file WellKit wrote (or anything with `--force`), never a device.
    @Test func rejectsFilesReplaceOnlyRejectsFiles() throws {
        try withTemporaryDirectory("wells-rejects") { directory in
            let db = directory.appendingPathComponent("hi.sqlite").path, file = RepositoryData.realList("usgs-nwis-hi-pacific-gw-sites.tsv")
            let precious = directory.appendingPathComponent("important.txt").path
            try "precious data\n".write(toFile: precious, atomically: true, encoding: .utf8)
            let refused = try HardeningTests.wells(["load", file, "--db", db, "--rejects", precious, "-q"])
            #expect(refused.status == 64 && refused.err.contains("exists and is not a rejects file"), "\(refused.err)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == "precious data\n")
            #expect(!FileManager.default.fileExists(atPath: db), "refused before anything was written")
            let device = try HardeningTests.wells(["load", file, "--db", db, "--rejects", "/dev/full", "-q", "--force"])
            #expect(device.status == 64 && device.err.contains("is not a regular file"), "\(device.err)")
            let rejects = directory.appendingPathComponent("rejects.csv").path
            #expect(try HardeningTests.wells(["load", file, "--db", db, "--rejects", rejects, "-q"]).status == 0)
            #expect(try HardeningTests.wells(["load", file, "--db", db, "--rejects", rejects, "-q"]).status == 0, "its own rejects file is replaced")
            #expect(try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").count == 181)
            #expect(try HardeningTests.wells(["load", file, "--db", db, "--rejects", precious, "-q", "--force"]).status == 0)
        }
    }

    @Test func queryArgumentsFarFromEveryWellAreNamed() throws {
        try withTemporaryDirectory("wells-sense") { directory in
            let store = directory.appendingPathComponent("tn.sqlite").path
            #expect(try HardeningTests.wells(["load", RepositoryData.realList("tn-oilgas-wells.csv"), "--db", store, "-q"]).status == 0)
            let lonFirst = try HardeningTests.wells(["near", "-85.50,36.16", "--nearest", "3", "--db", store])
            #expect(lonFirst.status == 0 && lonFirst.out.contains("(3 rows)"), "results stay as asked")
            #expect(lonFirst.err.contains("did you mean 36.16,-85.5 (lat,lon swapped"), "\(lonFirst.err)")
            let swappedCorners = try HardeningTests.wells(["bbox", "-85.3,36.0,-85.6,36.3", "--db", store, "--format", "csv"])
            #expect(swappedCorners.err.contains("read as a box across the antimeridian, 359.7° wide"), "\(swappedCorners.err)")
            let latFirst = try HardeningTests.wells(["bbox", "36.0,-85.6,36.3,-85.3", "--db", store])
            #expect(latFirst.out.contains("(0 rows)") && latFirst.err.contains("did you mean -85.6,36,-85.3,36.3"), "\(latFirst.err)")
            let bare = try HardeningTests.wells(["near", "36.16,-85.50", "--radius", "2", "--db", store])
            #expect(bare.err.contains("--radius 2 has no unit and is read as 2 m"))
            let right = try HardeningTests.wells(["near", "36.16,-85.50", "--nearest", "3", "--db", store])
            #expect(right.err.isEmpty, "no note for a sensible query: \(right.err)")
        }
    }

    /// `--minutes` and `--seconds` name the columns by hand and store what the inference stores;
    /// `--seconds` alone, a value that is not two names, or either with `--dms` exit 64.
    @Test func minutesAndSecondsColumnsByHand() throws {
        try withTemporaryDirectory("placement") { directory in
            let lines = try String(contentsOfFile: RepositoryData.realList("tn-oilgas-wells.csv"), encoding: .utf8).split(whereSeparator: \.isNewline).prefix(400)
            // Tennessee's first wells with their coordinates split: degrees, minutes, seconds, the longitude unsigned.
            var text = "api_num,stusps,county,LAT_DEG,LAT_MIN,LAT_SEC,LONG_DEG,LONG_MIN,LONG_SEC\n"
            for line in lines.dropFirst() {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard let lat = Double(fields[2].trimmingCharacters(in: ["\""])), let lon = Double(fields[3].trimmingCharacters(in: ["\""])) else { continue }
                func parts(_ value: Double) -> String {
                    let total = (abs(value) * 360_000).rounded() / 100, degrees = (total / 3_600).rounded(.down)
                    let minutes = ((total - degrees * 3_600) / 60).rounded(.down)
                    return "\(Int(degrees)),\(Int(minutes)),\(String(format: "%.2f", total - degrees * 3_600 - minutes * 60))"
                }
                text += "\(fields[0]),\(fields[4]),\(fields[5]),\(parts(lat)),\(parts(lon))\n"
            }
            let file = directory.appendingPathComponent("split.csv").path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            func coordinates(_ store: String) throws -> [String] {
                try HardeningTests.wells(["find", "--db", store, "--sort", "uwi", "--limit", "1000", "--format", "csv"]).out.split(separator: "\n").map(String.init)
            }
            let inferred = directory.appendingPathComponent("inferred.sqlite").path
            let load = try HardeningTests.wells(["load", file, "--db", inferred, "--quiet"])
            #expect(load.status == 0, "\(load.err)")
            let byHand = directory.appendingPathComponent("hand.sqlite").path
            let hand = try HardeningTests.wells(["load", file, "--db", byHand, "--quiet", "--no-infer", "--map", "lat=LAT_DEG", "--map", "lon=LONG_DEG",
                                                 "--minutes", "LAT_MIN,LONG_MIN", "--seconds", "LAT_SEC,LONG_SEC", "--implied-west"])
            #expect(hand.status == 0, "\(hand.err)")
            let rows = try coordinates(inferred)
            #expect(rows.count == 400 && rows.dropFirst().allSatisfy { $0.contains(",3") && $0.contains(",-8") && !$0.contains(".0,") }, "\(rows.prefix(3))")
            #expect(try coordinates(byHand) == rows)
            // Given by hand with the inference on, the unsigned longitudes are still read west (the state column says so).
            let given = directory.appendingPathComponent("given.sqlite").path
            let withInference = try HardeningTests.wells(["load", file, "--db", given, "--quiet", "--minutes", "LAT_MIN,LONG_MIN", "--seconds", "LAT_SEC,LONG_SEC"])
            #expect(withInference.status == 0, "\(withInference.err)")
            #expect(try coordinates(given) == rows)
            for refused in [["--seconds", "LAT_SEC,LONG_SEC"], ["--minutes", "LAT_MIN"], ["--minutes", "LAT_MIN,LONG_MIN", "--dms"],
                            ["--minutes", "LAT_MIN,NOPE"]] {
                let run = try HardeningTests.wells(["load", file, "--db", directory.appendingPathComponent("r.sqlite").path] + refused)
                #expect(run.status == 64 || (refused.last == "LAT_MIN,NOPE" && run.status == 65 && run.err.contains("--minutes NOPE: no such column")), "\(refused): \(run.status) \(run.err)")
            }
        }
    }
}
