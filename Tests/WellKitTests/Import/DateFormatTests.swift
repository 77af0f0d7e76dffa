import Foundation
import Testing
@testable import WellKit

/// How one value is read in a column's format, and how a column's format is decided from its values.
@Suite struct DateFormatTests {
    static let today = DateFormat.Today(year: 2026, month: 12, day: 2)

    /// The value as a store keeps it: `yyyy-mm-dd`, `yyyy` for a year alone, nil when it does not fit.
    static func read(_ text: String, _ format: DateFormat) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            switch format.read(bytes, today: today) {
            case nil: nil
            case .iso: String(decoding: bytes.prefix(10), as: UTF8.self)
            case .other(let year, let month, let day): ValueParsing.iso(year: year, month: month, day: day)
            case .year(let year): String(year)
            }
        }
    }

    @Test(arguments: [
        // Day first: the order of the column, never the other.
        ("25/3/1982", DateFormat.dayFirst, "1982-03-25"), ("03/07/1982", .dayFirst, "1982-07-03"),
        ("3/25/1982", .dayFirst, nil), ("03.07.1982", .dayFirst, "1982-07-03"), ("3-7-82", .dayFirst, "1982-07-03"),
        ("29/2/2001", .dayFirst, nil), ("29/02/2000 00:00:00", .dayFirst, "2000-02-29"),
        // Month first.
        ("03/07/1982", .monthFirst, "1982-03-07"), ("25/3/1982", .monthFirst, nil), ("12/31/99", .monthFirst, "1999-12-31"),
        // Unambiguous forms fit every inferred format; a slashed value fits none of them but its order.
        ("2001-01-12", .dayFirst, "2001-01-12"), ("20010112", .monthFirst, "2001-01-12"), ("1904", .dayFirst, "1904"),
        ("08-AUG-99", .unambiguous, "1999-08-08"), ("08-aug-1999", .dayFirst, "1999-08-08"), ("8-Aug-26", .unambiguous, "2026-08-08"),
        ("01-DEC-26", .unambiguous, "2026-12-01"), ("03-DEC-26", .unambiguous, "1926-12-03"),
        ("30-FEB-99", .unambiguous, nil), ("08-AUX-99", .unambiguous, nil), ("1/12/2001", .unambiguous, nil),
        ("2001-01-12T10:00:00", .unambiguous, "2001-01-12"), ("1904", .unambiguous, "1904"), ("0999", .unambiguous, nil),
        // Excel's serials, with its 1900 leap-year bug.
        ("31110", .excel, "1985-03-04"), ("1", .excel, "1900-01-01"), ("59", .excel, "1900-02-28"), ("60", .excel, nil),
        ("61", .excel, "1900-03-01"), ("36526.75", .excel, "2000-01-01"), ("0", .excel, nil), ("-5", .excel, nil),
        ("1904", .excel, "1905-03-18"), ("2001-01-12", .excel, "2001-01-12"),
    ] as [(String, DateFormat, String?)])
    func readsInItsFormat(text: String, format: DateFormat, stored: String?) {
        #expect(Self.read(text, format) == stored, "\(text) as \(format)")
    }

    @Test(arguments: [
        ("%d/%m/%Y", "25/03/1982", "1982-03-25"), ("%d/%m/%Y", "3/25/1982", nil), ("%m/%d/%Y", "3/25/1982", "1982-03-25"),
        ("%Y%m%d", "19820325", "1982-03-25"), ("%d-%b-%y", "08-AUG-99", "1999-08-08"), ("%d-%b-%y", "08-August-99", "1999-08-08"),
        ("%d %B %Y", "8 august 1999", "1999-08-08"), ("%Y", "1904", "1904"), ("%d/%m/%Y", "1904", "1904"),
        ("%d/%m/%Y %H:%M", "25/03/1982 10:30", "1982-03-25"), ("%d/%m/%Y", "25/03/1982 10:30", nil),
        ("%d/%m/%y", "25/03/27", "1927-03-25"),
    ])
    func readsAGivenPattern(pattern: String, text: String, stored: String?) throws {
        #expect(Self.read(text, try DateFormat(pattern)) == stored, "\(text) as \(pattern)")
    }

    @Test(arguments: ["%d/%q/%Y", "%d/%m", "%m/%Y/%", "%Y-%m", "dd/mm/yyyy"])
    func refusesABadPattern(pattern: String) {
        #expect(throws: ImportError.self) { try DateFormat(pattern) }
        do { _ = try DateFormat(pattern) } catch let error as ImportError {
            #expect(error.code == .invalidOption && error.reason.contains(pattern), "\(error.reason)")
        } catch { Issue.record("\(error)") }
    }

    /// The format a sample of values decides (nil: it cannot), and its label.
    @Test(arguments: [
        (["25/3/1982", "3/7/1982", "1/1/1990"], "d/m/y"), (["3/25/1982", "3/7/1982"], "m/d/y"),
        (["3/7/1982", "1/1/1990"], nil), (["2001-01-12", "1904"], "ISO and years"), (["1904", "1917"], "year"),
        (["08-AUG-99", "1/1/1990"], nil), (["08-AUG-99", "12-JAN-01"], "DD-MON-YY"), (["31110", "36526.5"], "Excel serial"),
        (["31110", "1904"], "Excel serial"), (["31110", "99999999"], "ISO"), (["20010112", "19820325"], "ISO"),
        // Both orders occur: the commoner wins, and the others will not fit.
        (["25/3/1982", "26/3/1982", "3/27/1982"], "d/m/y"), (["25/3/1982", "3/26/1982", "3/27/1982"], "m/d/y"),
    ] as [([String], String?)])
    func sampleDecides(values: [String], label: String?) {
        var evidence = DateColumns.Evidence()
        let last = DateShapes.excelSerial(year: 2026, month: 12, day: 2)
        for value in values {
            var value = value
            value.withUTF8 { evidence.add($0, lastSerial: last) }
        }
        #expect(evidence.format.map(evidence.label) == label, "\(values)")
    }

    /// Every day from 1900-03-01 to 2026 round-trips through its Excel serial, day first and month first.
    @Test func everyDayRoundTrips() {
        let first = ValueParsing.days(year: 1900, month: 3, day: 1), last = ValueParsing.days(year: 2026, month: 12, day: 31)
        for day in first...last {
            let (year, month, date) = ValueParsing.civil(days: day)
            #expect(ValueParsing.days(year: year, month: month, day: date) == day)
            let iso = ValueParsing.iso(year: year, month: month, day: date)
            guard day % 7 == 0 else { continue }
            #expect(Self.read(String(Int(DateShapes.excelSerial(year: year, month: month, day: date))), .excel) == iso)
            #expect(Self.read("\(date)/\(month)/\(year)", .dayFirst) == iso)
            #expect(Self.read("\(month)/\(date)/\(year)", .monthFirst) == iso)
        }
    }
}
