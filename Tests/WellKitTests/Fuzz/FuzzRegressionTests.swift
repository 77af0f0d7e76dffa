import Foundation
import Testing
@testable import WellKit


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

    /// Every input in Fuzz/regressions/<target>/ goes through that target's parsers without trapping.
    @Test func keptCrashersReplay() throws {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Fuzz/regressions")
        var replayed = 0
        for target in ["csv", "values", "predicate", "geoargs"] {
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
