import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Near: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "near",
            abstract: "Print the wells around a point, nearest first, with their geodesic distances.",
            discussion: """
                Examples:
                  wells near 51.05,-114.07 --radius 2km
                  wells near 51.05,-114.07 --nearest 10 --format json
                """)

        @Argument(help: ArgumentHelp("The point: lat,lon in degrees.", valueName: "lat,lon"))
        var point: PointArgument

        @Option(help: ArgumentHelp("The search radius, such as 500m, 2km or 1.5mi.", valueName: "distance"))
        var radius: DistanceArgument?

        @Option(help: "Return the N nearest wells instead of a radius.")
        var nearest: Int?

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (radius == nil) != (nearest == nil) else {
                throw ValidationError("give exactly one of --radius and --nearest")
            }
            _ = try radius?.checkedMeters(option: "--radius")
            if let nearest, nearest < 1 { throw ValidationError("--nearest must be at least 1, got '\(nearest)'") }
        }

        func run() async throws {
            let center = try point.coordinate()
            let wellStore = try store.open(.readOnly)
            var request = try query.request()
            ArgumentSense.checkRadius(radius)
            if let meters = radius?.meters {
                request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: max(0, meters))
                if try QueryRunner.run(store: wellStore, request: request, options: query, distanceFrom: center) == 0 {
                    ArgumentSense.checkPoint(center, in: wellStore)
                }
                return
            } else if let nearest {
                // The k nearest are the wells within the distance of the k-th nearest; --offset and
                // --limit then page through those k, so --nearest 5 --limit 1 prints the nearest one.
                let found = try wellStore.fetchNearest(to: center, count: nearest, request: request)
                if let first = found.first, request.predicate == nil { ArgumentSense.checkPoint(center, in: wellStore, nearest: first.meters) }
                request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: found.last?.meters ?? 0)
                let offset = min(query.offset ?? 0, found.count)
                request.limit = min(found.count - offset, query.limit ?? .max)
            }
            try QueryRunner.run(store: wellStore, request: request, options: query, distanceFrom: center)
        }

        /// Parses `500m`, `2km`, `1.5mi` or a bare number of metres, as `--radius` does.
        static func meters(_ text: String) -> Double? {
            DistanceArgument(argument: text).meters
        }
    }
}
