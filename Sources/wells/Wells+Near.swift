import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Near: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the wells around a point, nearest first, with their geodesic distances.",
            discussion: """
                Examples:
                  wells near 51.05,-114.07 --radius 2km
                  wells near 51.05,-114.07 --nearest 10 --format json
                """)

        @Argument(help: ArgumentHelp("The point: lat,lon in degrees.", valueName: "lat,lon"))
        var point: String

        @Option(help: ArgumentHelp("The search radius, such as 500m, 2km or 1.5mi.", valueName: "distance"))
        var radius: String?

        @Option(help: "Return the N nearest wells instead of a radius.")
        var nearest: Int?

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        func validate() throws {
            guard (radius == nil) != (nearest == nil) else {
                throw ValidationError("give exactly one of --radius and --nearest")
            }
            if let radius, Self.meters(radius) == nil {
                throw ValidationError("--radius \"\(radius)\" is not a distance; use a number with m, km or mi, such as 2km")
            }
            if let nearest, nearest < 1 { throw ValidationError("--nearest \(nearest) must be at least 1") }
        }

        func run() async throws {
            do {
                let center = try Coordinate(parsing: point)
                let wellStore = try store.open(.readOnly)
                var request = try query.request()
                if let radius, let meters = Self.meters(radius) {
                    request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: meters)
                } else if let nearest {
                    // The k nearest are the wells within the distance of the k-th nearest.
                    let found = try wellStore.fetchNearest(to: center, count: nearest, request: request)
                    request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: found.last?.meters ?? 0)
                    request.limit = found.isEmpty ? 0 : nearest
                }
                try QueryRunner.run(store: wellStore, request: request, options: query, distanceFrom: center)
            } catch {
                throw Terminal.fail(error)
            }
        }

        /// Parses `500m`, `2km`, `1.5mi` or a bare number of metres.
        static func meters(_ text: String) -> Double? {
            (try? Distance(parsing: text))?.meters
        }
    }
}
