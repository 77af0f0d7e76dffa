import Foundation
import Testing
@testable import WellKit
@testable import WellKitPostgreSQL
import WellsTestSupport

/// Writes of single wells on the PostgreSQL engine: the same edits give the same wells as in a
/// store file, the GiST index follows them, and a failing batch changes nothing.
@Suite(.serialized, .lane(.postgres), .blocking) struct PostGISEditTests {
    static let csv = """
        uwi,name,lat,lon,status,county,state,Basin
        A,One,40.40,-104.70,Active,Weld,CO,Denver
        B,Two,40.50,-104.80,Plugged,Weld,CO,Denver
        """

    static func edits(_ store: WellStore) throws {
        var inserted = Well(pin: WellPin(id: 0, name: "Three", latitude: 40.45, longitude: -104.75),
                            detail: WellDetail(identifier: "C", extraJSON: #"{"Basin":"Denver"}"#))
        inserted.status = "Permitted"
        inserted.totalDepth = 1_234.5
        inserted.spudDate = Date(timeIntervalSince1970: 86_400 * 20_000)
        #expect(try store.insert(inserted).inserted == 1)
        var a = try #require(try store.well(identifier: "A"))
        a.status = "Orphaned"
        a.latitude = 40.41
        #expect(try store.update(a).updated == 1)
        #expect(try store.delete(identifier: "B").deleted == 1)
    }

    @Test func theSameEditsGiveTheSameWellsAsAFile() throws {
        let file = try Fixtures.makeStore(), server = try PostGIS.makeStore()
        for store in [file, server] {
            _ = try store.load(csvAt: try Fixtures.file(Self.csv))
            try Self.edits(store)
        }
        let request = WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])
        let x = try file.fetchWells(request), y = try server.fetchWells(request)
        #expect(x.map(\.identifier) == ["A", "C"] && y.map(\.identifier) == ["A", "C"])
        for (a, b) in zip(x, y) {
            #expect(a.pin == b.pin && a.detail.values == b.detail.values && a.detail.extra == b.detail.extra, "\(a.identifier)")
        }
        // The GiST index: the moved well at its new place, not at its old one; the deleted one nowhere.
        #expect(try server.fetchPins(WellFetchRequest(region: .box(try BoundingBox(parsing: "-104.71,40.405,-104.69,40.415")))).map(\.name) == ["One"])
        #expect(try server.fetchPins(WellFetchRequest(region: .box(try BoundingBox(parsing: "-104.71,40.395,-104.69,40.405")))).isEmpty)
        #expect(try server.fetchPins(WellFetchRequest(region: .box(try BoundingBox(parsing: "-104.81,40.49,-104.79,40.51")))).isEmpty)
        let check = try server.check()
        #expect(check.isSound, "\(check.findings)")
    }

    @Test func aFailingBatchChangesNothing() throws {
        let store = try PostGIS.makeStore()
        _ = try store.load(csvAt: try Fixtures.file(Self.csv))
        let before = try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        var a = try #require(before.first)
        a.status = "Changed"
        let new = Well(pin: WellPin(id: 0, name: "New", latitude: 40.6, longitude: -104.6), detail: WellDetail(identifier: "N"))
        for (edits, code) in [([WellEdit.update(a), .insert(new), .delete(identifier: "missing")], WellEditError.Code.notStored),
                              ([.update(a), .insert(before[1])], .alreadyStored),
                              ([.insert(new), .update(Well(pin: new.pin, detail: WellDetail(identifier: "missing")))], .notStored)] {
            let error = try #require(throws: WellEditError.self) { () throws in try store.apply(edits) }
            #expect(error.code == code, "\(error)")
            #expect(try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)])) == before)
        }
        // The connection the failed write used was given back: the store writes after it.
        #expect(try store.insert(new).inserted == 1)
    }
}
