import Foundation
import Testing
@testable import WellKit
import WellKitSynthetic
@testable import WellsServer
import WellsTestSupport

@Suite struct TileTests {
    @Test func tileBoundsFollowWebMercator() throws {
        let world = try TileID(z: 0, x: 0, y: 0).bounds
        #expect(world.minLongitude == -180 && world.maxLongitude == 180)
        #expect(abs(world.maxLatitude - TileID.maximumLatitude) < 1e-9 && abs(world.minLatitude + TileID.maximumLatitude) < 1e-9)
        // Zoom 1's north-west quarter ends at the equator and the prime meridian.
        let quarter = try TileID(z: 1, x: 0, y: 0).bounds
        #expect(abs(quarter.minLatitude) < 1e-9 && quarter.maxLongitude == 0)
        // A point maps into its tile's grid, y downwards, and the tile's corners to 0 and the extent.
        let tile = try TileID(z: 11, x: 372, y: 700)
        let box = tile.bounds
        let nw = tile.pixel(latitude: box.maxLatitude, longitude: box.minLongitude)
        let se = tile.pixel(latitude: box.minLatitude, longitude: box.maxLongitude)
        #expect(abs(nw.x) < 1e-6 && abs(nw.y) < 1e-6 && abs(se.x - 4096) < 1e-6 && abs(se.y - 4096) < 1e-6)
        #expect(throws: QueryError.self) { try TileID(z: 3, x: 8, y: 0) }
        #expect(throws: QueryError.self) { try TileID(z: 25, x: 0, y: 0) }
    }

    /// Every zoom and cell size: the features' counts add up to the wells of the buffered box,
    /// and from the cluster zoom every feature is one well with its id.
    @Test(arguments: [16, 256, 4096]) func clusterCountsAddUpToTheWellsOfTheTile(cellSize: Int) throws {
        let store = try Fixtures.makeStore()
        var csv = "uwi,name,lat,lon\n"
        var random = SeededRandom(seed: 9)
        for k in 0..<4_000 { csv += "T\(k),Well \(k),\(50 + random.unit() * 3),\(-116 + random.unit() * 4)\n" }
        _ = try store.load(csvAt: try Fixtures.file(csv))
        var options = TileOptions()
        options.cellSize = cellSize
        for z in [3, 6, 8, 10, 12, 13, 15] {
            let n = Double(1 << z)
            let x = Int((-114.5 + 180) / 360 * n)
            let lat = 51.5 * Double.pi / 180
            let y = Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)
            let id = try TileID(z: z, x: x, y: y)
            let tile = try store.tile(id, options: options)
            let request = WellFetchRequest(region: .box(options.countedBox(id)))
            #expect(tile.wellCount == (try store.fetchCount(request)), "z\(z) cell \(cellSize)")
            let singles = tile.features.filter { $0.count == 1 }
            #expect(singles.allSatisfy { $0.pinID != nil && $0.name != nil })
            #expect(tile.features.filter { $0.count > 1 }.allSatisfy { $0.pinID == nil })
            if z >= options.clusterBelowZoom {
                #expect(Set(singles.compactMap(\.pinID)) == Set(try store.fetchIDs(request)))
            }
            if z <= 8 { #expect(tile.features.count < tile.wellCount, "z\(z) clusters") }
            #expect(tile.features.count <= Int(pow(Double((4096 + 2 * options.margin(zoom: z)) / cellSize), 2)))
        }
    }

    @Test func extentCrossesTheAntimeridianWhenThatIsNarrower() throws {
        let pacific = try Fixtures.makeStore()
        _ = try pacific.load(csvAt: try Fixtures.file("uwi,lat,lon\nGU,13.4,144.8\nHI,21.3,-157.9\nAS,-14.3,-170.7\nMH,7.1,171.4\n"))
        let box = try #require(try pacific.fetchExtent().box)
        #expect(box.crossesAntimeridian)
        #expect(box.minLongitude == 144.8 && box.maxLongitude == -157.9 && box.minLatitude == -14.3 && box.maxLatitude == 21.3)

        let wide = try Fixtures.makeStore()
        _ = try wide.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,10,-100\nB,10,0\nC,10,100\n"))
        let plain = try #require(try wide.fetchExtent())
        #expect(plain.count == 3 && plain.box?.minLongitude == -100 && plain.box?.maxLongitude == 100)
        #expect(try Fixtures.makeStore().fetchExtent().box == nil)
    }

