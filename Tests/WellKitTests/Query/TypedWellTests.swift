import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// `Well`'s typed properties read what the store holds (dates as days, depths in metres), set what
/// `detail[.field]` reads, and a well goes through JSON and back.
@Suite struct TypedWellTests {
    static let csv = """
        uwi,name,latitude,longitude,operator,status,spud_date,completion_date,Total Depth (ft),ground_elevation,permit,Basin
        W1,One,36.1,-85.1,Acme Oil,Active,1982-07-03,1904,1000,250.5,P-17,Cumberland
        W2,Two,36.2,-85.2,,,,,,,,
        """

    static func wells() throws -> [Well] {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file(csv))
        return try store.fetchWells(WellFetchRequest(sortDescriptors: [WellSortDescriptor(.identifier)]))
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }

    @Test func typedPropertiesReadTheStore() throws {
        let wells = try Self.wells()
        let one = wells[0], two = wells[1]
        #expect(one.identifier == "W1" && one.name == "One")
        #expect(one.operator == "Acme Oil" && one.status == "Active" && one.licence == "P-17")
        #expect(one.spudDate == Self.day(1982, 7, 3))
        // A year alone is no day: the typed date is nil, the text keeps the year.
        #expect(one.completionDate == nil && one.detail[.completionDate] == "1904")
        #expect(abs((one.totalDepth ?? 0) - 304.8) < 1e-9, "feet to metres")
        #expect(one.groundElevation == 250.5)
        #expect(one.detail.extra == ["Basin": "Cumberland"])
        #expect(two.operator == nil && two.status == nil && two.spudDate == nil && two.totalDepth == nil)
    }

    @Test func settingATypedPropertySetsTheValue() throws {
        var well = try Self.wells()[0]
        well.status = "Plugged"
        well.plugDate = Self.day(2001, 2, 3)
        well.totalDepth = 12.5
        well.operator = nil
        #expect(well.detail[.status] == "Plugged")
        #expect(well.detail[.plugDate] == "2001-02-03")
        #expect(well.detail.values[.totalDepth] == .real(12.5))
        #expect(well.detail.values[.operator] == nil)
    }

    @Test func aWellGoesThroughJSONAndBack() throws {
        let wells = try Self.wells()
        let data = try JSONEncoder().encode(wells)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(object[0]["uwi"] as? String == "W1" && object[0]["spud_date"] as? String == "1982-07-03")
        #expect(object[0]["total_depth"] as? Double == wells[0].totalDepth)
        #expect((object[0]["extra"] as? [String: String]) == ["Basin": "Cumberland"])
        #expect(object[1]["status"] == nil)
        let decoded = try JSONDecoder().decode([Well].self, from: data)
        for (a, b) in zip(wells, decoded) {
            #expect(a.pin == b.pin)
            #expect(a.detail.identifier == b.detail.identifier && a.detail.values == b.detail.values)
            #expect(a.detail.extra == b.detail.extra && a.detail.loadID == b.detail.loadID)
            #expect(a.detail.sourceX == b.detail.sourceX && a.detail.sourceCRS == b.detail.sourceCRS)
        }
        #expect(decoded.count == 2)
    }
}
