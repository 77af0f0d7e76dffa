import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Near: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "near",
            abstract: "Print the wells around a point, nearest first, or around every point of a file, with their geodesic distances.",
            discussion: """
                With --from, a proximity join: for every point of a file, the wells within --radius of it, \
                their count and the nearest of them (empty when none is within), one row per point; with \
                --pairs, one row per (point, well) within the radius instead, nearest first; with --nearest K, \
                the K nearest wells of each point as pairs, whatever their distance. --where and --within \
                narrow the wells. Distances are geodesic metres on WGS 84, as for a single point.

                The file is CSV or other delimited text, read as `wells load` reads a list (the latitude and \
                longitude, point or DMS columns and the identifier and name columns inferred from names and \
                values; projected x/y with --from-crs, --from-x and --from-y), or GeoJSON Points. Each row \
                starts with the point's line in the file (`line`; for GeoJSON its feature index from 0, \
                `feature`), its identifier (`point_id`) and name (`point_name`) when the file has such columns \
                or properties, and its `lat` and `lon`, which are the geometry of GeoJSON and gpkg output. \
                Then: wells, nearest_id, nearest_uwi, nearest_name, nearest_m; or, for pairs, rank \
                (1 = nearest), well_id, well_uwi, well_name, well_lat, well_lon, distance_m.

                Examples:
                  wells near 51.05,-114.07 --radius 2km
                  wells near 51.05,-114.07 --nearest 10 --format json
                  wells near --from schools.csv --radius 1km --where 'status = Abandoned' --format csv
                  wells near --from schools.geojson --radius 1km --pairs --format gpkg --out school-wells.gpkg
                  wells near --from intakes.csv --from-crs EPSG:26916 --from-x Utmx --from-y Utmy --nearest 3
                """)

        @Argument(help: ArgumentHelp("The point: lat,lon in degrees (not with --from).", valueName: "lat,lon"))
        var point: PointArgument?

        @Option(help: ArgumentHelp("The search radius, such as 500m, 2km or 1.5mi.", valueName: "distance"))
        var radius: DistanceArgument?

        @Option(help: "Return the N nearest wells instead of a radius.")
        var nearest: Int?

        @Option(help: ArgumentHelp("A file of points (CSV or other delimited text, or GeoJSON): answer for every point of it.", valueName: "file"))
        var from: String?

        @Flag(help: "With --from and --radius: one row per point and well within the radius, instead of one per point.")
        var pairs = false

        @Option(name: .customLong("from-crs"), help: ArgumentHelp("The CRS of the --from file's coordinate columns, such as EPSG:26916 (default: EPSG:4326).", valueName: "crs"))
        var fromCRS: String?

        @Option(name: .customLong("from-x"), help: ArgumentHelp("The --from file's easting or longitude column, for coordinates in --from-crs.", valueName: "column"))
        var fromX: String?

        @Option(name: .customLong("from-y"), help: ArgumentHelp("The --from file's northing or latitude column, for coordinates in --from-crs.", valueName: "column"))
        var fromY: String?

        @OptionGroup var query: QueryOptions
        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let point, from != nil { throw ValidationError(Self.pointBesideFrom(point.text, arguments: CommandLine.arguments)) }
            guard point != nil || from != nil else { throw ValidationError("give a point (lat,lon) or --from FILE") }
            guard (radius == nil) != (nearest == nil) else {
                throw ValidationError("give exactly one of --radius and --nearest")
            }
            _ = try radius?.checkedMeters(option: "--radius")
            if let nearest, nearest < 1 { throw ValidationError("--nearest must be at least 1, got '\(nearest)'") }
            if from == nil {
                for (given, option) in [(pairs, "--pairs"), (fromCRS != nil, "--from-crs"), (fromX != nil, "--from-x"), (fromY != nil, "--from-y")] where given {
                    throw ValidationError("\(option) applies with --from only")
                }
                return
            }
            if pairs && radius == nil { throw ValidationError("--pairs applies with --radius; --nearest always gives pairs") }
            for (given, option) in [(query.fields != nil, "--fields"), (!query.sort.isEmpty, "--sort"), (query.limit != nil, "--limit"),
                                    (query.offset != nil, "--offset")] where given {
                throw ValidationError("\(option) does not apply with --from: its rows are the points' (see `wells near --help` for the columns)")
            }
            if let problem = CoordinateOptions(crs: fromCRS, xColumn: fromX, yColumn: fromY).inconsistency {
                throw ValidationError(Terminal.describe(problem).replacingOccurrences(of: "--x", with: "--from-x")
                    .replacingOccurrences(of: "--y", with: "--from-y").replacingOccurrences(of: "--crs", with: "--from-crs"))
            }
        }

        /// The options of `wells load` that `near` names with a `--from-` prefix, since they describe the --from file.
        static let fromFileOptions = ["--crs": "--from-crs", "--x": "--from-x", "--y": "--from-y"]

        /// What to say when a point and --from are both given. The "point" is often the value of an
        /// option `near` does not have (`--crs EPSG:26916`, from `wells load`), which ArgumentParser
        /// leaves as the positional argument: name the option meant.
        static func pointBesideFrom(_ point: String, arguments: [String]) -> String {
            var text = "give a point (lat,lon) or --from FILE, not both: '\(point)' was read as the point"
            let misnamed = arguments.compactMap { argument -> String? in
                let option = String(argument.prefix { $0 != "=" })
                return fromFileOptions[option].map { "use \($0), not \(option)" }
            }
            if !misnamed.isEmpty { text += "; for the --from file's coordinates, " + misnamed.joined(separator: "; ") }
            return text
        }

        func run() throws {
            if let from { return try join(from) }
            let center = try point!.coordinate()
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

        /// The proximity join of `--from`: reads the points as `wells load` reads a list, then one row per point (or pair).
        private func join(_ path: String) throws {
            var options = LoadOptions()
            options.describeRemedy = Terminal.flag(for:)
            options.coordinates = CoordinateOptions(crs: fromCRS, xColumn: fromX, yColumn: fromY)
            let file: PointsFile
            do {
                file = try PointsFile.read(atPath: path, options: options)
            } catch let error as ImportError {
                // The loader's advice names `wells load`'s flags; a points file's are --from-crs, --from-x and --from-y.
                guard case .giveCRS(let candidates)? = error.remedy, !candidates.isEmpty else { throw error }
                Terminal.error("wells: error: \(SafeText.escaped(path)): \(SafeText.escaped(error.reason)) The file has projected x/y columns; candidate CRSs:"
                    + candidates.map {
                        "\n  \($0.crs) for \($0.xColumn)/\($0.yColumn): \($0.evidence)\n    add --from-crs \($0.crs) --from-x \(shellQuoted($0.xColumn)) --from-y \(shellQuoted($0.yColumn))"
                    }.joined())
                throw ExitCode(65)
            }
            let wellStore = try store.open(.readOnly)
            let request = try query.request()
            ArgumentSense.checkRadius(radius)
            var columns = [QueryOutput.Column(name: file.isGeoJSON ? "feature" : "line", kind: .integer)]
            if file.identifierColumn != nil { columns.append(.init(name: "point_id", kind: .text)) }
            if file.nameColumn != nil { columns.append(.init(name: "point_name", kind: .text)) }
            columns += [.init(name: "lat", kind: .real), .init(name: "lon", kind: .real)]
            let asPairs = pairs || nearest != nil
            columns += asPairs
                ? [.init(name: "rank", kind: .integer), .init(name: "well_id", kind: .integer), .init(name: "well_uwi", kind: .text),
                   .init(name: "well_name", kind: .text), .init(name: "well_lat", kind: .real), .init(name: "well_lon", kind: .real),
                   .init(name: "distance_m", kind: .real)]
                : [.init(name: "wells", kind: .integer), .init(name: "nearest_id", kind: .integer), .init(name: "nearest_uwi", kind: .text),
                   .init(name: "nearest_name", kind: .text), .init(name: "nearest_m", kind: .real)]
            func meters(_ value: Double) -> WellValue { .real((value * 10).rounded() / 10) }
            try QueryOutput.write(options: query, columns: columns, store: store.path, inputs: [path]) { output in
                func write(_ index: Int, _ result: ProximityResult) throws {
                    let point = file.points[index]
                    var head: [WellValue] = [.integer(Int64(point.position))]
                    if file.identifierColumn != nil { head.append(WellValue(point.identifier)) }
                    if file.nameColumn != nil { head.append(WellValue(point.name)) }
                    head += [.real(point.coordinate.latitude), .real(point.coordinate.longitude)]
                    guard asPairs else {
                        let well = result.nearest
                        return try output.write(head + [.integer(Int64(result.count)), well.map { .integer($0.id) } ?? .null,
                                                        WellValue(well?.identifier), WellValue(well?.name), well.map { meters($0.meters) } ?? .null])
                    }
                    for (rank, well) in result.matches.enumerated() {
                        try output.write(head + [.integer(Int64(rank + 1)), .integer(well.id), .text(well.identifier), WellValue(well.name),
                                                 .real(well.latitude), .real(well.longitude), meters(well.meters)])
                    }
                }
                let coordinates = file.points.lazy.map(\.coordinate)
                if let nearest {
                    try wellStore.forEachProximity(of: coordinates, nearest: nearest, request: request, write)
                } else {
                    try wellStore.forEachProximity(of: coordinates, radius: max(0, radius?.meters ?? 0), request: request, pairs: pairs, write)
                }
            }
        }

        /// Parses `500m`, `2km`, `1.5mi` or a bare number of metres, as `--radius` does.
        static func meters(_ text: String) -> Double? {
            DistanceArgument(argument: text).meters
        }
    }
}
