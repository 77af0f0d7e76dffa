import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport

@Suite struct CRSLoadTests {
    @Test func indianaLoadsFromUTMAndAgreesWithItsWebMercatorColumns() throws {
        let store = try Fixtures.makeStore()
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(crs: "EPSG:26916", xColumn: "Utmx", yColumn: "Utmy")
        let summary = try store.load(csvAt: Fixtures.sharedData("in-igs-orphan-wells-utm16n.csv"), options: options)
        #expect(summary.inserted == 492)
        #expect(summary.rejected == 0)
        #expect(summary.crs == "EPSG:26916")
        #expect(summary.transformations.first?.wells == 492)
        #expect(summary.transformations.first?.operation.isEmpty == false)
        let toMercator = try CoordinateTransformer(from: "EPSG:4326", to: "EPSG:3857")
        let wells = try store.fetchWells(WellFetchRequest())
        #expect(wells.count == 492)
        var worst = 0.0
        for well in wells {
            let extra = well.detail.extra
            let x = try #require(Double(extra["x"] ?? "")), y = try #require(Double(extra["y"] ?? ""))
            let p = try toMercator.transform(x: well.pin.longitude, y: well.pin.latitude)
            // Web Mercator metres are stretched by 1/cos(latitude); compare on the ground.
            let scale = cos(well.pin.latitude * .pi / 180)
            worst = max(worst, hypot(p.x - x, p.y - y) * scale)
            #expect(well.detail.sourceCRS == "EPSG:26916")
            #expect(well.detail.sourceX == Double(extra["Utmx"] ?? ""))
            #expect(well.detail.sourceY == Double(extra["Utmy"] ?? ""))
        }
        #expect(worst < 2.0, "worst disagreement \(worst) m")
        let load = try store.pool.read { try Row.fetchOne($0, sql: "SELECT crs, transformation, accuracy_m FROM loads") }
        #expect(load?["crs"] == "EPSG:26916")
        #expect((load?["transformation"] as String?)?.contains("492 wells") == true)
    }

