/// Parsing of the text values of a well record into typed values.
///
/// The parsers are strict: a value either parses completely or is reported as bad, and the
/// loader keeps a bad value's raw text in `details.extra` rather than guessing.
package enum ValueParsing {
    /// Parses a decimal number such as `"1234.5"`, `"-85.26"` or `"1,234.5"`; nil if it is not one.
    static func number(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { number($0) }
    }

    /// Parses a number written with a decimal comma, as in `;`-separated European files: `36,020983`,
    /// `-97,5`, `1.234,5` (a point groups thousands); nil for anything else.
    static func decimalComma(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), bytes.lastIndex(of: UInt8(ascii: ",")) == comma else {
            return decimal(bytes)
        }
        var plain: [UInt8] = []
        plain.reserveCapacity(bytes.count)
        for (k, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: ".") {
                guard k < comma else { return nil }   // a point after the comma is not a thousands separator
                continue
            }
            plain.append(byte == UInt8(ascii: ",") ? UInt8(ascii: ".") : byte)
        }
        return plain.withUnsafeBufferPointer { decimal($0) }
    }

    /// ``decimalComma(_:)`` for a string.
    static func decimalComma(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { decimalComma($0) }
    }

    /// Parses a decimal number from the bytes of its UTF-8 text, as ``number(_:)-(String)`` does.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if let value = decimal(bytes) { return value }
        // Thousands separators, as in "1,234.5", only in their proper places: -?d{1,3}(,ddd)+(.d+)?
        guard bytes.contains(UInt8(ascii: ",")) else { return nil }
        var k = bytes.first == UInt8(ascii: "-") ? 1 : 0
        var digits = 0
        while k < bytes.count, isDigit(bytes[k]) { k += 1; digits += 1 }
        guard (1...3).contains(digits) else { return nil }
        var groups = 0
        while k < bytes.count, bytes[k] == UInt8(ascii: ",") {
            guard k + 4 <= bytes.count, isDigit(bytes[k + 1]), isDigit(bytes[k + 2]), isDigit(bytes[k + 3]) else { return nil }
            k += 4
            groups += 1
        }
        guard groups > 0 else { return nil }
        if k < bytes.count {
            guard bytes[k] == UInt8(ascii: "."), k + 1 < bytes.count else { return nil }
            k += 1
            while k < bytes.count, isDigit(bytes[k]) { k += 1 }
            guard k == bytes.count else { return nil }
        }
        let plain = bytes.filter { $0 != UInt8(ascii: ",") }
        return plain.withUnsafeBufferPointer { decimal($0) }
    }

    /// Parses a plain decimal number (digits, sign, point, exponent) from its UTF-8 text; nil unless
    /// all of it parses to a finite value. Hex, `inf` and `nan`, which `Double.init` takes, are refused.
    ///
    /// Correctly rounded, as `Double.init(_:)` is: numbers of at most 15 significant digits and at
    /// most 22 decimals are an exact integer divided by an exact power of ten (one IEEE division,
    /// correctly rounded); anything else goes to `Double.init(_:)`.
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = bytes.count
        guard count > 0 else { return nil }
        // The fast path: [+-]digits[.digits]
        var k = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative || bytes[0] == UInt8(ascii: "+") { k = 1 }
        var mantissa: UInt64 = 0
        var significant = 0, decimals = 0, digits = 0
        var point = false
        var simple = true
        while k < count {
            let b = bytes[k]
            if isDigit(b) {
                digits += 1
                if mantissa != 0 || b != 48 { significant += 1 }
                mantissa = mantissa &* 10 &+ UInt64(b - 48)
                if point { decimals += 1 }
            } else if b == UInt8(ascii: "."), !point {
                point = true
            } else if b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                simple = false
                break
            } else {
                return nil
            }
            k += 1
        }
        if simple {
            guard digits > 0 else { return nil }
            if significant <= 15 && decimals <= 22 {
                let value = Double(mantissa) / powersOfTen[decimals]
                return negative ? -value : value
            }
        }
        // Anything else: check the characters, then let the standard library read it whole.
        for b in bytes where !(isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
                               || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")) {
            return nil
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Parses a date into ISO `yyyy-mm-dd`.
    ///
    /// Accepts `2001-01-12`, `2001-01-12T00:00:00` (any time part), `2001/01/12`, `20010112`
    /// and US `1/12/2001` or `01/12/2001`. The day must exist in its month.
    static func date(_ text: String) -> String? {
        var text = text
        switch text.withUTF8({ date($0) }) {
        case nil: return nil
        case .iso: return text
        case .some(.other(let year, let month, let day)): return iso(year: year, month: month, day: day)
        case .some(.year(let year)): return String(year)
        }
    }

    /// A date that parsed: already `yyyy-mm-dd` as written, another form to rewrite, or a year
    /// alone (``DateFormat``), which a store keeps as a year (``yearOnlyDays(_:)``).
    package enum ParsedDate: Equatable {
        case iso
        case other(year: Int, month: Int, day: Int)
        case year(Int)
    }

    /// Parses a date from the bytes of its UTF-8 text, as ``date(_:)-(String)`` does.
    static func date(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedDate? {
        func digits(_ range: Range<Int>) -> Int? {
            // At most 4 digits are ever wanted; a longer run ("33333333333333333333/1/2001") would overflow.
            guard range.upperBound <= bytes.count, !range.isEmpty, range.count <= 4 else { return nil }
            var value = 0
            for k in range {
                let b = bytes[k]
                guard isDigit(b) else { return nil }
                value = value * 10 + Int(b - 48)
            }
            return value
        }
        var parsed: (year: Int, month: Int, day: Int, isISO: Bool)?
        if bytes.count >= 10, bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "/"), bytes[7] == bytes[4],
           bytes.count == 10 || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
           let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10) {
            parsed = (y, m, d, bytes.count == 10 && bytes[4] == UInt8(ascii: "-"))
        } else if bytes.count == 8, let y = digits(0..<4), let m = digits(4..<6), let d = digits(6..<8) {
            parsed = (y, m, d, false)
        } else {
            // US m/d/yyyy, with an optional time part after a space.
            let datePart = bytes.firstIndex(of: 0x20) ?? bytes.count
            let slashes = bytes[..<datePart].indices.filter { bytes[$0] == UInt8(ascii: "/") }
            if slashes.count == 2, let m = digits(0..<slashes[0]), let d = digits((slashes[0] + 1)..<slashes[1]),
               let y = digits((slashes[1] + 1)..<datePart),
               datePart - slashes[1] - 1 == 4, (1...2).contains(slashes[0]), (1...2).contains(slashes[1] - slashes[0] - 1) {
                parsed = (y, m, d, false)
            }
        }
        guard let (year, month, day, isISO) = parsed,
              (1000...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return isISO ? .iso : .other(year: year, month: month, day: day)
    }

    /// `yyyy-mm-dd`.
    static func iso(year: Int, month: Int, day: Int) -> String {
        "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// The days from 1970-01-01 to a date of the proleptic Gregorian calendar (negative before):
    /// how a SQLite store (schema version 3) keeps dates, a small integer rather than ten characters,
    /// in the same order. SQLite reads one back as text with `date(days * 86400, 'unixepoch')`.
    package static func days(year: Int, month: Int, day: Int) -> Int64 {
        // Howard Hinnant's days_from_civil: years start in March, so the leap day ends one.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }

    /// The date of a day number (``days(year:month:day:)``), proleptic Gregorian.
    package static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        // Howard Hinnant's civil_from_days.
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// How a SQLite store keeps a year alone (`1904`): half a day after its first day, a REAL among
    /// the INTEGER day numbers. It sorts after 1904-01-01 and before 1904-01-02, so it is found
    /// by `spud_date >= 1904-01-01` and `spud_date >= 1904` alike but equals no day; SQL reads it
    /// back as `1904` (``WellField/sqliteValue(_:)``: a REAL day is a year).
    package static func yearOnlyDays(_ year: Int) -> Double {
        Double(days(year: year, month: 1, day: 1)) + 0.5
    }

    /// The days of an ISO `yyyy-mm-dd` date (UTF-8, already checked by ``date(_:)-(UnsafeBufferPointer<UInt8>)``).
    static func days(iso bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - 48) } }
        return days(year: number(0..<4), month: number(5..<7), day: number(8..<10))
    }

    /// The days of an ISO `yyyy-mm-dd` date, or nil for other text.
    static func days(iso text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 10, date(bytes) == .iso else { return nil }
            return days(iso: bytes)
        }
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
