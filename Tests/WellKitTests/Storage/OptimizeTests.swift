import Foundation
import GRDB
import Testing
@testable import WellKit

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
        let summary = try store.optimize()
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
