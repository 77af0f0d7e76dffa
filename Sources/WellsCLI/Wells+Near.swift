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

        /// The largest radius: half the Earth's circumference, beyond which every point is within reach.
        static let maximumRadius = 20_037_508.0

        func validate() throws {
            guard (radius == nil) != (nearest == nil) else {
                throw ValidationError("give exactly one of --radius and --nearest")
            }
            if let radius {
                // Checked before meters(_:), which may refuse a non-finite distance as "not a distance".
                if let size = Self.unboundedSize(radius), !(size.isFinite && size <= Self.maximumRadius) {
                    throw ValidationError("--radius must be a finite distance of at most 20,037.5 km (half the Earth's circumference), got \(SafeText.quoted(radius))")
                }
                guard let meters = Self.meters(radius) else {
                    throw ValidationError("--radius \(SafeText.quoted(radius)) is not a distance; use a number with m, km or mi, such as 2km")
                }
                guard meters.isFinite && meters <= Self.maximumRadius else {
                    throw ValidationError("--radius must be a finite distance of at most 20,037.5 km (half the Earth's circumference), got \(SafeText.quoted(radius))")
                }
            }
            if let nearest, nearest < 1 { throw ValidationError("--nearest must be at least 1, got '\(nearest)'") }
        }

        func run() async throws {
            do {
                let center = try Coordinate(parsing: point)
                let wellStore = try store.open(.readOnly)
                var request = try query.request()
                if let radius, let meters = Self.meters(radius) {
                    request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: max(0, meters))
                } else if let nearest {
                    // The k nearest are the wells within the distance of the k-th nearest; --offset and
                    // --limit then page through those k, so --nearest 5 --limit 1 prints the nearest one.
                    let found = try wellStore.fetchNearest(to: center, count: nearest, request: request)
                    request.region = .radius(latitude: center.latitude, longitude: center.longitude, meters: found.last?.meters ?? 0)
                    let offset = min(query.offset ?? 0, found.count)
                    request.limit = min(found.count - offset, query.limit ?? .max)
                }
                try QueryRunner.run(store: wellStore, request: request, options: query, distanceFrom: center)
            } catch {
                throw Terminal.failSafely(error)
            }
        }

        /// The size in metres of a positive distance written with any number, `inf` and `1e400` included; nil when
        /// it is not a positive number (with or without m, km or mi), for ``meters(_:)`` to explain.
        static func unboundedSize(_ text: String) -> Double? {
            let lower = text.lowercased().trimmingCharacters(in: .whitespaces)
            let unit = [("km", 1000.0), ("mi", 1609.344), ("m", 1.0)].first { lower.hasSuffix($0.0) }
            guard let number = Double(lower.dropLast(unit?.0.count ?? 0)), number > 0 else { return nil }
            return number * (unit?.1 ?? 1)
        }

        /// Parses `500m`, `2km`, `1.5mi` or a bare number of metres.
        static func meters(_ text: String) -> Double? {
            (try? Distance(parsing: text))?.meters
        }
    }
}
