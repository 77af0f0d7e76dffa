import Foundation
import GRDB
import GRDBSQLite

/// The pins' spatial index: the R*Tree `idx_pins_geom` over the pins' points (`pins.geom`,
/// registered with SpatiaLite as the column's spatial index), keyed by pin id, bulk-packed after a load.
///
/// Three triggers on `pins` keep the R*Tree in step (``createIndex(_:)``), one R*Tree insert
/// per row. For 244,292 wells that costs about 4 s. A load suspends the pins' triggers,
/// writes the rows, restores the triggers and then writes the R*Tree's node tables directly
/// from Hilbert-sorted points (about 0.3 s), as GDAL does for GeoPackage since 3.8.
/// The node format is SQLite's, from `ext/rtree/rtree.c`
/// (<https://sqlite.org/src/file/ext/rtree/rtree.c>): a node is a big-endian 2-byte depth
/// (root only), a 2-byte cell count, then cells of an 8-byte id and four 4-byte floats
/// (xmin, xmax, ymin, ymax), rounded outwards. Later inserts and deletes through the rtree
/// module work on the packed tree; tests check it with `rtreecheck()`.
package enum SpatialIndex {
    /// The R*Tree's name, as SpatiaLite names the spatial index of `pins.geom`, so that GDAL finds it.
    static let rtree = "idx_pins_geom"

    /// The triggers on `pins` that keep ``rtree`` in step, by name.
    static let triggers = [
        "pins_geom_insert": "AFTER INSERT ON pins BEGIN \(entry("NEW")); END",
        // A pin that moves or is renumbered: its old entry goes, and the new one comes.
        "pins_geom_update": "AFTER UPDATE OF id, lat, lon ON pins BEGIN DELETE FROM \(rtree) WHERE pkid = OLD.id; \(entry("NEW")); END",
        "pins_geom_delete": "AFTER DELETE ON pins BEGIN DELETE FROM \(rtree) WHERE pkid = OLD.id; END",
    ]

    /// The R*Tree's entry of the pin `row` (`NEW`): the rtree module stores each bound as a float,
    /// rounded outwards, as SpatiaLite's own triggers store `MbrMinX(geom)` and the rest.
    private static func entry(_ row: String) -> String {
        "INSERT INTO \(rtree)(pkid, xmin, xmax, ymin, ymax) VALUES (\(row).id, \(row).lon, \(row).lon, \(row).lat, \(row).lat)"
    }

    /// Creates the R*Tree, empty, and the triggers that keep it in step with `pins`.
    static func createIndex(_ db: Database) throws {
        try db.execute(sql: "CREATE VIRTUAL TABLE \(rtree) USING rtree(pkid, xmin, xmax, ymin, ymax)")
        for (name, body) in triggers.sorted(by: { $0.key < $1.key }) {
            try db.execute(sql: "CREATE TRIGGER \(name) \(body)")
        }
    }

    // MARK: - Triggers

    /// Drops the triggers on `table` (on `pins`, ``triggers``) and returns their SQL so that ``restoreTriggers(_:in:)`` can recreate them.
    ///
    /// DDL is transactional in SQLite: if the load fails, the rollback brings the triggers back.
    static func suspendTriggers(_ db: Database, on table: String = "pins") throws -> [String] {
        let triggers = try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? ORDER BY name", arguments: [table])
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
    static func repack(_ db: Database, into name: String = rtree) throws {
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
        try write(count: points.count, idsAscend: zip(points, points.dropFirst()).allSatisfy { $0.id < $1.id },
                  id: { points[$0].id }, position: { (points[$0].lon, points[$0].lat) }, into: name, db)
    }

    /// Writes `count` points, the k-th with id `id(k)` at `position(k)`, in spatial order, as a packed R*Tree named `name`.
    ///
    /// The shape of the tree follows from the count alone, so one pass over the points writes the
    /// leaves and keeps one box per leaf; the upper levels are made from those. Nothing per point
    /// is held, except, when the ids do not ascend (`idsAscend` false, a repack), the id and leaf
    /// of each point (16 bytes) to write the `_rowid` table in id order. (The leaves were an array
    /// of 24 bytes a point, made before the tree: a first load of 10,000,000 wells held 240 MB more
    /// at its peak.)
    static func write(count: Int, idsAscend: Bool, id: (Int) -> Int64, position: (Int) -> (lon: Double, lat: Double),
                      into name: String, _ db: Database) throws {
        let nodeBytes = try Int.fetchOne(db, sql: "SELECT length(data) FROM \("\(name)_node".quotedDatabaseIdentifier) WHERE nodeno = 1") ?? 1228
        let capacity = (nodeBytes - 4) / 24
        for suffix in ["node", "parent", "rowid"] {
            try db.execute(sql: "DELETE FROM \("\(name)_\(suffix)".quotedDatabaseIdentifier)")
        }
        typealias Box = (Float, Float, Float, Float)
        let empty: Box = (.infinity, -.infinity, .infinity, -.infinity)
        // Nodes per level, from the leaves (level 0) to the root (level `depth`). The root is node 1, as
        // SQLite requires; the others are numbered from 2 up, leaves first, in the order they are
        // written, so that the `_node` table grows at its right edge.
        var nodes = [max(1, (count + capacity - 1) / capacity)]
        while nodes[nodes.count - 1] > 1 { nodes.append((nodes[nodes.count - 1] + capacity - 1) / capacity) }
        let depth = nodes.count - 1
        var firstNode = [Int64](repeating: 1, count: depth + 1)
        for level in 0..<depth { firstNode[level] = level == 0 ? 2 : firstNode[level - 1] + Int64(nodes[level - 1]) }
        let insertNode = try db.makeStatement(sql: "INSERT INTO \("\(name)_node".quotedDatabaseIdentifier) VALUES (?, ?)")
        let insertParent = try db.makeStatement(sql: "INSERT INTO \("\(name)_parent".quotedDatabaseIdentifier) VALUES (?, ?)")
        let insertRowid = try db.makeStatement(sql: "INSERT INTO \("\(name)_rowid".quotedDatabaseIdentifier) VALUES (?, ?)")
        // One node's blob, filled in place: a node is written per 168 points, with no array or closure per cell.
        let blob = UnsafeMutableRawBufferPointer.allocate(byteCount: nodeBytes, alignment: 8)
        defer { blob.deallocate() }
        func startNode(level: Int) {
            blob.initializeMemory(as: UInt8.self, repeating: 0)
            blob.storeBytes(of: (level == depth ? UInt16(depth) : 0).bigEndian, toByteOffset: 0, as: UInt16.self)
        }
        @inline(__always) func put(_ id: Int64, _ box: Box, into blob: UnsafeMutableRawBufferPointer, at cell: Int) {
            let offset = 4 + 24 * cell
            blob.storeBytes(of: UInt64(bitPattern: id).bigEndian, toByteOffset: offset, as: UInt64.self)
            blob.storeBytes(of: box.0.bitPattern.bigEndian, toByteOffset: offset + 8, as: UInt32.self)
            blob.storeBytes(of: box.1.bitPattern.bigEndian, toByteOffset: offset + 12, as: UInt32.self)
            blob.storeBytes(of: box.2.bitPattern.bigEndian, toByteOffset: offset + 16, as: UInt32.self)
            blob.storeBytes(of: box.3.bitPattern.bigEndian, toByteOffset: offset + 20, as: UInt32.self)
        }
        func finishNode(level: Int, node: Int, cells: Int) throws {
            blob.storeBytes(of: UInt16(cells).bigEndian, toByteOffset: 2, as: UInt16.self)
            let nodeno = firstNode[level] + Int64(node)
            try insertNode.execute(arguments: [nodeno, Data(blob)])
            if level < depth { try insertParent.execute(arguments: [nodeno, firstNode[level + 1] + Int64(node / capacity)]) }
        }
        // boxes[level]: the box of each node of that level, as a cell of the level above.
        var boxes: [[Box]] = [[]]
        boxes[0].reserveCapacity(nodes[0])
        // The `_rowid` table maps each point to its leaf, in id order: as written when the ids ascend, else sorted after.
        var leafOf: [(id: Int64, node: Int64)] = []
        if !idsAscend { leafOf.reserveCapacity(count) }
        for node in 0..<nodes[0] {
            let range = (node * capacity)..<min(node * capacity + capacity, count)
            startNode(level: 0)
            var nodeBox = empty, cells = 0
            for k in range {
                let point = position(k), pointID = id(k)
                let box = (down(point.lon), up(point.lon), down(point.lat), up(point.lat))
                put(pointID, box, into: blob, at: cells)
                cells += 1
                nodeBox = (min(nodeBox.0, box.0), max(nodeBox.1, box.1), min(nodeBox.2, box.2), max(nodeBox.3, box.3))
                if !idsAscend { leafOf.append((pointID, firstNode[0] + Int64(node))) }
            }
            try finishNode(level: 0, node: node, cells: cells)
            boxes[0].append(nodeBox)
        }
        for level in stride(from: 1, through: depth, by: 1) {
            boxes.append([])
            let below = boxes[level - 1]
            for node in 0..<nodes[level] {
                let range = (node * capacity)..<min(node * capacity + capacity, below.count)
                startNode(level: level)
                var nodeBox = empty, cells = 0
                for k in range {
                    put(firstNode[level - 1] + Int64(k), below[k], into: blob, at: cells)
                    cells += 1
                    nodeBox = (min(nodeBox.0, below[k].0), max(nodeBox.1, below[k].1), min(nodeBox.2, below[k].2), max(nodeBox.3, below[k].3))
                }
                try finishNode(level: level, node: node, cells: cells)
                boxes[level].append(nodeBox)
            }
        }
        // One row per point, after the nodes (interleaved with them, the index phase took 1.34 s
        // instead of 1.07 for 2,442,920 wells); raw binds, as GRDB's argument arrays took most of
        // the 0.4 s index phase.
        leafOf.sort { $0.id < $1.id }
        try withStatement(insertRowid) { rowid in
            for k in 0..<count {
                let (pointID, node) = idsAscend ? (id(k), firstNode[0] + Int64(k / capacity)) : leafOf[k]
                sqlite3_bind_int64(rowid, 1, pointID)
                sqlite3_bind_int64(rowid, 2, node)
                try stepToDone(rowid)
            }
        }
    }

    // MARK: - Hilbert order

    /// A record's place in the write order: its 32-bit Hilbert key over its index, so that one
    /// sort of 8-byte numbers puts a load's wells in spatial order, ties in file order (a load has
    /// fewer than 2³² records: ``ScannedRecord`` numbers its lines in 32 bits).
    package static func orderKey(index: Int, longitude: Double, latitude: Double) -> UInt64 {
        hilbertKey(longitude: longitude, latitude: latitude) << 32 | UInt64(truncatingIfNeeded: index)
    }

    /// The record index of an ``orderKey(index:longitude:latitude:)``.
    @inline(__always) package static func index(ofOrderKey key: UInt64) -> Int { Int(truncatingIfNeeded: key & 0xFFFF_FFFF) }

    /// The Hilbert-curve index of a point on a 2¹⁶ × 2¹⁶ grid over the whole globe: below 2³².
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
}
