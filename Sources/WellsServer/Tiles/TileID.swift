import WellKit
import Foundation

/// A tile of the Web Mercator (EPSG:3857) XYZ grid that web maps use: zoom `z`, column `x` from
/// the antimeridian eastwards, row `y` from the north edge (85.0511°N) southwards.
///
/// For example:
///
/// ```swift
/// let tile = try TileID(z: 11, x: 372, y: 700)
/// print(tile.bounds)     // the tile's longitude/latitude box
/// ```
///
/// Tiles are square in Web Mercator metres, not in degrees: ``bounds`` is exact at the edges,
/// and ``pixel(latitude:longitude:extent:)`` places a point in the tile's own grid.
package struct TileID: Sendable, Hashable, CustomStringConvertible {
    package let z: Int
    package let x: Int
    package let y: Int

    /// The highest zoom accepted: about 2 cm per pixel at the equator.
    package static let maximumZoom = 24
    /// The latitude at which the square Web Mercator world ends.
    package static let maximumLatitude = 85.05112877980659

    /// - Throws: ``QueryError`` (`outOfRange`) when `z` is not 0–``maximumZoom`` or `x`, `y` are not 0..<2^z.
    package init(z: Int, x: Int, y: Int) throws {
        guard (0...Self.maximumZoom).contains(z) else {
            throw QueryError(.outOfRange, "tile zoom \(z) must be 0 to \(Self.maximumZoom)", subject: .tile)
        }
        let n = 1 << z
        guard (0..<n).contains(x), (0..<n).contains(y) else {
            throw QueryError(.outOfRange, "tile \(z)/\(x)/\(y): at zoom \(z), x and y must be 0 to \(n - 1)", subject: .tile)
        }
        self.z = z
        self.x = x
        self.y = y
    }

    package var description: String { "\(z)/\(x)/\(y)" }

    /// The tile's edges in EPSG:4326 degrees.
    package var bounds: BoundingBox { box(buffer: 0) }

    /// The tile's box widened by `buffer` of `extent` pixels on every side (clamped to the world),
    /// so that symbols near an edge are drawn whole by both neighbours.
    package func box(buffer: Int, extent: Int = 4096) -> BoundingBox {
        let n = Double(1 << z)
        let margin = Double(buffer) / Double(extent)
        let west = Self.longitude(column: Double(x) - margin, n: n)
        let east = Self.longitude(column: Double(x + 1) + margin, n: n)
        let north = Self.latitude(row: Double(y) - margin, n: n)
        let south = Self.latitude(row: Double(y + 1) + margin, n: n)
        // The edges are clamped to the world, so the box is always valid.
        return try! BoundingBox(minLongitude: max(-180, west), minLatitude: max(-90, south),
                                maxLongitude: min(180, east), maxLatitude: min(90, north))
    }

    /// The point's position in the tile's grid of `extent` × `extent`, y downwards; outside
    /// 0..<extent for points in the buffer.
    package func pixel(latitude: Double, longitude: Double, extent: Int = 4096) -> (x: Double, y: Double) {
        let n = Double(1 << z)
        let column = (longitude + 180) / 360 * n
        let clamped = min(max(latitude, -Self.maximumLatitude), Self.maximumLatitude) * .pi / 180
        let row = (1 - log(tan(clamped) + 1 / cos(clamped)) / .pi) / 2 * n
        return ((column - Double(x)) * Double(extent), (row - Double(y)) * Double(extent))
    }

    private static func longitude(column: Double, n: Double) -> Double {
        column / n * 360 - 180
    }

    /// The latitude of a row edge; rows beyond the world's square (in a buffer) reach the poles.
    private static func latitude(row: Double, n: Double) -> Double {
        if row <= 0 { return row == 0 ? maximumLatitude : 90 }
        if row >= n { return row == n ? -maximumLatitude : -90 }
        return atan(sinh(.pi * (1 - 2 * row / n))) * 180 / .pi
    }
}
