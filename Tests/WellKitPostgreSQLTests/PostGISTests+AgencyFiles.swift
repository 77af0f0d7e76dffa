import Foundation
import Testing
@testable import WellKit
@testable import WellKitPostgreSQL
import WellsTestSupport

extension PostGISTests {
    /// Issue 60's fixtures store the same on PostgreSQL as in a file, field by field: depths in
    /// metres with the load's source units, blank-headed columns under their names, `="…"` as text.
    @Test(arguments: ["nwis-pa-depths-ft.tsv", "nwis-pa-depths-m.csv", "fl-orphan-wells.csv", "co-excel-guarded.csv", "ak-aogcc-orphan-wells.csv"])
    func agencyFilesStoreAsIntoAFile(name: String) throws {
        let path = RepositoryData.root.appendingPathComponent("Tests/Fixtures/AgencyFiles/\(name)").path
        let file = try Fixtures.makeStore(), server = try PostGIS.makeStore()
        let a = try file.load(csvAt: path), b = try server.load(csvAt: path)
        #expect(b.inserted == a.inserted && b.rejected == a.rejected && b.units == a.units && a.inserted > 0)
        let x = try file.fetchWells(WellFetchRequest()), y = try server.fetchWells(WellFetchRequest())
        let byID = Dictionary(y.map { ($0.detail.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(x.count == y.count)
        for well in x {
            let other = try #require(byID[well.detail.identifier], "\(well.detail.identifier)")
            #expect(well.detail.extra == other.detail.extra && well.detail.values == other.detail.values && well.pin.name == other.pin.name
                    && well.pin.latitude == other.pin.latitude && well.pin.longitude == other.pin.longitude, "\(well.detail.identifier)")
        }
        #expect(try server.sourceUnits(loadID: b.loadID!) == a.units)
    }
}
