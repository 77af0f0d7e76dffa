/// Parsing of the text values of a well record into typed values.
///
/// The parsers are strict: a value either parses completely or is reported as bad, and the
/// loader keeps a bad value's raw text in `details.extra` rather than guessing.
enum ValueParsing {
    /// Parses a decimal number such as `"1234.5"`, `"-85.26"` or `"1,234.5"`; nil if it is not one.
    static func number(_ text: String) -> Double? {
        // Decimal only: `Double.init` would also take hex such as "0x10".
        guard text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || "+-.eE,".utf8.contains($0) }) else { return nil }
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
        let bytes = Array(text.utf8)
        var year = 0, month = 0, day = 0
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
            (year, month, day) = (y, m, d)
        } else if bytes.count == 8, let y = digits(0..<4), let m = digits(4..<6), let d = digits(6..<8) {
            (year, month, day) = (y, m, d)
        } else {
            let parts = text.split(separator: " ", maxSplits: 1).first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
            guard parts.count == 3, parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }), parts[2].count == 4, (1...2).contains(parts[0].count), (1...2).contains(parts[1].count),
                  let m = Int(parts[0]), let d = Int(parts[1]), let y = Int(parts[2]) else { return nil }
            (year, month, day) = (y, m, d)
        }
        guard (1000...9999).contains(year), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
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
struct ExtraJSON {
    private var text = "{"

    var isEmpty: Bool { text.utf8.count == 1 }

    mutating func append(key: String, value: String) {
        if !isEmpty { text += "," }
        Self.appendQuoted(key, to: &text)
        text += ":"
        Self.appendQuoted(value, to: &text)
    }

    func finished() -> String? { isEmpty ? nil : text + "}" }

    static func appendQuoted(_ string: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for b in string.utf8 where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
            needsEscape = true
            break
        }
        if !needsEscape {
            out += string
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
