import WellKit
import Foundation

/// What one map tile of wells holds: single wells, and at low zooms clusters of the wells that
/// share a grid cell.
///
/// For example:
///
/// ```swift
/// let tile = try store.tile(try TileID(z: 6, x: 11, y: 20))
/// print(tile.wellCount, "wells in", tile.features.count, "features")
/// let bytes = VectorTileEncoder.encode(tile)     // a Mapbox Vector Tile
/// ```
package struct WellTile: Sendable {
    /// A single well, or a cluster of `count` wells at their mean position.
    package struct Feature: Sendable, Equatable {
        package var latitude: Double
        package var longitude: Double
        /// 1 for a single well.
        package var count: Int
        /// The single well's pin id; nil for a cluster.
        package var pinID: Int64?
        /// The single well's name; nil for a cluster or a well without one.
        package var name: String?
        /// How many of the feature's wells a load flagged as suspect (`wells suspects`): 0 or 1 for a single well.
        package var suspects = 0
    }

    package let id: TileID
    package let options: TileOptions
    package var features: [Feature]

    /// The wells the tile counts, in its buffer included: the sum of the features' counts.
    package var wellCount: Int { features.reduce(0) { $0 + $1.count } }
}

/// How a tile is cut and clustered.
package struct TileOptions: Sendable, Equatable {
    /// The tile's grid: 4096 units a side, as Mapbox Vector Tiles use.
    package var extent = 4096
    /// Units beyond each edge whose wells the tile also carries, so that symbols are not cut.
    package var buffer = 64
    /// Below this zoom, wells sharing a grid cell are merged into a cluster; from it, every well is a point.
    package var clusterBelowZoom = 13
    /// The side of a cluster cell in tile units (a power of two from 16 to the extent): 256
    /// makes a 16 × 16 grid, 16 screen pixels a cell on a 256-pixel tile.
    package var cellSize = 256
    /// Only wells that match, as in a fetch request.
    package var predicate: WellPredicate?

    package init() {}

    /// How far beyond its edges, in tile units, a tile at `zoom` carries wells: the buffer, or
    /// when it clusters, the buffer rounded up to whole cells, so that every cell it holds is whole.
    package func margin(zoom: Int) -> Int {
        zoom >= clusterBelowZoom ? buffer : (buffer + cellSize - 1) / cellSize * cellSize
    }

    /// The box whose wells a tile counts: the tile widened by ``margin(zoom:)``.
    package func countedBox(_ id: TileID) -> BoundingBox {
        id.box(buffer: margin(zoom: id.z), extent: extent)
    }

    /// The accepted cell sizes.
    package static let cellSizes = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
}

extension WellStore {
    /// The wells of a Web Mercator tile, clustered on a grid below ``TileOptions/clusterBelowZoom``.
    ///
    /// The wells come through the R*Tree for the tile's box widened by the buffer (by whole cells
    /// when clustering: ``TileOptions/countedBox(_:)``). Cells form one grid over all tiles of a
    /// zoom. A cluster's position is the mean of its wells' coordinates; a cell that holds one well
    /// gives that well, with its pin id and name. Counts are exact: the features' counts add up to
    /// the wells of the counted box that match the predicate. `suspects`, the pin ids a load flagged
    /// (``WellStore/suspects(reason:pinID:limit:)``), gives each feature its ``WellTile/Feature/suspects``.
    ///
    /// - Complexity: O(log n + k) for k wells in the buffered tile; memory O(cells) when clustered.
    /// - Throws: ``QueryError`` for a cell size that is not one of ``TileOptions/cellSizes``, or a bad predicate.
    package func tile(_ id: TileID, options: TileOptions = TileOptions(), suspects: Set<Int64> = []) throws -> WellTile {
        guard TileOptions.cellSizes.contains(options.cellSize), options.cellSize <= options.extent else {
            throw QueryError(.outOfRange, "cell size \(options.cellSize) must be one of \(TileOptions.cellSizes.map(String.init).joined(separator: ", "))", subject: .tile)
        }
        var request = WellFetchRequest(predicate: options.predicate)
        request.region = .box(options.countedBox(id))
        if id.z >= options.clusterBelowZoom {
            let pins = try fetchPins(request)
            return WellTile(id: id, options: options, features: pins.map {
                WellTile.Feature(latitude: $0.latitude, longitude: $0.longitude, count: 1, pinID: $0.id, name: $0.name,
                                 suspects: suspects.contains($0.id) ? 1 : 0)
            })
        }
        // Cells start at the tile's corner and run on into the buffer by whole cells, so that they
        // are one grid over all tiles of a zoom: a cell inside this tile is the same cell, with the
        // same wells, for the neighbour whose buffer reaches it, and a client that keeps the
        // features inside each tile draws every well once.
        let margin = options.margin(zoom: id.z)
        let origin = Double(margin)
        let side = (options.extent + 2 * margin) / options.cellSize
        var cells: [Int: ClusterCell] = [:]
        try forEachRow(request, fields: [.id, .latitude, .longitude, .name]) { row in
            let latitude: Double = row[1], longitude: Double = row[2]
            let p = id.pixel(latitude: latitude, longitude: longitude, extent: options.extent)
            let column = min(side - 1, max(0, Int(((p.x + origin) / Double(options.cellSize)).rounded(.down))))
            let line = min(side - 1, max(0, Int(((p.y + origin) / Double(options.cellSize)).rounded(.down))))
            let key = line * side + column
            if cells[key] == nil {
                cells[key] = ClusterCell(firstID: row[0], firstName: row[3])
            }
            cells[key]!.add(latitude: latitude, longitude: longitude, suspect: !suspects.isEmpty && suspects.contains(row[0] as Int64))
        }
        let features = cells.sorted { $0.key < $1.key }.map { _, cell in
            let single = cell.count == 1
            return WellTile.Feature(latitude: cell.latitudeSum / Double(cell.count), longitude: cell.longitudeSum / Double(cell.count),
                                    count: cell.count, pinID: single ? cell.firstID : nil, name: single ? cell.firstName : nil, suspects: cell.suspects)
        }
        return WellTile(id: id, options: options, features: features)
    }
}

/// The running sums of one cluster cell.
private struct ClusterCell {
    let firstID: Int64
    let firstName: String?
    var count = 0
    var latitudeSum = 0.0
    var longitudeSum = 0.0
    var suspects = 0

    mutating func add(latitude: Double, longitude: Double, suspect: Bool) {
        count += 1
        if suspect { suspects += 1 }
        latitudeSum += latitude
        longitudeSum += longitude
    }
}
