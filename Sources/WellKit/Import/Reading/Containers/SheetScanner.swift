/// A worksheet part (`xl/worksheets/sheetN.xml`) read as bytes: the few elements a sheet's cells
/// need (`dimension`, `row`, `c`, `v`, `is`/`t`, `rPh`), their attributes and text (and the shared
/// strings' `si`, read as cells), with XML's
/// character references and line-end normalization, handed to ``SheetRows`` as FoundationXML's
/// `XMLParser` would hand them.
///
/// Why not `XMLParser`: it built an attribute dictionary and a `String` per element and callback,
/// and a 244,292-well workbook loaded in 9.5 times its CSV's time (Benchmarks/README.md, the
/// .xlsx race). A sheet is machine-written XML of one shape; anything but UTF-8 (a UTF-16 part)
/// is still read by `XMLParser`, and XML this scanner cannot follow (an unclosed tag or comment)
/// is refused with its line, as `XMLParser` refused it.
/// What ``SheetScanner`` hands on: ``SheetRows``, and in the fuzzer (`Fuzz/Targets/SheetFuzz.swift`) a recorder.
protocol SheetEvents: AnyObject {
    /// Whether text read now belongs to a cell's value, and that value so far.
    var collecting: Bool { get }
    var text: String { get set }
    func dimension(_ reference: String?)
    func startRow(_ reference: String?)
    func startCell(reference: String?, type: String?, style: String?)
    func startValue()
    func endValue()
    func endCell()
    func endRow() throws
}

