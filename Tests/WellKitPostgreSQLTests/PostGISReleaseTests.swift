import Foundation
import Testing
@testable import WellKit
@testable import WellKitPostgreSQL
import WellsTestSupport

/// Releases on the PostgreSQL engine, which keeps none yet: a load with `release` is refused with
/// ``ReleaseError/Code/unsupported`` and writes nothing; the change queries say the store keeps none.
@Suite(.serialized, .lane(.postgres), .blocking) struct PostGISReleaseTests {
    @Test func aReleaseIsRefusedAndChangesNothing() throws {
        let store = try PostGIS.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nA,40.4,-104.7\n"))
        var options = LoadOptions()
        options.release = ReleaseOptions(source: "s")
        let error = try #require(throws: ReleaseError.self) { try store.load(csvAt: try Fixtures.file("uwi,lat,lon\nB,40.5,-104.8\n"), options: options) }
        #expect(error.code == .unsupported && error.message.contains("SQLite store"))
        #expect(try store.fetchCount(WellFetchRequest()) == 1)
        #expect(try store.releases().isEmpty)
        #expect(throws: ReleaseError.self) { try store.changes() }
    }
}
