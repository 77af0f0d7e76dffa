import ArgumentParser
import Foundation
import GRDB
import Testing
@testable import wells
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

    @Test func negativeCoordinatesArePositional() {
        #expect(Wells.positionalCoordinates(["bbox", "-114.2,50.9,-113.9,51.2", "--db", "x.sqlite"])
            == ["bbox", "--db", "x.sqlite", "--", "-114.2,50.9,-113.9,51.2"])
        #expect(Wells.positionalCoordinates(["bench", "projection", "--bbox", "-1,2,3,4"]) == ["bench", "projection", "--bbox", "-1,2,3,4"])
        #expect(Wells.positionalCoordinates(["near", "51,-114", "--limit", "-1"]) == ["near", "51,-114", "--limit", "-1"])
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
        writer.write([1.databaseValue, "A \"quoted\" well".databaseValue, 51.05.databaseValue, (-114.07).databaseValue])
        writer.finish()
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "FeatureCollection")
        let feature = (object?["features"] as? [[String: Any]])?.first
        let geometry = feature?["geometry"] as? [String: Any]
        #expect(geometry?["coordinates"] as? [Double] == [-114.07, 51.05])
        #expect((feature?["properties"] as? [String: Any])?["name"] as? String == "A \"quoted\" well")
    }
}
