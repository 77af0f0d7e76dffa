import Foundation
import Testing
import WellsTestSupport
@testable import WellKit

/// A field mapped to a column empty in every row is said, with the columns that could feed it;
/// and among columns named for a field, one with values wins over one without.
@Suite struct EmptyColumnsTests {
    /// Tennessee's list: `well_status`, `spud_date` and `plug_date` are empty in all 16,464 rows,
    /// while `ft_category` holds four categories.
    @Test func tennesseesEmptyColumnsAreSaidWithWhatCouldFeedThem() throws {
        let path = RepositoryData.realList("tn-oilgas-wells.csv")
        let summary = try WellStore.dryRun(csvAt: path)
        let warnings = summary.warnings.filter { $0.contains("is empty in all") }
        #expect(warnings.count == 3, "\(summary.warnings)")
        let status = try #require(warnings.first { $0.hasPrefix("status ← well_status is empty in all 16,464 wells") }, "\(warnings)")
        #expect(status.contains("ft_category (3 distinct values in 2,000 of 2,000 sampled records)"), "\(status)")
        #expect(status.contains(#"LoadOptions.mapping["status"] = "COLUMN""#), "\(status)")
        let spud = try #require(warnings.first { $0.hasPrefix("spud_date ← spud_date is empty") }, "\(warnings)")
        #expect(spud.contains("no other column's values look like spud_date"), "\(spud)")
        #expect(warnings.contains { $0.hasPrefix("plug_date ← plug_date is empty") })
        // The load says the same, and keeps it with the load's record.
        let store = try Fixtures.makeStore()
        let loaded = try store.load(csvAt: path)
        #expect(loaded.warnings.filter { $0.contains("is empty in all") } == warnings)
        // Mapped as the warning says, the field is filled and the warning gone.
        var options = LoadOptions()
        options.mapping["status"] = "ft_category"
        let mapped = try WellStore.dryRun(csvAt: path, options: options)
        #expect(!mapped.warnings.contains { $0.hasPrefix("status ←") }, "\(mapped.warnings)")
        #expect(mapped.preview.first?["status"] == "Orphaned / Abandoned / Unverified Plug")
    }

    /// Two columns named for the status: the one with values feeds it, and the inference says why.
    @Test func aFilledSynonymWinsOverAnEmptyOne() throws {
        var csv = "uwi,name,latitude,longitude,status,well_status\n"
        for n in 1...50 { csv += "W\(n),Well \(n),36.\(n),-85.\(n),,\(n % 2 == 0 ? "Active" : "Plugged")\n" }
        let summary = try WellStore.dryRun(csvAt: try Fixtures.file(csv))
        #expect(summary.mapping["status"] == "well_status")
        let inference = try #require(summary.inferences.first { $0.subject == "status" }, "\(summary.inferences)")
        #expect(inference.evidence.contains("status is empty in all 50 sampled records"), "\(inference)")
        #expect(!summary.warnings.contains { $0.hasPrefix("status ←") }, "\(summary.warnings)")
        // Named by the user, the empty column stays, and is said.
        var options = LoadOptions()
        options.mapping["status"] = "status"
        let given = try WellStore.dryRun(csvAt: try Fixtures.file(csv), options: options)
        #expect(given.mapping["status"] == "status")
        #expect(given.warnings.contains { $0.hasPrefix("status ← status is empty in all 50 wells") && $0.contains("well_status") },
                "\(given.warnings)")
    }

    /// A column empty in the sample but not further on is not said to be empty.
    @Test func aColumnWithValuesPastTheSampleIsNotSaid() throws {
        let rows = ColumnInference.sampleSize + 500
        var csv = "uwi,name,latitude,longitude,spud_date\n"
        for n in 1...rows { csv += "W\(n),Well \(n),36.5,-85.5,\(n == rows ? "2001-05-04" : "")\n" }
        let summary = try WellStore.dryRun(csvAt: try Fixtures.file(csv))
        #expect(summary.mapping["spud_date"] == "spud_date")
        #expect(!summary.warnings.contains { $0.contains("is empty in all") }, "\(summary.warnings)")
        // Without the last value, it is.
        let empty = csv.replacingOccurrences(of: "2001-05-04", with: "")
        let said = try WellStore.dryRun(csvAt: try Fixtures.file(empty))
        #expect(said.warnings.contains { $0.hasPrefix("spud_date ← spud_date is empty in all 2,500 wells") }, "\(said.warnings)")
    }
}
