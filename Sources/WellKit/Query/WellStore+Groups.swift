import Foundation

/// How ``WellStore/groups(_:by:measures:)`` groups wells.
public enum WellGrouping: Sendable, Equatable {
    /// One group per distinct combination of the fields' values (null is a value): schema fields
    /// or unmapped columns (`.extra("DRILLER")`, text).
    case fields([WellAttribute])
    /// One group per area, in order, with the wells in it (its boundary included, as
    /// ``WellFetchRequest/within`` says): a spatial join. A well in two overlapping areas counts in both.
    case areas([Area])
    /// One group per cell of a square grid of `size`: degrees of EPSG:4326 when `crs` is nil, else
    /// the units of `crs` (metres of a projected CRS such as EPSG:5070). Cells are aligned on
    /// multiples of `size` from the CRS's origin; a well on a cell's west or south edge is in that
    /// cell, on its east or north edge in the next. The edges are the decimal multiples (51.8 is
    /// on a line of a 0.1° grid, and a well read from 51.8 is in the cell north of it), compared
    /// exactly, so both engines agree. Only cells holding wells are returned.
    case grid(size: Double, crs: String? = nil)
}

/// A statistic of a numeric field over each group's wells, such as the mean total depth.
public struct WellMeasure: Sendable, Hashable {
    public enum Function: String, Sendable, CaseIterable {
        case sum, mean, min, max
    }

    public var function: Function
    public var field: WellField

    public init(_ function: Function, _ field: WellField) {
        self.function = function
        self.field = field
    }

    /// The output column's name, such as `mean_total_depth`.
    public var name: String { "\(function.rawValue)_\(field.rawValue)" }
}

/// One group of wells: its key, its outline where it has one, its count and its measures.
public struct WellGroup: Sendable, Equatable {
    /// The fields' values (``WellGrouping/fields(_:)``), or the cell's column and row counted from
    /// the origin (``WellGrouping/grid(size:crs:)``); empty for areas.
    public var key: [WellValue]
    /// The area (with its properties) or the cell's outline in EPSG:4326.
    public var outline: Area?
    /// The index of the area in ``WellGrouping/areas(_:)``.
    public var areaIndex: Int?
    public var count: Int
    /// The measures in the order asked: null when no well of the group has a value.
    public var measures: [WellValue]
}

extension WellStore {
    /// Groups the wells of `request` and counts them, with optional measures: how many wells per
    /// status, per county, per 0.1° cell, and their mean depth.
    ///
    /// For example:
    ///
    /// ```swift
    /// let counties = try Area.features(geoJSONAt: URL(fileURLWithPath: "Data/boundaries/us-counties-fips.geojson"))
    ///     .filter { $0.property("STATE")?.description == "42" }
    /// for group in try store.groups(WellFetchRequest(), by: .areas(counties), measures: [WellMeasure(.mean, .totalDepth)]) {
    ///     print(group.outline?.property("NAME") ?? "", group.count, group.measures[0])
    /// }
    /// ```
    ///
    /// The request's predicate, region and area narrow the wells; its sort, limit and offset do not
    /// apply. Fields and degree grids are one `GROUP BY` in the engine; areas are one query per
    /// area, each through the spatial index and `ST_Intersects`; a grid in another CRS transforms
    /// every well's position with PROJ as the rows stream.
    ///
    /// - Throws: ``QueryError`` for a measure of a field that is not a number, a cell size that is
    ///   not positive, or areas grouped within an area; ``CRSError`` for an unknown CRS.
    public func groups(_ request: WellFetchRequest, by grouping: WellGrouping, measures: [WellMeasure] = []) throws -> [WellGroup] {
        for measure in measures where ![.real, .integer].contains(measure.field.kind) {
            throw QueryError(.invalidValue, "\(measure.function.rawValue) of \(measure.field.rawValue): \(measure.field.rawValue) is not a number; measure total_depth, ground_elevation, kb_elevation, lat or lon", subject: .fieldName, field: measure.field)
        }
        var request = request
        request.sortDescriptors = []
        request.limit = nil
        request.offset = nil
        switch grouping {
        case .fields(let fields):
            return try engine.aggregate(request, keys: fields.map { .field($0) }, measures: measures).map { row in
                WellGroup(key: Array(row[..<fields.count]), count: Int(row[fields.count].int64 ?? 0), measures: Array(row[(fields.count + 1)...]))
            }
        case .areas(let areas):
            guard request.within == nil else {
                throw QueryError(.invalidValue, "wells within an area cannot be grouped by other areas; filter with a predicate or a region instead", subject: .area)
            }
            return try areas.enumerated().map { index, area in
                var one = request
                one.within = area
                let row = try engine.aggregate(one, keys: [], measures: measures).first ?? []
                return WellGroup(key: [], outline: area, areaIndex: index, count: Int(row.first?.int64 ?? 0),
                                 measures: row.isEmpty ? measures.map { _ in .null } : Array(row.dropFirst()))
            }
        case .grid(let size, let crs):
            guard size.isFinite, size > 0 else {
                throw QueryError(.outOfRange, "the grid's cell size \(size) must be a positive number", subject: .distance)
            }
            if let crs { return try projectedGrid(request, size: size, crs: crs, measures: measures) }
            // Below a nanodegree a cell's corners are no longer distinct doubles far from 0°; above 360° one cell is the world.
            guard (1e-9...360).contains(size) else {
                throw QueryError(.outOfRange, "the grid's cell size \(size)° is outside 0.000000001° (about 0.1 mm) to 360°", subject: .distance)
            }
            let lines = GridLines(size: size)
            return try engine.aggregate(request, keys: [.cell(longitude: true, lines: lines), .cell(longitude: false, lines: lines)], measures: measures).map { row in
                let column = row[0].double ?? 0, gridRow = row[1].double ?? 0
                let cell = try Area(rings: [[Self.square(lines, column: column, row: gridRow).map { ($0.x, Swift.min(90, Swift.max(-90, $0.y))) }]])
                return WellGroup(key: [.integer(Int64(column)), .integer(Int64(gridRow))], outline: cell,
                                 count: Int(row[2].int64 ?? 0), measures: Array(row[3...]))
            }
        }
    }