    @Test func vectorTilesEncodeTheProtobufOfTheSpecification() throws {
        let id = try TileID(z: 0, x: 0, y: 0)
        var tile = WellTile(id: id, options: TileOptions(), features: [])
        #expect(VectorTileEncoder.encode(tile).isEmpty)
        tile.features = [WellTile.Feature(latitude: 0, longitude: 0, count: 1, pinID: 300, name: "A")]
        let bytes = VectorTileEncoder.encode(tile)
        // Tile.layers (field 3, length-delimited), then Layer.version = 2 (field 15), Layer.name "wells".
        #expect(Array(bytes.prefix(1)) == [0x1A])
        #expect(bytes.count > 11 && Array(bytes[2..<11]) == [0x78, 0x02, 0x0A, 0x05] + Array("wells".utf8))
        // The feature: id 300 as a varint (0xAC 0x02), a point at the tile's centre, 2048, 2048:
        // MoveTo(1) = 9, zigzag(2048) = 4096 = 0x80 0x20.
        let feature: [UInt8] = [0x08, 0xAC, 0x02]
        #expect(bytes.indices.contains { Array(bytes[$0...].prefix(3)) == feature })
        let geometry: [UInt8] = [0x22, 0x05, 0x09, 0x80, 0x20, 0x80, 0x20]
        #expect(bytes.indices.contains { Array(bytes[$0...].prefix(7)) == geometry })
    }
}

@Suite struct PinFeatureTests {
    /// The byte writer of `items` writes what ResultWriter writes for the same pins, the
    /// identifier (uwi) as each feature's id.
    @Test func pinFeaturesMatchTheResultWriter() {
        let pins: [(Int64, String?, String?, Double, Double)] = [
            (1, "42-157-30001", "Memphis #109", 35.165556, -90.027111), (2, "wells.csv@a:12", nil, -14.3, -170.7),
            (3, "id \"7\"\n", "A \"quoted\" \\ name\n\u{1B}[31m", 0, 0),
            (40, "油井/1", "Émile's Well 油井", 51.05000000000001, -114.0), (9_000_000_000, nil, "", -90, 180),
        ]
        let columns = ["wellkit_id", "uwi", "name", "lat", "lon"]
        var reference = ""
        let writer = ResultWriter(format: .geojson, columns: columns, featureID: "uwi") { reference += $0 }
        for (id, uwi, name, lat, lon) in pins {
            writer.write([.integer(id), uwi.map { .text($0) } ?? .null, name.map { .text($0) } ?? .null, .real(lat), .real(lon)])
        }
        writer.finish()
        var fast: [UInt8] = []
        let other = ResultWriter(format: .geojson, columns: columns, featureID: "uwi") { fast += $0.utf8 }
        for (k, (id, uwi, name, lat, lon)) in pins.enumerated() {
            fast += k == 0 ? [0x0A] : [0x2C, 0x0A]
            ResultWriter.appendPinFeature(id: id, identifier: uwi, name: name, latitude: lat, longitude: lon, to: &fast)
        }
        other.appended(rows: pins.count)
        other.finish()
        // The rows appended as bytes by the general writer, as a server's page of every field writes them.
        var general: [UInt8] = []
        let third = ResultWriter(format: .geojson, columns: columns, featureID: "uwi") { general += $0.utf8 }
        for (id, uwi, name, lat, lon) in pins {
            third.write([.integer(id), uwi.map { .text($0) } ?? .null, name.map { .text($0) } ?? .null, .real(lat), .real(lon)], appendingTo: &general)
        }
        third.finish()
        #expect(reference.contains(#""id":"42-157-30001","geometry""#))
        #expect(String(decoding: fast, as: UTF8.self) == reference)
        #expect(String(decoding: general, as: UTF8.self) == reference)
    }
}
