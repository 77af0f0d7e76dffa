import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

/// Issue 60's rows, each a small file made from the real lists of `Data/real` the way spreadsheets
/// and agencies write them (Tests/Fixtures/AgencyFiles/make_fixtures.py, which also writes each
/// file's answer key from the workbook or list itself): every field of every well against the key.
@Suite struct AgencyFilesTests {
    static func fixture(_ name: String) -> String {
        Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/AgencyFiles/\(name)").path
    }

    /// A fixture's answer key: the wells with every field, and the rejected lines with their kinds.
    struct Key: Decodable {
        struct Reject: Decodable { var line: Int; var kind: String }
        var wells: [AgencyList.AnswerKey.WellFields]
        var rejects: [Reject]
    }

    static func key(_ name: String) throws -> Key {
        try JSONDecoder().decode(Key.self, from: Data(contentsOf: URL(fileURLWithPath: fixture(name))))
    }

    /// Loads `file` into a new store and checks it against `key`: the wells field by field (``AnswerKeyTests/fieldDifferences(_:_:limit:)``),
    /// the rejects line by line with their kinds.
    @discardableResult
    static func loadMatchesKey(_ file: String, key keyName: String, options: LoadOptions = LoadOptions(),
                               store: WellStore? = nil, adjust: (inout [AgencyList.AnswerKey.WellFields], WellStore) throws -> Void = { _, _ in })
        throws -> (summary: LoadSummary, store: WellStore) {
        let store = try store ?? Fixtures.makeStore()
        let summary = try store.load(csvAt: fixture(file), options: options)
        let key = try key(keyName)
        var wells = key.wells
        try adjust(&wells, store)
        let differences = try AnswerKeyTests.fieldDifferences(store, wells, limit: 40)
        #expect(differences.isEmpty, "\(file):\n\(differences.joined(separator: "\n"))")
        #expect(summary.inserted + summary.updated == key.wells.count, "\(file)")
        let rejects = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT r.line, r.reason FROM rejects r WHERE r.load_id = ? ORDER BY r.line", arguments: [summary.loadID])
                .map { "\($0[0] as Int)" }
        }
        #expect(rejects == key.rejects.map { "\($0.line)" }, "\(file)")
        #expect(summary.rejectReasons == Dictionary(key.rejects.map { ($0.kind, 1) }, uniquingKeysWith: +), "\(file)")
        return (summary, store)
    }

    // MARK: - Headers as published

    /// Florida's workbook saved as CSV: seven blank header cells over a side table. Each gets a name
    /// by position and keeps its values (one of seven was kept before); the side table named as the
    /// second sheet names it repeats UWI and COUNTY, kept apart as UWI_2 and COUNTY_2.
    @Test(arguments: ["fl-orphan-wells", "fl-orphan-wells-repeated"])
    func blankAndRepeatedHeadersKeepEveryValue(name: String) throws {
        var options = LoadOptions()
        options.dryRun = true
        let dry = try Fixtures.makeStore().load(csvAt: Self.fixture("\(name).csv"), options: options)
        let header = try #require(dry.inferences.first { $0.subject == "header" })
        if name == "fl-orphan-wells" {
            #expect(dry.extraColumns.contains("column_15") && dry.extraColumns.contains("column_21") && !dry.extraColumns.contains(""))
            #expect(header.value.contains("7 blank header cells named by position: column_15, column_16"), "\(header)")
        } else {
            #expect(dry.extraColumns.contains("UWI_2") && dry.extraColumns.contains("COUNTY_2") && dry.extraColumns.contains("column_15"))
            #expect(header.value.contains("UWI → UWI_2") && header.value.contains("COUNTY → COUNTY_2"), "\(header)")
        }
        #expect(dry.mappingDescription.contains("column_15"))
        try Self.loadMatchesKey("\(name).csv", key: "\(name).key.json")
    }

    /// `LocationID,Location` over `310932,"40.38471, -102.29526"`: the header has as many commas
    /// outside quotes as its rows, so it is no title line; every well loads with its own identifier.
    @Test func aHeaderIsNoTitleForCommasInsideQuotes() throws {
        let (summary, _) = try Self.loadMatchesKey("co-location-pair.csv", key: "co-location-pair.key.json")
        #expect(summary.titleLines == 0 && summary.firstTitleLine == nil)
        #expect(summary.generatedIdentifiers == 0)
        #expect(summary.mapping["uwi"] == "LocationID")
    }

    /// Lines skipped before a header are in the summary of the load, not only the dry run's inferences.
    @Test func skippedTitleLinesAreInTheSummary() throws {
        let text = "Colorado ECMC - Orphaned Wells Export\n\nLocationID,Latitude,Longitude,Status\n"
            + "310932,40.38471,-102.29526,_Federal\n310933,40.37459,-102.29448,_Federal\n310934,40.37846,-102.28364,_Federal\n"
        let summary = try Fixtures.makeStore().load(csvAt: try Fixtures.file(text))
        #expect(summary.inserted == 3)
        #expect(summary.titleLines == 2)
        #expect(summary.firstTitleLine == "Colorado ECMC - Orphaned Wells Export")
    }

    // MARK: - What the user says wins

    /// Alaska's list as CSV: `lat, lon` pairs in one column, 9 of 45 rows with `unknown` or a legal
    /// description. Inferred (most values are pairs) or given with `--map lat=COLUMN`, the column is
    /// used; those rows are rejected each with its reason.
    @Test(arguments: [false, true])
    func alaskaLoadsThePairsItCanRead(mapped: Bool) throws {
        var options = LoadOptions()
        if mapped { options.mapping["lat"] = "Surface Location Coordinates (NAD 83)" }
        let (summary, store) = try Self.loadMatchesKey("ak-aogcc-orphan-wells.csv", key: "ak-aogcc-orphan-wells.key.json", options: options) { wells, store in
            // A year alone is the dates' business (kept as text today, stored as a year later): either is right here.
            for k in wells.indices {
                guard let year = wells[k].fields["extra.Completion Date"], year.count == 4,
                      let stored = try store.well(identifier: wells[k].identifier)?.properties().first(where: { $0.name == "completion_date" })
                else { continue }
                wells[k].fields["extra.Completion Date"] = nil
                let text = stored.value.description ?? ""
                wells[k].fields["completion_date"] = text
                #expect(text.hasPrefix(year))
            }
        }
        let reasons = try store.pool.read { db in try String.fetchAll(db, sql: "SELECT reason FROM rejects WHERE line IN (9, 33)") }
        #expect(reasons.first?.contains("\"unknown\" says the location is not known") == true, "\(reasons)")
        #expect(reasons.last?.contains("\"Section 11, T6S, R24W, SM\" is a PLSS legal description") == true, "\(reasons)")
        #expect(summary.inferences.contains { $0.subject == "coordinates" && $0.column == "Surface Location Coordinates (NAD 83)" })
    }

    // MARK: - Spreadsheet idioms

    /// Excel's `="05-125-11325-00-00"`: read as its text, in the identifier and any column (76% of
    /// the rows were rejected as malformed quoting).
    @Test func excelGuardedValuesAreTheirText() throws {
        let (summary, _) = try Self.loadMatchesKey("co-excel-guarded.csv", key: "co-excel-guarded.key.json")
        #expect(summary.rejected == 0 && summary.mapping["uwi"] == "LocationID")
        let reader = try CSVReader(bytes: Array("a,b,c\n=\"007\",\"x\",=\"a,b\"\"c\"\n".utf8), chunkSize: 3)
        _ = try reader.next()
        #expect(try reader.next()?.fields == ["007", "x", "a,b\"c"])
    }

    /// Identifiers a spreadsheet wrote in scientific notation are flagged as damaged, and the list loads.
    @Test func scientificIdentifiersAreFlagged() throws {
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: Self.fixture("co-api-scientific.csv"))
        #expect(summary.inserted == 60)
        #expect(summary.scientificIdentifiers == 60)
        #expect(summary.warnings.contains { $0.contains("60 identifiers in \"API\" are in scientific notation (\"5.12511E+12\" on line 2)") },
                "\(summary.warnings)")
        #expect(summary.identifierNotKey?.column == "API")
        for bytes in ["5.12511E+12", "-4.2e13", "1E5"] { #expect(Array(bytes.utf8).withUnsafeBufferPointer(ScannedFile.isScientific)) }
        for bytes in ["05-125-11325", "E5", "5.E3", "12", "5e"] { #expect(!Array(bytes.utf8).withUnsafeBufferPointer(ScannedFile.isScientific), "\(bytes)") }
    }

    // MARK: - Units

    /// NWIS's `well_depth_va` and `alt_va` are feet; a list with `Well Depth (m)` is metres: both are
    /// stored in metres, with the source unit in the summary and the load's row, and one store
    /// holding both keeps them comparable.
    @Test func depthsInFeetAndMetresAreStoredInMetres() throws {
        // NWIS gives NAD83; the store holds WGS 84, PROJ's NAD83 → WGS 84 being a null shift.
        let (feet, store) = try Self.loadMatchesKey("nwis-pa-depths-ft.tsv", key: "nwis-pa-depths-ft.key.json")
        #expect(feet.units == ["total_depth": "ft", "ground_elevation": "ft"])
        try Self.loadMatchesKey("nwis-pa-depths-m.csv", key: "nwis-pa-depths-m.key.json")
        let metres = try store.load(csvAt: Self.fixture("nwis-pa-depths-m.csv"))
        #expect(metres.units == ["total_depth": "m", "ground_elevation": "m"])
        #expect(try store.sourceUnits(loadID: feet.loadID!) == ["total_depth": "ft", "ground_elevation": "ft"])
        #expect(try store.sourceUnits(loadID: metres.loadID!) == ["total_depth": "m", "ground_elevation": "m"])
        // The same sites, one list in feet and one in metres: their mean depths agree to the metres list's rounding.
        let wells = try store.fetchWells(WellFetchRequest())
        func mean(_ prefix: Bool) -> Double {
            let depths = wells.filter { $0.detail.identifier.hasPrefix("M-") == prefix }.compactMap { $0.detail.values[.totalDepth]?.double }
            return depths.reduce(0, +) / Double(depths.count)
        }
        #expect(abs(mean(true) - mean(false)) < 0.01, "\(mean(true)) \(mean(false))")

        // --units overrides the names: depth=ft on the metres list multiplies by 0.3048.
        var options = LoadOptions()
        options.depthUnit = .feet
        let other = try Fixtures.makeStore()
        let given = try other.load(csvAt: Self.fixture("nwis-pa-depths-m.csv"), options: options)
        #expect(given.units["total_depth"] == "ft")
        #expect(try other.well(identifier: "M-390158080105501")?.detail.values[.totalDepth]?.double.map { abs($0 - 33.53 * 0.3048) < 1e-9 } == true)
    }

    @Test func unitsAreReadFromColumnNames() throws {
        for (name, unit) in [("Well Depth (ft)", "ft"), ("total_depth_m", "m"), ("Elevation (feet)", "ft"), ("TD_FT", "ft"),
                             ("well_depth_va", "ft"), ("alt_va", "ft"), ("Elevation (m)", "m")] {
            #expect(LengthUnits.unit(named: name)?.unit.rawValue == unit, "\(name)")
        }
        for name in ["Total Depth", "Measured Depth", "md", "m"] { #expect(LengthUnits.unit(named: name) == nil, "\(name)") }
        #expect(try ColumnMapping(header: ["uwi", "lat", "lon", "Well Depth (ft)", "Ground Elevation (m)"]).column(for: .totalDepth) == "Well Depth (ft)")
        #expect(try ColumnMapping(header: ["uwi", "lat", "lon", "Well Depth (ft)", "Ground Elevation (m)"]).column(for: .groundElevation) == "Ground Elevation (m)")
    }

    // MARK: - The pieces

    @Test func headerNamesAreUniqueAndKeepPublishedOnes() {
        let names = HeaderNames(["API", "", "County", "County", "column_2", "", "County_2", " "])
        #expect(names.names == ["API", "column_2_2", "County", "County_3", "column_2", "column_6", "County_2", "column_8"])
        #expect(Set(names.names).count == names.names.count)
        #expect(HeaderNames(["a", "b"]).unchanged)
    }

    @Test func legalDescriptionsAndUnknownsAreTold() {
        for text in ["Section 11, T6S, R24W, SM", "Sec. 2 T10N R5W", "SEC 35 T 5 S R 23 W"] {
            guard case .legalDescription? = UnreadableCoordinate(text) else { Issue.record("\(text)"); continue }
        }
        for text in ["unknown", "N/A", " Unknown "] {
            guard case .missing? = UnreadableCoordinate(text) else { Issue.record("\(text)"); continue }
        }
        #expect(UnreadableCoordinate("61.42, -149.81") == nil && UnreadableCoordinate("Tract 5 Road") == nil)
    }
}
