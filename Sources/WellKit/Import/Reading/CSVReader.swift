import Glibc

/// A streaming RFC 4180 reader of delimited text: CSV, TSV, semicolon- or pipe-separated.
///
/// For example:
///
/// ```swift
/// let reader = try CSVReader(path: "tn-oilgas-wells.csv")
/// while let record = try reader.next() {
///     print(record.line, record.fields)
/// }
/// ```
///
/// - Quoted fields may hold delimiters, doubled quotes and line breaks.
/// - Records end with LF, CRLF or a lone CR; a UTF-8 BOM (byte order mark) is skipped.
/// - The delimiter is detected from the first line unless given.
/// - Unquoted fields are trimmed of spaces and tabs; quoted fields are kept as written.
/// - In tab-separated text a quote inside an unquoted field is a plain character (`6" Well`).
/// - The loader skips `#` comment lines before the header (USGS NWIS RDB).
/// - Text that is not valid UTF-8 is read as Latin-1, one character per byte, so nothing is lost.
/// - A malformed record (an unterminated quote, a quote inside an unquoted field, text after
///   a closing quote) is returned with its ``CSVRecord/issue`` set, not thrown, so a loader
///   can reject it and go on. An unterminated quote swallows no more than its own physical
///   line: reading resumes on the next line.
///
/// - Complexity: Memory is bounded by the chunk size and the longest record, not the file size.
package final class CSVReader {
    /// The field delimiter in use.
    package private(set) var delimiter: UInt8
    /// Bytes consumed so far, for progress reporting.
    package private(set) var bytesConsumed = 0
    /// The file offset at which the next record starts.
    package var offset: Int { baseOffset + bytesConsumed }
    /// The size of the input in bytes, when known.
    package let totalBytes: Int?
    /// The byte offsets, in the file, of the record last returned by ``next()``.
    package private(set) var lastRecordOffsets = 0..<0
    /// The physical line (1-based) on which the next record starts.
    var line: Int { nextLine }
    /// The file offset of the reader's first byte.
    let baseOffset: Int
    /// Lines starting with `#` that came before the header and were skipped (with `skipCommentLines`).
    private(set) var commentLines = 0

    private let source: ByteSource
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var nextLine = 1
    private var recordRange = 0..<0
    private let chunkSize: Int
    /// The spans of the record being scanned, reused from record to record.
    private var spans: [FieldSpan] = []

    /// Opens the file at `path` (or standard input for `-`).
    ///
    /// - Parameters:
    ///   - delimiter: The delimiter byte; detected from the first line when nil.
    ///   - chunkSize: How many bytes to read at a time.
    /// - Throws: ``ImportError`` if the file cannot be opened.
    package convenience init(path: String, delimiter: UInt8? = nil, chunkSize: Int = 1 << 20) throws {
        try self.init(source: FileSource(path: path), delimiter: delimiter, chunkSize: chunkSize)
    }

    /// Reads from bytes in memory, `chunkSize` bytes at a time (tests feed every chunk size).
    package convenience init(bytes: [UInt8], delimiter: UInt8? = nil, chunkSize: Int = 1 << 20) throws {
        try self.init(source: MemorySource(bytes), delimiter: delimiter, chunkSize: chunkSize)
    }

    /// - Parameter skipCommentLines: Skip lines that start with `#` before the first record, as
    ///   USGS NWIS RDB files have; their lines still count in ``CSVRecord/line``.
    init(source: ByteSource, delimiter: UInt8?, chunkSize: Int, firstLine: Int = 1, baseOffset: Int = 0,
         skipCommentLines: Bool = false) throws {
        precondition(chunkSize > 0, "CSVReader: chunkSize must be positive")
        self.source = source
        self.baseOffset = baseOffset
        self.nextLine = firstLine
        self.chunkSize = chunkSize
        self.totalBytes = source.size
        self.buffer = []
        self.delimiter = delimiter ?? UInt8(ascii: ",")
        try fill(minimum: 4)
        if firstLine == 1, end - start >= 3, buffer[start] == 0xEF, buffer[start + 1] == 0xBB, buffer[start + 2] == 0xBF {
            start += 3
            bytesConsumed = 3
        }
        if skipCommentLines { try skipComments() }
        if delimiter == nil {
            self.delimiter = try detectDelimiter()
        }
    }

    /// Reads the next record, or returns nil at the end of the input.
    ///
    /// - Throws: ``ImportError`` when the input cannot be read.
    package func next() throws -> CSVRecord? {
        while true {
            if start == end {
                if atEOF { return nil }
                try fill(minimum: 1)
                continue
            }
            switch scanRecord() {
            case .needMore:
                // A record longer than the buffer is scanned again from its start with twice the
                // bytes: the rescans add up to twice the record, where a chunk more each time made a
                // file of one long quoted field cost time quadratic in its length.
                try fill(minimum: max(2 * (end - start), (end - start) + chunkSize))
            case .record(let record):
                if record.fields.count == 1 && record.fields[0].isEmpty && record.issue == nil {
                    continue  // a blank line
                }
                return record
            }
        }
    }

    /// The raw text of the record last returned by ``next()``, line breaks included.
    ///
    /// Valid until the next call to ``next()``.
    package func currentRawText() -> String {
        buffer.withUnsafeBufferPointer { decode(UnsafeBufferPointer(rebasing: $0[recordRange])) }
    }

    // MARK: - Buffering

    /// Compacts the buffer and reads until it holds at least `minimum` unread bytes, or EOF.
    private func fill(minimum: Int) throws {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            end -= start
            recordRange = 0..<0
            start = 0
        }
        while end - start < minimum && !atEOF {
            let want = max(chunkSize, minimum - (end - start))
            if buffer.count < end + want { buffer.append(contentsOf: repeatElement(0, count: end + want - buffer.count)) }
            let n = try buffer.withUnsafeMutableBufferPointer { try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[end..<(end + want)])) }
            if n == 0 { atEOF = true } else { end += n }
        }
    }

    /// Skips whole lines that start with `#`, counting them as lines.
    private func skipComments() throws {
        while true {
            try fill(minimum: 1)
            guard start < end, buffer[start] == UInt8(ascii: "#") else { return }
            // Offsets from `start`: `fill` compacts the buffer, which moves `start` to 0.
            var r = 0
            while true {
                if start + r == end {
                    if atEOF { break }
                    try fill(minimum: r + chunkSize)
                    continue
                }
                let byte = buffer[start + r]
                r += 1
                if byte == 0x0A { break }
                if byte == 0x0D {
                    if start + r == end, !atEOF { try fill(minimum: r + 1) }
                    if start + r < end, buffer[start + r] == 0x0A { r += 1 }
                    break
                }
            }
            bytesConsumed += r
            start += r
            nextLine += 1
            commentLines += 1
        }
    }

    private func detectDelimiter() throws -> UInt8 {
        let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "|")]
        var counts = [Int](repeating: 0, count: candidates.count)
        var inQuotes = false
        var k = 0
        while true {
            if start + k == end {
                if atEOF || k > 1 << 16 { break }
                try fill(minimum: k + chunkSize)
                continue
            }
            let byte = buffer[start + k]
            if byte == UInt8(ascii: "\"") { inQuotes.toggle() }
            else if !inQuotes && (byte == 0x0A || byte == 0x0D) { break }
            else if !inQuotes, let c = candidates.firstIndex(of: byte) { counts[c] += 1 }
            k += 1
        }
        let best = counts.indices.max { counts[$0] < counts[$1] }!
        return counts[best] > 0 ? candidates[best] : UInt8(ascii: ",")
    }

    // MARK: - Scanning

    private enum Scan {
        case needMore
        case record(CSVRecord)
    }

    /// The bytes the scanner has gone through, rescans included: what reading a file costs, which
    /// must stay in proportion to its size (the tests check it on a record longer than the buffer).
    package private(set) var scannedBytes = 0

    /// Scans one record from `start`; the record must lie wholly in the buffer.
    private func scanRecord() -> Scan {
        let scanner = CSVScanner(delimiter: delimiter)
        return buffer.withUnsafeBufferPointer { buf -> Scan in
            switch scanner.scan(buf, from: start, to: end, atEOF: atEOF, line: nextLine, fields: &spans) {
            case .needMore:
                scannedBytes += end - start
                return .needMore
            case .record(let recordEnd, let lines, let issue):
                scannedBytes += recordEnd - start
                let record = CSVRecord(fields: spans.map { fieldText(buf, $0) }, line: nextLine, issue: issue)
                recordRange = start..<recordEnd
                lastRecordOffsets = (baseOffset + bytesConsumed)..<(baseOffset + bytesConsumed + recordEnd - start)
                bytesConsumed += recordEnd - start
                start = recordEnd
                nextLine += lines
                return .record(record)
            }
        }
    }
}

