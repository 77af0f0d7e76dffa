/// The forms a date value takes, read from its bytes with a switch and no String: what
/// ``DateColumns`` counts to decide a column's format and what ``DateFormat/read(_:today:)`` reads.
enum DateShapes {
    /// What a value looks like before any order is chosen.
    enum Shape: Equatable {
        /// `yyyy-mm-dd`, `yyyy/mm/dd` (with a time part) or `yyyymmdd`: one reading only.
        case iso
        /// Four digits alone.
        case year(Int)
        /// `DD-MON-YY` or `DD-MON-YYYY` (also with `/` or a space), English month names in any case.
        case oracle(day: Int, month: Int, year: Int, digits: Int)
        /// `a/b/y` (or `-`, `.`) with a and b of one or two digits, y of two or four, and an optional time part.
        case slashed(first: Int, second: Int, year: Int, digits: Int)
        /// Some other decimal number (an Excel serial, perhaps).
        case number(Double)
        case other
    }

    static func classify(_ bytes: UnsafeBufferPointer<UInt8>) -> Shape {
        let count = bytes.count
        guard count >= 4 else { return ValueParsing.decimal(bytes).map(Shape.number) ?? .other }
        if count == 4, let year = digits(bytes, 0..<4) { return year >= 1000 ? .year(year) : .number(Double(year)) }
        if count >= 10, bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "/"), digits(bytes, 0..<4) != nil {
            return ValueParsing.date(bytes) != nil ? .iso : .other
        }
        if count == 8, digits(bytes, 0..<8) != nil {
            return ValueParsing.date(bytes) != nil ? .iso : .number(ValueParsing.decimal(bytes)!)
        }
        if let number = ValueParsing.decimal(bytes) { return .number(number) }
        // d{1,2} SEP (d{1,2} | letters) SEP (d{2} | d{4}) [time]
        var k = 0
        guard let first = run(bytes, &k, max: 2), k < count else { return .other }
        let separator = bytes[k]
        guard separator == UInt8(ascii: "/") || separator == UInt8(ascii: "-") || separator == UInt8(ascii: ".")
                || separator == UInt8(ascii: " ") else { return .other }
        k += 1
        var month: Int?, second: Int?
        if k < count, isLetter(bytes[k]) {
            month = monthName(bytes, &k)
            guard month != nil else { return .other }
        } else {
            second = run(bytes, &k, max: 2)
            guard second != nil, separator != UInt8(ascii: " ") else { return .other }
        }
        guard k < count, bytes[k] == separator else { return .other }
        k += 1
        let yearStart = k
        guard let year = run(bytes, &k, max: 4), k - yearStart == 2 || k - yearStart == 4 else { return .other }
        let yearDigits = k - yearStart
        if k < count {
            // A time part after a space (`3/7/1982 0:00:00`, `08-AUG-1999 00:00:00`).
            guard bytes[k] == UInt8(ascii: " "), k + 1 < count, ValueParsing.isDigit(bytes[k + 1]) else { return .other }
        }
        if let month { return .oracle(day: first, month: month, year: year, digits: yearDigits) }
        return .slashed(first: first, second: second!, year: year, digits: yearDigits)
    }

    /// A year written alone (`1904`).
    @inline(__always) static func yearAlone(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 4, let year = digits(bytes, 0..<4), year >= 1000 else { return nil }
        return year
    }

    /// The forms every inferred format reads: ISO, `yyyymmdd`, `DD-MON-YY[YY]` and a year alone.
    static func unambiguous(_ bytes: UnsafeBufferPointer<UInt8>, today: DateFormat.Today) -> ValueParsing.ParsedDate? {
        switch classify(bytes) {
        case .iso: ValueParsing.date(bytes)
        case .year(let year): .year(year)
        case .oracle(let day, let month, let year, let digits): checked(day: day, month: month, year: year, digits: digits, today: today)
        default: nil
        }
    }

    /// A day, month and year (of `digits` digits: two get the century of ``DateFormat/Today/century(_:month:day:)``), if the day exists.
    static func checked(day: Int, month: Int, year: Int, digits: Int, today: DateFormat.Today) -> ValueParsing.ParsedDate? {
        guard (1...12).contains(month), day >= 1 else { return nil }
        let year = digits == 2 ? today.century(year, month: month, day: day) : year
        guard (1000...9999).contains(year), day <= ValueParsing.daysIn(month: month, year: year) else { return nil }
        return .other(year: year, month: month, day: day)
    }

    /// The day of an Excel serial number in the 1900 date system, as Excel shows it: 1 is
    /// 1900-01-01 and 61 is 1900-03-01, for Excel counts 1900 as a leap year (Lotus 1-2-3's bug);
    /// 60, its 1900-02-29, is a day that never was and does not fit. A fraction is the time of day, dropped.
    static func excel(_ serial: Double) -> ValueParsing.ParsedDate? {
        guard serial >= 1, serial < 2_958_466 else { return nil }   // 9999-12-31 is Excel's last day
        let whole = Int64(serial.rounded(.down))
        guard whole != 60 else { return nil }
        let days = (whole < 60 ? ValueParsing.days(year: 1899, month: 12, day: 31) : ValueParsing.days(year: 1899, month: 12, day: 30)) + whole
        let (year, month, day) = ValueParsing.civil(days: days)
        return .other(year: year, month: month, day: day)
    }

    /// The serial number Excel gives a day (from 1900-03-01 on), for the plausible range of a column's serials.
    static func excelSerial(year: Int, month: Int, day: Int) -> Double {
        Double(ValueParsing.days(year: year, month: month, day: day) - ValueParsing.days(year: 1899, month: 12, day: 30))
    }

    /// Reads a value with a strftime pattern; the whole value must match.
    static func match(_ bytes: UnsafeBufferPointer<UInt8>, _ pieces: [DateFormat.Piece], today: DateFormat.Today) -> ValueParsing.ParsedDate? {
        var k = 0
        var day = 1, month = 1, year = 0, yearDigits = 4
        for piece in pieces {
            switch piece {
            case .day: guard let value = run(bytes, &k, max: 2) else { return nil }; day = value
            case .month: guard let value = run(bytes, &k, max: 2) else { return nil }; month = value
            case .monthName: guard let value = monthName(bytes, &k) else { return nil }; month = value
            case .year:
                let start = k
                guard let value = run(bytes, &k, max: 4), k - start == 4 else { return nil }
                year = value
            case .shortYear:
                let start = k
                guard let value = run(bytes, &k, max: 2), k - start == 2 else { return nil }
                (year, yearDigits) = (value, 2)
            case .hour, .minute, .second: guard run(bytes, &k, max: 2) != nil else { return nil }
            case .literal(let byte): guard k < bytes.count, bytes[k] == byte else { return nil }; k += 1
            }
        }
        guard k == bytes.count else { return nil }
        return checked(day: day, month: month, year: year, digits: yearDigits, today: today)
    }

    // MARK: - Bytes

    /// The number of the digits at `range`, nil unless all are digits.
    @inline(__always) static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count else { return nil }
        var value = 0
        for k in range {
            guard ValueParsing.isDigit(bytes[k]) else { return nil }
            value = value * 10 + Int(bytes[k] - 48)
        }
        return value
    }

    /// One to `max` digits from `k`, which it moves past them.
    @inline(__always) private static func run(_ bytes: UnsafeBufferPointer<UInt8>, _ k: inout Int, max: Int) -> Int? {
        var value = 0, taken = 0
        while k < bytes.count, taken < max, ValueParsing.isDigit(bytes[k]) {
            value = value * 10 + Int(bytes[k] - 48)
            k += 1
            taken += 1
        }
        return taken == 0 ? nil : value
    }

    @inline(__always) private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 97 && (b | 0x20) <= 122 }

    /// English month names, lower case: an abbreviation is their first three letters.
    private static let months: [[UInt8]] = ["january", "february", "march", "april", "may", "june", "july", "august",
                                            "september", "october", "november", "december"].map { Array($0.utf8) }

    /// A month's English name or its first three letters, in any case, from `k`, which it moves past it.
    private static func monthName(_ bytes: UnsafeBufferPointer<UInt8>, _ k: inout Int) -> Int? {
        let start = k
        while k < bytes.count, isLetter(bytes[k]) { k += 1 }
        let length = k - start
        guard length >= 3 else { return nil }
        for (index, name) in months.enumerated() where length == 3 || length == name.count {
            var same = true
            for j in 0..<length where bytes[start + j] | 0x20 != name[j] { same = false; break }
            if same { return index + 1 }
        }
        return nil
    }
}
