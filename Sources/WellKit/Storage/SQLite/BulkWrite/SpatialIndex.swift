import Foundation
import GRDB
import GRDBSQLite

/// The pins' spatial index: the R*Tree `idx_pins_geom` over the pins' points (`pins.geom`,
/// registered with SpatiaLite as the column's spatial index), keyed by pin id, bulk-packed by a load.
///
/// Three triggers on `pins` keep the R*Tree in step (``createIndex(_:)``), one R*Tree insert
/// per row, which is far slower than packing the tree whole once the rows are in. So a load
/// suspends the pins' triggers, writes the rows, restores the triggers and writes the R*Tree's
/// node tables directly from Hilbert-sorted points (``PackedRTree``; a first load as it writes the
/// pins, a later one after them), as GDAL does for GeoPackage since 3.8: the index phase of
/// `wells-bench load` (Benchmarks/README.md's "Loading").
/// The node format is SQLite's, from `ext/rtree/rtree.c`
/// (<https://sqlite.org/src/file/ext/rtree/rtree.c>). Later inserts and deletes through the
/// rtree module work on the packed tree; tests check it with `rtreecheck()`.
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
    /// - Complexity: O(n log n) for n pins.
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
        let tree = try PackedRTree(count: points.count, idsAscend: zip(points, points.dropFirst()).allSatisfy { $0.id < $1.id }, into: name, db)
        for point in points { try tree.append(id: point.id, longitude: point.lon, latitude: point.lat) }
        try tree.finish(ids: { points[$0].id })
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
    ///
    /// The curve is the classic one (each quadrant's cells in the order (0,0), (0,1), (1,1), (1,0),
    /// rotated as the textbook `xy2d` rotates them: `SpatialIndexTests` compares the two), computed
    /// without a loop by the prefix scans of rawrunprotected's public-domain `hilbert_curves`
    /// (github.com/rawrunprotected/hilbert_curves), rather than a loop over the 16 levels: a load
    /// computes every well's key on one thread before it writes, while the other core waits.
    package static func hilbertKey(longitude: Double, latitude: Double) -> UInt64 {
        let x = UInt32(max(0, min(65535, (longitude + 180) / 360 * 65535)))
        let y = UInt32(max(0, min(65535, (latitude + 90) / 180 * 65535)))
        return hilbertKey(x: x, y: y)
    }

    /// The Hilbert index of cell (`x`, `y`) of the 2¹⁶ × 2¹⁶ grid.
    @inline(__always) static func hilbertKey(x: UInt32, y: UInt32) -> UInt64 {
        var (A, B, C, D): (UInt32, UInt32, UInt32, UInt32)
        do {
            let a = x ^ y, b = 0xFFFF ^ a, c = 0xFFFF ^ (x | y), d = x & (y ^ 0xFFFF)
            A = a | (b >> 1)
            B = (a >> 1) ^ a
            C = ((c >> 1) ^ (b & (d >> 1))) ^ c
            D = ((a & (c >> 1)) ^ (d >> 1)) ^ d
        }
        @inline(__always) func round(_ shift: UInt32) {
            let (a, b, c, d) = (A, B, C, D)
            A = (a & (a >> shift)) ^ (b & (b >> shift))
            B = (a & (b >> shift)) ^ (b & ((a ^ b) >> shift))
            C ^= (a & (c >> shift)) ^ (b & (d >> shift))
            D ^= (b & (c >> shift)) ^ ((a ^ b) & (d >> shift))
        }
        round(2)
        round(4)
        round(8)  // A and B are not read after the last round
        let a = C ^ (C >> 1), b = D ^ (D >> 1)
        let i0 = x ^ y, i1 = b | (0xFFFF ^ (i0 | a))
        return UInt64(spreadBits(i1) << 1 | spreadBits(i0))
    }

    /// The 16 low bits of `value` moved to the even bits of the result.
    @inline(__always) private static func spreadBits(_ value: UInt32) -> UInt32 {
        var x = value & 0xFFFF
        x = (x | x << 8) & 0x00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F
        x = (x | x << 2) & 0x3333_3333
        x = (x | x << 1) & 0x5555_5555
        return x
    }
}

/// A packed R*Tree written one point at a time, in spatial order, on a connection that writes
/// nothing else to it meanwhile: the leaves as they fill, the upper levels and the `_rowid` table
/// at ``finish()``, or each `_rowid` row as its point comes (`rowidsAsAppended`).
///
/// The shape of the tree follows from the count alone, so one pass over the points writes the
/// leaves and keeps one box per leaf; the upper levels are made from those. Nothing per point
/// is held, except, when the ids do not ascend (`idsAscend` false, a repack), the id and leaf
/// of each point, to write the `_rowid` table in id order: an array of leaves made before the
/// tree would add a national load's points again to its peak memory. A first load appends each
/// pin as SQLite writes it (``BulkWriter``): its points come in id order, whereas reading them
/// back from the records afterwards, in spatial order, would miss the processor's caches at every
/// point, and its `_rowid` rows would need a pass of their own after the nodes.
///
/// A node is a big-endian 2-byte depth (root only), a 2-byte cell count, then cells of an 8-byte
/// id and four 4-byte floats (xmin, xmax, ymin, ymax), rounded outwards.
final class PackedRTree {
    typealias Box = (Float, Float, Float, Float)
    private static let empty: Box = (.infinity, -.infinity, .infinity, -.infinity)

