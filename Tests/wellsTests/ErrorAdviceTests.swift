import ArgumentParser
import Foundation
import Testing
import WellsTestSupport
@testable import WellsCLI
@testable import WellKit

/// The CLI's rendering of library errors names the flags and commands, as `wells` always printed them.
@Suite struct ErrorAdviceTests {
    @Test func noCoordinateColumnsNamesTheFlags() throws {
        do { _ = try ColumnMapping(header: ["Well", "Depth"], file: "w.csv"); Issue.record("no error") } catch {
            #expect(Terminal.describe(error) == "w.csv: no lat/lon column in decimal degrees among: Well, Depth. If the file has projected x/y "
                    + "(such as UTM metres) or DMS text, load it with --crs, --x and --y (see `wells load --help`); if a column does hold "
                    + "decimal degrees, name it with --map lat=COLUMN --map lon=COLUMN")
            #expect(Terminal.exitCode(for: error) == ExitCode(65))
        }
    }

    @Test func missingStoreNamesLoad() throws {
        let path = NSTemporaryDirectory() + "wellkit-no-store-\(UUID().uuidString).sqlite"
        do { _ = try WellStore(path: path, mode: .existing); Issue.record("no error") } catch {
            #expect(Terminal.describe(error) == "\(path): no store here; create one with `wells load FILE --db \(path)`")
            #expect(Terminal.exitCode(for: error) == ExitCode(66))
        }
    }

    @Test func crsAndMappingAdvice() {
        let xy = ImportError(.invalidOption, "x and y columns without the CRS they are in", remedy: .crsForXY, file: "w.csv")
        #expect(Terminal.describe(xy) == "w.csv: --x and --y need --crs, the CRS of those columns, such as --crs EPSG:26916 for UTM zone 16N metres")
        let map = ImportError(.unknownColumn, "no such column", remedy: .chooseColumn(.mapping(field: "lat"), given: "LAT"), header: ["a", "b"], file: "w.csv")
        #expect(Terminal.describe(map) == "w.csv: --map lat=LAT: no such column; the header has: a, b")
    }

    @Test func predicateErrorsNameWhereAndExit64() {
        do { _ = try WellPredicate(parsing: "status ~ x"); Issue.record("no error") } catch {
            #expect(Terminal.describe(error) == "--where \"status ~ x\": unknown operator \"~\"; use = != < <= > >= contains beginswith endswith between in or is null")
            #expect(Terminal.exitCode(for: error) == ExitCode(64))
        }
    }

    @Test func antimeridianNamesTheFlag() throws {
        let box = try BoundingBox(minLongitude: 170, minLatitude: -10, maxLongitude: -170, maxLatitude: 10)
        do { _ = try box.parts(.reject); Issue.record("no error") } catch {
            #expect(Terminal.describe(error).hasSuffix("so the box crosses the antimeridian; pass --antimeridian split to query both sides"))
        }
    }
}

extension ErrorAdviceTests {
    @Test func candidateCRSsComeWithTheLoadCommand() {
        let path = RepositoryData.realList("in-igs-orphan-wells-utm16n.csv")
        do { _ = try WellStore.dryRun(csvAt: path); Issue.record("no error") } catch {
            #expect(Terminal.describe(error).contains("\n    wells load \(path) --crs EPSG:26916 --x Utmx --y Utmy"))
        }
    }
}

extension ErrorAdviceTests {
    /// `wells load` words the remedies in rejects, warnings and inferences as its flags.
    @Test(.blocking) func rejectReasonsNameTheFlags() throws {
        #expect(Terminal.flag(for: .keepLaterDuplicate) == "--on-duplicate last")
        #expect(Terminal.flag(for: .identifierColumn("Well API")) == "--id 'Well API'")
        try HardeningTests.withStore { directory, db in
            let csv = directory.appendingPathComponent("dup.csv").path
            try "uwi,name,lat,lon\nB1,One,36.1,-86.7\nB1,Again,36.2,-86.8\n".write(toFile: csv, atomically: true, encoding: .utf8)
            let rejects = directory.appendingPathComponent("rejects.csv").path
            let run = try HardeningTests.wells(["load", csv, "--db", db, "--rejects", rejects, "--quiet"])
            #expect(run.status == 0, "\(run.err)")
            let text = try String(contentsOfFile: rejects, encoding: .utf8)
            #expect(text.contains("make it unique, or load with --on-duplicate last to keep the later row"), "\(text)")
        }
    }
}

extension ErrorAdviceTests {
    /// A message names at most about 200 characters of a header: a file of 2,000 columns (the most a
    /// load takes; or one 40 MB line) cannot make a message of its size.
    @Test func aWideHeaderIsListedShort() throws {
        let header = (0..<2_000).map { "column_number_\($0)" }
        let text = header.joined(separator: ",") + "\n" + (0..<2_000).map(String.init).joined(separator: ",") + "\n"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wide-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { _ = try WellStore.dryRun(csvAt: path); Issue.record("no error") } catch {
            let message = Terminal.describe(error)
            #expect(message.count < 1_000, "\(message.count) characters")
            #expect(message.contains("column_number_0, column_number_1") && message.contains("(1989 more of 2000 columns)"), "\(message)")
        }
    }
}
