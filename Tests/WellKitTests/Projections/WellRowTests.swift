import Foundation
import GRDB
import Testing
@testable import WellKit
import WellsTestSupport

/// A `WellRow` backed by values (as a second engine would make) decodes like one backed by SQLite.
@Suite struct WellRowTests {
    @Test func projectionsDecodeTheSameFromValues() throws {
        let csv = "uwi,name,lat,lon,status,spud_date,total_depth,extra_col\nA1,Alpha,36.1,-85.5,Active,2001-02-03,1500.5,x\nA2,,36.2,-85.6,,,,\n"
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file(csv))
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.id)])
        let wells = try store.fetchWells(request)
        let compiled = try QueryCompiler.sqlite.select(request, .wells)
        let rows = try store.pool.read { db in try Row.fetchAll(compiled.statement(db)).map { row in WellRow(values: (0..<row.count).map { WellValue(row[$0] as DatabaseValue) }) } }
        #expect(try rows.map { try Well(row: $0) } == wells)
        #expect(rows.map { WellPin(row: $0) } == wells.map(\.pin))
        let summary = WellRow(values: [.integer(7), .text("A1"), .null, .text("Active"), .text("2001-02-03")])
        #expect(WellSummary(row: summary) == WellSummary(id: 7, identifier: "A1", name: nil, status: "Active", spudDate: "2001-02-03"))
        #expect(summary[0] as Int == 7 && summary[2] as String? == nil && summary[0] as Bool && summary.isNull(at: 2))
    }
}
