import ArgumentParser
import Foundation
import WellKit

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

/// `text` quoted for a POSIX shell when it needs it: as it is when it is not empty and all its
/// characters are letters, digits or `-_./:=@`; else in single quotes (``shellWord(_:plain:)``).
///
/// The commands a message suggests use this. `wells demo` (``Wells/Demo/shellQuoted(_:)``) and
/// `wells list`'s index advice keep their own sets of plain characters, so that what they print stays as it was.
func shellQuoted(_ text: String) -> String {
    shellWord(text, plain: !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@".contains($0) })
}

/// `text` as one word for a POSIX shell: as it is when `plain`, else in single quotes, each `'` written `'\''`.
func shellWord(_ text: String, plain: Bool) -> String {
    plain ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
