// The text of a record's fields, from the spans ``CSVScanner`` finds: doubled quotes unescaped, and UTF-8
// or else Windows-1252 decoded.

/// The fields of one record: spans over bytes that outlive it.
struct RecordFields {
    let buffer: UnsafeBufferPointer<UInt8>
    let spans: [FieldSpan]

    var count: Int { spans.count }

    @inline(__always) func isEmpty(_ index: Int) -> Bool { spans[index].isEmpty }

    /// The field as text, decoded as ``CSVReader`` decodes it.
    func text(_ index: Int) -> String { fieldText(buffer, spans[index]) }

    /// Calls `body` with the field's unescaped bytes (not yet checked as UTF-8).
    @inline(__always) func withBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withFieldBytes(buffer, spans[index], body)
    }

    /// Calls `body` with the field's text as valid UTF-8: in place when it is, else decoded.
    @inline(__always) func withText<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withBytes(index) { bytes in
            if isASCII(bytes) { return body(bytes) }
            var text = decode(bytes)
            return text.withUTF8(body)
        }
    }
}

/// Calls `body` with the field's value as bytes: unescaped, but not yet checked as UTF-8.
@inline(__always)
func withFieldBytes<R>(_ buf: UnsafeBufferPointer<UInt8>, _ span: FieldSpan, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    let raw = UnsafeBufferPointer(rebasing: buf[span.start..<span.end])
    guard span.escaped else { return body(raw) }
    var unescaped: [UInt8] = []
    unescaped.reserveCapacity(raw.count)
    var k = 0
    while k < raw.count {
        unescaped.append(raw[k])
        k += raw[k] == UInt8(ascii: "\"") ? 2 : 1
    }
    return unescaped.withUnsafeBufferPointer(body)
}

/// The field's value as text, as ``CSVReader`` returns it.
@inline(__always)
func fieldText(_ buf: UnsafeBufferPointer<UInt8>, _ span: FieldSpan) -> String {
    withFieldBytes(buf, span) { decode($0) }
}

/// Decodes UTF-8, or Windows-1252 (one character per byte) when the bytes are not valid UTF-8: Latin-1, except
/// that bytes 0x80–0x9F are the punctuation Windows writes there (curly quotes, dashes, `€`), not
/// C1 control characters; the five bytes Windows-1252 leaves undefined stay Latin-1.
@inline(__always)
func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if bytes.isEmpty { return "" }
    // ASCII first: most fields are, and the generic `String(validating:as:)` costs more per call.
    if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    return String(String.UnicodeScalarView(bytes.map { byte in
        guard (0x80...0x9F).contains(byte), let scalar = Unicode.Scalar(windows1252[Int(byte) - 0x80]), scalar.value != 0 else {
            return Unicode.Scalar(byte)
        }
        return scalar
    }))
}

/// The code points of Windows-1252's bytes 0x80–0x9F (0 where it defines none).
private let windows1252: [UInt32] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
]

/// Whether every byte is below 0x80.
@inline(__always)
func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var any: UInt8 = 0
    for byte in bytes { any |= byte }
    return any < 0x80
}
