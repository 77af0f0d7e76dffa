import ArgumentParser
import Foundation
import WellKit

/// User text made safe to echo to a terminal: control characters escaped, long text shortened.
///
/// A well name, an identifier or an argument can hold `ESC[2J` (clear the screen), `ESC]0;…BEL`
/// (set the window title), a NUL or a right-to-left override. Echoed as they are, they act on the
/// terminal instead of being read. `SafeText` writes each as a Swift escape, `\u{1B}`, so the text is
/// shown rather than obeyed.
///
/// For example:
///
/// ```swift
/// SafeText.escaped("A\u{1B}[2J")       // A\u{1B}[2J, as 11 plain characters
/// SafeText.quoted(String(repeating: "x", count: 1_000_000))   // "xxx…" (999,800 more characters)
/// ```
package enum SafeText {
    /// The longest text echoed in an error message; the rest is counted, not printed.
    package static let echoLimit = 200

    /// `text` with every control character (C0 except tab and line feed, DEL, C1) and every
    /// bidirectional formatting character written as `\u{XX}`; a backslash stays a backslash.
    package static func escaped(_ text: String, keepingLineBreaks: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A table cell: on one line, every control character escaped (a line break as `\u{A}`).
    package static func cell(_ text: String) -> String {
        escaped(text, keepingLineBreaks: false)
    }

    /// User text for an error message: escaped, on one line, at most `echoLimit` characters, in double quotes.
    package static func quoted(_ text: String) -> String {
        let shown = escaped(String(text.prefix(echoLimit)), keepingLineBreaks: false)
        let rest = text.count - echoLimit
        return "\"\(shown)\"" + (rest > 0 ? "… (\(grouped(rest)) more characters)" : "")
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true   // bidirectional formatting
        default: return false
        }
    }
}

extension Terminal {
    /// Prints `error` as `wells: error: …` with control characters escaped, and returns the exit code to throw.
    ///
    /// Library errors quote the user's text (a box, a CRS, a condition); this keeps that text from acting on
    /// the terminal and keeps an enormous argument from filling it.
    package static func failSafely(_ error: any Error) -> ExitCode {
        let text = describe(error)
        let shown = text.count > 4 * SafeText.echoLimit
            ? String(text.prefix(4 * SafeText.echoLimit)) + "… (\(grouped(text.count - 4 * SafeText.echoLimit)) more characters)"
            : text
        Self.error("wells: error: \(SafeText.escaped(shown))")
        return exitCode(for: error)
    }
}

extension ResultWriter {
    /// A writer whose tables escape control characters in every cell (see ``SafeText/cell(_:)``);
    /// CSV, JSON, NDJSON and GeoJSON keep the data byte for byte.
    convenience init(terminal format: OutputFormat, columns: [String], emit: @escaping (String) -> Void) {
        self.init(format: format, columns: columns, tableCell: SafeText.cell, emit: emit)
    }
}

/// `text` quoted for a POSIX shell when it needs it.
func shellQuoted(_ text: String) -> String {
    let plain = text.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@".contains($0) }
    return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