// MARK: - CSVRecord

/// One record of a delimited file.
package struct CSVRecord: Sendable, Equatable {
    /// The fields, unquoted and unescaped.
    package var fields: [String]
    /// The physical line (1-based) on which the record starts.
    package var line: Int
    /// Why the record is malformed, if it is.
    package var issue: CSVIssue?
}

/// How a record breaks RFC 4180.
package enum CSVIssue: Sendable, Equatable, CustomStringConvertible {
    /// A quoted field that never closes; the record is cut at the end of the line the quote opened on.
    case unterminatedQuote(field: Int, openedOnLine: Int)
    /// A `"` inside a field that does not start with one.
    case quoteInUnquotedField(field: Int)
    /// Text between a closing quote and the next delimiter.
    case textAfterClosingQuote(field: Int)

    package var field: Int {
        switch self {
        case .unterminatedQuote(let field, _), .quoteInUnquotedField(let field), .textAfterClosingQuote(let field): field
        }
    }

    package var description: String {
        switch self {
        case .unterminatedQuote(_, let line):
            "a quoted field opened on line \(line) is never closed; close it with \" or remove the stray quote"
        case .quoteInUnquotedField:
            "a quote (\") inside an unquoted field; quote the whole field and double the inner quote (\"\")"
        case .textAfterClosingQuote:
            "text after a closing quote; quote the whole field and double any inner quote (\"\")"
        }
    }
}
