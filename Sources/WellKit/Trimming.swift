// Trimming in the standard library. Foundation's `trimmingCharacters(in:)` bridges the string
// through `NSString` on Linux, which per-row code (each row's datum, WKT points) pays on every
// row of a load (`perf`).

extension StringProtocol {
    /// The text without tabs and Unicode's space separators (Zs) at its ends: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes.
    package func trimmingSpaces() -> SubSequence {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without Unicode's white space (spaces, tabs and line breaks) at its ends: what
    /// Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` removes.
    func trimmingWhitespace() -> SubSequence {
        trimming { $0.properties.isWhitespace }
    }

    /// The text without the characters at its ends whose every scalar is `trimmed`.
    private func trimming(_ trimmed: (Unicode.Scalar) -> Bool) -> SubSequence {
        // Most cells start and end with a printable ASCII character: nothing to look at.
        if let first = first?.asciiValue, let last = last?.asciiValue, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return self[...]
        }
        guard let start = firstIndex(where: { !$0.unicodeScalars.allSatisfy(trimmed) }),
              let end = lastIndex(where: { !$0.unicodeScalars.allSatisfy(trimmed) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
