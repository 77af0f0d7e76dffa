import ArgumentParser
import Foundation
import WellKit

extension Wells {
    struct Count: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "count",
            abstract: "Count wells: all of them, per field value, per area of a polygon file or per grid cell, with sums and means.",
            discussion: """
                --by groups by fields; --by-area by the features of a GeoJSON file (a spatial join: each \
                feature with the wells inside it, its boundary included, empty ones too unless --skip-empty); \
                --grid by square cells, in degrees or, with --grid-crs, in that CRS's units (metres with m, km \
                or mi). --where and --within choose the wells first. GeoJSON output gives areas and cells as \
                polygons with their counts, a choropleth away.

                Examples:
                  wells count --by status
                  wells count --by status,type --mean total_depth --format csv
                  wells count --by-area Data/boundaries/us-counties-fips.geojson:STATE=42:NAME --format geojson > pa-counties.geojson
                  wells count --grid 0.1 --format geojson > density.geojson
                  wells count --grid 10km --grid-crs EPSG:5070 --where 'status = Abandoned'
                """)

        @Option(help: ArgumentHelp("Group by these fields, comma-separated, such as status, status,county or extra.DRILLER (an unmapped column).", valueName: "fields"))
        var by: String?

        @Option(name: .customLong("by-area"), help: ArgumentHelp(
            "Group by the features of a GeoJSON file, with optional selectors: counties.geojson:STATE=42 keeps Pennsylvania's counties, a last segment of names (…:STATE=42:NAME) chooses the properties to print (default: all).",
            valueName: "areas"))
        var byArea: String?

        @Option(name: .customLong("area-crs"), help: ArgumentHelp("The CRS of --by-area's coordinates when the file does not say; default EPSG:4326.", valueName: "crs"))
        var areaCRS: String?

        @Option(help: ArgumentHelp("Group by square cells of this size: degrees, or the units of --grid-crs (a size with m, km or mi is in metres).", valueName: "size"))
        var grid: String?

        @Option(name: .customLong("grid-crs"), help: ArgumentHelp("The CRS of the grid, such as EPSG:5070 (CONUS Albers, metres); default EPSG:4326 degrees.", valueName: "crs"))
        var gridCRS: String?

        @Option(parsing: .singleValue, help: ArgumentHelp("Add the sum of a numeric field per group (repeatable, or comma-separated).", valueName: "field"))
        var sum: [String] = []
        @Option(parsing: .singleValue, help: ArgumentHelp("Add the mean of a numeric field per group.", valueName: "field"))
        var mean: [String] = []
        @Option(parsing: .singleValue, help: ArgumentHelp("Add the minimum of a numeric field per group.", valueName: "field"))
        var min: [String] = []
        @Option(parsing: .singleValue, help: ArgumentHelp("Add the maximum of a numeric field per group.", valueName: "field"))
        var max: [String] = []

        @Flag(name: .customLong("skip-empty"), help: "With --by-area, leave out the areas that hold no well.")
        var skipEmpty = false

        @OptionGroup var filter: FilterOptions

        @Option(help: "The output format: table, csv, json, ndjson, or geojson (with --by-area or --grid).")
        var format: OutputFormat = .table

        @OptionGroup var store: StoreOptions

        func validate() throws {
            let groupings = [by != nil, byArea != nil, grid != nil].filter { $0 }.count
            guard groupings <= 1 else { throw ValidationError("give at most one of --by, --by-area and --grid") }
            if format == .geojson && byArea == nil && grid == nil {
                throw ValidationError("--format geojson needs --by-area or --grid, whose groups have outlines; use csv or json for --by")
            }
            if gridCRS != nil && grid == nil { throw ValidationError("--grid-crs applies to --grid; add --grid SIZE") }
            if areaCRS != nil && byArea == nil { throw ValidationError("--area-crs applies to --by-area; for --within use --within-crs") }
            if skipEmpty && byArea == nil { throw ValidationError("--skip-empty applies to --by-area (other groups are never empty)") }
            if byArea != nil && filter.within != nil {
                throw ValidationError("--within and --by-area cannot be combined: choose the areas with --by-area's selectors, such as FILE:STATE=42")
            }
        }

        func run() throws {
            let wellStore = try store.open(.readOnly)
            var request = WellFetchRequest()
            try filter.apply(to: &request)
            let measures = try self.measures()
            let grouping: WellGrouping
            var keyColumns: [String] = []
            if let by {
                let fields = try by.split(separator: ",").map { try WellAttribute(keyPath: $0.trimmingCharacters(in: .whitespaces)) }
                grouping = .fields(fields)
                keyColumns = fields.map(\.name)
            } else if let byArea {
                let argument = try AreaArgument(byArea, option: "--by-area", crs: areaCRS)
                grouping = .areas(argument.areas)
                // GeoJSON keeps every property of the features; the other formats the ones named.
                keyColumns = format == .geojson ? Self.propertyKeys(argument.areas) : argument.labels ?? Self.propertyKeys(argument.areas)
            } else if let grid {
                grouping = .grid(size: try gridSize(grid), crs: gridCRS)
                keyColumns = ["column", "row", "x", "y"]
            } else {
                grouping = .fields([])   // one group: the total
            }
            var groups = try wellStore.groups(request, by: grouping, measures: measures)
            if case .fields(let fields) = grouping, !fields.isEmpty {
                // The largest groups first, as `sort | uniq -c | sort -rn` would list them.
                groups = groups.enumerated().sorted { ($0.element.count, -$0.offset) > ($1.element.count, -$1.offset) }.map(\.element)
            }
            if skipEmpty { groups.removeAll { $0.count == 0 } }

            let output = StandardOutput()
            let columns = keyColumns + ["count"] + measures.map(\.name)
            let writer = ResultWriter(terminal: format, columns: columns) { output.write($0) }
            for group in groups {
                var values: [WellValue]
                switch grouping {
                case .areas:
                    values = keyColumns.map { group.outline?.property($0) ?? .null }
                case .grid(let size, _):
                    let column = group.key[0].int64 ?? 0, row = group.key[1].int64 ?? 0
                    // The cell's south-west corner on the decimal grid lines (51.8, not 51.800000000000004).
                    let lines = GridLines(size: size)
                    values = group.key + [.real(lines.line(Double(column))), .real(lines.line(Double(row)))]
                default:
                    values = group.key
                }
                writer.write(values + [.integer(Int64(group.count))] + group.measures, geometry: group.outline?.geoJSONGeometry)
            }
            writer.finish()
            output.flush()
        }

        /// The measures of --sum, --mean, --min and --max, in that order.
        private func measures() throws -> [WellMeasure] {
            try [(WellMeasure.Function.sum, sum), (.mean, mean), (.min, min), (.max, max)].flatMap { function, lists in
                try lists.flatMap { $0.split(separator: ",") }.map { WellMeasure(function, try WellField(keyPath: $0.trimmingCharacters(in: .whitespaces))) }
            }
        }

        /// --grid's size in the grid CRS's units: a bare number, or metres with a unit.
        private func gridSize(_ text: String) throws -> Double {
            if let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite, number > 0 { return number }
            let distance = DistanceArgument(argument: text)
            guard let meters = distance.meters, meters > 0, meters.isFinite else {
                throw ValidationError("--grid \(SafeText.quoted(text)) is not a cell size; give degrees such as 0.1, or metres with --grid-crs, such as 10km")
            }
            guard gridCRS != nil else {
                throw ValidationError("--grid \(SafeText.quoted(text)) is a distance; a metric grid needs a projected CRS in metres, such as --grid-crs EPSG:5070")
            }
            return meters
        }

        /// The properties of the areas, in the first area's order, then any others'.
        private static func propertyKeys(_ areas: [Area]) -> [String] {
            var keys: [String] = [], seen: Set<String> = []
            for area in areas {
                for (key, _) in area.properties where seen.insert(key).inserted { keys.append(key) }
            }
            return keys
        }
    }
}
