import Foundation
import WellKit

/// `tiles/{z}/{x}/{y}.mvt` and `.geojson`: the wells of a tile, clustered at low zooms, encoded.
/// (The server keeps encoded tiles in its ``ResponseCache`` until the store changes.)
final class TileService: Sendable {
    enum Format: String, Sendable {
        case mvt, geojson

        var contentType: String {
            switch self {
            case .mvt: "application/vnd.mapbox-vector-tile"
            case .geojson: "application/geo+json"
            }
        }
    }

    private let configuration: ServerConfiguration
    /// The pin ids loads flagged as suspect, with the store version they were read at: read once per
    /// version rather than once per tile (the flags change only with the store).
    private let flagged = VersionedValue<Set<Int64>>()

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
    }

    /// Parses `z`, `x` and `y.format`, and the query (`cell`, property filters, `filter`).
    ///
    /// - Throws: ``Problem`` 404 for a tile outside the grid; 400 for a zoom over the cap, an unknown format or parameter.
    func parse(z: String, x: String, name: String, parameters: [(name: String, value: String)]) throws -> (TileID, Format, TileOptions) {
        let parts = name.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let format = Format(rawValue: String(parts[1])) else {
            throw Problem.badParameter("format", "a tile is y.mvt or y.geojson, got '\(FeatureQuery.shown(name))'")
        }
        guard let zoom = Int(z), let column = Int(x), let row = Int(parts[0]) else {
            throw Problem.badParameter("z/x/y", "z, x and y must be whole numbers, got \(FeatureQuery.shown("\(z)/\(x)/\(parts[0])"))")
        }
        guard (0...configuration.maximumZoom).contains(zoom) else {
            throw Problem.badParameter("z", "zoom \(zoom) is outside 0 to \(configuration.maximumZoom), the zooms this server serves")
        }
        let tile: TileID
        // A tile outside the zoom's grid does not exist: 404, as OGC API – Tiles answers a tile
        // outside its tile matrix's limits (the request itself is well formed).
        do { tile = try TileID(z: zoom, x: column, y: row) } catch let error as QueryError {
            throw Problem(.notFound, error.message, parameter: "z/x/y")
        }
        var options = configuration.tileOptions
        var rest: [(name: String, value: String)] = []
        for parameter in parameters {
            if parameter.name == "cell" {
                guard let size = Int(parameter.value), TileOptions.cellSizes.contains(size) else {
                    throw Problem.badParameter("cell", "cell must be one of \(TileOptions.cellSizes.map(String.init).joined(separator: ", ")) (tile units of 4096 a side), got '\(FeatureQuery.shown(parameter.value))'")
                }
                options.cellSize = size
            } else {
                rest.append(parameter)
            }
        }
        let query = try FeatureQuery(rest, accepting: FeatureQuery.filtering, configuration: configuration)
        guard query.request.within == nil, query.request.region == nil else {
            throw Problem.badParameter("filter", "S_INTERSECTS is not supported in a tile's filter (a tile is its own box); filter items with it instead")
        }
        options.predicate = query.request.predicate
        return (tile, format, options)
    }

    /// The encoded tile, its flagged wells marked (``WellTile/Feature/suspects``) as of `version`.
    func bytes(_ tile: TileID, _ format: Format, _ options: TileOptions, version: StoreVersion?, lease: StoreReaders.Lease) throws -> [UInt8] {
        let content = try lease.read { store in
            do { return try store.tile(tile, options: options, suspects: try suspects(store, version: version)) } catch let error as QueryError { throw Problem(error) }
        }
        return switch format {
        case .mvt: VectorTileEncoder.encode(content)
        case .geojson: Array(content.geoJSON().utf8)
        }
    }

    /// The flagged pin ids of `store` at `version`, read now unless already read for it.
    private func suspects(_ store: WellStore, version: StoreVersion?) throws -> Set<Int64> {
        try flagged.value(for: version) { Set(try store.suspects().map(\.id)) }
    }
}