    /// A grid in `crs`: every well's position transformed and binned here, as the rows stream.
    private func projectedGrid(_ request: WellFetchRequest, size: Double, crs: String, measures: [WellMeasure]) throws -> [WellGroup] {
        let transformer = try TransformCache.shared.transformer(from: "EPSG:4326", to: crs)
        let lines = GridLines(size: size)
        struct Cell { var count = 0; var sums: [Double]; var counts: [Int]; var mins: [Double]; var maxs: [Double] }
        var cells: [[Int64]: Cell] = [:]
        let fields = [WellAttribute.longitude, .latitude] + measures.map { WellAttribute($0.field) }
        var lons: [Double] = [], lats: [Double] = [], values: [[Double?]] = []
        func flush() throws {
            guard !lons.isEmpty else { return }
            try transformer.transform(xs: &lons, ys: &lats)
            for k in lons.indices {
                // A cell's number must be an integer (Int64's conversion traps on one past 2^63, or on NaN): a size
                // of 1e-300 metres, or a position the CRS cannot express, is an error, not a crash.
                let column = lines.cell(of: lons[k]), row = lines.cell(of: lats[k])
                guard abs(column) < 1e15, abs(row) < 1e15 else {
                    throw QueryError(.outOfRange, "the grid's cell size \(size) is too small for the wells' positions in \(crs) "
                                     + "(x \(lons[k]), y \(lats[k]) would be cell \(column), \(row)); use a larger size", subject: .distance)
                }
                let key = [Int64(column), Int64(row)]
                var cell = cells[key] ?? Cell(sums: Array(repeating: 0, count: measures.count), counts: Array(repeating: 0, count: measures.count),
                                              mins: Array(repeating: .infinity, count: measures.count), maxs: Array(repeating: -.infinity, count: measures.count))
                cell.count += 1
                for (m, value) in values[k].enumerated() {
                    guard let value else { continue }
                    cell.sums[m] += value
                    cell.counts[m] += 1
                    cell.mins[m] = Swift.min(cell.mins[m], value)
                    cell.maxs[m] = Swift.max(cell.maxs[m], value)
                }
                cells[key] = cell
            }
            lons.removeAll(keepingCapacity: true); lats.removeAll(keepingCapacity: true); values.removeAll(keepingCapacity: true)
        }
        try engine.forEachRow(request, fields: fields, distanceFrom: nil) { row in
            let row = row.values
            guard let lon = row[0].double, let lat = row[1].double else { return }
            lons.append(lon); lats.append(lat)
            values.append((0..<measures.count).map { row[2 + $0].double })
            if lons.count == 4096 { try flush() }
        }
        try flush()
        return try cells.keys.sorted { ($0[1], $0[0]) < ($1[1], $1[0]) }.map { key in
            let cell = cells[key]!
            // The cell's edges, 16 points each, back to EPSG:4326.
            var ring = Self.square(lines, column: Double(key[0]), row: Double(key[1]), pointsPerEdge: 16)
            try transformer.transform(&ring, inverse: true)
            let results: [WellValue] = measures.indices.map { m in
                guard cell.counts[m] > 0 else { return .null }
                return switch measures[m].function {
                case .sum: .real(cell.sums[m])
                case .mean: .real(cell.sums[m] / Double(cell.counts[m]))
                case .min: .real(cell.mins[m])
                case .max: .real(cell.maxs[m])
                }
            }
            return WellGroup(key: key.map { .integer($0) }, outline: try Area(rings: [[ring]]), count: cell.count, measures: results)
        }
    }

    /// The closed ring of cell (`column`, `row`) between its grid lines, counter-clockwise from its
    /// south-west corner, `pointsPerEdge` points per edge.
    private static func square(_ lines: GridLines, column: Double, row: Double, pointsPerEdge: Int = 1) -> [(x: Double, y: Double)] {
        let (west, east, south, north) = (lines.line(column), lines.line(column + 1), lines.line(row), lines.line(row + 1))
        let steps = (0..<pointsPerEdge).map { Double($0) / Double(pointsPerEdge) }
        let ring = steps.map { (west + $0 * (east - west), south) } + steps.map { (east, south + $0 * (north - south)) }
            + steps.map { (east - $0 * (east - west), north) } + steps.map { (west, north - $0 * (north - south)) }
        return ring + [ring[0]]
    }
}
