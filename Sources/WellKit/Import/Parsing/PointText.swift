import Foundation

/// Both coordinates of a well in one column, as exports write them:
///
/// - WKT, x (longitude) first: `POINT (-97.5 35.4)`, `POINT Z (-97.5 35.4 300)`;
/// - EWKT, with its SRID: `SRID=4326;POINT(-97.5 35.4)`;
/// - a tuple, latitude first (as map sites copy it): `(35.4, -97.5)`, `[35.4, -97.5]`, `35.4, -97.5`;
/// - a DMS pair, latitude first: `37°36'37.8"N 121°2'17.9"W`.
///
/// For example:
///
/// ```swift
/// PointText.parse("SRID=4326;POINT(-97.5 35.4)")   // x -97.5, y 35.4, srid 4326
/// PointText.parse("(35.4, -97.5)")                  // x -97.5, y 35.4
/// ```
enum PointText {
    struct Point: Equatable {
        var x: Double
        var y: Double
        var srid: Int?
        var form: Form
    }

    enum Form: String {
        case wkt = "WKT points (x y)"
        case tuple = "(latitude, longitude) pairs"
        case dmsPair = "DMS pairs (latitude longitude)"
    }

    static func parse(_ raw: String, decimalComma: Bool = false) -> Point? {
        var text = raw.trimmingSpaces()
        var srid: Int?
        if hasPrefix(text, caseless: "SRID=") {
            guard let semicolon = text.firstIndex(of: ";"), let code = Int(text[text.index(text.startIndex, offsetBy: 5)..<semicolon]) else { return nil }
            srid = code
            text = text[text.index(after: semicolon)...].trimmingSpaces()
        }
        if hasPrefix(text, caseless: "POINT") {
            guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else { return nil }
            let modifier = text[text.index(text.startIndex, offsetBy: 5)..<open].trimmingSpaces().uppercased()
            guard ["", "Z", "M", "ZM"].contains(modifier) else { return nil }
            let numbers = text[text.index(after: open)..<close].split(whereSeparator: { $0 == " " || $0 == "\t" }).map { ValueParsing.number(String($0)) }
            guard numbers.count >= 2, numbers.count <= 4, let x = numbers[0], let y = numbers[1] else { return nil }
            return Point(x: x, y: y, srid: srid, form: .wkt)
        }
        guard srid == nil else { return nil }
        // A tuple: two numbers between a comma (or a semicolon with decimal commas), in brackets or not.
        var inner = text
        if let first = inner.first, let last = inner.last, (first == "(" && last == ")") || (first == "[" && last == "]") {
            inner = inner.dropFirst().dropLast()
        }
        let separator: Character = decimalComma ? ";" : ","
        let parts = inner.split(separator: separator, omittingEmptySubsequences: false).map { String($0.trimmingSpaces()) }
        if parts.count == 2 {
            let read = { (s: String) in decimalComma ? ValueParsing.decimalComma(s) : ValueParsing.number(s) }
            if let lat = read(parts[0]), let lon = read(parts[1]) { return Point(x: lon, y: lat, srid: nil, form: .tuple) }
        }
        // A DMS pair: the latitude ends with N or S, the longitude follows.
        guard let end = text.firstIndex(where: { "NSns".contains($0) }) else { return nil }
        let latitudeText = String(text[...end])
        var longitude = text[text.index(after: end)...].drop { " ,;\t".contains($0) }
        while let last = longitude.last, " ,;\t".contains(last) { longitude.removeLast() }
        let longitudeText = String(longitude)
        guard !longitudeText.isEmpty, latitudeText.contains(where: { $0.isNumber }),
              let lat = DMS.degrees(latitudeText), let lon = DMS.degrees(longitudeText),
              abs(lat) <= 90, abs(lon) <= 180 else { return nil }
        return Point(x: lon, y: lat, srid: nil, form: .dmsPair)
    }

    /// Whether `text` begins with `prefix` (ASCII, its letters upper case), its letters in any case.
    private static func hasPrefix(_ text: Substring, caseless prefix: StaticString) -> Bool {
        let bytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var utf8 = text.utf8.makeIterator()
        for expected in bytes {
            guard let b = utf8.next() else { return false }
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) ? b - 0x20 : b
            guard upper == expected else { return false }
        }
        return true
    }
}

/// What a coordinate cell holds when it holds no number: a word for "not known", or a legal
/// description of the land (PLSS: `Section 11, T6S, R24W, SM`; `Sec. 2 T10N R5W`), as Alaska's list
/// writes for 9 of its 45 wells. Each is a reject of its own row with its own reason, so that a
/// column the user named still loads the rows it can (only the failure path asks).
enum UnreadableCoordinate {
    case missing(String)
    case legalDescription(String)

    /// The words agencies write for an unknown location.
    static let missingWords: Set<String> = ["unknown", "unk", "n/a", "na", "none", "null", "nil", "-", "--", "?", "tbd",
                                            "not available", "not known", "not recorded", "no data"]

    init?(_ raw: String) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if Self.missingWords.contains(text.lowercased()) { self = .missing(text); return }
        guard Self.isLegalDescription(text) else { return nil }
        self = .legalDescription(text)
    }

    /// A township (`T6S`, `T 10 N`) and a range (`R24W`, `R 5 W`) in the text: the Public Land Survey
    /// System's words, which place a section of a square mile, not a point.
    static func isLegalDescription(_ text: String) -> Bool {
        let letters = Array(text.uppercased().unicodeScalars)
        func partAt(_ letter: Unicode.Scalar, directions: Set<Unicode.Scalar>) -> Bool {
            for k in letters.indices where letters[k] == letter && (k == 0 || !CharacterSet.letters.contains(letters[k - 1])) {
                var j = k + 1
                while j < letters.count, letters[j] == " " || letters[j] == "." { j += 1 }
                let digits = j
                while j < letters.count, ("0"..."9").contains(letters[j]) { j += 1 }
                guard j > digits else { continue }
                while j < letters.count, letters[j] == " " { j += 1 }
                if j < letters.count, directions.contains(letters[j]), j + 1 == letters.count || !CharacterSet.letters.contains(letters[j + 1]) { return true }
            }
            return false
        }
        return partAt("T", directions: ["N", "S"]) && partAt("R", directions: ["E", "W"])
    }
}
