import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import WellKit
@testable import WellKitSynthetic
import WellsTestSupport

@Suite struct WellStoreTests {
    @Test func newStoreHasSchemaAndSpatiaLiteGeometry() throws {
        let store = try Fixtures.makeStore()
        try store.pool.read { (db: Database) throws -> Void in
            for table in ["pins", "details", "loads", "rejects", "idx_pins_geom"] {
                #expect(try db.tableExists(table), "missing table \(table)")
            }
            #expect(try !db.tableExists("pin_points"))
            // Pins of four fields; the geometry is computed from them (a virtual column).
            #expect(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('pins')") == ["id", "name", "lat", "lon"])
            #expect(try String.fetchAll(db, sql: "SELECT name || ' ' || type FROM pragma_table_xinfo('pins') WHERE hidden = 2") == ["geom BLOB"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM geometry_columns") == 1)
            let geometry = try Row.fetchOne(db, sql: "SELECT geometry_type, srid, spatial_index_enabled FROM geometry_columns WHERE f_table_name = 'pins' AND f_geometry_column = 'geom'")
            #expect(geometry?["geometry_type"] == 1)  // POINT, XY
            #expect(geometry?["srid"] == 4326)
            #expect(geometry?["spatial_index_enabled"] == 1)
            #expect(try Int32.fetchOne(db, sql: "PRAGMA application_id") == Schema.applicationID)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try String.fetchOne(db, sql: "SELECT spatialite_version()") == SpatiaLite.version)
        }
    }

