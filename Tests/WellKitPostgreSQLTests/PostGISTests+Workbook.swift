import Foundation
import Testing
@testable import WellKit
@testable import WellKitPostgreSQL
import WellsTestSupport

extension PostGISTests {
    /// A workbook of two sheets (Florida's) loads to PostgreSQL as to a store file: the same wells,
    /// every property of each (the columns of both sheets, the 24 repeated wells merged).
    @Test func aWorkbookLoadsAsIntoAFile() throws {
        let path = RepositoryData.realList("fl-orphan-wells.xlsx")
        let file = try Fixtures.makeStore(), server = try PostGIS.makeStore()
        let a = try file.load(csvAt: path), b = try server.load(csvAt: path)
        #expect(b.inserted == a.inserted && b.rejected == a.rejected && b.inserted == 32)
        #expect(b.sources == a.sources && b.sources.map { $0.name ?? "" } == ["export_OrphanWellsCurrenlyWorki", "Sheet1"])
        let left = try file.fetchWells(WellFetchRequest()), right = try server.fetchWells(WellFetchRequest())
        let byIdentifier = Dictionary(right.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { x, _ in x })
        #expect(left.count == right.count)
        for well in left {
            let other = try #require(byIdentifier[well.detail.identifier])
            let x = well.properties().filter { $0.name != "id" }.map { "\($0.name)=\($0.value)" }
            let y = other.properties().filter { $0.name != "id" }.map { "\($0.name)=\($0.value)" }
            #expect(x == y, "\(well.detail.identifier)")
        }
    }
}
