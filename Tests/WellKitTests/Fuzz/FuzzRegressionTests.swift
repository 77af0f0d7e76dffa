import Foundation
import Testing
@testable import WellKit
import WellsTestSupport


/// What the fuzz targets in Fuzz/ found, one test each, and every kept crasher in
/// Fuzz/regressions/ replayed through the parsers it crashed.
@Suite struct FuzzRegressionTests {
    @Test func longDigitRunsInAUSDateDoNotOverflow() {
        // `ValueParsing.date` read the month before checking its length: 20 digits overflowed Int and trapped,
        // in the loader (a date column) and in --where 'spud_date < 3333…/1/2001'.
        #expect(ValueParsing.date("33333333333333333333/1/2001") == nil)
        #expect(ValueParsing.date("1/33333333333333333333/2001") == nil)
        #expect(ValueParsing.date("1/12/33333333333333333333") == nil)
        #expect(ValueParsing.date("1/12/2001") == "2001-01-12")
        #expect(throws: QueryError.self) { try WellPredicate(parsing: "spud_date < 33333333333333333333333333/1/2001") }
    }

    @Test func areasThatGoAroundTheEarthOrCollapseAcross180AreRefused() throws {
        // Found by the `area` target: a ring whose longitudes, read across ±180°, wind around a pole
        // (its unwrapped end 360° from its start), a 1e116° longitude (the unwrapping loop ran for
        // ever), and a ring whose three points are two once -179° is read as 181°.
        #expect(throws: QueryError.self) { try Area.features(geoJSON: Data(#"{"type":"Polygon","coordinates":[[[0.18,0],[-179,0],[-1791,1],[358,1]]]}"#.utf8)) }
        #expect(throws: QueryError.self) { try Area(wkt: "POLYGON((170 51, -1e116 50, -17.5 60, 170 61))") }
        #expect(throws: QueryError.self) { try Area.features(geoJSON: Data(#"{"type":"Polygon","coordinates":[[[181,0],[-179,0],[-179,0],[179,1]]]}"#.utf8)) }
        // The same without crossing: 180° and −180° are one meridian, so [[180,0],[-180,0],[9,1]] has two points.
        #expect(throws: QueryError.self) { try Area.features(geoJSON: Data(#"{"type":"Polygon","coordinates":[[[180,0],[-180,0],[9,1]]]}"#.utf8)) }
        // A high surrogate followed by another high one (not a low one) overflowed the pair's arithmetic.
        #expect(try JSONDocument.parse(Data(#""\uDBD2\uDBD2x""#.utf8)) == .string("\u{FFFD}\u{FFFD}x"))
        #expect(try JSONDocument.parse(Data(#""\uD83D\uDE00""#.utf8)) == .string("😀"))
    }

    /// Every input in Fuzz/regressions/<target>/ goes through that target's parsers without trapping.
    @Test func keptCrashersReplay() throws {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Fuzz/regressions")
        var replayed = 0
        for target in ["csv", "values", "predicate", "geoargs", "area"] {
            let directory = root.appendingPathComponent(target)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
                let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
                let text = String(decoding: bytes, as: UTF8.self)
                switch target {
                case "csv":
                    let reader = try CSVReader(bytes: Array(bytes.dropFirst()), chunkSize: 3)
                    while try reader.next() != nil {}
                case "values":
                    _ = ValueParsing.number(text)
                    _ = ValueParsing.date(text)
                    _ = DMS.degrees(text)
                case "predicate":
                    if let predicate = try? WellPredicate(parsing: text) {
                        _ = try? QueryCompiler.sqlite.select(WellFetchRequest(predicate: predicate), .pins)
                    }
                case "area":
                    for area in [try? Area(wkt: text)].compactMap({ $0 }) + ((try? Area.features(geoJSON: Data(bytes))) ?? []) {
                        #expect(try Area.features(geoJSON: Data(area.geoJSONGeometry.utf8)).first?.polygons == area.polygons, "\(name) reads back")
                    }
                default:
                    _ = try? BoundingBox(parsing: text)
                    _ = try? Coordinate(parsing: text)
                    _ = try? WellSortDescriptor(parsing: text)
                    _ = try? Distance(parsing: text)
                }
                replayed += 1
            }
        }
        #expect(replayed > 0)
    }
}