    /// A new store is made at the current version in one step (`Schema.create`), an older one is
    /// migrated (`Schema.upgrade`): both must end with the same schema, SQL text included, the same
    /// SpatiaLite registrations and rows, and every migration marked as applied.
    @Test func newStoreSchemaIsTheMigratedSchema() throws {
        func database(_ make: (DatabaseQueue) throws -> Void) throws -> DatabaseQueue {
            var configuration = Configuration()
            configuration.prepareDatabase { try SpatiaLite.initialize($0) }
            let queue = try DatabaseQueue(path: try Fixtures.storePath(), configuration: configuration)
            try make(queue)
            return queue
        }
        let migrated = try database { try Schema.upgrade($0) }
        let created = try database { queue in try queue.write { try Schema.create($0) } }
        /// What must agree: the schema, and the rows of every table but SpatiaLite's logs and reference data.
        func snapshot(_ queue: DatabaseQueue) throws -> [String] {
            try queue.read { db in
                var lines = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").map(\.description)
                lines.append("user_version \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1)")
                lines.append("application_id \(try Int.fetchOne(db, sql: "PRAGMA application_id") ?? -1)")
                let tables = try String.fetchAll(db, sql: """
                    SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                      AND name NOT IN ('spatialite_history', 'sql_statements_log', 'spatial_ref_sys', 'spatial_ref_sys_aux', 'SpatialIndex', 'ElementaryGeometries', 'KNN', 'KNN2', 'data_licenses')
                    ORDER BY name
                    """)
                for table in tables {
                    lines += try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table): \($0)" }.sorted()
                }
                lines.append("spatial_ref_sys \(try Int.fetchOne(db, sql: "SELECT count(*) FROM spatial_ref_sys") ?? -1)")
                return lines
            }
        }
        let expected = try snapshot(migrated), actual = try snapshot(created)
        // The lines of one and not the other (a readable failure), and as many lines in each.
        #expect(Set(actual).symmetricDifference(expected).sorted() == [])
        #expect(actual.count == expected.count)
        #expect(expected.contains { $0.hasPrefix("grdb_migrations:") && $0.contains("v5-computed-points") })
        // The schema is complete: no migration is left to do on the created store.
        #expect(try created.read { try Schema.pendingMigrations($0).isEmpty })
    }

    /// SQLite's memory statistics can be turned off only before SQLite starts (the `wells` tool does
    /// it first thing); once a store is open the call changes nothing and says so.
    @Test func memoryStatisticsStayOnceSQLiteHasStarted() throws {
        let store = try Fixtures.makeStore()
        _ = try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pins") }
        #expect(!WellStore.disableSQLiteMemoryStatistics())
        #expect(sqlite3_memory_used() > 0)
    }

    @Test func everyConnectionHasSpatiaLite() throws {
        let store = try Fixtures.makeStore()
        // Readers are separate connections in a pool; each must answer SpatiaLite functions.
        for _ in 0..<3 {
            let text = try store.pool.read { db in try String.fetchOne(db, sql: "SELECT AsText(MakePoint(1.5, 2.5, 4326))") }
            #expect(text == "POINT(1.5 2.5)")
        }
    }

    @Test func reopensExistingStore() throws {
        let path = try Fixtures.storePath()
        _ = try WellStore(path: path)
        let again = try WellStore(path: path, mode: .existing)
        #expect(try again.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pins") } == 0)
    }

    @Test func readOnlyStoreReadsPinsWithoutSpatiaLiteAndRefusesWrites() throws {
        let path = try Fixtures.storePath()
        let csv = try Fixtures.file("uwi,name,lat,lon\nA,Alpha,51.05,-114.07\nB,Beta,51.06,-114.08\n")
        _ = try WellStore(path: path).load(csvAt: csv)
        let store = try WellStore(path: path, mode: .readOnly)
        let pins = try store.fetchPins(WellFetchRequest(region: .box(try BoundingBox(minLongitude: -115, minLatitude: 51, maxLongitude: -114, maxLatitude: 52))))
        #expect(pins.compactMap(\.name).sorted() == ["Alpha", "Beta"])
        // No SpatiaLite on this connection: its SQL functions are unknown.
        #expect(throws: DatabaseError.self) { try store.pool.read { try String.fetchOne($0, sql: "SELECT AsText(geom) FROM pins") } }
        // Nor is the point's own expression (MakePoint): reading the virtual column needs SpatiaLite.
        #expect(throws: DatabaseError.self) { try store.pool.read { try Data.fetchOne($0, sql: "SELECT geom FROM pins") } }
        #expect(throws: DatabaseError.self) { try store.pool.writeWithoutTransaction { try $0.execute(sql: "DELETE FROM pins") } }
        #expect(try WellStore(path: path).pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM details") } == 2)
    }

    @Test func readOnlyRefusesMissingAndEmptyFiles() throws {
        let missing = try Fixtures.storePath()
        #expect(throws: StoreError.self) { try WellStore(path: missing, mode: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let empty = try Fixtures.file("", name: "empty.sqlite")
        do {
            _ = try WellStore(path: empty, mode: .readOnly)
            Issue.record("opened an empty file read-only as a store")
        } catch let error as StoreError {
            #expect(error.code == .notAWellStore)
        }
    }

    @Test func refusesMissingStoreInExistingMode() throws {
        let path = try Fixtures.storePath()
        #expect(throws: StoreError.self) { try WellStore(path: path, mode: .existing) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func refusesOtherDatabases() throws {
        let path = try Fixtures.storePath()
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE customers(id INTEGER PRIMARY KEY)") }
        try queue.close()
        do {
            _ = try WellStore(path: path)
            Issue.record("opened a database that is not a WellKit store")
        } catch let error as StoreError {
            #expect(error.code == .notAWellStore)
            #expect(error.description.contains("customers"))
        }
    }

    @Test func refusesFilesThatAreNotSQLite() throws {
        let path = try Fixtures.file(String(repeating: "not a database\n", count: 400), name: "notes.sqlite")
        do {
            _ = try WellStore(path: path)
            Issue.record("opened a text file as a store")
        } catch let error as StoreError {
            #expect(error.code == .notADatabase)
        }
    }

    @Test func refusesNewerSchema() throws {
        let path = try Fixtures.storePath()
        _ = try WellStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        do {
            _ = try WellStore(path: path)
            Issue.record("opened a store of a newer schema")
        } catch let error as StoreError {
            #expect(error.code == .newerSchema)
            #expect(error.message.contains("99"))
        }
    }

    @Test func deletingAPinDeletesItsDetailAndIndexEntry() throws {
        let store = try Fixtures.makeStore()
        let file = try Fixtures.file("uwi,name,lat,lon,status\nA-1,One,51.0,-114.0,Active\nA-2,Two,51.1,-114.1,Abandoned\n")
        _ = try store.load(csvAt: file)
        try store.pool.write { (db: Database) throws -> Void in
            let id = try Int64.fetchOne(db, sql: "SELECT pin_id FROM details WHERE uwi = 'A-1'")!
            try db.execute(sql: "DELETE FROM pins WHERE id = ?", arguments: [id])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom WHERE pkid = ?", arguments: [id]) == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom") == 1)
        }
    }

    @Test func packedRTreeIsValidAndMatchesPins() throws {
        let store = try Fixtures.makeStore()
        var csv = "uwi,lat,lon\n"
        var generator = SplitMix(seed: 7)
        for k in 0..<5_000 {
            csv += "W\(k),\(49 + generator.unit() * 11),\(-120 + generator.unit() * 10)\n"
        }
        _ = try store.load(csvAt: try Fixtures.file(csv))
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom") == 5_000)
            // Every pin's box holds its point.
            let outside = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM pins p JOIN idx_pins_geom r ON r.pkid = p.id
                WHERE NOT (p.lon BETWEEN r.xmin AND r.xmax AND p.lat BETWEEN r.ymin AND r.ymax)
                """)
            #expect(outside == 0)
        }
        // The packed tree still takes inserts, moves and deletes through the pins' triggers.
        try store.pool.write { (db: Database) throws -> Void in
            try db.execute(sql: "INSERT INTO pins(id, name, lat, lon) VALUES (100000, 'x', 50, -115)")
            try db.execute(sql: "UPDATE pins SET lat = 55 WHERE id = 4")
            try db.execute(sql: "DELETE FROM pins WHERE id IN (1, 2, 3)")
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM idx_pins_geom") == 4_998)
            #expect(try Int64.fetchAll(db, sql: "SELECT pkid FROM idx_pins_geom WHERE xmin <= -114.999 AND xmax >= -115.001 AND ymin <= 50.001 AND ymax >= 49.999") == [100000])
            #expect(try Row.fetchOne(db, sql: "SELECT ymin, ymax FROM idx_pins_geom WHERE pkid = 4").map { ($0[0] as Double) <= 55 && ($0[1] as Double) >= 55 } == true)
        }
    }
}

/// The seeded generator the store tests share.
typealias SplitMix = SeededRandom

