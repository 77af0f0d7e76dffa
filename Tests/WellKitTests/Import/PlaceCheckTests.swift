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

    /// A US well's API number names its state in its first two digits, in the API's own order
    /// (alphabetical, Alaska 50 and Hawaii 51), not the FIPS code: Tennessee is 41 (FIPS 47). A number
    /// that lost its leading zero (`4029…`, California's 04) must not be read as South Dakota's 40.
    /// The open sea is far from every coast, and never inland: the middle of a continent is as far
    /// from the sea as the middle of an ocean is from land.
    @Test func theOpenSeaIsFarFromEveryCoastAndNeverInland() throws {
        let sea = try #require(Places.shared).openSea
        let open = [(0.0, -140.0), (-61.2, -149.9), (13.4, -144.8), (35.0, -40.0), (-30.0, 80.0), (-40.0, -20.0)]
        let notOpen = [(39.0, -98.0), (23.0, 13.0), (-25.0, 134.0), (65.0, 100.0), (-80.0, 45.0), (75.0, -40.0),
                       (28.5, -90.5), (13.4, 144.8), (43.0, 5.0), (42.0, 50.0), (89.0, 0.0)]
        #expect(open.allSatisfy { sea.contains(longitude: $0.1, latitude: $0.0) }, "\(open.filter { !sea.contains(longitude: $0.1, latitude: $0.0) })")
        #expect(notOpen.allSatisfy { !sea.contains(longitude: $0.1, latitude: $0.0) }, "\(notOpen.filter { sea.contains(longitude: $0.1, latitude: $0.0) })")
    }

    @Test func apiNumbersNameTheirState() {
        let cases: [(String, String?)] = [
            ("41-133-21968", "TN"), ("01-075-20060-00-01", "AL"), ("4212345678", "TX"), ("42123456780000", "TX"),
            ("37 003 12345", "PA"), ("50-029-20001", "AK"), ("51-001-00001", "HI"), (" 35-017-00001", "OK"),
            ("02-001-20001", "AZ"), ("03-001-20001", "AR"), ("04-029-20001", "CA"), ("05-123-20001", "CO"), ("15-001-20001", "KS"),
            ("17-001-20001", "LA"), ("30-015-20001", "NM"), ("33-053-20001", "ND"), ("47-001-20001", "WV"), ("49-037-20001", "WY"),
            // A leading zero a spreadsheet dropped: 9, 11 or 13 digits.
            ("402920001", "CA"), ("40292000100", "CA"), ("1075200600001", "AL"),
            ("55-123-45678", nil), ("00-123-45678", nil), ("41-133", nil), ("-41-133-21968", nil), ("4.21E+13", nil),
            ("421234567800001", nil), ("41133219", nil), ("0-123-45678", nil), ("", nil),
        ]
        for (text, postal) in cases {
            #expect(USState.ofAPINumber(text.utf8)?.postal == postal, "\(text)")
        }
    }
}
