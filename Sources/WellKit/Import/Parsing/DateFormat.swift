import Foundation

/// How the values of one date column are written: decided once per column from its values
/// or named by the user (`--date-format spud_date=%d/%m/%Y`, ``LoadOptions/dateFormats``), then
/// applied to every value of the column.
///
/// A column has one order: in a d/m/y column `03/25/1982` does not fit and is kept as text (in
/// `details.extra`, counted as a bad value), never read as m/d/y. Forms that cannot be read two
/// ways fit every inferred format: ISO (`2001-01-12`, `2001/01/12`, with a time part), `20010112`,
/// Oracle's `12-JAN-01` and a year alone (`1904`, stored as a year: it sorts and filters as
/// 1904-01-01 and prints `1904`). Only an Excel column reads bare numbers as serial days, so a
/// year alone is a serial there.
public struct DateFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The reading of slashed values and bare numbers.
    package enum Reading: Sendable, Hashable {
        /// Unambiguous forms only (ISO, `yyyymmdd`, `DD-MON-YY`, a year); `1/12/2001` does not fit.
        case unambiguous
        /// `m/d/y` (also with `-` or `.`), and the unambiguous forms.
        case monthFirst
        /// `d/m/y`, and the unambiguous forms.
        case dayFirst
        /// Excel's serial day numbers (the 1900 date system), and the unambiguous text forms.
        case excel
        /// A strftime pattern given by the user; a year alone fits it too.
        case pattern([Piece])
    }

    /// One directive or literal byte of a strftime pattern.
    package enum Piece: Sendable, Hashable {
        case day, month, monthName, year, shortYear, hour, minute, second, literal(UInt8)
    }

    package let reading: Reading
    /// As the user wrote it (`%d/%m/%Y`, `excel`), or as an inference names it (`d/m/y`).
    public let description: String

    package init(_ reading: Reading, description: String) {
        self.reading = reading
        self.description = description
    }

    /// ISO `yyyy-mm-dd`, `yyyymmdd`, `DD-MON-YY` or a year: what a column with no slashed value is read as.
    package static let unambiguous = DateFormat(.unambiguous, description: "ISO")
    package static let monthFirst = DateFormat(.monthFirst, description: "m/d/y")
    package static let dayFirst = DateFormat(.dayFirst, description: "d/m/y")
    /// Excel's serial day numbers, `--date-format COLUMN=excel`.
    public static let excel = DateFormat(.excel, description: "excel")

    /// A format from its text: `excel`, or a strftime pattern of `%d` (or `%e`), `%m`, `%b` (or
    /// `%B`, `%h`: English month names or their first three letters, any case), `%Y`, `%y`, `%H`,
    /// `%M`, `%S`, `%%` and literal characters.
    /// - Throws: ``ImportError/Code/invalidOption`` naming the directive that is not one of these, or a
    ///   pattern with no year or with a month but no day.
    public init(_ text: String) throws {
        if text.lowercased() == "excel" { self = .excel; return }
        var pieces: [Piece] = []
        var bytes = Array(text.utf8)[...]
        func refuse(_ why: String) -> ImportError {
            ImportError(.invalidOption, "date format '\(text)': \(why); use strftime's %d, %m, %b, %Y, %y (and %H, %M, %S), as in %d/%m/%Y, %Y%m%d, %d-%b-%y or %Y, or excel for serial numbers")
        }
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else { pieces.append(.literal(byte)); continue }
            guard let directive = bytes.popFirst() else { throw refuse("it ends with a lone %") }
            switch directive {
            case UInt8(ascii: "d"), UInt8(ascii: "e"): pieces.append(.day)
            case UInt8(ascii: "m"): pieces.append(.month)
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "h"): pieces.append(.monthName)
            case UInt8(ascii: "Y"): pieces.append(.year)
            case UInt8(ascii: "y"): pieces.append(.shortYear)
            case UInt8(ascii: "H"): pieces.append(.hour)
            case UInt8(ascii: "M"): pieces.append(.minute)
            case UInt8(ascii: "S"): pieces.append(.second)
            case UInt8(ascii: "%"): pieces.append(.literal(UInt8(ascii: "%")))
            default: throw refuse("%\(String(decoding: [directive], as: UTF8.self)) is not a date directive WellKit reads")
            }
        }
        let has = { (piece: Piece) in pieces.contains(piece) }
        guard has(.year) || has(.shortYear) else { throw refuse("it has no year (%Y or %y)") }
        if has(.day) && !(has(.month) || has(.monthName)) { throw refuse("it has a day but no month (%m or %b)") }
        if (has(.month) || has(.monthName)) && !has(.day) { throw refuse("it has a month but no day (%d)") }
        self.init(.pattern(pieces), description: text)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "ISO": self = .unambiguous
        case "m/d/y": self = .monthFirst
        case "d/m/y": self = .dayFirst
        default: try self.init(text)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// The day of the load, against which a two-digit year gets its century (the latest that does
    /// not put the date after it) and an Excel column's plausible serials end.
    package struct Today: Sendable {
        package var year: Int, month: Int, day: Int
        package init(year: Int, month: Int, day: Int) { (self.year, self.month, self.day) = (year, month, day) }
        package static var now: Today {
            let days = Int((Date().timeIntervalSince1970 / 86_400).rounded(.down))
            let (y, m, d) = ValueParsing.civil(days: Int64(days))
            return Today(year: y, month: m, day: d)
        }
        /// The full year of a two-digit one with this month and day: this century's, unless that is after today.
        func century(_ short: Int, month: Int, day: Int) -> Int {
            let year = year / 100 * 100 + short
            return (year, month, day) > (self.year, self.month, self.day) ? year - 100 : year
        }
    }

    /// Reads one value; nil when it does not fit this format (the loader keeps it as text).
    package func read(_ bytes: UnsafeBufferPointer<UInt8>, today: Today) -> ValueParsing.ParsedDate? {
        switch reading {
        case .pattern(let pieces):
            if let year = DateShapes.yearAlone(bytes) { return .year(year) }
            return DateShapes.match(bytes, pieces, today: today)
        case .excel:
            if let serial = ValueParsing.decimal(bytes) { return DateShapes.excel(serial) }
            return DateShapes.unambiguous(bytes, today: today)
        case .unambiguous, .monthFirst, .dayFirst:
            switch DateShapes.classify(bytes) {
            case .iso: return ValueParsing.date(bytes)
            case .year(let year): return .year(year)
            case .oracle(let day, let month, let year, let digits): return DateShapes.checked(day: day, month: month, year: year, digits: digits, today: today)
            case .slashed(let first, let second, let year, let digits):
                switch reading {
                case .monthFirst: return DateShapes.checked(day: second, month: first, year: year, digits: digits, today: today)
                case .dayFirst: return DateShapes.checked(day: first, month: second, year: year, digits: digits, today: today)
                default: return nil
                }
            case .number, .other: return nil
            }
        }
    }
}

