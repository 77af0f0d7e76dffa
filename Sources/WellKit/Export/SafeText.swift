import Foundation

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
