import ArgumentParser
import WellKit

extension Wells {
    struct CRS: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "crs",
            abstract: "Inspect coordinate reference systems through PROJ.",
            subcommands: [Info.self])
    }
}

extension Wells.CRS {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Print a CRS and the operations PROJ has from it to EPSG:4326, with their accuracy and grids.",
            discussion: """
                Examples:
                  wells crs info EPSG:26916
                  wells crs info EPSG:4267 --area=-88.1,37.8,-84.8,41.8
                """)

        @Argument(help: "The CRS, such as EPSG:4267.")
        var crs: String

        @Option(help: ArgumentHelp("Restrict to an area of use: minLon,minLat,maxLon,maxLat.", valueName: "box"))
        var area: BoxArgument?

        @Option(help: "The target CRS.")
        var to = "EPSG:4326"

        func run() throws {
            let info = try CRSInfo.describe(crs)
            // The CRS PROJ resolved the argument to, and the argument when it was written otherwise.
            print("\(info.identifier): \(info.name) (\(info.kind.rawValue))")
            if info.identifier != crs { print("  given as: \(SafeText.quoted(crs))") }
            if let datum = info.datumName { print("  datum: \(datum)") }
            if let use = info.areaOfUse {
                print("  area of use: \(use.name ?? "") [\(use.west), \(use.south), \(use.east), \(use.north)]")
            }
            let box = try area.map { try $0.box() }
            let region = box.map { CRSInfo.Area(west: $0.minLongitude, south: $0.minLatitude, east: $0.maxLongitude, north: $0.maxLatitude) }
            print(try info.accuracyReport(to: to, area: region))
            print("operations to \(to), best first:")
            for operation in try CoordinateTransformer.candidates(from: crs, to: to, area: region).prefix(15) {
                print("  \(operation)")
            }
        }
    }
}
