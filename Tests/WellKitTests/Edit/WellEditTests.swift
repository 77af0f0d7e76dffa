import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Writes of single wells and batches (`insert`, `update`, `delete`, `apply`): what they write is
/// what a load of the well would store, the store's invariants hold after each (`check()`: the
/// R*Tree against the pins, every pin with its detail, the lookups), a failing write changes
/// nothing, and a results controller sees each write.
@Suite struct WellEditTests {
    static let csv = """
        uwi,name,latitude,longitude,operator,status,spud_date,completion_date,Total Depth (ft),county,state,Basin
        05-123-00001,One,40.40,-104.70,Acme Oil,Active,1982-07-03,1904,1000,Weld,CO,Denver
        05-123-00002,Two,40.50,-104.80,Acme Oil,Plugged,,,,Weld,CO,Denver
        05-123-00003,Three,40.60,-104.90,Bravo,Active,1990-01-02,,,Weld,CO,
        """

    static func store() throws -> WellStore {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file(csv))
        return store
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    static func newWell(_ identifier: String = "05-123-00009", latitude: Double = 40.45, longitude: Double = -104.75) -> Well {
        var well = Well(pin: WellPin(id: 0, name: "Nine", latitude: latitude, longitude: longitude),
                        detail: WellDetail(identifier: identifier, extraJSON: #"{"Basin":"Denver","permit, no.":"P \"9\""}"#))
        well.operator = "Charlie"
        well.status = "Permitted"
        well.county = "Weld"
        well.state = "CO"
        well.spudDate = day(2026, 5, 1)
        well.totalDepth = 2_345.25
        return well
    }

    /// Every value of the store's wells, by identifier, as fetched: what a write must change and nothing else.
    static func contents(_ store: WellStore) throws -> [String: Well] {
        Dictionary(uniqueKeysWithValues: try store.fetchWells(WellFetchRequest()).map { ($0.identifier, $0) })
    }

    static func expectSound(_ store: WellStore, _ comment: Comment? = nil) throws {
        let check = try store.check()
        #expect(check.isSound, "\(check.findings)")
    }

    @Test func anInsertedWellReadsBackAsWritten() throws {
        let store = try Self.store()
        let well = Self.newWell()
        let summary = try store.insert(well)
        #expect(summary.inserted == 1 && summary.updated == 0 && summary.deleted == 0 && summary.rejected == 0)
        #expect(summary.file == "(edit)" && summary.loadID == 2)
        let stored = try #require(try store.well(identifier: well.identifier))
        #expect(stored.id == 4, "after the largest pin id in use")
        #expect(stored.name == "Nine" && stored.latitude == 40.45 && stored.longitude == -104.75)
        #expect(stored.operator == "Charlie" && stored.status == "Permitted" && stored.county == "Weld")
        #expect(stored.spudDate == Self.day(2026, 5, 1))
        #expect(stored.totalDepth == 2_345.25, "metres stay metres")
        #expect(stored.detail.extra == ["Basin": "Denver", "permit, no.": "P \"9\""])
        #expect(stored.detail.loadID == 2)
        // The R*Tree has it: a box around it finds it, one beside it does not.
        let box: [WellPin] = try store.fetchPins(WellFetchRequest(region: .box(BoundingBox(minLongitude: -104.76, minLatitude: 40.44, maxLongitude: -104.74, maxLatitude: 40.46))))
        #expect(box.map(\.id) == [4])
        #expect(try store.fetchCount(WellFetchRequest()) == 4)
        try Self.expectSound(store)
        // The edit is recorded as a load is.
        let recorded = try store.pool.read { try Row.fetchOne($0, sql: "SELECT file, inserted, inferences FROM loads WHERE id = 2") }
        #expect(recorded?["file"] == "(edit)" && recorded?["inserted"] == 1)
        #expect((recorded?["inferences"] as String?)?.contains("1 inserted, 0 updated, 0 deleted") == true)
    }

    @Test func anUpdateWritesEveryFieldAndMovesThePin() throws {
        let store = try Self.store()
        var well = try #require(try store.well(identifier: "05-123-00001"))
        let id = well.id
        well.status = "Plugged"
        well.plugDate = Self.day(2020, 3, 4)
        well.operator = nil
        well.latitude = 40.41
        let others = try Self.contents(store).filter { $0.key != well.identifier }
        let summary = try store.update(well)
        #expect(summary.inserted == 0 && summary.updated == 1)
        let stored = try #require(try store.well(identifier: "05-123-00001"))
        #expect(stored.id == id, "an update keeps the pin's id")
        #expect(stored.status == "Plugged" && stored.plugDate == Self.day(2020, 3, 4))
        #expect(stored.operator == nil, "a field the well has no value for is cleared")
        #expect(stored.spudDate == Self.day(1982, 7, 3) && stored.detail[.completionDate] == "1904", "the rest as it was")
        #expect(abs((stored.totalDepth ?? 0) - 304.8) < 1e-9)
        #expect(stored.detail.extra == ["Basin": "Denver"])
        #expect(stored.latitude == 40.41)
        // The R*Tree moved it: found at its new place, not at its old one.
        #expect(try store.fetchPins(WellFetchRequest(region: .box(BoundingBox(minLongitude: -104.71, minLatitude: 40.405, maxLongitude: -104.69, maxLatitude: 40.415)))).map(\.id) == [id])
        #expect(try store.fetchPins(WellFetchRequest(region: .box(BoundingBox(minLongitude: -104.71, minLatitude: 40.395, maxLongitude: -104.69, maxLatitude: 40.405)))).isEmpty)
        #expect(try Self.contents(store).filter { $0.key != well.identifier } == others, "no other well changed")
        try Self.expectSound(store)
    }

    @Test func aDeleteRemovesPinDetailIndexEntryAndFlag() throws {
        let store = try Self.store()
        // A flagged well: its flag must go with it.
        var suspect = Self.newWell("05-123-00010", latitude: 40.0, longitude: -104.0)
        suspect.pin.name = "Test"
        try store.insert(suspect)
        try store.pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO suspects(pin_id, load_id, line, reason, detail) SELECT pin_id, load_id, 2, 'test', '' FROM details WHERE uwi = '05-123-00010'")
        }
        let summary = try store.delete(identifiers: ["05-123-00002", "05-123-00010"])
        #expect(summary.deleted == 2 && summary.inserted == 0 && summary.updated == 0)
        #expect(try store.well(identifier: "05-123-00002") == nil)
        #expect(try store.fetchCount(WellFetchRequest()) == 2)
        #expect(try store.fetchPins(WellFetchRequest(region: .box(BoundingBox(minLongitude: -105, minLatitude: 39.9, maxLongitude: -104, maxLatitude: 41)))).compactMap(\.name).sorted() == ["One", "Three"])
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM suspects") } == 0)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM idx_pins_geom") } == 2)
        let recorded = try store.pool.read { try String.fetchOne($0, sql: "SELECT inferences FROM loads ORDER BY id DESC LIMIT 1") }
        #expect(recorded?.contains(#"2 deleted: \"05-123-00002\", \"05-123-00010\""#) == true, "\(recorded ?? "")")
        try Self.expectSound(store)
    }

    @Test func aBatchIsOneTransaction() throws {
        let store = try Self.store()
        var one = try #require(try store.well(identifier: "05-123-00001"))
        one.status = "Orphaned"
        let summary = try store.apply([.update(one), .insert(Self.newWell()), .delete(identifier: "05-123-00003")])
        #expect((summary.inserted, summary.updated, summary.deleted) == (1, 1, 1))
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") } == 2, "one load row for the batch")
        #expect(try store.well(identifier: "05-123-00001")?.status == "Orphaned")
        #expect(try store.well(identifier: "05-123-00003") == nil)
        try Self.expectSound(store)
    }

    /// Each failing write throws its reason and leaves every well, the loads and the index as they were.
    @Test(arguments: [
        ("insert of a stored identifier", WellEditError.Code.alreadyStored),
        ("update of an unknown identifier", .notStored),
        ("delete of an unknown identifier", .notStored),
        ("a batch whose last edit fails", .notStored),
        ("the same identifier twice", .repeated),
        ("an untrimmed identifier", .invalidIdentifier),
        ("a latitude out of range", .rejected),
        ("a well at 0/0", .rejected),
    ])
    func aFailingWriteChangesNothing(_ what: String, _ code: WellEditError.Code) throws {
        let store = try Self.store()
        let before = try Self.contents(store)
        let loads = try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") }
        var stored = try #require(try store.well(identifier: "05-123-00001"))
        stored.status = "Changed"
        let edits: [WellEdit] = switch what {
        case "insert of a stored identifier": [.insert(stored)]
        case "update of an unknown identifier": [.update(Self.newWell())]
        case "delete of an unknown identifier": [.delete(identifier: "nope")]
        case "a batch whose last edit fails": [.update(stored), .insert(Self.newWell()), .delete(identifier: "05-123-00002"), .delete(identifier: "nope")]
        case "the same identifier twice": [.update(stored), .delete(identifier: "05-123-00001")]
        case "an untrimmed identifier": [.insert(Self.newWell(" 05-123-00009"))]
        case "a latitude out of range": [.insert(Self.newWell(latitude: 95))]
        default: [.insert(Self.newWell(latitude: 0, longitude: 0))]
        }
        let error = try #require(throws: WellEditError.self) { () throws in try store.apply(edits) }
        #expect(error.code == code, "\(error)")
        #expect(error.description.hasSuffix("nothing was changed"))
        if code == .rejected { #expect(error.identifier == "05-123-00009", "\(error)") }
        #expect(try Self.contents(store) == before)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM loads") } == loads)
        try Self.expectSound(store)
    }

    /// More wells than a write matches one by one (``BulkWriter/fewWells``) go the way of a load,
    /// with the tree packed: the same invariants.
    @Test func aBigBatchKeepsTheInvariantsToo() throws {
        let store = try Self.store()
        let wells = (0..<(BulkWriter.fewWells + 44)).map { k in
            Self.newWell(String(format: "X-%04d", k), latitude: 40 + Double(k) / 1000, longitude: -104.5)
        }
        #expect(try store.insert(contentsOf: wells).inserted == wells.count)
        var moved = wells
        for k in moved.indices { moved[k].latitude += 0.5 }
        #expect(try store.update(contentsOf: moved).updated == wells.count)
        #expect(try store.fetchCount(WellFetchRequest(region: .box(BoundingBox(minLongitude: -104.6, minLatitude: 40.5, maxLongitude: -104.4, maxLatitude: 41)))) == wells.count)
        #expect(try store.delete(identifiers: wells.map(\.identifier)).deleted == wells.count)
        #expect(try store.fetchCount(WellFetchRequest()) == 3)
        try Self.expectSound(store)
    }

    @Test func theResultsControllerSeesEachWrite() throws {
        let store = try Self.store()
        let results = try BatchedResults<WellPin>(store: store, request: WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
        try results.performFetch()
        try store.insert(Self.newWell())
        let inserted = try #require(try results.checkForChanges())
        #expect(inserted.rows(.insert).count == 1 && results.fetchedCount == 4)
        var well = try #require(try store.well(identifier: "05-123-00009"))
        // The controller reports updates of the rows it has loaded, as NSFetchedResultsController of its registered objects.
        #expect(try results.object(at: ResultsIndexPath(section: 0, item: 3)).name == "Nine")
        well.name = "Nine, renamed"
        try store.update(well)
        let updated = try #require(try results.checkForChanges())
        #expect(updated.rows(.update).map(\.id) == [well.id])
        #expect(try results.object(at: ResultsIndexPath(section: 0, item: 3)).name == "Nine, renamed")
        try store.delete(identifier: "05-123-00009")
        let deleted = try #require(try results.checkForChanges())
        #expect(deleted.rows(.delete).map(\.id) == [well.id] && results.fetchedCount == 3)
    }

    @Test func theAsyncFormsWriteToo() async throws {
        let store = try Self.store()
        try await store.insert(Self.newWell())
        var well = try #require(try store.well(identifier: "05-123-00009"))
        well.status = "Active"
        try await store.update(well)
        #expect(try store.well(identifier: "05-123-00009")?.status == "Active")
        try await store.delete(identifier: "05-123-00009")
        #expect(try store.well(identifier: "05-123-00009") == nil)
        await #expect(throws: WellEditError.self) { try await store.delete(identifier: "05-123-00009") }
    }
}
