/// Parsing of the text values of a well record into typed values.
///
/// The parsers are strict: a value either parses completely or is reported as bad, and the
/// loader keeps a bad value's raw text in `details.extra` rather than guessing.
enum ValueParsing {
    /// Parses a decimal number such as `"1234.5"`, `"-85.26"` or `"1,234.5"`; nil if it is not one.
    static func number(_ text: String) -> Double? {
        // Decimal only: `Double.init` would also take hex such as "0x10".
        func decimal(_ b: UInt8) -> Bool {
            (b >= 48 && b <= 57) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
                || b == UInt8(ascii: "e") || b == UInt8(ascii: "E") || b == UInt8(ascii: ",")
        }
        guard text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(decimal) }) ?? text.utf8.allSatisfy(decimal) else { return nil }
        if let value = Double(text), value.isFinite { return value }
        // Thousands separators, as in "1,234.5", only in their proper places.
        guard text.contains(","), text.range(of: #"^-?\d{1,3}(,\d{3})+(\.\d+)?$"#, options: .regularExpression) != nil
        else { return nil }
        return Double(text.replacingOccurrences(of: ",", with: ""))
    }

    /// Parses a date into ISO `yyyy-mm-dd`.
    ///
    /// Accepts `2001-01-12`, `2001-01-12T00:00:00` (any time part), `2001/01/12`, `20010112`
    /// and US `1/12/2001` or `01/12/2001`. The day must exist in its month.
    static func date(_ text: String) -> String? {
        var text = text
        // Read the UTF-8 in place: the loader calls this for three columns of every row.
        let parsed: (year: Int, month: Int, day: Int, isISO: Bool)? = text.withUTF8 { bytes in
            func digits(_ range: Range<Int>) -> Int? {
                guard range.upperBound <= bytes.count, !range.isEmpty else { return nil }
                var value = 0
                for k in range {
                    let b = bytes[k]
                    guard b >= 48 && b <= 57 else { return nil }
                    value = value * 10 + Int(b - 48)
                }
                return value
            }
            if bytes.count >= 10, bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "/"), bytes[7] == bytes[4],
               bytes.count == 10 || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
               let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10) {
                return (y, m, d, bytes.count == 10 && bytes[4] == UInt8(ascii: "-"))
            }
            if bytes.count == 8, let y = digits(0..<4), let m = digits(4..<6), let d = digits(6..<8) {
                return (y, m, d, false)
            }
            return nil
        } ?? {
            let parts = text.split(separator: " ", maxSplits: 1).first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
            guard parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), parts[2].count == 4, (1...2).contains(parts[0].count), (1...2).contains(parts[1].count),
                  let m = Int(parts[0]), let d = Int(parts[1]), let y = Int(parts[2]) else { return nil }
            return (y, m, d, false)
        }()
        guard let (year, month, day, isISO) = parsed,
              (1000...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        // Already `yyyy-mm-dd`: keep the string rather than build an equal one.
        if isISO { return text }
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

// MARK: - JSON

/// Builds the JSON object of unmapped and bad values kept in `details.extra`.
///
/// Hand-written because it runs once per row on the load's hot path and writes only a flat
/// object of strings; `JSONSerialization` would allocate a dictionary and bridge each value.
/// It collects bytes and makes one string at the end: appending to a `String` piece by piece
/// cost 5% of a dry run's CPU in `perf`.
struct ExtraJSON {
    private var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    mutating func append(key: String, value: String) {
        if bytes.isEmpty {
            bytes.reserveCapacity(128)
            bytes.append(UInt8(ascii: "{"))
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        Self.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        Self.appendQuoted(value, to: &bytes)
    }

    func finished() -> String? {
        guard !bytes.isEmpty else { return nil }
        return String(unsafeUninitializedCapacity: bytes.count + 1) { buffer in
            _ = buffer.initialize(from: bytes)
            buffer[bytes.count] = UInt8(ascii: "}")
            return bytes.count + 1
        }
    }

    /// Appends `string` as a JSON string literal: quoted, with `"`, `\\` and control characters escaped.
    static func appendQuoted(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !needsEscape(string) {
            out.append(contentsOf: string.utf8)
        } else {
            for b in string.utf8 {
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
                case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case ..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]]
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `string` as a JSON string literal to text, as the exporters write it.
    static func appendQuoted(_ string: String, to out: inout String) {
        guard needsEscape(string) else {
            out += "\""
            out += string
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        appendQuoted(string, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ string: String) -> Bool {
        func needs(_ b: UInt8) -> Bool { b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }
        // The contiguous bytes when the string has them (native strings do): a plain loop, not UTF8View's iterator.
        return string.utf8.withContiguousStorageIfAvailable { $0.contains(where: needs) } ?? string.utf8.contains(where: needs)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
