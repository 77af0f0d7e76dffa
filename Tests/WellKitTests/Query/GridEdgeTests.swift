import Foundation
import Testing
@testable import WellKit
import WellsTestSupport

/// Issue 61: a well exactly on a grid line belongs to the cell north or east of it, as
/// ``WellGrouping/grid(size:crs:)`` documents, on both engines and in a projected grid. The lines
/// are decimals (51.8 is line 518 of a 0.1° grid); `floor(51.8 / 0.1)` in doubles is 517, the cell
/// below, which is what `wells count --grid 0.1` answered.
@Suite struct GridEdgeTests {
    /// Grid sizes as decimals: `steps` × 10^-`decimals` (0.1, 0.3, 0.05, 0.25, 0.7).
    static let sizes: [(steps: Int, decimals: Int)] = [(1, 1), (3, 1), (5, 2), (25, 2), (7, 1)]

    /// `value` × 10^-`decimals` as text: `518, 1` is `51.8`, `-5, 2` is `-0.05`.
    static func decimal(_ value: Int, _ decimals: Int) -> String {
        let scale = Int(pow(10, Double(decimals)))
        let whole = abs(value) / scale, fraction = String(abs(value) % scale)
        return (value < 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// Wells on the lines of a grid of `size` and wells a little past a line (its text with a 5
    /// after it), as a list, and the cell each should be in: [column, row] → wells.
    static func wells(size: (steps: Int, decimals: Int)) -> (csv: String, cells: [[Int64]: Int]) {
        let scale = Int(pow(10, Double(size.decimals)))
        let latitudeLines = 89 * scale / size.steps, longitudeLines = 179 * scale / size.steps
        var csv = "uwi,lat,lon\n", cells: [[Int64]: Int] = [:]
        for k in 0..<240 {
            // Lines spread over the globe, both signs, 0 included (but not 0, 0, which a load rejects).
            let row = (k - 119) * latitudeLines / 121, column = (k - 120) * longitudeLines / 120
            let lat = decimal(row * size.steps, size.decimals), lon = decimal(column * size.steps, size.decimals)
            csv += "L\(k),\(lat),\(lon)\n"
            cells[[Int64(column), Int64(row)], default: 0] += 1
            // A little past the line, away from 0: north-east of it when positive, south-west when negative.
            csv += "P\(k),\(lat)5,\(lon)5\n"
            cells[[Int64(column * size.steps < 0 ? column - 1 : column), Int64(row * size.steps < 0 ? row - 1 : row)], default: 0] += 1
        }
        return (csv, cells)
    }

    static func cells(_ groups: [WellGroup]) -> [[Int64]: Int] {
        Dictionary(uniqueKeysWithValues: groups.map { ($0.key.map { $0.int64 ?? .min }, $0.count) })
    }

    /// The store's degree grid and a grid in EPSG:4326 itself (the projected path, whose positions
    /// PROJ leaves as they are) put every well where the decimal lines say.
    static func checkGrids(projected: Bool = true, _ makeStore: () throws -> WellStore) throws {
        for size in sizes {
            let (csv, expected) = wells(size: size)
            let store = try makeStore()
            _ = try store.load(csvAt: try Fixtures.file(csv))
            let value = Double(decimal(size.steps, size.decimals))!
            let degrees = try store.groups(WellFetchRequest(), by: .grid(size: value))
            #expect(cells(degrees) == expected, "--grid \(value)")
            #expect(degrees.reduce(0) { $0 + $1.count } == 480)
            if projected {
                #expect(cells(try store.groups(WellFetchRequest(), by: .grid(size: value, crs: "EPSG:4326"))) == expected, "--grid \(value) --grid-crs EPSG:4326")
            }
        }
    }

    @Test func aWellOnAGridLineIsInTheCellNorthAndEastOfIt() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nON,51.8,-114.3\nBELOW,51.79999,-114.30001\n"))
        let groups = try store.groups(WellFetchRequest(), by: .grid(size: 0.1))
        #expect(Self.cells(groups) == [[-1143, 518]: 1, [-1144, 517]: 1])
        // The cell's outline runs along the decimal lines.
        let on = try #require(groups.first { $0.key == [.integer(-1143), .integer(518)] })
        let ring = try #require(on.outline?.polygons.first?.outline)
        #expect(Set(ring.map(\.latitude)) == [51.8, 51.9] && Set(ring.map(\.longitude)) == [-114.3, -114.2])
    }

    @Test func everyWellOnALineOfADegreeOrProjectedGridIsWhereTheDecimalsSay() throws {
        try Self.checkGrids { try Fixtures.makeStore() }
    }

    /// A projected grid whose false easting and northing put the well at the origin on x = y = 51.8
    /// metres: PROJ gives exactly the double of 51.8, which is on line 518 of a 0.1 m grid.
    @Test func aProjectedPositionOnALineIsInTheCellNorthAndEastOfIt() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nORIGIN,50,-114\n"))
        let crs = "+proj=tmerc +lat_0=50 +lon_0=-114 +k=1 +x_0=51.8 +y_0=51.8 +datum=WGS84 +units=m +type=crs"
        var position = [(x: -114.0, y: 50.0)]
        try TransformCache.shared.transformer(from: "EPSG:4326", to: crs).transform(&position)
        try #require(position[0].x == 51.8 && position[0].y == 51.8, "PROJ puts the origin at \(position[0])")
        #expect(Self.cells(try store.groups(WellFetchRequest(), by: .grid(size: 0.1, crs: crs))) == [[518, 518]: 1])
        #expect(Self.cells(try store.groups(WellFetchRequest(), by: .grid(size: 0.3, crs: crs))) == [[172, 172]: 1])
    }

    @Test func gridLinesAreTheDecimalMultiplesOfTheSize() {
        let tenth = GridLines(size: 0.1)
        #expect(tenth.steps == 1 && tenth.scale == 10)
        #expect(tenth.line(518) == 51.8 && tenth.cell(of: 51.8) == 518 && tenth.cell(of: 51.8.nextDown) == 517)
        #expect(tenth.cell(of: -51.8) == -518 && tenth.cell(of: (-51.8).nextDown) == -519 && tenth.cell(of: 0) == 0)
        #expect(GridLines(size: 1e-9).scale == 1e9 && GridLines(size: 0.25).steps == 25)
        let third = GridLines(size: 1.0 / 3)
        #expect(third.steps == 1.0 / 3 && third.scale == 1, "a size with no short decimal uses n × size")
    }
}

/// The same lines on PostgreSQL: its SQL computes what SQLite's does.
@Suite(.serialized, .lane(.postgres), .blocking) struct GridEdgePostGISTests {
    @Test func everyWellOnALineIsWhereTheDecimalsSayOnPostgreSQL() throws {
        try GridEdgeTests.checkGrids(projected: false) { try PostGIS.makeStore() }
    }
}