struct SheetScanner {
    /// Why the part could not be read, and on which line.
    struct Failure: Error {
        var line: Int
        var reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether the part is UTF-8 (no byte-order mark of UTF-16, no `encoding` other than UTF-8 in its declaration).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2 else { return true }
        if bytes[0] == 0xFF || bytes[0] == 0xFE || bytes[0] == 0 || bytes[1] == 0 { return false }
        let head = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<min(bytes.count, 200)]), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml"), let end = head.firstRange(of: "?>"),
              let encoding = head[..<end.lowerBound].firstRange(of: "encoding=") else { return true }
        let value = head[encoding.upperBound...].dropFirst().prefix { $0 != "\"" && $0 != "'" }.lowercased()
        return value == "utf-8" || value == "utf8"
    }

    private enum Element { case dimension, row, cell, value, inline, phonetic, other }

    /// Reads the part, calling `rows` for each element and text it needs.
    func scan(into rows: some SheetEvents) throws {
        let n = bytes.count
        var i = 0
        var phonetic = 0
        while i < n {
            if bytes[i] != UInt8(ascii: "<") {
                let start = i
                while i < n && bytes[i] != UInt8(ascii: "<") { i += 1 }
                if rows.collecting && phonetic == 0 { rows.text += try decode(start, i) }
                continue
            }
            guard i + 1 < n else { throw failure(at: i, "the part ends inside a tag") }
            switch bytes[i + 1] {
            case UInt8(ascii: "/"):
                var k = i + 2
                let element = name(&k)
                guard let close = find(UInt8(ascii: ">"), from: k) else { throw failure(at: i, "the part ends inside a closing tag") }
                i = close + 1
                switch element {
                case .value: if phonetic == 0 { rows.endValue() }
                case .phonetic: phonetic = max(0, phonetic - 1)
                case .cell: rows.endCell()
                case .row: try rows.endRow()
                default: break
                }
            case UInt8(ascii: "?"):
                guard let end = find("?>", from: i + 2) else { throw failure(at: i, "the part ends inside a processing instruction") }
                i = end + 2
            case UInt8(ascii: "!"):
                if matches("<!--", at: i) {
                    guard let end = find("-->", from: i + 4) else { throw failure(at: i, "the part ends inside a comment") }
                    i = end + 3
                } else if matches("<![CDATA[", at: i) {
                    guard let end = find("]]>", from: i + 9) else { throw failure(at: i, "the part ends inside a CDATA section") }
                    if rows.collecting && phonetic == 0 {
                        rows.text += String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 9)..<end]), as: UTF8.self)
                    }
                    i = end + 3
                } else {
                    guard let end = find(UInt8(ascii: ">"), from: i + 2) else { throw failure(at: i, "the part ends inside a declaration") }
                    i = end + 1
                }
            default:
                var k = i + 1
                let element = name(&k)
                var reference: String?, type: String?, style: String?
                var selfClosing = false
                // Attributes, up to `>` or `/>`.
                while true {
                    while k < n && Self.isSpace(bytes[k]) { k += 1 }
                    guard k < n else { throw failure(at: i, "the part ends inside a tag") }
                    if bytes[k] == UInt8(ascii: ">") { k += 1; break }
                    if bytes[k] == UInt8(ascii: "/") {
                        guard k + 1 < n, bytes[k + 1] == UInt8(ascii: ">") else { throw failure(at: k, "a tag has a stray \"/\"") }
                        selfClosing = true
                        k += 2
                        break
                    }
                    let nameStart = k
                    while k < n && bytes[k] != UInt8(ascii: "=") && !Self.isSpace(bytes[k]) && bytes[k] != UInt8(ascii: ">") { k += 1 }
                    let nameEnd = k
                    while k < n && Self.isSpace(bytes[k]) { k += 1 }
                    guard k < n, bytes[k] == UInt8(ascii: "=") else { throw failure(at: k, "an attribute has no value") }
                    k += 1
                    while k < n && Self.isSpace(bytes[k]) { k += 1 }
                    guard k < n, bytes[k] == UInt8(ascii: "\"") || bytes[k] == UInt8(ascii: "'") else { throw failure(at: k, "an attribute's value is not quoted") }
                    let quote = bytes[k]
                    guard let valueEnd = find(quote, from: k + 1) else { throw failure(at: k, "the part ends inside an attribute's value") }
                    let attribute = UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd])
                    switch element {
                    case .cell:
                        if Self.equals(attribute, "r") { reference = try decode(k + 1, valueEnd) }
                        else if Self.equals(attribute, "t") { type = try decode(k + 1, valueEnd) }
                        else if Self.equals(attribute, "s") { style = try decode(k + 1, valueEnd) }
                    case .row, .dimension:
                        if Self.equals(attribute, element == .row ? "r" : "ref") { reference = try decode(k + 1, valueEnd) }
                    default: break
                    }
                    k = valueEnd + 1
                }
                i = k
                switch element {
                case .dimension: rows.dimension(reference)
                case .row:
                    rows.startRow(reference)
                    if selfClosing { try rows.endRow() }
                case .cell:
                    rows.startCell(reference: reference, type: type, style: style)
                    if selfClosing { rows.endCell() }
                case .value:
                    if phonetic == 0 {
                        rows.startValue()
                        if selfClosing { rows.endValue() }
                    }
                case .phonetic: if !selfClosing { phonetic += 1 }
                default: break
                }
            }
        }
    }

    /// The element whose name starts at `k` (a namespace prefix left out), with `k` moved past the name.
    private func name(_ k: inout Int) -> Element {
        var local = k
        while k < bytes.count, !Self.isSpace(bytes[k]), bytes[k] != UInt8(ascii: ">"), bytes[k] != UInt8(ascii: "/") {
            if bytes[k] == UInt8(ascii: ":") { local = k + 1 }
            k += 1
        }
        let name = UnsafeBufferPointer(rebasing: bytes[local..<k])
        switch name.count {
        case 1: return name[0] == UInt8(ascii: "c") ? .cell : name[0] == UInt8(ascii: "v") || name[0] == UInt8(ascii: "t") ? .value : .other
        // A shared string (`si` of `xl/sharedStrings.xml`) is read as a cell is: its `t` runs are its value.
        case 2: return Self.equals(name, "is") ? .inline : Self.equals(name, "si") ? .cell : .other
        case 3: return Self.equals(name, "row") ? .row : Self.equals(name, "rPh") ? .phonetic : .other
        case 9: return Self.equals(name, "dimension") ? .dimension : .other
        default: return .other
        }
    }

    /// The text of `start..<end` with its character references (`&amp;`, `&#10;`, `&#x41;`) decoded
    /// and its line ends (`\r\n`, `\r`) read as `\n`, as XML has them.
    private func decode(_ start: Int, _ end: Int) throws -> String {
        var plain = true
        for k in start..<end where bytes[k] == UInt8(ascii: "&") || bytes[k] == 13 { plain = false; break }
        if plain { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        var k = start
        while k < end {
            let byte = bytes[k]
            if byte == 13 {
                out.append(10)
                k += k + 1 < end && bytes[k + 1] == 10 ? 2 : 1
                continue
            }
            guard byte == UInt8(ascii: "&") else { out.append(byte); k += 1; continue }
            guard let semicolon = find(UInt8(ascii: ";"), from: k + 1), semicolon < end, semicolon - k <= 12 else {
                throw failure(at: k, "an \"&\" that starts no character reference")
            }
            let entity = UnsafeBufferPointer(rebasing: bytes[(k + 1)..<semicolon])
            if Self.equals(entity, "amp") { out.append(UInt8(ascii: "&")) }
            else if Self.equals(entity, "lt") { out.append(UInt8(ascii: "<")) }
            else if Self.equals(entity, "gt") { out.append(UInt8(ascii: ">")) }
            else if Self.equals(entity, "quot") { out.append(UInt8(ascii: "\"")) }
            else if Self.equals(entity, "apos") { out.append(UInt8(ascii: "'")) }
            else if entity.first == UInt8(ascii: "#") {
                let digits = String(decoding: UnsafeBufferPointer(rebasing: entity.dropFirst()), as: UTF8.self)
                let scalar = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let scalar, let unicode = Unicode.Scalar(scalar), scalar != 0 else {
                    throw failure(at: k, "a character reference &\(digits); that names no character")
                }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            } else {
                throw failure(at: k, "an unknown entity &\(String(decoding: entity, as: UTF8.self));")
            }
            k = semicolon + 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func find(_ byte: UInt8, from start: Int) -> Int? {
        var k = start
        while k < bytes.count { if bytes[k] == byte { return k }; k += 1 }
        return nil
    }

    private func find(_ text: StaticString, from start: Int) -> Int? {
        var k = start
        while let at = find(text.utf8Start.pointee, from: k) {
            if matches(text, at: at) { return at }
            k = at + 1
        }
        return nil
    }

    private func matches(_ text: StaticString, at k: Int) -> Bool {
        guard k + text.utf8CodeUnitCount <= bytes.count else { return false }
        for j in 0..<text.utf8CodeUnitCount where bytes[k + j] != text.utf8Start[j] { return false }
        return true
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        for j in 0..<bytes.count where bytes[j] != text.utf8Start[j] { return false }
        return true
    }

    @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 10 || byte == 13
    }

    private func failure(at k: Int, _ reason: String) -> Failure {
        var line = 1
        for j in 0..<min(k, bytes.count) where bytes[j] == 10 { line += 1 }
        return Failure(line: line, reason: reason)
    }
}
