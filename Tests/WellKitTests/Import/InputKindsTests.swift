import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Workbooks, archives, gzip, GeoJSON, KML and shapefiles load as they come, to the same store as
/// their CSV. Every fixture is made here from a real list by independent tools (GDAL's `ogr2ogr`,
/// `zip`, `gzip`), so the reader is checked against what others write, not against itself.
@Suite(.blocking) struct InputKindsTests {
    /// Colorado's orphaned wells (2,287): degrees, a WKT column in UTM 13N, text identifiers.
    static let colorado = RepositoryData.realList("co-ecmc-orphan-wells.csv")
    static let florida = RepositoryData.realList("fl-orphan-wells.xlsx")

    /// Runs a tool (ogr2ogr, zip, gzip) and requires it to succeed.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], in directory: URL? = nil) throws -> CommandResult {
        let result = try Command(tool, arguments, workingDirectory: directory?.path).runWaiting()
        try #require(result.status == 0, "\(tool) \(arguments.joined(separator: " ")): \(result.err)")
        return result
    }

    /// `ogr2ogr` of the Colorado CSV, its points from Longitude/Latitude (which it leaves out of the attributes).
    static func ogr(_ format: String, _ output: String, _ extra: [String] = [], utm: Bool = false, source: String = colorado) throws {
        try run("/usr/bin/ogr2ogr", ["-f", format, output, source, "-oo", "X_POSSIBLE_NAMES=Longitude", "-oo", "Y_POSSIBLE_NAMES=Latitude",
                                     "-oo", "KEEP_GEOM_COLUMNS=NO"] + (utm ? ["-s_srs", "EPSG:4326", "-t_srs", "EPSG:26913"] : ["-a_srs", "EPSG:4326"]) + extra)
    }

    /// The Colorado list without its WKT column `geometry`, which a shapefile cannot carry beside
    /// its own geometry (SpatiaLite's reader keeps that name), as GDAL writes it: the CSV a shapefile is compared with.
    static func coloradoWithoutWKT(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("colorado.csv").path
        try run("/usr/bin/ogr2ogr", ["-f", "CSV", path, colorado, "-select", "Latitude,Longitude,Project,Status,LocationID,API"])
        return path
    }

    /// How the wells of `b` differ from those of `a`, field by field (every property of every well
    /// but the pin's id, the source coordinates and suspects' lines): lat and lon within `tolerance` degrees.
    static func differences(_ a: WellStore, _ b: WellStore, tolerance: Double = 1e-9, limit: Int = 20) throws -> [String] {
        let ignored: Set<String> = ["id", "source_x", "source_y", "source_crs", "suspect"]
        let left = try a.fetchWells(WellFetchRequest()), right = try b.fetchWells(WellFetchRequest())
        var lines: [String] = []
        if left.count != right.count { lines.append("\(left.count) wells against \(right.count)") }
        let byIdentifier = Dictionary(right.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        for well in left where lines.count < limit {
            guard let other = byIdentifier[well.detail.identifier] else {
                lines.append("\(well.detail.identifier): missing")
                continue
            }
            let mine = Dictionary(well.properties().filter { !ignored.contains($0.name) }.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let theirs = Dictionary(other.properties().filter { !ignored.contains($0.name) }.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            for name in Set(mine.keys).union(theirs.keys).sorted() {
                let x = mine[name], y = theirs[name]
                if ["lat", "lon"].contains(name), let p = x?.double, let q = y?.double, abs(p - q) <= tolerance { continue }
                if x?.description == y?.description { continue }
                lines.append("\(well.detail.identifier) \(name): \(x?.description ?? "nothing") against \(y?.description ?? "nothing")")
            }
        }
        return lines
    }

    enum Kind: String, CaseIterable {
        case xlsx, zipOfCSV, zipOfWorkbook, gzip, geoJSON, geoJSONInUTM, kml, shapefile, shapefileInUTM
    }

    /// Makes the Colorado list as `kind` in `directory` and returns the path to load.
    static func make(_ kind: Kind, in directory: URL) throws -> String {
        let d = directory.path
        switch kind {
        case .xlsx:
            try run("/usr/bin/ogr2ogr", ["-f", "XLSX", "\(d)/wells.xlsx", colorado, "-oo", "AUTODETECT_TYPE=YES", "-nln", "Wells"])
            return "\(d)/wells.xlsx"
        case .zipOfCSV:
            try FileManager.default.copyItem(atPath: colorado, toPath: "\(d)/wells.csv")
            try run("/usr/bin/zip", ["-q", "wells.zip", "wells.csv"], in: directory)
            return "\(d)/wells.zip"
        case .zipOfWorkbook:
            try run("/usr/bin/ogr2ogr", ["-f", "XLSX", "\(d)/wells.xlsx", colorado, "-nln", "Wells"])
            try run("/usr/bin/zip", ["-q", "wells.zip", "wells.xlsx"], in: directory)
            return "\(d)/wells.zip"
        case .gzip:
            try FileManager.default.copyItem(atPath: colorado, toPath: "\(d)/wells.csv")
            try run("/usr/bin/gzip", ["-k", "\(d)/wells.csv"])
            return "\(d)/wells.csv.gz"
        case .geoJSON:
            try ogr("GeoJSON", "\(d)/wells.geojson")
            return "\(d)/wells.geojson"
        case .geoJSONInUTM:
            try ogr("GeoJSON", "\(d)/wells.geojson", ["-lco", "COORDINATE_PRECISION=6"], utm: true)
            return "\(d)/wells.geojson"
        case .kml:
            try ogr("KML", "\(d)/wells.kml")
            return "\(d)/wells.kml"
        case .shapefile:
            try ogr("ESRI Shapefile", "\(d)/wells.shp", ["-lco", "ENCODING=UTF-8"], source: coloradoWithoutWKT(in: directory))
            return "\(d)/wells.shp"
        case .shapefileInUTM:
            try ogr("ESRI Shapefile", "\(d)/wells.shp", ["-lco", "ENCODING=UTF-8"], utm: true, source: coloradoWithoutWKT(in: directory))
            return "\(d)/wells.shp"
        }
    }

    @Test(arguments: Kind.allCases)
    func everyKindLoadsTheSameStoreAsItsCSV(kind: Kind) throws {
        let directory = try Fixtures.temporaryDirectory()
        let csv = try Fixtures.makeStore()
        let csvSummary = try csv.load(csvAt: [.shapefile, .shapefileInUTM].contains(kind) ? Self.coloradoWithoutWKT(in: directory) : Self.colorado)
        let path = try Self.make(kind, in: directory)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        #expect(summary.file == path)
        #expect(summary.inserted == csvSummary.inserted, "\(summary.inferences)")
        #expect(summary.rejected == csvSummary.rejected)
        #expect(summary.mapping["uwi"] == csvSummary.mapping["uwi"])
        // Projected coordinates come back through PROJ: within 1e-7° (1 cm).
        let tolerance = [.geoJSONInUTM, .shapefileInUTM].contains(kind) ? 1e-7 : 1e-9
        let differences = try Self.differences(csv, store, tolerance: tolerance)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // Reloading the same file updates the same wells: identities hold as for a CSV.
        let again = try store.load(csvAt: path)
        #expect(again.inserted == 0 && again.updated == csvSummary.inserted)
    }

    @Test func floridasTwoSheetsLoadAsOneListWithEveryValue() throws {
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: Self.florida)
        let sheets = summary.sources.map { $0.name ?? "" }
        #expect(sheets == ["export_OrphanWellsCurrenlyWorki", "Sheet1"])
        #expect(summary.sources.map(\.kind) == ["sheet", "sheet"])
        #expect(summary.sources[1].merged == 24, "\(summary.sources)")
        #expect(summary.sources[0].wells == 32)
        #expect(summary.rejected == 0, "\(summary.rejectReasons)")
        let wells = try store.fetchWells(WellFetchRequest())
        #expect(wells.count == 32)
        // Every value of every row of both sheets, read by GDAL, is in the well with its UWI.
        let byUWI = Dictionary(wells.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        let directory = try Fixtures.temporaryDirectory()
        for (layer, uwiColumn) in [("export_OrphanWellsCurrenlyWorki", 3), ("Sheet1", 0)] {
            let csv = directory.appendingPathComponent("\(layer).csv").path
            try Self.run("/usr/bin/ogr2ogr", ["-f", "CSV", csv, Self.florida, layer, "-oo", "HEADERS=FORCE", "-oo", "FIELD_TYPES=STRING"])
            let records = try Fixtures.records(ofFileAt: csv)
            // GDAL takes the first sheet's header for a data row (its blank cells): the header is the row that names UWI.
            let headerIndex = try #require(records.firstIndex { $0.contains("UWI") })
            let header = records[headerIndex], rows = records.dropFirst(headerIndex + 1)
            #expect(rows.count == (layer == "Sheet1" ? 24 : 32))
            for row in rows {
                let uwi = row[uwiColumn]
                guard let well = byUWI[uwi] else {
                    Issue.record("\(layer): \(uwi) not loaded")
                    continue
                }
                let stored = well.properties().map(\.value)
                // Sheet 1's side table (columns P to U, under blank header cells) is the other helper's (blank
                // headers named `column_N`, issue 60 item 2): until it lands the loader keeps one of those columns.
                for (k, value) in row.enumerated() where !value.isEmpty && k < header.count && !header[k].isEmpty {
                    let found = stored.contains { stored in
                        stored.description == value || (stored.double != nil && Double(value).map { abs($0 - stored.double!) < 1e-9 } == true)
                    }
                    #expect(found, "\(layer) \(uwi): \(value) lost; stored \(stored.map(\.description))")
                }
            }
        }
    }

    @Test func aSheetIsPickedByName() throws {
        var options = LoadOptions()
        options.sheet = "Sheet1"
        let summary = try WellStore.dryRun(csvAt: Self.florida, options: options)
        #expect(summary.sources.map { $0.name ?? "" } == ["Sheet1"])
        #expect(summary.inserted == 24)
        options.sheet = "Wells"
        #expect(throws: ImportError.self) { try WellStore.dryRun(csvAt: Self.florida, options: options) }
        do {
            _ = try WellStore.dryRun(csvAt: Self.florida, options: options)
        } catch let error as ImportError {
            #expect(error.code == .invalidOption)
            #expect(error.description.contains("\"Sheet1\"") && error.description.contains("LoadOptions.sheet"), "\(error)")
        }
    }

    /// A rejected row of a workbook, a zip member and a GeoJSON feature is named by where it is in the user's file.
    @Test func rejectsNameTheirSheetMemberAndFeature() throws {
        let directory = try Fixtures.temporaryDirectory()
        let csv = directory.appendingPathComponent("wells.csv").path
        try Data("uwi,lat,lon,operator\nA1,36.1,-85.2,Acme\nA2,96.1,-85.3,Acme\nA3,36.2,-85.4,Acme\nA4,36.3,-85.5,Acme\n".utf8)
            .write(to: URL(fileURLWithPath: csv))
        try Self.run("/usr/bin/ogr2ogr", ["-f", "XLSX", directory.appendingPathComponent("wells.xlsx").path, csv, "-nln", "Wells"])
        try Self.run("/usr/bin/zip", ["-q", "wells.zip", "wells.csv"], in: directory)
        try Self.run("/usr/bin/ogr2ogr", ["-f", "GeoJSON", directory.appendingPathComponent("wells.geojson").path, csv,
                                          "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-oo", "KEEP_GEOM_COLUMNS=NO"])
        for (name, location, line) in [("wells.xlsx", "sheet \"Wells\" row 3", 3), ("wells.zip", "member \"wells.csv\" line 3", 3),
                                       ("wells.csv", "", 3)] {
            let store = try Fixtures.makeStore()
            var seen: [Reject] = []
            let summary = try store.load(csvAt: directory.appendingPathComponent(name).path) { seen = Array($0) }
            #expect(summary.rejected == 1 && summary.inserted == 3, "\(name)")
            let reject = try #require(seen.first)
            #expect(reject.line == line, "\(name)")
            #expect(location.isEmpty ? !reject.reason.contains("row") : reject.reason.hasPrefix(location + ": "), "\(name): \(reject.reason)")
            let stored = try store.pool.read { try String.fetchOne($0, sql: "SELECT reason FROM rejects") }
            #expect(stored == reject.reason)
        }
        // GDAL leaves the out-of-range point out of the GeoJSON's geometry? No: it writes it; the feature is number 2.
        let store = try Fixtures.makeStore()
        var seen: [Reject] = []
        _ = try store.load(csvAt: directory.appendingPathComponent("wells.geojson").path) { seen = Array($0) }
        #expect(seen.map(\.line) == [2] && seen.first?.reason.hasPrefix("feature 2: ") == true, "\(seen)")
    }

    @Test func anArchiveMemberIsPickedByName() throws {
        let directory = try Fixtures.temporaryDirectory()
        try Data("uwi,lat,lon\nA1,36.1,-85.2\nA2,36.2,-85.3\nA3,36.3,-85.4\n".utf8).write(to: directory.appendingPathComponent("a.csv"))
        try Data("api,latitude,longitude\nC1,36.1,-85.2\n".utf8).write(to: directory.appendingPathComponent("other.txt"))
        try Data("uwi,lat,lon\nB1,35.1,-86.2\nB2,35.2,-86.3\nB3,35.3,-86.4\n".utf8).write(to: directory.appendingPathComponent("b.csv"))
        try Self.run("/usr/bin/zip", ["-q", "two.zip", "a.csv", "b.csv"], in: directory)
        let path = directory.appendingPathComponent("two.zip").path
        let both = try WellStore.dryRun(csvAt: path)
        #expect(both.inserted == 6 && both.sources.map { $0.name ?? "" } == ["a.csv", "b.csv"])
        var options = LoadOptions()
        options.member = "b.csv"
        let one = try WellStore.dryRun(csvAt: path, options: options)
        #expect(one.inserted == 3 && one.sources.map { $0.name ?? "" } == ["b.csv"])
        // Members of different lists are refused, naming both.
        try Self.run("/usr/bin/zip", ["-q", "mixed.zip", "a.csv", "other.txt"], in: directory)
        do {
            _ = try WellStore.dryRun(csvAt: directory.appendingPathComponent("mixed.zip").path)
            Issue.record("members with different headers loaded as one list")
        } catch let error as ImportError {
            #expect(error.description.contains("member \"other.txt\" has another header") && error.description.contains("LoadOptions.member"), "\(error)")
        }
    }

    /// Damaged and unloadable inputs stop with the file, where, and what to do; the store is left as it was.
    @Test func damagedInputsAreClearErrorsAndWriteNothing() throws {
        let directory = try Fixtures.temporaryDirectory()
        let d = directory.path
        try FileManager.default.copyItem(atPath: Self.colorado, toPath: "\(d)/wells.csv")
        try Self.run("/usr/bin/zip", ["-q", "wells.zip", "wells.csv"], in: directory)
        try Self.run("/usr/bin/gzip", ["-k", "\(d)/wells.csv"])
        let zip = try Data(contentsOf: URL(fileURLWithPath: "\(d)/wells.zip"))
        try zip.prefix(zip.count / 2).write(to: URL(fileURLWithPath: "\(d)/cut.zip"))
        let gz = try Data(contentsOf: URL(fileURLWithPath: "\(d)/wells.csv.gz"))
        try gz.prefix(gz.count / 2).write(to: URL(fileURLWithPath: "\(d)/cut.csv.gz"))
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"uwi":"A"},"geometry":{"type":"LineString","coordinates":[[-85,36],[-85.1,36.1]]}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(d)/line.geojson"))
        try Data("county,operator,status\nOverton,Acme,active\nPickett,Acme,plugged\n".utf8).write(to: URL(fileURLWithPath: "\(d)/nowells.csv"))
        try Self.run("/usr/bin/ogr2ogr", ["-f", "XLSX", "\(d)/nowells.xlsx", "\(d)/nowells.csv"])
        for (name, code, says) in [("cut.zip", ImportError.Code.notText, "download or export it again"),
                                   ("cut.csv.gz", .notText, "cut short"),
                                   ("line.geojson", .nothingLoaded, "LineString, not a point"),
                                   ("nowells.xlsx", .noCoordinateColumns, "sheet \"nowells\"")] {
            let store = try Fixtures.makeStore()
            do {
                _ = try store.load(csvAt: "\(d)/\(name)")
                Issue.record("\(name) loaded")
            } catch let error as ImportError {
                #expect(error.code == code, "\(name): \(error)")
                #expect(error.file == "\(d)/\(name)", "\(name): \(error)")
                #expect(error.description.contains(says), "\(name): \(error)")
                #expect(!error.description.contains("wells-"), "\(name) names the temporary copy: \(error)")
            }
            #expect(try store.fetchWells(WellFetchRequest()).isEmpty)
            #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") } == 0)
        }
    }

    /// A workbook written by hand with the parts as `path: XML`, zipped by `zip`.
    static func workbook(_ sheet: String, named name: String, in directory: URL, utf16: Bool = false) throws -> String {
        let folder = directory.appendingPathComponent(name + ".parts")
        let parts = [
            "xl/workbook.xml": #"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" "#
                + #"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Wells" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
            "xl/_rels/workbook.xml.rels": #"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
                + #"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#,
        ]
        for (path, text) in parts {
            let url = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let sheetURL = folder.appendingPathComponent("xl/worksheets/sheet1.xml")
        try FileManager.default.createDirectory(at: sheetURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        if utf16 {
            let text = sheet.replacingOccurrences(of: #"encoding="UTF-8""#, with: #"encoding="UTF-16""#)
            try (Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!).write(to: sheetURL)
        } else {
            try Data(sheet.utf8).write(to: sheetURL)
        }
        try run("/usr/bin/zip", ["-q", "-r", "../\(name).xlsx", "xl"], in: folder)
        return directory.appendingPathComponent(name + ".xlsx").path
    }

    /// A sheet as the byte scanner (UTF-8) and `XMLParser` (UTF-16) read it: character references,
    /// CDATA, rich text with a phonetic run (left out), comments, self-closing and empty cells,
    /// single quotes; the same store from both, and from a sheet whose elements carry a namespace
    /// prefix (`x:c`, as some writers have them). A damaged sheet is refused with its line.
    @Test func aSheetReadsTheSameByteByByteAsByXMLParser() throws {
        let directory = try Fixtures.temporaryDirectory()
        func cell(_ ref: String, _ text: String) -> String { #"<c r="\#(ref)" t="inlineStr"><is><t>\#(text)</t></is></c>"# }
        let rows = [
            #"<row r="1">"# + cell("A1", "uwi") + cell("B1", "name") + cell("C1", "lat") + cell("D1", "lon") + "</row>",
            "<!-- a comment with <c> in it -->",
            #"<row r="2">"# + cell("A2", "W-1")
                + #"<c r="B2" t="inlineStr"><is><r><t>Smith &amp; Sons &lt;1&gt; &#xDC;&#252;</t></r><rPh sb="0" eb="1"><t>PHONETIC</t></rPh></is></c>"#
                + #"<c r="C2"><v>40.5</v></c><c r="D2"><v>-104.25</v></c></row>"#,
            #"<row r="3">"# + cell("A3", "<![CDATA[W-2 <raw>]]>") + #"<c r="B3" s="0"/><c r="C3"><v>40.75</v></c><c r='D3' ><v >-104.5</v></c></row>"#,
        ]
        let sheet = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
            + #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:D3"/><sheetData>"#
            + rows.joined(separator: "\n") + "</sheetData></worksheet>"
        let scanned = try Fixtures.makeStore(), parsed = try Fixtures.makeStore(), prefixed = try Fixtures.makeStore()
        try #require(try scanned.load(csvAt: Self.workbook(sheet, named: "utf8", in: directory)).inserted == 2)
        try #require(try parsed.load(csvAt: Self.workbook(sheet, named: "utf16", in: directory, utf16: true)).inserted == 2)
        let withPrefix = sheet.replacingOccurrences(of: "<worksheet xmlns=", with: "<x:worksheet xmlns:x=")
            .replacingOccurrences(of: "</worksheet>", with: "</x:worksheet>")
            .replacingOccurrences(of: #"<(/?)(dimension|sheetData|row|c|is|r|rPh|t|v)([ >/])"#, with: "<$1x:$2$3", options: .regularExpression)
        try #require(withPrefix.contains("<x:rPh") && withPrefix.contains("</x:v>"))
        try #require(try prefixed.load(csvAt: Self.workbook(withPrefix, named: "prefixed", in: directory)).inserted == 2)
        let wells = try scanned.fetchWells(WellFetchRequest()).sorted { $0.detail.identifier < $1.detail.identifier }
        #expect(wells.map(\.detail.identifier) == ["W-1", "W-2 <raw>"])
        #expect(wells.first?.pin.name == "Smith & Sons <1> \u{DC}\u{FC}")
        #expect(wells.map(\.pin.longitude) == [-104.25, -104.5])
        let (againstParser, againstPrefixed) = (try Self.differences(scanned, parsed), try Self.differences(scanned, prefixed))
        #expect(againstParser.isEmpty, "\(againstParser)")
        #expect(againstPrefixed.isEmpty, "\(againstPrefixed)")

        let damaged = String(sheet[..<sheet.range(of: #"<c r="C3"#)!.upperBound])   // cut inside a tag, on line 5
        let path = try Self.workbook(damaged, named: "damaged", in: directory)
        let store = try Fixtures.makeStore()
        #expect {
            _ = try store.load(csvAt: path)
        } throws: { error in
            "\(error)".contains("the workbook's xl/worksheets/sheet1.xml cannot be read (line 5)") && "\(error)".contains("save it again")
        }
        #expect(try store.fetchWells(WellFetchRequest()).isEmpty)
    }

    /// Cell values as a CSV would hold them: shortest numbers, ISO dates from date formats.
    @Test func cellsAreWrittenAsACSVHoldsThem() {
        #expect(SheetRows.shortest(30.854500000000002) == "30.8545")
        #expect(SheetRows.shortest(16235) == "16235")
        #expect(SheetRows.shortest(-87.102597000000003) == "-87.102597")
        #expect(SheetRows.isoDate(serial: 30_135, date1904: false) == "1982-07-03")
        #expect(SheetRows.isoDate(serial: 1, date1904: false) == "1900-01-01")
        #expect(SheetRows.isoDate(serial: 61, date1904: false) == "1900-03-01")
        #expect(SheetRows.isoDate(serial: 30_135.5, date1904: false) == "1982-07-03T12:00:00")
        #expect(SheetRows.isoDate(serial: 28_673, date1904: true) == "1982-07-03")
        #expect(SheetRows.columnIndex("A1") == 0 && SheetRows.columnIndex("AB12") == 27 && SheetRows.columnIndex("U33") == 20)
    }
}
