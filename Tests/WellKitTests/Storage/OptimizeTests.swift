import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport

@Suite struct OptimizeTests {
    @Test func incrementalLoadsLoseSpatialOrderAndOptimizeRestoresIt() throws {
        let store = try Fixtures.makeStore()
        var random = SplitMix(seed: 21)
        for batch in 0..<4 {
            var csv = "uwi,name,lat,lon,status\n"
            for k in 0..<1_000 { csv += "B\(batch)-\(k),Well \(batch)-\(k),\(49 + random.unit() * 11),\(-120 + random.unit() * 10),S\(k % 3)\n" }
            _ = try store.load(csvAt: try Fixtures.file(csv))
        }
        let before = try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        // Two wells flagged as suspects, by identifier: their flags follow them through the renumbering.
        let flagged = "SELECT d.uwi, s.reason FROM suspects s JOIN details d ON d.pin_id = s.pin_id ORDER BY d.uwi"
        try store.pool.write { db in
            try db.execute(sql: """
                INSERT INTO suspects(pin_id, load_id, line, reason, detail)
                SELECT pin_id, 1, 2, 'longitude sign', 'test' FROM details WHERE uwi IN ('B0-5', 'B3-7')
                """)
        }
        let flagsBefore = try store.pool.read { try Row.fetchAll($0, sql: flagged) }
        #expect(flagsBefore.count == 2)
        let summary = try store.optimize()
        #expect(try store.pool.read { try Row.fetchAll($0, sql: flagged) } == flagsBefore)
        #expect(summary.pins == 4_000)
        #expect(summary.disorderBefore > summary.disorderAfter)
        #expect(summary.renumbered > 0)
        let after = try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        // Every well keeps its pin and detail together, only its id changes.
        #expect(after.map(\.detail.identifier) == before.map(\.detail.identifier))
        #expect(after.map(\.pin.name) == before.map(\.pin.name))
        #expect(after.map(\.pin.latitude) == before.map(\.pin.latitude))
        try store.pool.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('idx_pins_geom')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM details d LEFT JOIN pins p ON p.id = d.pin_id WHERE p.id IS NULL") == 0)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
        let again = try store.optimize()
        #expect(again.renumbered == 0)
    }
}