    private let count: Int, capacity: Int, depth: Int, idsAscend: Bool, rowidsAsAppended: Bool
    /// Nodes per level, from the leaves (level 0) to the root (level `depth`), and each level's
    /// first node number. The root is node 1, as SQLite requires; the others are numbered from 2
    /// up, leaves first, in the order they are written, so that the `_node` table grows at its right edge.
    private let nodes: [Int], firstNode: [Int64]
    private let insertNode: Statement, insertParent: Statement, insertRowid: Statement
    /// `capacity` rows of the `_rowid` table in one statement: a step per point paid the statement's
    /// start and end and a descent of the table's B-tree each time, on the writer's thread.
    private let insertRowids: Statement
    /// One node's blob, filled in place: a node is written per `capacity` points, with no array or closure per cell.
    private let blob: UnsafeMutableRawBufferPointer
    /// The box of each leaf written, as a cell of the level above.
    private var leafBoxes: [Box] = []
    private var leafBox = PackedRTree.empty, cells = 0, appended = 0
    /// Each point's id and leaf, when the ids do not ascend: the `_rowid` table is written in id order.
    private var leafOf: [(id: Int64, node: Int64)] = []
    /// The ids of the leaf being filled, when its `_rowid` rows are written as the points come.
    private var leafIDs: [Int64] = []

    /// Empties the R*Tree `name` for `count` points, which ``append(id:longitude:latitude:)`` then
    /// gives in spatial order, their ids ascending when `idsAscend`.
    init(count: Int, idsAscend: Bool, rowidsAsAppended: Bool = false, into name: String, _ db: Database) throws {
        precondition(idsAscend || !rowidsAsAppended, "the _rowid rows are written as the points come only when their ids ascend")
        let nodeBytes = try Int.fetchOne(db, sql: "SELECT length(data) FROM \("\(name)_node".quotedDatabaseIdentifier) WHERE nodeno = 1") ?? 1228
        capacity = (nodeBytes - 4) / 24
        for suffix in ["node", "parent", "rowid"] {
            try db.execute(sql: "DELETE FROM \("\(name)_\(suffix)".quotedDatabaseIdentifier)")
        }
        var nodes = [max(1, (count + capacity - 1) / capacity)]
        while nodes[nodes.count - 1] > 1 { nodes.append((nodes[nodes.count - 1] + capacity - 1) / capacity) }
        depth = nodes.count - 1
        var firstNode = [Int64](repeating: 1, count: depth + 1)
        for level in 0..<depth { firstNode[level] = level == 0 ? 2 : firstNode[level - 1] + Int64(nodes[level - 1]) }
        (self.count, self.idsAscend, self.rowidsAsAppended, self.nodes, self.firstNode) = (count, idsAscend, rowidsAsAppended, nodes, firstNode)
        insertNode = try db.makeStatement(sql: "INSERT INTO \("\(name)_node".quotedDatabaseIdentifier) VALUES (?, ?)")
        insertParent = try db.makeStatement(sql: "INSERT INTO \("\(name)_parent".quotedDatabaseIdentifier) VALUES (?, ?)")
        insertRowid = try db.makeStatement(sql: "INSERT INTO \("\(name)_rowid".quotedDatabaseIdentifier) VALUES (?, ?)")
        insertRowids = try db.makeStatement(sql: "INSERT INTO \("\(name)_rowid".quotedDatabaseIdentifier) VALUES "
                                            + Array(repeating: "(?, ?)", count: capacity).joined(separator: ", "))
        blob = UnsafeMutableRawBufferPointer.allocate(byteCount: nodeBytes, alignment: 8)
        leafBoxes.reserveCapacity(nodes[0])
        if !idsAscend { leafOf.reserveCapacity(count) }
        if rowidsAsAppended { leafIDs.reserveCapacity(capacity) }
    }

    deinit { blob.deallocate() }

    /// The next point in spatial order.
    func append(id: Int64, longitude: Double, latitude: Double) throws {
        precondition(appended < count, "more points than the tree was made for")
        if cells == 0 { startNode(level: 0) }
        let box = (Self.down(longitude), Self.up(longitude), Self.down(latitude), Self.up(latitude))
        put(id, box, at: cells)
        cells += 1
        appended += 1
        leafBox = (min(leafBox.0, box.0), max(leafBox.1, box.1), min(leafBox.2, box.2), max(leafBox.3, box.3))
        if rowidsAsAppended {
            leafIDs.append(id)
        } else if !idsAscend {
            leafOf.append((id, firstNode[0] + Int64(leafBoxes.count)))
        }
        if cells == capacity || appended == count { try finishLeaf() }
    }

