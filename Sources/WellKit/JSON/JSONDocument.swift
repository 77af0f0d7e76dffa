import Foundation

/// A parsed JSON document, for reading GeoJSON areas.
///
/// Foundation's readers were the bottleneck of `wells count --by-area` (`JSONSerialization` and
/// `JSONDecoder` make an `NSNumber` of every coordinate; `wells-bench analysis`). This reader is
/// many times faster: numbers are `strtod`'s, objects keep their keys in order, nesting stops at
/// 512 levels.
enum JSONDocument: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONDocument])
    case object([(key: String, value: JSONDocument)])

    static func == (a: JSONDocument, b: JSONDocument) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.elementsEqual(y) { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member `key` of an object (the first, if repeated), nil otherwise.
    subscript(key: String) -> JSONDocument? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var array: [JSONDocument]? { if case .array(let a) = self { a } else { nil } }

    /// Parses `data` as one JSON value.
    ///
    /// - Throws: ``QueryError`` (`.syntax`) naming the byte offset of what could not be read.
    static func parse(_ data: Data) throws -> JSONDocument {
        try data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            let value = try parser.value(depth: 0)
            parser.skipSpace()
            guard parser.at == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
            return value
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        mutating func value(depth: Int) throws -> JSONDocument {
            guard depth < 512 else { throw error("JSON nested more than 512 levels deep") }
            skipSpace()
            guard at < bytes.count else { throw error("unexpected end of the JSON text") }
            switch bytes[at] {
            case UInt8(ascii: "{"):
                at += 1
                var members: [(key: String, value: JSONDocument)] = []
                skipSpace()
                if peek(UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipSpace()
                    guard peek(UInt8(ascii: "\""), consume: false) else { throw error("expected a member name in quotes") }
                    let key = try string()
                    skipSpace()
                    guard peek(UInt8(ascii: ":")) else { throw error("expected : after a member name") }
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                } while peek(UInt8(ascii: ","))
                guard peek(UInt8(ascii: "}")) else { throw error("expected , or }") }
                return .object(members)
            case UInt8(ascii: "["):
                at += 1
                var elements: [JSONDocument] = []
                skipSpace()
                if peek(UInt8(ascii: "]")) { return .array(elements) }
                repeat { elements.append(try value(depth: depth + 1)); skipSpace() } while peek(UInt8(ascii: ","))
                guard peek(UInt8(ascii: "]")) else { throw error("expected , or ]") }
                return .array(elements)
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default:
                return .number(try number())
            }
        }

        mutating func number() throws -> Double {
            let start = at
            while at < bytes.count, Self.isNumberByte(bytes[at]) { at += 1 }
            guard at > start, at - start < 64 else { at = start; throw error("expected a value") }
            let count = at - start
            let (value, used) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { text in
                for k in 0..<count { text[k] = CChar(bitPattern: bytes[start + k]) }
                text[count] = 0
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(text.baseAddress!, &end)
                return (value, end.map { $0 - text.baseAddress! } ?? 0)
            }
            guard used == count, value.isFinite else { at = start; throw error("not a number") }
            return value
        }

        static func isNumberByte(_ c: UInt8) -> Bool {
            (48...57).contains(c) || c == 45 || c == 43 || c == 46 || c == 101 || c == 69
        }

        mutating func string() throws -> String {
            at += 1   // the opening quote
            var utf8: [UInt8] = []
            while at < bytes.count {
                let c = bytes[at]
                at += 1
                switch c {
                case UInt8(ascii: "\""):
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard at < bytes.count else { break }
                    let e = bytes[at]
                    at += 1
                    switch e {
                    case UInt8(ascii: "n"): utf8.append(10)
                    case UInt8(ascii: "t"): utf8.append(9)
                    case UInt8(ascii: "r"): utf8.append(13)
                    case UInt8(ascii: "b"): utf8.append(8)
                    case UInt8(ascii: "f"): utf8.append(12)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        // A high surrogate joins the low one after it; any other, alone, is U+FFFD below.
                        if (0xD800..<0xDC00).contains(scalar), at + 5 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u"),
                           let low = UInt32(String(decoding: bytes[at + 2..<at + 6], as: UTF8.self), radix: 16), (0xDC00..<0xE000).contains(low) {
                            at += 6
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        utf8 += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                    default: utf8.append(e)   // \" \\ \/
                    }
                default:
                    utf8.append(c)
                }
            }
            throw error("a string that does not end")
        }

        mutating func hex4() throws -> UInt32 {
            guard at + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
                throw error("expected four hexadecimal digits after \\u")
            }
            at += 4
            return value
        }

        mutating func literal(_ word: String) throws {
            let expected = Array(word.utf8)
            guard at + expected.count <= bytes.count, Array(bytes[at..<at + expected.count]) == expected else { throw error("expected a value") }
            at += expected.count
        }

        /// Whether the next byte is `byte`, consuming it when it is and `consume` says so.
        mutating func peek(_ byte: UInt8, consume: Bool = true) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            if consume { at += 1 }
            return true
        }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 32 || bytes[at] == 10 || bytes[at] == 13 || bytes[at] == 9 { at += 1 }
        }

        func error(_ reason: String) -> QueryError {
            QueryError(.syntax, "\(reason) at byte \(at + 1)", subject: .area, offset: at + 1)
        }
    }
}
