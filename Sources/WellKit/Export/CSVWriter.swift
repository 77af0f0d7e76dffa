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
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One record, without its line break.
    package static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",")
    }
}