    /// Writes the upper levels and, unless written already, the `_rowid` table, once every point is in:
    /// `ids(k)` is the k-th point's id, asked for again when the ids ascend (a repack's ids may skip).
    func finish(ids: ((Int) -> Int64)? = nil) throws {
        precondition(rowidsAsAppended || !idsAscend || ids != nil, "the ids of the _rowid rows")
        precondition(appended == count, "\(appended) points of the \(count) the tree was made for")
        if count == 0 {
            // An empty tree is its root, an empty leaf.
            startNode(level: 0)
            try finishLeaf()
        }
        var below = leafBoxes
        for level in stride(from: 1, through: depth, by: 1) {
            var boxes: [Box] = []
            for node in 0..<nodes[level] {
                let range = (node * capacity)..<min(node * capacity + capacity, below.count)
                startNode(level: level)
                var nodeBox = Self.empty, cells = 0
                for k in range {
                    put(firstNode[level - 1] + Int64(k), below[k], at: cells)
                    cells += 1
                    nodeBox = (min(nodeBox.0, below[k].0), max(nodeBox.1, below[k].1), min(nodeBox.2, below[k].2), max(nodeBox.3, below[k].3))
                }
                try finishNode(level: level, node: node, cells: cells)
                boxes.append(nodeBox)
            }
            below = boxes
        }
        guard !rowidsAsAppended else { return }
        // One row per point, after the nodes (interleaved with them, the index phase is slower);
        // raw binds, as GRDB's argument arrays cost most of the phase.
        leafOf.sort { $0.id < $1.id }
        try writeRowids(count: count) { k in
            idsAscend ? (ids!(k), firstNode[0] + Int64(k / capacity)) : leafOf[k]
        }
    }

    /// Writes `count` rows of the `_rowid` table, `row(0)` to `row(count - 1)` in that order: each
    /// full `capacity` of them with one step of ``insertRowids``, the rest one by one. Raw binds;
    /// `stepToDone` resets the statement.
    private func writeRowids(count: Int, _ row: (Int) -> (id: Int64, node: Int64)) throws {
        var k = 0
        let many = insertRowids.sqliteStatement
        while k + capacity <= count {
            for slot in 0..<capacity {
                let (id, node) = row(k + slot)
                sqlite3_bind_int64(many, Int32(2 * slot + 1), id)
                sqlite3_bind_int64(many, Int32(2 * slot + 2), node)
            }
            try stepToDone(many)
            k += capacity
        }
        let one = insertRowid.sqliteStatement
        for k in k..<count {
            let (id, node) = row(k)
            sqlite3_bind_int64(one, 1, id)
            sqlite3_bind_int64(one, 2, node)
            try stepToDone(one)
        }
    }

    private func finishLeaf() throws {
        if rowidsAsAppended {
            let leaf = firstNode[0] + Int64(leafBoxes.count)
            try leafIDs.withUnsafeBufferPointer { ids in try writeRowids(count: ids.count) { (ids[$0], leaf) } }
            leafIDs.removeAll(keepingCapacity: true)
        }
        try finishNode(level: 0, node: leafBoxes.count, cells: cells)
        leafBoxes.append(leafBox)
        (leafBox, cells) = (Self.empty, 0)
    }

    private func startNode(level: Int) {
        blob.initializeMemory(as: UInt8.self, repeating: 0)
        blob.storeBytes(of: (level == depth ? UInt16(depth) : 0).bigEndian, toByteOffset: 0, as: UInt16.self)
    }

    @inline(__always) private func put(_ id: Int64, _ box: Box, at cell: Int) {
        let offset = 4 + 24 * cell
        blob.storeBytes(of: UInt64(bitPattern: id).bigEndian, toByteOffset: offset, as: UInt64.self)
        blob.storeBytes(of: box.0.bitPattern.bigEndian, toByteOffset: offset + 8, as: UInt32.self)
        blob.storeBytes(of: box.1.bitPattern.bigEndian, toByteOffset: offset + 12, as: UInt32.self)
        blob.storeBytes(of: box.2.bitPattern.bigEndian, toByteOffset: offset + 16, as: UInt32.self)
        blob.storeBytes(of: box.3.bitPattern.bigEndian, toByteOffset: offset + 20, as: UInt32.self)
    }

    private func finishNode(level: Int, node: Int, cells: Int) throws {
        blob.storeBytes(of: UInt16(cells).bigEndian, toByteOffset: 2, as: UInt16.self)
        let nodeno = firstNode[level] + Int64(node)
        try insertNode.execute(arguments: [nodeno, Data(blob)])
        if level < depth { try insertParent.execute(arguments: [nodeno, firstNode[level + 1] + Int64(node / capacity)]) }
    }

    private static func down(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) > value ? f.nextDown : f
    }

    private static func up(_ value: Double) -> Float {
        let f = Float(value)
        return Double(f) < value ? f.nextUp : f
    }
}
