import Foundation
import GRDB
import GRDBSQLite

/// The pins' spatial index: SpatiaLite's R*Tree `idx_pin_points_geom` over the points of
/// ``Schema/pointTable``, keyed by pin id, bulk-packed after a load.
///
/// SpatiaLite keeps the R*Tree in step with `pin_points.geom` through triggers, one R*Tree
/// insert per row. For 244,292 wells that costs about 4 s. A load suspends the points' triggers,
/// writes the rows, restores the triggers and then writes the R*Tree's node tables directly
/// from Hilbert-sorted points (about 0.3 s), as GDAL does for GeoPackage since 3.8.
/// The node format is SQLite's, from `ext/rtree/rtree.c`
/// (<https://sqlite.org/src/file/ext/rtree/rtree.c>): a node is a big-endian 2-byte depth
/// (root only), a 2-byte cell count, then cells of an 8-byte id and four 4-byte floats
/// (xmin, xmax, ymin, ymax), rounded outwards. Later inserts and deletes through the rtree
/// module work on the packed tree; tests check it with `rtreecheck()`.
package enum SpatialIndex {
    static let rtree = "idx_\(Schema.pointTable)_geom"

    // MARK: - Triggers

    /// Drops the triggers on the points' table (SpatiaLite's) and returns their SQL so that ``restoreTriggers(_:in:)`` can recreate them.
    ///
    /// DDL is transactional in SQLite: if the load fails, the rollback brings the triggers back.
    static func suspendTriggers(_ db: Database) throws -> [String] {
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name", arguments: [Schema.pointTable])
        for trigger in triggers {
            try db.execute(sql: "DROP TRIGGER \((trigger["name"] as String).quotedDatabaseIdentifier)")
        }
        return triggers.map { $0["sql"] }
    }

    static func restoreTriggers(_ sql: [String], in db: Database) throws {
        for statement in sql { try db.execute(sql: statement) }
    }

    // MARK: - Packing

    /// Rewrites the R*Tree from every pin, packed in Hilbert order.
    ///
    /// - Complexity: O(n log n) for n pins; about 0.3 s for 244,292 pins.
    static func repack(_ db: Database) throws {
        var points: [(key: UInt64, id: Int64, lon: Double, lat: Double)] = []
        points.reserveCapacity(try Int.fetchOne(db, sql: "SELECT max(id) FROM pins") ?? 0)
        let select = try db.makeStatement(sql: "SELECT id, lon, lat FROM pins")
        // Raw stepping: the repack reads every pin, and GRDB's Row decoding doubled its time.
        try withStatement(select) { stmt in
            while sqlite3_step(stmt) == SQLITE_ROW {
                let lon = sqlite3_column_double(stmt, 1), lat = sqlite3_column_double(stmt, 2)
                points.append((hilbertKey(longitude: lon, latitude: lat), sqlite3_column_int64(stmt, 0), lon, lat))
            }
        }
        points.sort { $0.key < $1.key || ($0.key == $1.key && $0.id < $1.id) }
        try write(count: points.count, { (points[$0].id, points[$0].lon, points[$0].lat) }, into: rtree, db)
    }

    /// Writes `count` points, `point(0)` to `point(count - 1)` in spatial order, as a packed R*Tree named `name`.
    ///
    /// Holds 24 bytes per point while it writes, and 16 more unless the ids ascend (as a first load's do).
    static func write(count: Int, _ point: (Int) -> (id: Int64, lon: Double, lat: Double), into name: String, _ db: Database) throws {
        let nodeBytes = try Int.fetchOne(db, sql: "SELECT length(data) FROM \("\(name)_node".quotedDatabaseIdentifier) WHERE nodeno = 1") ?? 1228
        let capacity = (nodeBytes - 4) / 24
        for suffix in ["node", "parent", "rowid"] {
            try db.execute(sql: "DELETE FROM \("\(name)_\(suffix)".quotedDatabaseIdentifier)")
        }
        // levels[0]: the points; levels[k]: one cell per node of level k-1.
        typealias Cell = (id: Int64, box: (Float, Float, Float, Float))
        var levels: [[Cell]] = [(0..<count).map {
            let p = point($0)
            return (p.id, (down(p.lon), up(p.lon), down(p.lat), up(p.lat)))
        }]
        let idsAscend = zip(levels[0], levels[0].dropFirst()).allSatisfy { $0.id < $1.id }
        repeat {
            let below = levels[levels.count - 1]
            var cells: [Cell] = []
            cells.reserveCapacity(below.count / capacity + 1)
            for startIndex in stride(from: 0, to: max(below.count, 1), by: capacity) {
                var box: (Float, Float, Float, Float) = (.infinity, -.infinity, .infinity, -.infinity)
                for cell in below[startIndex..<min(startIndex + capacity, below.count)] {
                    box = (min(box.0, cell.box.0), max(box.1, cell.box.1), min(box.2, cell.box.2), max(box.3, cell.box.3))
                }
                cells.append((0, box))
            }
            levels.append(cells)
        } while levels[levels.count - 1].count > 1
        // Node levels 0 (leaves) ..< depth+1; the root (level `depth`) is node 1, numbered top-down.
        let depth = levels.count - 2
        var firstNode = [Int64](repeating: 1, count: depth + 1)
        for level in stride(from: depth - 1, through: 0, by: -1) {
            firstNode[level] = firstNode[level + 1] + Int64(levels[level + 2].count)
        }
        for level in stride(from: 1, through: depth, by: 1) {
            for k in levels[level].indices { levels[level][k].id = firstNode[level - 1] + Int64(k) }
        }
        let insertNode = try db.makeStatement(sql: "INSERT INTO \("\(name)_node".quotedDatabaseIdentifier) VALUES (?, ?)")
        let insertParent = try db.makeStatement(sql: "INSERT INTO \("\(name)_parent".quotedDatabaseIdentifier) VALUES (?, ?)")
        let insertRowid = try db.makeStatement(sql: "INSERT INTO \("\(name)_rowid".quotedDatabaseIdentifier) VALUES (?, ?)")
        var blob = [UInt8](repeating: 0, count: nodeBytes)
        // The `_rowid` table maps each point to its leaf, in id order: as written when the ids ascend, else sorted.
        var leafOf: [(id: Int64, node: Int64)] = []
        if !idsAscend { leafOf.reserveCapacity(count) }
        for level in stride(from: depth, through: 0, by: -1) {
            let cells = levels[level]
            for node in 0..<levels[level + 1].count {
                let nodeno = firstNode[level] + Int64(node)
                let range = (node * capacity)..<min(node * capacity + capacity, cells.count)
                for k in blob.indices { blob[k] = 0 }
                putBE16(&blob, 0, level == depth ? UInt16(depth) : 0)
                putBE16(&blob, 2, UInt16(range.count))
                var offset = 4
                for cell in cells[range] {
                    putBE64(&blob, offset, UInt64(bitPattern: cell.id))
                    putFloat(&blob, offset + 8, cell.box.0)
                    putFloat(&blob, offset + 12, cell.box.1)
                    putFloat(&blob, offset + 16, cell.box.2)
                    putFloat(&blob, offset + 20, cell.box.3)
                    offset += 24
                    if level == 0 && !idsAscend { leafOf.append((cell.id, nodeno)) }
                }
                try insertNode.execute(arguments: [nodeno, Data(blob)])
                if level < depth {
                    try insertParent.execute(arguments: [nodeno, firstNode[level + 1] + Int64(node / capacity)])
                }
            }
        }
        leafOf.sort { $0.id < $1.id }
        // One row per pin: raw binds, as GRDB's argument arrays took most of the 0.4 s index phase.
        try withStatement(insertRowid) { stmt in
            func insert(_ id: Int64, _ node: Int64) throws {
                sqlite3_bind_int64(stmt, 1, id)
                sqlite3_bind_int64(stmt, 2, node)
                try stepToDone(stmt)
            }
            if idsAscend {
                for (k, cell) in levels[0].enumerated() { try insert(cell.id, firstNode[0] + Int64(k / capacity)) }
            } else {
                for entry in leafOf { try insert(entry.id, entry.node) }
            }
        }
    }

    // MARK: - Hilbert order

    /// The Hilbert-curve index of a point on a 2¹⁶ × 2¹⁶ grid over the whole globe.
    package static func hilbertKey(longitude: Double, latitude: Double) -> UInt64 {
        var x = UInt32(max(0, min(65535, (longitude + 180) / 360 * 65535)))
        var y = UInt32(max(0, min(65535, (latitude + 90) / 180 * 65535)))
        var d: UInt64 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0, ry: UInt32 = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 { x = 0xFFFF - x; y = 0xFFFF - y }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }

    // MARK: - Bytes

    private static func down(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) > value ? f.nextDown : f
    }

    private static func up(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) < value ? f.nextUp : f
    }

    private static func putBE16(_ bytes: inout [UInt8], _ at: Int, _ value: UInt16) {
        bytes[at] = UInt8(value >> 8)
        bytes[at + 1] = UInt8(value & 0xFF)
    }

    private static func putBE64(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64) {
        for k in 0..<8 { bytes[at + k] = UInt8((value >> (56 - 8 * UInt64(k))) & 0xFF) }
    }

    private static func putFloat(_ bytes: inout [UInt8], _ at: Int, _ value: Float) {
        let bits = value.bitPattern
        for k in 0..<4 { bytes[at + k] = UInt8((bits >> (24 - 8 * UInt32(k))) & 0xFF) }
    }
}
