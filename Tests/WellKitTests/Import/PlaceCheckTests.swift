import Foundation
import Testing
@testable import WellKit
import WellsTestSupport

/// The place check's first step, each row's place resolved to the region it names, gives the same
/// regions in the same order whether the rows are resolved on one thread or in two halves on two.
@Suite struct PlaceCheckTests {
    /// The regions of `csv`'s rows from one pass and from two halves split at several rows.
    @discardableResult
    private static func expectTwoHalvesAnswerAsOne(_ path: String, county: String, state: String,
                                                   splits: (Int) -> [Int]) throws -> (regions: [ExpectedRegion], regionOf: [Int32]) {
        let scan = try WellStore.scan(csvAt: path, options: LoadOptions())
        let header = scan.validator.header
        let columns = [PlaceColumn(kind: .county, column: county, index: try #require(header.firstIndex(of: county))),
                       PlaceColumn(kind: .state, column: state, index: try #require(header.firstIndex(of: state)))]
        let places = try #require(Places.shared)
        let count = scan.records.count
        let one = scan.resolvePlaces(columns, places, split: count)
        for split in splits(count) {
            let two = scan.resolvePlaces(columns, places, split: split)
            let differing = zip(two.regionOf, one.regionOf).count { $0 != $1 }
            #expect(two.regionOf.count == count && differing == 0, "split at row \(split) of \(count): \(differing) rows differ")
            #expect(two.regions.map(\.name) == one.regions.map(\.name), "split at row \(split) of \(count)")
        }
        return one
    }

    /// Tennessee's list: a county and the state on each row, 90 counties.
    @Test func aRealListResolvesAlikeInTwoHalves() throws {
        let one = try Self.expectTwoHalvesAnswerAsOne(Fixtures.sharedData("tn-oilgas-wells.csv"), county: "county", state: "stusps",
                                                       splits: { [$0 / 3, $0 / 2] })
        #expect(one.regions.count > 50, "counties of Tennessee: \(one.regions.count)")
        #expect(one.regionOf.count { $0 >= 0 } * 10 > one.regionOf.count * 9)
    }

    /// Names found in both halves, in one half only, and not found at all (a county of no state, a
    /// county of another state), with empty cells between.
    @Test func namesOfEitherHalfOrNeitherResolveAlike() throws {
        let names = [("Overton", "TN"), ("Nowhere", "TN"), ("Davidson", "Tennessee"), ("", "TN"), ("Shelby", "TN"),
                     ("Allegheny", "PA"), ("Allegheny", "TN"), ("Fentress", "")]
        var csv = "uwi,lat,lon,county,state\n"
        for k in 0..<400 {
            // The second half adds names the first never had.
            let (county, state) = k < 200 ? names[k % 4] : names[k % names.count]
            csv += "W\(k),36.\(k % 9),-85.\(k % 7),\(county),\(state)\n"
        }
        let one = try Self.expectTwoHalvesAnswerAsOne(try Fixtures.file(csv), county: "county", state: "state",
                                                       splits: { [0, 1, $0 / 3, $0 / 2, $0 - 1] })
        #expect(Set(one.regions.map(\.name)).count == one.regions.count, "each region once")
        #expect(one.regionOf.contains(-1) && one.regions.count >= 5)
    }
}