    @Test func nad27LoadWarnsAboutTheMissingGrid() throws {
        let csv = "uwi,lat,lon\nA,39.5,-86.5\nB,40.1,-85.9\n"
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(crs: "EPSG:4267")
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(csv), options: options)
        #expect(summary.inserted == 2)
        let report = try CRSInfo.describe("EPSG:4267").accuracyReport(to: "EPSG:4326", area: CRSInfo.Area(west: -86.5, south: 39.5, east: -85.9, north: 40.1))
        // The warning appears exactly when PROJ could do better with a grid that is not installed.
        #expect(summary.warnings.isEmpty == report.missingGrids.isEmpty)
        if !report.missingGrids.isEmpty {
            #expect(summary.warnings.first?.contains("projsync") == true)
        }
        #expect(summary.transformations.first?.accuracyMeters != nil)
        // NAD27 to WGS 84 moves central Indiana by tens of metres at most; the pin is not the raw value.
        let pin = try #require(try store.fetchPins(WellFetchRequest(predicate: .compare(.identifier, .equal, "A"))).first)
        let shift = Coordinate(latitude: 39.5, longitude: -86.5).distance(to: pin.coordinate)
        #expect(shift > 1 && shift < 100, "shift \(shift) m")
    }

    @Test func perRowDatumsAndDMS() throws {
        let csv = """
            site_no,lat,lon,datum
            1,395000.00,0863000.00,NAD27
            2,395000.00,0863000.00,NAD83
            3,395000.00,0863000.00,WGS84
            4,395000.00,0863000.00,MARS

            """
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(datumColumn: "datum", dms: true, impliedWest: true)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(csv), options: options)
        #expect(summary.inserted == 3)
        #expect(summary.rejectReasons == ["unknown datum": 1])
        let pins = try store.fetchPins(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        #expect(pins.count == 3)
        let wgs = try #require(pins.last)
        #expect(abs(wgs.latitude - 39.833333) < 1e-5 && abs(wgs.longitude + 86.5) < 1e-9)
        #expect(pins[0].coordinate.distance(to: wgs.coordinate) > 1)  // NAD27 moved
    }

    /// A parser resolves each datum cell once (``RecordValidator/DatumMemo``) and, past the 64
    /// distinct cells it keeps, row by row: every spelling of a datum converts alike, every unknown
    /// one is rejected with its name, before the memo is full and after.
    @Test func datumCellsResolveAlikeBeforeAndAfterTheMemoFills() throws {
        var csv = "site_no,lat,lon,datum\n"
        let known = ["NAD27", "nad 27", " NAD-27 ", "NAD83", "WGS84", "North American Datum 1927"]
        for k in 0..<200 {
            csv += "S\(k),39.8333333,-86.5,\(k % 2 == 0 ? "MARS\(k)" : known[k / 2 % known.count])\n"
        }
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(datumColumn: "datum")
        let store = try Fixtures.makeStore()
        var rejects: [Reject] = []
        let summary = try store.load(csvAt: try Fixtures.file(csv), options: options) { rejects += $0 }
        #expect(summary.inserted == 100 && summary.rejectReasons == ["unknown datum": 100])
        #expect(rejects.map(\.line) == (0..<100).map { 2 + 2 * $0 } && rejects.last!.reason.contains(#"datum "MARS198""#), "\(rejects.last!)")
        // Each spelling's wells land where the first well of its datum does; NAD27 moves them.
        let wells = try store.fetchWells(WellFetchRequest())
        var first: [String: WellPin] = [:]
        for well in wells {
            let datum = known[Int(well.detail.identifier.dropFirst())! / 2 % known.count]
            let key = datum == "NAD83" || datum == "WGS84" ? datum : "NAD27"
            let reference = first[key] ?? well.pin
            first[key] = reference
            #expect(well.pin.latitude == reference.latitude && well.pin.longitude == reference.longitude, "\(datum)")
        }
        #expect(first.count == 3 && first["WGS84"]!.latitude == 39.8333333 && first["WGS84"]!.longitude == -86.5)
        #expect(first["NAD27"]!.coordinate.distance(to: first["WGS84"]!.coordinate) > 1, "NAD27 moved")
    }

    @Test func projectedBoxMatchesBruteForce() throws {
        let store = try Fixtures.makeStore()
        var random = SplitMix(seed: 11)
        var csv = "uwi,lat,lon\n"
        for k in 0..<3_000 { csv += "W\(k),\(49 + random.unit() * 11),\(-120 + random.unit() * 10)\n" }
        _ = try store.load(csvAt: try Fixtures.file(csv))
        let all = try store.fetchPins(WellFetchRequest())
        let to3400 = try CoordinateTransformer(from: "EPSG:4326", to: "EPSG:3400")
        let projected = try all.map { (id: $0.id, p: try to3400.transform(x: $0.longitude, y: $0.latitude)) }
        for _ in 0..<50 {
            let x = 300_000 + random.unit() * 400_000, y = 5_450_000 + random.unit() * 1_000_000
            let w = 10_000 + random.unit() * 150_000
            let expected = Set(projected.filter { $0.p.x >= x && $0.p.x <= x + w && $0.p.y >= y && $0.p.y <= y + w }.map(\.id))
            let found = try store.fetchIDs(WellFetchRequest(region: .projectedBox(crs: "EPSG:3400", minX: x, minY: y, maxX: x + w, maxY: y + w)))
            #expect(Set(found) == expected)
        }
    }

    @Test func unknownCRSFailsBeforeReading() throws {
        var options = LoadOptions()
        options.coordinates = CoordinateOptions(crs: "EPSG:999999", xColumn: "x", yColumn: "y")
        #expect(throws: CRSError.self) { try Fixtures.makeStore().load(csvAt: try Fixtures.file("id,x,y\n1,2,3\n"), options: options) }
    }
}
