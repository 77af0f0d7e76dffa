/// Writes RFC 4180 CSV: a field is quoted when it holds a comma, quote, CR or LF, and
/// inner quotes are doubled.
///
/// For example:
///
/// ```swift
/// CSVWriter.line(["42", "Smith, J.", "say \"hi\""])  // 42,"Smith, J.","say ""hi"""
/// ```
package enum CSVWriter {
    /// One field, quoted if it needs to be.
    package static func field(_ text: String) -> String {
        guard text.utf8.contains(where: needsQuotes) else { return text }
        var out: [UInt8] = []
        append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends one field, quoted if it needs to be, to `out` as UTF-8.
    package static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            guard bytes.contains(where: needsQuotes) else { return out.append(contentsOf: bytes) }
            out.append(UInt8(ascii: "\""))
            for b in bytes {
                if b == UInt8(ascii: "\"") { out.append(b) }
                out.append(b)
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func needsQuotes(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "\"") || b == 0x0A || b == 0x0D
    }

    /// One record, without its line break.
    package static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",")
    }
}
