import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// A radius is one point and a distance, given once: the distances come from its center.
@Suite struct RadiusOnceTests {
    @Test func distancesComeFromTheRadiusCenter() throws {
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("""
            uwi,name,latitude,longitude
            A,Near,36.160,-85.500
            B,Middle,36.165,-85.505
            C,Far,36.300,-85.700
            """))
        let center = Coordinate(latitude: 36.16, longitude: -85.5)
        let request = WellFetchRequest(region: .radius(around: center, meters: 2_000))
        #expect(request.region == .radius(latitude: 36.16, longitude: -85.5, meters: 2_000))
        let once = try store.fetchPinsWithDistance(request)
        let twice = try store.fetchPinsWithDistance(request, from: center)
        #expect(once.map(\.pin.name) == ["Near", "Middle"])
        #expect(once.map(\.meters) == twice.map(\.meters))
        #expect(once[0].meters < 1 && once[1].meters > 500)
        // No radius and no point: refused, saying what to give.
        let error = #expect(throws: QueryError.self) { try store.fetchPinsWithDistance(WellFetchRequest()) }
        #expect(error?.code == .invalidValue && error?.subject == .point)
        #expect(Region.box(try BoundingBox(parsing: "-86,36,-85,37")).center == nil)
    }
}
