import ArgumentParser
import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellsCLI
@testable import WellKit

@Suite struct CommandTests {
    @Test func everyCommandHasHelp() throws {
        for command in Wells.configuration.subcommands {
            let help = Wells.helpMessage(for: command)
            #expect(help.contains("USAGE:"), "\(command)")
            #expect(help.contains("--help"), "\(command)")
        }
        let load = Wells.helpMessage(for: Wells.Load.self)
        for option in ["--db", "--map", "--dry-run", "--rejects", "--on-duplicate", "--on-missing-id", "--quiet"] {
            #expect(load.contains(option), "wells load --help lacks \(option)")
        }
        let bbox = Wells.helpMessage(for: Wells.Bbox.self)
        for format in OutputFormat.allCases { #expect(bbox.contains(format.rawValue)) }
    }

    /// A usage error that a command's `run()` throws (a check that needs the store's path) is worded
    /// as one from `validate()`: that command's usage and help, not the root's "wells <subcommand>".
    @Test func usageErrorsFromRunNameTheirCommand() throws {
        // What ArgumentParser prints for a `validate()` error of the same command is the reference.
        let validation = try #require(#expect(throws: (any Error).self) { try Wells.parseAsRoot(["bbox", "--limit=-3", "--", "-1,2,3,4"]) })
        let reference = Wells.fullMessage(for: validation)
        let bbox = Wells.usageError("--limit must be zero or more, got '-3'", command: Wells.Bbox.self, root: Wells.self)
        #expect(bbox == reference)
        #expect(bbox.contains("Usage: wells bbox [<options>] <box>\n  See 'wells bbox --help' for more information."))
        let info = Wells.usageError("no", command: Wells.CRS.Info.self, root: Wells.self)
        #expect(info.hasPrefix("Error: no\nUsage: wells crs info "))
        #expect(info.hasSuffix("See 'wells crs info --help' for more information."))
    }

    @Test func negativeCoordinatesArePositional() {
        #expect(Wells.positionalCoordinates(["bbox", "-114.2,50.9,-113.9,51.2", "--db", "x.sqlite"])
            == ["bbox", "--db", "x.sqlite", "--", "-114.2,50.9,-113.9,51.2"])
        #expect(Wells.positionalCoordinates(["bench", "projection", "--bbox", "-1,2,3,4"]) == ["bench", "projection", "--bbox=-1,2,3,4"])
        #expect(Wells.positionalCoordinates(["near", "51,-114", "--limit", "-1"]) == ["near", "51,-114", "--limit=-1"])
    }

    @Test func badArgumentsAreRejectedWithTheToken() throws {
        #expect(throws: (any Error).self) { try Wells.Near.parse(["51,-114", "--radius", "2 parsecs"]) }
        #expect(throws: (any Error).self) { try Wells.Near.parse(["51,-114"]) }
        #expect(throws: (any Error).self) { try Wells.Load.parse(["x.csv", "--map", "lat"]) }
        #expect(Wells.Near.meters("2km") == 2000)
        #expect(Wells.Near.meters("1.5mi") == 1.5 * 1609.344)
        #expect(Wells.Near.meters("-3m") == nil)
    }

    @Test func geoJSONIsRFC7946() throws {
        var text = ""
        let writer = ResultWriter(format: .geojson, columns: ["id", "name", "lat", "lon"]) { text += $0 }
        writer.write([.integer(1), .text("A \"quoted\" well"), .real(51.05), .real(-114.07)])
        writer.finish()
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "FeatureCollection")
        let feature = (object?["features"] as? [[String: Any]])?.first
        let geometry = feature?["geometry"] as? [String: Any]
        #expect(geometry?["coordinates"] as? [Double] == [-114.07, 51.05])
        #expect((feature?["properties"] as? [String: Any])?["name"] as? String == "A \"quoted\" well")
    }

    /// Standard input (`-`) and pipes (`/dev/stdin` here) are spooled and loaded like files, and
    /// a row without an identifier gets the same generated one each time, so a reload updates it.
    @Test(.blocking) func loadsStandardInputAndPipesWithStableGeneratedIdentifiers() throws {
        try withTemporaryDirectory("wells-stdin") { directory in
            let store = directory.appendingPathComponent("wells.sqlite").path
            let csv = "api,well_name,latitude,longitude\n1,A,36.1,-85.1\n,B,36.2,-85.2\n3,C,36.3,-85.3\n"
            func load(_ source: String) throws -> [String: Any] {
                let run = try Command(InterruptedLoadTests.wells, ["load", source, "--db", store, "--format", "json", "--quiet"],
                                      input: .data(Data(csv.utf8))).runWaiting()
                #expect(run.status == 0)
                return try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any] ?? [:]
            }
            let first = try load("-"), second = try load("-"), piped = try load("/dev/stdin")
            #expect(first["inserted"] as? Int == 3 && first["generatedIdentifiers"] as? Int == 1 && first["file"] as? String == "-")
            #expect(second["inserted"] as? Int == 0 && second["updated"] as? Int == 3)
            #expect(piped["inserted"] as? Int == 0 && piped["updated"] as? Int == 3 && piped["file"] as? String == "/dev/stdin")
            let identifiers = try WellStore(path: store, mode: .readOnly).pool.read { try String.fetchAll($0, sql: "SELECT uwi FROM details ORDER BY uwi") }
            let tag = RecordValidator.fileTag(header: ["api", "well_name", "latitude", "longitude"], firstRecord: ["1", "A", "36.1", "-85.1"])
            #expect(identifiers == ["1", "3", "stdin@\(tag):3"])
        }
    }

    /// Runs the `wells` executable with the dynamic loader's log on; returns the log and the exit status.
    private func wellsLoadingLog(_ arguments: [String]) throws -> (log: String, status: Int32) {
        let run = try Command(InterruptedLoadTests.wells, arguments, environment: ["LD_DEBUG": "files"], output: .discard).runWaiting()
        return (run.err, run.status)
    }

    @Test(.blocking) func queriesLoadNeitherSpatiaLiteNorPROJ() throws {
        try withTemporaryDirectory("wells-libs") { directory in
            let csv = directory.appendingPathComponent("wells.csv").path
            let db = directory.appendingPathComponent("wells.sqlite").path
            try "uwi,name,lat,lon\nA,Alpha,51.05,-114.07\n".write(toFile: csv, atomically: true, encoding: .utf8)
            // A load writes geometries, so it loads SpatiaLite, and the log shows it.
            let load = try wellsLoadingLog(["load", csv, "--db", db, "--quiet"])
            #expect(load.status == 0)
            #expect(load.log.contains("libspatialite"))
            for command in [["bbox", "-115,51,-114,52"], ["show", "A"], ["find", "--where", "name = Alpha"], ["--help"]] {
                let run = try wellsLoadingLog(command + (command == ["--help"] ? [] : ["--db", db]))
                #expect(run.status == 0, "\(command)")
                #expect(!run.log.contains("libspatialite") && !run.log.contains("libproj"), "wells \(command.joined(separator: " ")) loaded SpatiaLite or PROJ")
            }
        }
    }
}
