import Foundation
import Testing
@testable import WellKit
@testable import WellKitPostgreSQL
import WellsTestSupport

/// Dates read day first and years alone, on the PostgreSQL engine: the same wells, every field, as
/// the source; a year alone sorts and filters as its first day and prints as the year.
@Suite(.serialized, .lane(.postgres), .blocking) struct PostGISDateTests {
    @Test(arguments: ["ak-dmy.csv", "ak-oracle.csv"])
    func alaskaDatesOnPostgreSQL(name: String) throws {
        let path = SourceFields.datesFixture(name)
        let store = try PostGIS.makeStore()
        let summary = try store.load(csvAt: path)
        let truth = try SourceFields.alaskaTruth()
        #expect(summary.dateColumns.first?.notFitting == 1)
        let differences = try SourceFields.differences(store, summary, file: path, dates: truth)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        let in1904 = WellPredicate.and([.compare(.completionDate, .greaterOrEqual, "1904-01-01"),
                                        .compare(.completionDate, .less, "1904-01-02")])
        #expect(try store.fetchCount(WellFetchRequest(predicate: in1904)) == 3)
        #expect(try store.fetchCount(WellFetchRequest(predicate: .compare(.completionDate, .equal, "1904-01-01"))) == 0)
        let sorted = try store.fetchWells(WellFetchRequest(predicate: .compare(.completionDate, .less, "1905"),
                                                           sortDescriptors: [WellSortDescriptor(.completionDate)]))
        #expect(sorted.compactMap { $0.detail.values[.completionDate]?.description } == ["1902", "1902", "1904", "1904", "1904"])
        // The same as a SQLite store, well by well.
        let file = try Fixtures.makeStore()
        _ = try file.load(csvAt: path)
        for id in truth.keys {
            #expect(try file.well(identifier: id)?.detail.values == store.well(identifier: id)?.detail.values, "\(id)")
        }
    }
}
