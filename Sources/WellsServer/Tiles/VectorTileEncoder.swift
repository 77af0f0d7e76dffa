import WellKit
import Foundation

/// Encodes a ``WellTile`` as a Mapbox Vector Tile (version 2.1): one layer, `wells`, of points.
///
/// For example:
///
/// ```swift
/// let bytes: [UInt8] = VectorTileEncoder.encode(try store.tile(try TileID(z: 11, x: 372, y: 700)))
/// ```
///
/// Each feature is a point with the tag `count` (1 for a single well), and `suspects` when some of
/// its wells were flagged by their load (1 for a flagged single well). A single well also has
/// the feature id (its pin id) and, when it has one, the tag `name`; a cluster has no id. The
/// format is four protobuf messages (Tile, Layer, Feature, Value) of the specification
/// (https://github.com/mapbox/vector-tile-spec/tree/master/2.1), written here by hand: a
/// generated protobuf codec would cost a code generator for about a hundred lines.
package enum VectorTileEncoder {
    /// The layer name.
    package static let layerName = "wells"

    package static func encode(_ tile: WellTile) -> [UInt8] {
        let extent = tile.options.extent
        var keys: [String] = []
        var keyIndex: [String: UInt32] = [:]
        var values: [Value] = []
        var valueIndex: [Value: UInt32] = [:]
        func key(_ name: String) -> UInt32 {
            if let k = keyIndex[name] { return k }
            keys.append(name)
            keyIndex[name] = UInt32(keys.count - 1)
            return UInt32(keys.count - 1)
        }
        func value(_ v: Value) -> UInt32 {
            if let k = valueIndex[v] { return k }
            values.append(v)
            valueIndex[v] = UInt32(values.count - 1)
            return UInt32(values.count - 1)
        }

        var layer = ProtobufWriter()
        layer.varintField(15, 2)  // version
        layer.stringField(1, layerName)
        for feature in tile.features {
            let p = tile.id.pixel(latitude: feature.latitude, longitude: feature.longitude, extent: extent)
            var message = ProtobufWriter()
            if let id = feature.pinID, id >= 0 { message.varintField(1, UInt64(id)) }
            var tags = [key("count"), value(.integer(Int64(feature.count)))]
            if let name = feature.name { tags += [key("name"), value(.string(name))] }
            if feature.suspects > 0 { tags += [key("suspects"), value(.integer(Int64(feature.suspects)))] }
            message.packedField(2, tags.map(UInt64.init))
            message.varintField(3, 1)  // GeomType POINT
            // One MoveTo of one point: command (id 1, count 1), then zigzag x and y from the origin.
            let x = Int64(p.x.rounded()), y = Int64(p.y.rounded())
            message.packedField(4, [UInt64((1 << 3) | 1), zigzag(x), zigzag(y)])
            layer.messageField(2, message)
        }
        for name in keys { layer.stringField(3, name) }
        for v in values {
            var message = ProtobufWriter()
            switch v {
            case .string(let s): message.stringField(1, s)
            case .integer(let n): message.varintField(4, UInt64(bitPattern: n))  // int_value
            }
            layer.messageField(4, message)
        }
        layer.varintField(5, UInt64(extent))

        var tileMessage = ProtobufWriter()
        if !tile.features.isEmpty { tileMessage.messageField(3, layer) }
        return tileMessage.bytes
    }

    private enum Value: Hashable {
        case string(String)
        case integer(Int64)
    }

    private static func zigzag(_ n: Int64) -> UInt64 {
        UInt64(bitPattern: (n << 1) ^ (n >> 63))
    }
}

/// The protobuf wire format's three pieces that vector tiles need: varints, length-delimited
/// fields and packed repeated varints.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func varintField(_ field: Int, _ value: UInt64) {
        varint(UInt64(field << 3))  // wire type 0
        varint(value)
    }

    mutating func stringField(_ field: Int, _ text: String) {
        lengthDelimited(field, Array(text.utf8))
    }

    mutating func messageField(_ field: Int, _ message: ProtobufWriter) {
        lengthDelimited(field, message.bytes)
    }

    mutating func packedField(_ field: Int, _ values: [UInt64]) {
        var packed = ProtobufWriter()
        for value in values { packed.varint(value) }
        lengthDelimited(field, packed.bytes)
    }

    private mutating func lengthDelimited(_ field: Int, _ payload: [UInt8]) {
        varint(UInt64(field << 3 | 2))
        varint(UInt64(payload.count))
        bytes += payload
    }

    private mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}

extension WellTile {
    /// The tile as a GeoJSON FeatureCollection (RFC 7946, longitude first), for clients that
    /// draw GeoJSON: each feature a Point with `count` (and `suspects`, when some of its wells
    /// were flagged), and for a single well its pin id as the feature's `id` and its `name`.
    package func geoJSON() -> String {
        var out = #"{"type":"FeatureCollection","features":["#
        for (k, feature) in features.enumerated() {
            if k > 0 { out += "," }
            out += #"{"type":"Feature","#
            if let id = feature.pinID { out += #""id":\#(id),"# }
            out += #""geometry":{"type":"Point","coordinates":[\#(ResultWriter.number(feature.longitude)),\#(ResultWriter.number(feature.latitude))]},"#
            out += #""properties":{"count":\#(feature.count)"#
            if let name = feature.name { out += #","name":"#; ExtraJSON.appendQuoted(name, to: &out) }
            if feature.suspects > 0 { out += #","suspects":\#(feature.suspects)"# }
            out += "}}"
        }
        return out + "]}"
    }
}
