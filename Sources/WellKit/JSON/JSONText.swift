import Foundation

// The JSON text WellKit writes by hand, in one place: string literals (a row's extra values, the
// exporters' and the server's strings), value literals (a cell of JSON, NDJSON and GeoJSON output),
// and the encoder of the JSON columns a load records. The reader is ``JSONDocument``; the builders of
// a row's `details.extra` are ``ExtraJSON`` and ``ExtraArray``.

extension ExtraJSON {
    /// Appends `text` (UTF-8) as a JSON string literal: quoted, with `"`, `\\` and control characters escaped.
    static func appendQuoted(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if !text.contains(where: needsEscape) {
            out.append(contentsOf: text)
        } else {
            for b in text {
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
    package static func appendQuoted(_ string: String, to out: inout String) {
        guard needsEscape(string) else {
            out += "\""
            out += string
            out += "\""
            return
        }
        var bytes: [UInt8] = [], string = string
        string.withUTF8 { appendQuoted($0, to: &bytes) }
        out += String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ string: String) -> Bool {
        // The contiguous bytes when the string has them (native strings do): a plain loop, not UTF8View's iterator.
        string.utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscape) } ?? string.utf8.contains(where: needsEscape)
    }

    @inline(__always)
    private static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") }
}

extension ResultWriter {
    /// A value as a JSON literal: a number, a string or null.
    package static func json(_ value: WellValue) -> String {
        var out: [UInt8] = []
        appendJSON(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``json(_:)`` of `value` to `out` as UTF-8, a string quoted in place.
    package static func appendJSON(_ value: WellValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .integer(let n): out.append(contentsOf: String(n).utf8)
        case .real(let d):
            if d.isFinite { appendNumber(d, to: &out) } else { out.append(contentsOf: "null".utf8) }
        case .text(var s): s.withUTF8 { ExtraJSON.appendQuoted($0, to: &out) }
        case .blob(let data):
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: data.base64EncodedString().utf8)
            out.append(UInt8(ascii: "\""))
        }
    }
}

extension JSONEncoder {
    /// An encoder with sorted keys, for stable JSON in the store.
    package static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
