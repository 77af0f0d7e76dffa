/// Where one field of a record lies in the scanned bytes.
struct FieldSpan: Sendable {
    /// The field's bytes: inside the quotes for a quoted field, trimmed for an unquoted one.
    var start: Int
    var end: Int
    /// A quoted field with doubled quotes inside: its bytes need unescaping before use.
    var escaped: Bool

    var isEmpty: Bool { start == end }
}

/// The RFC 4180 rules, over a byte buffer: the one place that splits records into fields.
///
/// ``CSVReader`` runs it over its streaming buffer and decodes each field into a `String`;
/// the loader runs it over the mapped file and keeps the spans, so that a field becomes text
/// only where it is stored.
struct CSVScanner: Sendable {
    let delimiter: UInt8

    enum Outcome {
        /// The record runs past `end`, and more input may follow.
        case needMore
        /// One record, ending at `end` (past its line break), spanning `lines` physical lines.
        /// On ``CSVIssue/unterminatedQuote(field:openedOnLine:)`` no fields are given.
        case record(end: Int, lines: Int, issue: CSVIssue?)
    }

    /// Scans the record that starts at `start` into `fields`.
    ///
    /// - Parameters:
    ///   - buf: The bytes; `buf[start..<end]` are the ones available.
    ///   - atEOF: Whether `end` is the end of the input; if not, a record that reaches it asks for more.
    ///   - line: The physical line on which the record starts, for an unterminated quote's report.
    ///   - limit: The fields wanted: the scan stops after the `limit`-th, and then the outcome's
    ///     `end` and `lines` are where it stopped, not the record's (a caller that knows where the
    ///     record ends and wants a few of its first fields).
    func scan(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, atEOF: Bool, line: Int,
              fields: inout [FieldSpan], limit: Int = .max) -> Outcome {
        let quote = UInt8(ascii: "\""), equals = UInt8(ascii: "="), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let delimiter = self.delimiter
        fields.removeAll(keepingCapacity: true)
        var issue: CSVIssue?
        var i = start
        var lines = 0
        while true {
            // One field. Excel's `="05-125-11325"` (a formula whose value is text, as exports guard
            // identifiers from becoming numbers) is the quoted field after its `=`: one more byte
            // compared at a field's start, none inside it.
            if i + 1 < end && buf[i] == equals && buf[i + 1] == quote { i += 1 }
            if i < end && buf[i] == quote {
                let openLine = line + lines
                var j = i + 1
                var escaped = false
                var closed = false
                while j < end {
                    j = firstOf(quote, lf, cr, quote, in: buf, from: j, to: end)
                    guard j < end else { break }
                    let b = buf[j]
                    if b == quote {
                        if j + 1 < end && buf[j + 1] == quote {
                            escaped = true
                            j += 2
                            continue
                        }
                        if j + 1 == end && !atEOF { return .needMore }
                        closed = true
                        break
                    }
                    if b == lf { lines += 1 }
                    else if b == cr && !(j + 1 < end && buf[j + 1] == lf) { lines += 1 }
                    j += 1
                }
                if !closed {
                    if !atEOF { return .needMore }
                    let field = fields.count
                    fields.removeAll(keepingCapacity: true)
                    let cut = endOfLine(buf, from: start, to: end, recordLine: line, openLine: openLine)
                    return .record(end: cut, lines: openLine + 1 - line,
                                   issue: .unterminatedQuote(field: field, openedOnLine: openLine))
                }
                fields.append(FieldSpan(start: i + 1, end: j, escaped: escaped))
                i = j + 1
                // Spaces may follow the closing quote; anything else is malformed.
                while i < end && (buf[i] == 0x20 || (buf[i] == 0x09 && delimiter != 0x09)) { i += 1 }
                if i < end && buf[i] != delimiter && buf[i] != lf && buf[i] != cr {
                    if issue == nil { issue = .textAfterClosingQuote(field: fields.count - 1) }
                    while i < end && buf[i] != delimiter && buf[i] != lf && buf[i] != cr { i += 1 }
                }
            } else {
                var a = i
                while i < end {
                    i = firstOf(delimiter, lf, cr, quote, in: buf, from: i, to: end)
                    guard i < end else { break }
                    let b = buf[i]
                    if b == delimiter || b == lf || b == cr { break }
                    // In tab-separated text (IANA text/tab-separated-values, USGS NWIS RDB) a quote
                    // inside a field is a plain character, as in `Dorfay 6" Well`; only CSV forbids it.
                    if b == quote && issue == nil && delimiter != 0x09 { issue = .quoteInUnquotedField(field: fields.count) }
                    i += 1
                }
                // Unquoted fields are trimmed of spaces and tabs.
                var b = i
                while a < b && (buf[a] == 0x20 || buf[a] == 0x09) { a += 1 }
                while b > a && (buf[b - 1] == 0x20 || buf[b - 1] == 0x09) { b -= 1 }
                fields.append(FieldSpan(start: a, end: b, escaped: false))
            }
            if fields.count >= limit { return .record(end: i, lines: lines, issue: issue) }
            // The field's terminator.
            if i == end {
                if !atEOF { return .needMore }
                break
            }
            if buf[i] == delimiter { i += 1; continue }
            if buf[i] == cr {
                if i + 1 == end && !atEOF { return .needMore }
                i += (i + 1 < end && buf[i + 1] == lf) ? 2 : 1
            } else {
                i += 1
            }
            lines += 1
            break
        }
        return .record(end: i, lines: lines, issue: issue)
    }

