/// Parses angles written as degrees-minutes-seconds (or plain decimal degrees) into decimal degrees.
///
/// Accepted forms:
/// - plain decimal degrees: `-87.837`, `36.9`
/// - compact `DDMMSS[.ss]` / `DDDMMSS[.ss]` (5 to 7 integer digits): `875013.67` = 87°50'13.67"
/// - symbols or letters: `36°54'1.2"N`, `-87°50'13.67"`, `36d54m1.2s N`, `N 36 54 1.2`
/// - space or colon separated: `87 50 13.67 W`, `36:54:01.2`
///
/// A hemisphere letter (N/S/E/W) or a sign sets the sign; when the text has
/// neither, `impliedHemisphere` applies (`.west`/`.south` negate). Minutes must be
/// below 60 and seconds at most 60 (`60.00`, a rounding artefact, carries into the
/// minute); latitudes may not exceed 90°, longitudes 180°.
///
/// For example:
///
/// ```swift
/// let lon = try DMS.parse("875013.67", impliedHemisphere: .west)   // -87.837131 ...
/// let lat = try DMS.parse("36°54'1.2\"N")                           // 36.9003333 ...
/// DMS.degrees("87 61 00 W")                                         // nil (minutes >= 60)
/// ```
package enum DMS {
    /// A compass hemisphere, stated in the text or implied by the caller.
    package enum Hemisphere: Sendable, Hashable {
        case north, south, east, west

        /// -1 for south and west, +1 otherwise.
        package var sign: Double { self == .south || self == .west ? -1 : 1 }
        /// True for north and south (a latitude).
        package var isLatitude: Bool { self == .north || self == .south }
    }

    /// Why a string is not a valid angle.
    package struct ParseError: Error, CustomStringConvertible, Sendable, Equatable {
        /// The text that failed to parse.
        package let input: String
        /// A short reason, e.g. "minutes must be below 60 (got 61)".
        package let reason: String
        package var description: String { "cannot read \"\(input)\" as degrees: \(reason)" }
    }

    /// Parses `text` to decimal degrees, or returns nil when it is not a valid angle.
    package static func degrees(_ text: String, impliedHemisphere: Hemisphere? = nil) -> Double? {
        try? parse(text, impliedHemisphere: impliedHemisphere)
    }

    /// Parses `text` to decimal degrees, throwing a `ParseError` with the reason.
    package static func parse(_ text: String, impliedHemisphere: Hemisphere? = nil) throws(ParseError) -> Double {
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason) }
        let tokens = try tokenize(text, fail: fail)
        var negative = false, sawSign = false
        var hemisphere: Hemisphere?
        var parts: [(value: String, unit: Int?)] = []   // unit 0 = deg, 1 = min, 2 = sec
        for (index, token) in tokens.enumerated() {
            switch token {
            case .sign(let minus):
                guard index == 0 else { throw fail("a sign may only come first") }
                negative = minus
                sawSign = true
            case .hemisphere(let h):
                guard hemisphere == nil else { throw fail("more than one hemisphere letter") }
                guard index == 0 || index == tokens.count - 1 else {
                    throw fail("the hemisphere letter must come first or last")
                }
                hemisphere = h
            case .number(let digits): parts.append((digits, nil))
            case .unit(let unit):
                guard let last = parts.last, last.unit == nil, case .number = tokens[index - 1]
                else { throw fail("a degree/minute/second mark must follow a number") }
                parts[parts.count - 1].unit = unit
            }
        }
        guard !parts.isEmpty else { throw fail("no number") }
        guard parts.count <= 3 else { throw fail("more than three numbers") }
        if sawSign, hemisphere != nil { throw fail("both a sign and a hemisphere letter") }
        if let hemisphere, let implied = impliedHemisphere, hemisphere.isLatitude != implied.isLatitude {
            throw fail("hemisphere \(hemisphere) given for a \(implied.isLatitude ? "latitude" : "longitude")")
        }

        var values: [Double] = [0, 0, 0]
        var given = [false, false, false]
        if parts.count == 1, parts[0].unit == nil, !text.contains(":") {
            try readPlain(parts[0].value, into: &values, given: &given, fail: fail)
        } else {
            var next = 0
            for part in parts {
                let position = part.unit ?? next
                guard position >= next, position < 3 else {
                    throw fail("degrees, minutes and seconds are out of order")
                }
                guard let value = Double(part.value) else { throw fail("bad number \"\(part.value)\"") }
                values[position] = value
                given[position] = true
                next = position + 1
            }
        }
        let (d, m, s) = (values[0], values[1], values[2])
        if given[1] || given[2], d != d.rounded() {
            throw fail("degrees must be whole when minutes or seconds follow")
        }
        if given[2], m != m.rounded() { throw fail("minutes must be whole when seconds follow") }
        guard m < 60 else { throw fail("minutes must be below 60 (got \(m.projDecimal(4)))") }
        // Seconds of exactly 60 are a rounding artefact (59.996 written to two decimals): they carry into the minute.
        guard s <= 60 else { throw fail("seconds must be below 60 (got \(s.projDecimal(4)))") }

        let magnitude = d + m / 60 + s / 3600
        let isLatitude = (hemisphere ?? impliedHemisphere)?.isLatitude
        let limit = isLatitude == true ? 90.0 : 180.0
        guard magnitude <= limit else {
            throw fail("\(magnitude.projDecimal(6))° exceeds \(Int(limit))°")
        }
        if let hemisphere { return hemisphere.sign * magnitude }
        if sawSign { return negative ? -magnitude : magnitude }
        return (impliedHemisphere?.sign ?? 1) * magnitude
    }

    /// A lone number: decimal degrees (up to 3 integer digits) or compact D(DD)MMSS (5-7).
    private static func readPlain(_ digits: String, into values: inout [Double], given: inout [Bool],
                                  fail: (String) -> ParseError) throws(ParseError) {
        let pieces = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, let whole = pieces.first else { throw fail("bad number \"\(digits)\"") }
        let fraction = pieces.count == 2 ? "." + pieces[1] : ""
        switch whole.count {
        case 0...3:
            guard let value = Double(digits) else { throw fail("bad number \"\(digits)\"") }
            values[0] = value
            given[0] = true
        case 5...7:
            let padded = Array(whole.count == 5 ? "0" + whole : String(whole))
            let degreeDigits = padded.count - 4
            guard let d = Double(String(padded[..<degreeDigits])),
                  let m = Double(String(padded[degreeDigits..<degreeDigits + 2])),
                  let s = Double(String(padded[(degreeDigits + 2)...]) + fraction)
            else { throw fail("bad compact DDMMSS number \"\(digits)\"") }
            values = [d, m, s]
            given = [true, true, true]
        default:
            throw fail("\(whole.count) integer digits: expected decimal degrees or DDMMSS / DDDMMSS")
        }
    }

    private enum Token {
        case sign(Bool)           // true = minus
        case number(String)
        case unit(Int)            // 0 degrees, 1 minutes, 2 seconds
        case hemisphere(Hemisphere)
    }

    private static func tokenize(_ text: String, fail: (String) -> ParseError) throws(ParseError) -> [Token] {
        let chars = Array(text.trimmingWhitespace().unicodeScalars)
        guard !chars.isEmpty else { throw fail("empty") }
        var tokens: [Token] = []
        var letterUnits = false   // "36d54m1.2s": a trailing "s" means seconds, not south
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.properties.isWhitespace || c == "," || c == ":" { i += 1; continue }
            if ("0"..."9").contains(c) || c == "." {
                var j = i
                while j < chars.count, ("0"..."9").contains(chars[j]) || chars[j] == "." { j += 1 }
                tokens.append(.number(String(String.UnicodeScalarView(chars[i..<j]))))
                i = j
                continue
            }
            if c.properties.isAlphabetic, !"°º˚".unicodeScalars.contains(c) {
                var j = i
                while j < chars.count, chars[j].properties.isAlphabetic { j += 1 }
                let word = String(String.UnicodeScalarView(chars[i..<j])).lowercased()
                let afterNumber: Bool = { if case .number = tokens.last { return true }; return false }()
                switch word {
                case "d", "deg", "degree", "degrees": tokens.append(.unit(0)); letterUnits = true
                case "m", "min", "mins", "minute", "minutes": tokens.append(.unit(1)); letterUnits = true
                case "s" where letterUnits && afterNumber: tokens.append(.unit(2))
                case "sec", "secs", "second", "seconds": tokens.append(.unit(2))
                case "n", "north": tokens.append(.hemisphere(.north))
                case "s", "south": tokens.append(.hemisphere(.south))
                case "e", "east": tokens.append(.hemisphere(.east))
                case "w", "west": tokens.append(.hemisphere(.west))
                default: throw fail("unexpected \"\(word)\"")
                }
                i = j
                continue
            }
            switch c {
            case "-", "\u{2212}": tokens.append(.sign(true))
            case "+": tokens.append(.sign(false))
            case "°", "º", "˚": tokens.append(.unit(0))
            case "'", "′", "’", "‘":
                if i + 1 < chars.count, chars[i + 1] == "'" || chars[i + 1] == "’" {
                    tokens.append(.unit(2))   // two single quotes = seconds
                    i += 1
                } else {
                    tokens.append(.unit(1))
                }
            case "\"", "″", "”", "“": tokens.append(.unit(2))
            default: throw fail("unexpected character \"\(Character(c))\"")
            }
            i += 1
        }
        return tokens
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
