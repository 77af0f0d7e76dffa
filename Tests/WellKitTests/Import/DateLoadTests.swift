import Foundation
import GRDB
import Testing
import WellsTestSupport
@testable import WellKit

/// Loads of real lists whose dates are written day first, as Oracle and Excel write them, and as
/// years alone: every field of every well against the source, and the formats the summary names.
@Suite struct DateLoadTests {
    /// Alaska's completion dates (full dates, years alone and `N/A`) written four ways (Tests/Fixtures/Dates).
    @Test(arguments: [("ak-mdy.csv", "m/d/y and years"), ("ak-dmy.csv", "d/m/y and years"),
                      ("ak-oracle.csv", "DD-MON-YY and years"), ("ak-serial.csv", "Excel serial")])
    func alaskaCompletionDates(name: String, format: String) throws {
        let path = SourceFields.datesFixture(name)
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        let truth = try SourceFields.alaskaTruth()
        #expect(summary.rejected == 0)
        let column = try #require(summary.dateColumns.first)
        #expect(summary.dateColumns.count == 1 && column.field == "completion_date" && column.column == "Completion Date")
        #expect(column.format == format, "\(column)")
        #expect(column.notFitting == 1, "only N/A is no date: \(column)")
        let differences = try SourceFields.differences(store, summary, file: path, dates: truth)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        guard name != "ak-serial.csv" else { return }
        // A year alone sorts and filters as its first day, and prints as the year.
        let years1904 = truth.values.filter { $0["Completion Date"] == "1904" }.count
        let in1904 = WellPredicate.and([.compare(.completionDate, .greaterOrEqual, "1904-01-01"),
                                        .compare(.completionDate, .less, "1905-01-01")])
        #expect(years1904 == 3)
        #expect(try store.fetchCount(WellFetchRequest(predicate: in1904)) == years1904)
        #expect(try store.fetchCount(WellFetchRequest(predicate: .compare(.completionDate, .greaterOrEqual, "1904"))) ==
                truth.values.filter { ($0["Completion Date"] ?? nil).map { $0 >= "1904" } ?? false }.count)
        let well = try #require(try store.well(identifier: "50-009-10022-00-00"))
        #expect(well.detail.values[.completionDate]?.description == "1951-01-01")
        let sorted = try store.fetchWells(WellFetchRequest(predicate: .compare(.completionDate, .less, "1905"),
                                                           sortDescriptors: [WellSortDescriptor(.completionDate)]))
        #expect(sorted.compactMap { $0.detail.values[.completionDate]?.description } == ["1902", "1902", "1904", "1904", "1904"])
        // The SQLite store's own check accepts a year among the day numbers.
        #expect(try store.check().findings.isEmpty)
    }

    /// Colorado's 2,287 orphan wells with three date columns added, each written another way: spud
    /// dates day first (1% of them month first with a day over 12, which must stay text), completion
    /// dates as Oracle's `DD-MON-YY`, plug dates as Excel serials. The issue's case: 821 spud dates
    /// were stored swapped.
    @Test func coloradoWithDayFirstOracleAndExcelDates() throws {
        let source = try Fixtures.records(ofFileAt: Fixtures.sharedData("co-ecmc-orphan-wells.csv"))
        let keep = source[0].indices.filter { source[0][$0] != "geometry" }
        let id = try #require(source[0].firstIndex(of: "LocationID"))
        var text = keep.map { source[0][$0] }.joined(separator: ",") + ",Spud Date,Completion Date,Plug Date\n"
        var dates: [String: [String: String?]] = [:]
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        var swappedOnes = 0
        for row in source.dropFirst() {
            let n = Int(row[id]) ?? 0
            let spud = ValueParsing.days(year: 1950, month: 1, day: 1) + Int64((n * 7919) % 27_000)
            let completion = spud + Int64(2 + n % 50)
            let plug = min(spud + Int64(400 + n % 5_000), ValueParsing.days(year: 2025, month: 6, day: 30))
            let (sy, sm, sd) = ValueParsing.civil(days: spud), (cy, cm, cd) = ValueParsing.civil(days: completion)
            let (py, pm, pd) = ValueParsing.civil(days: plug)
            let monthFirst = sd > 12 && n % 100 == 7
            if monthFirst { swappedOnes += 1 }
            let fields = keep.map { row[$0] }.map { $0.contains(",") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
            let serial = plug - ValueParsing.days(year: 1899, month: 12, day: 30)
            text += fields.joined(separator: ",") + "," + (monthFirst ? "\(sm)/\(sd)/\(sy)" : "\(sd)/\(sm)/\(sy)")
                + ",\(cd < 10 ? "0" : "")\(cd)-\(months[cm - 1])-\(cy % 100 < 10 ? "0" : "")\(cy % 100),\(serial)\n"
            dates[row[id]] = ["Spud Date": monthFirst ? nil : ValueParsing.iso(year: sy, month: sm, day: sd),
                              "Completion Date": ValueParsing.iso(year: cy, month: cm, day: cd),
                              "Plug Date": ValueParsing.iso(year: py, month: pm, day: pd)]
        }
        let path = try Fixtures.file(text, name: "co-dates.csv")
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: path)
        #expect(summary.loaded == source.count - 1 && summary.rejected == 0)
        #expect(swappedOnes > 5)
        #expect(summary.dateColumns.map { "\($0.field) \($0.format) \($0.notFitting)" }
                == ["spud_date d/m/y \(swappedOnes)", "completion_date DD-MON-YY 0", "plug_date Excel serial 0"])
        let differences = try SourceFields.differences(store, summary, file: path, dates: dates)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // PostgreSQL's rows (text) are built from the same reading as the store's day numbers.
        let dry = try WellStore.dryRun(csvAt: path)
        #expect(dry.dateColumns == summary.dateColumns)
    }

    /// A date column whose first 2,000 values fit both orders is read whole before any value is
    /// read: one value with a first part over 12, late in the file, makes it day first throughout.
    @Test func theWholeColumnDecidesWhenTheSampleCannot() throws {
        var text = "uwi,lat,lon,spud_date\n"
        for k in 0..<2_500 { text += "W\(k),50.\(k),-114,\(k == 2_300 ? "25/03/1990" : "\(k % 12 + 1)/\(k % 7 + 1)/1990")\n" }
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(text))
        let column = try #require(summary.dateColumns.first)
        #expect(column.format == "d/m/y" && column.notFitting == 0 && column.evidence.contains("values in the column"), "\(column)")
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        #expect(try store.well(identifier: "W10")?.detail.values[.spudDate]?.description == "1990-04-11")
        #expect(try store.well(identifier: "W2300")?.detail.values[.spudDate]?.description == "1990-03-25")
    }

    /// Every value fits both orders: read m/d/y with a warning naming the column and the setting,
    /// unless another date column decides; a given format wins, and one for no date column is refused.
    @Test func aColumnThatFitsBothOrders() throws {
        let ambiguous = "uwi,lat,lon,Spud\nA,50,-114,3/7/1982\nB,51,-114,12/1/1990\n"
        let store = try Fixtures.makeStore()
        let summary = try store.load(csvAt: try Fixtures.file(ambiguous))
        #expect(summary.dateColumns.first?.ambiguous == true && summary.dateColumns.first?.format == "m/d/y")
        let warning = try #require(summary.warnings.first { $0.contains("\"Spud\"") })
        #expect(warning.contains(#"LoadOptions.dateFormats["spud_date"] = try DateFormat("%d/%m/%Y")"#), "\(warning)")
        #expect(try store.well(identifier: "A")?.detail.values[.spudDate]?.description == "1982-03-07")

        let following = "uwi,lat,lon,Spud,Plug Date\nA,50,-114,3/7/1982,25/12/1999\nB,51,-114,12/1/1990,1/2/2000\n"
        let other = try Fixtures.makeStore()
        let followed = try other.load(csvAt: try Fixtures.file(following, name: "follow.csv"))
        #expect(followed.warnings.isEmpty, "\(followed.warnings)")
        #expect(followed.dateColumns.map(\.format) == ["d/m/y", "d/m/y"], "\(followed.dateColumns)")
        #expect(try other.well(identifier: "A")?.detail.values[.spudDate]?.description == "1982-07-03")
        #expect(try other.well(identifier: "B")?.detail.values[.plugDate]?.description == "2000-02-01")

        for key in ["spud_date", "Spud"] {
            var options = LoadOptions()
            options.dateFormats[key] = try DateFormat("%d/%m/%Y")
            let given = try Fixtures.makeStore()
            let loaded = try given.load(csvAt: try Fixtures.file(ambiguous, name: "given.csv"), options: options)
            #expect(loaded.warnings.isEmpty && loaded.dateColumns.first?.format == "%d/%m/%Y (given)")
            #expect(try given.well(identifier: "A")?.detail.values[.spudDate]?.description == "1982-07-03")
        }
        var options = LoadOptions()
        options.dateFormats["Licence"] = .excel
        #expect {
            _ = try Fixtures.makeStore().load(csvAt: try Fixtures.file(ambiguous, name: "bad.csv"), options: options)
        } throws: { error in
            guard let error = error as? ImportError else { return false }
            return error.code == .invalidOption && error.reason.contains("'Licence'") && error.reason.contains("spud_date (Spud)")
        }
    }

    /// A two-digit year is never put after the day of the load.
    @Test func twoDigitYearsAreNeverInTheFuture() throws {
        var options = LoadOptions()
        options.today = DateFormat.Today(year: 2026, month: 6, day: 15)
        let store = try Fixtures.makeStore()
        _ = try store.load(csvAt: try Fixtures.file("uwi,lat,lon,spud_date\nA,50,-114,14-JUN-26\nB,50,-114,16-jun-26\nC,50,-114,01-Jan-99\n"),
                           options: options)
        #expect(try ["A", "B", "C"].map { try store.well(identifier: $0)?.detail.values[.spudDate]?.description }
                == ["2026-06-14", "1926-06-16", "1999-01-01"])
    }
}