    /// The first index from `start` whose byte is `a`, `b`, `c` or `d`, looking eight bytes at a
    /// time; where the last fewer than eight bytes begin if none of the whole words has one.
    ///
    /// A byte of `x ^ broadcast(a)` is zero where `x` holds `a`; `(v - 0x01…) & ~v & 0x80…` sets
    /// the top bit of such bytes, and its lowest set bit is always a true match (a borrow can only
    /// mark bytes above one), so the count of trailing zero bits finds the first match. The
    /// callers check the remaining bytes one by one. A field's end is most of what a dry run
    /// looks for, so it is worth the word-at-a-time test.
    @inline(__always)
    private func firstOf(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, in buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let pa = UInt64(a) &* ones, pb = UInt64(b) &* ones, pc = UInt64(c) &* ones, pd = UInt64(d) &* ones
        let base = UnsafeRawPointer(buf.baseAddress!)
        var i = start
        while i + 8 <= end {
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let hits = zeroBytes(x ^ pa) | zeroBytes(x ^ pb) | zeroBytes(x ^ pc) | zeroBytes(x ^ pd)
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        return i
    }

    /// Where an unterminated quote's record is cut: past the line break of the line the quote opened on.
    private func endOfLine(_ buf: UnsafeBufferPointer<UInt8>, from recordStart: Int, to end: Int, recordLine: Int, openLine: Int) -> Int {
        /// The index just past the line break at `k` (LF, CRLF or a lone CR), or nil if `k` holds none.
        func pastBreak(_ k: Int) -> Int? {
            if buf[k] == 0x0A { return k + 1 }
            if buf[k] == 0x0D { return k + 1 < end && buf[k + 1] == 0x0A ? k + 2 : k + 1 }
            return nil
        }
        var k = recordStart
        var lineNumber = recordLine
        // Skip the record's complete lines before the one where the quote opened.
        while lineNumber < openLine, k < end {
            if let next = pastBreak(k) {
                lineNumber += 1
                k = next
            } else {
                k += 1
            }
        }
        while k < end {
            if let next = pastBreak(k) { return next }
            k += 1
        }
        return k
    }

    /// Whether a record's fields make a blank line, which readers skip.
    /// Appends empty fields at the end of `fields` up to `count`: a row without its trailing empty fields.
    static func padTrailing(_ fields: inout [FieldSpan], to count: Int) {
        let end = fields.last?.end ?? 0
        while fields.count < count { fields.append(FieldSpan(start: end, end: end, escaped: false)) }
    }

    static func isBlank(_ fields: [FieldSpan], issue: CSVIssue?) -> Bool {
        fields.count == 1 && fields[0].isEmpty && issue == nil
    }
}
