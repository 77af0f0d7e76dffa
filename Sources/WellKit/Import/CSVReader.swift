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
/// - Records end with LF, CRLF or a lone CR; a UTF-8 byte order mark is skipped.
/// - The delimiter is detected from the first line unless given.
/// - Unquoted fields are trimmed of spaces and tabs; quoted fields are kept as written.
/// - Text that is not valid UTF-8 is read as Latin-1, byte for byte, so nothing is lost.
/// - A malformed record (an unterminated quote, a quote inside an unquoted field, text after
///   a closing quote) is returned with its ``CSVRecord/issue`` set, not thrown, so a loader
///   can reject it and go on. An unterminated quote swallows no more than its own physical
///   line: reading resumes on the next line.
///
/// - Complexity: Memory is bounded by the chunk size and the longest record, not the file size.
public final class CSVReader {
    /// The field delimiter in use.
    public private(set) var delimiter: UInt8
    /// Bytes consumed so far, for progress reporting.
    public private(set) var bytesConsumed = 0
    /// The file offset at which the next record starts.
    public var offset: Int { baseOffset + bytesConsumed }
    /// The size of the input in bytes, when known.
    public let totalBytes: Int?
    /// The byte offsets, in the file, of the record last returned by ``next()``.
    public private(set) var lastRecordOffsets = 0..<0
    /// The file offset of the reader's first byte.
    let baseOffset: Int

    private let source: ByteSource
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var nextLine = 1
    private var recordRange = 0..<0
    private let chunkSize: Int

    /// Opens the file at `path` (or standard input for `-`).
    ///
    /// - Parameters:
    ///   - delimiter: The delimiter byte; detected from the first line when nil.
    ///   - chunkSize: How many bytes to read at a time.
    /// - Throws: ``ImportError`` if the file cannot be opened.
    public convenience init(path: String, delimiter: UInt8? = nil, chunkSize: Int = 1 << 20) throws {
        try self.init(source: FileSource(path: path), delimiter: delimiter, chunkSize: chunkSize)
    }

    /// Reads from bytes in memory, `chunkSize` bytes at a time (tests feed every chunk size).
    public convenience init(bytes: [UInt8], delimiter: UInt8? = nil, chunkSize: Int = 1 << 20) throws {
        try self.init(source: MemorySource(bytes), delimiter: delimiter, chunkSize: chunkSize)
    }

    init(source: ByteSource, delimiter: UInt8?, chunkSize: Int, firstLine: Int = 1, baseOffset: Int = 0) throws {
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
        if delimiter == nil {
            self.delimiter = try detectDelimiter()
        }
    }

    /// Reads the next record, or returns nil at the end of the input.
    ///
    /// - Throws: ``ImportError`` when the input cannot be read.
    public func next() throws -> CSVRecord? {
        while true {
            if start == end {
                if atEOF { return nil }
                try fill(minimum: 1)
                continue
            }
            switch scanRecord() {
            case .needMore:
                try fill(minimum: (end - start) + chunkSize)
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
    public func currentRawText() -> String {
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

    /// Scans one record from `start`; the record must lie wholly in the buffer.
    private func scanRecord() -> Scan {
        let quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let delimiter = self.delimiter
        return buffer.withUnsafeBufferPointer { buf -> Scan in
            var fields: [String] = []
            fields.reserveCapacity(24)
            var issue: CSVIssue?
            var i = start
            var lines = 0
            var unescaped: [UInt8] = []
            while true {
                // One field.
                if i < end && buf[i] == quote {
                    let openLine = nextLine + lines
                    var j = i + 1
                    var segmentStart = j
                    var hasEscapes = false
                    unescaped.removeAll(keepingCapacity: true)
                    var closed = false
                    while j < end {
                        let b = buf[j]
                        if b == quote {
                            if j + 1 < end && buf[j + 1] == quote {
                                hasEscapes = true
                                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: buf[segmentStart...j]))
                                j += 2
                                segmentStart = j
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
                        return .record(unterminated(buf, from: start, openLine: openLine, field: fields.count))
                    }
                    if hasEscapes {
                        unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: buf[segmentStart..<j]))
                        fields.append(unescaped.withUnsafeBufferPointer { decode($0) })
                    } else {
                        fields.append(decode(UnsafeBufferPointer(rebasing: buf[(i + 1)..<j])))
                    }
                    i = j + 1
                    // Spaces may follow the closing quote; anything else is malformed.
                    while i < end && (buf[i] == 0x20 || (buf[i] == 0x09 && delimiter != 0x09)) { i += 1 }
                    if i < end && buf[i] != delimiter && buf[i] != lf && buf[i] != cr {
                        if issue == nil { issue = .textAfterClosingQuote(field: fields.count - 1) }
                        while i < end && buf[i] != delimiter && buf[i] != lf && buf[i] != cr { i += 1 }
                    }
                } else {
                    let fieldStart = i
                    while i < end {
                        let b = buf[i]
                        if b == delimiter || b == lf || b == cr { break }
                        if b == quote && issue == nil { issue = .quoteInUnquotedField(field: fields.count) }
                        i += 1
                    }
                    fields.append(decode(trimmed(buf, fieldStart, i, delimiter: delimiter)))
                }
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
            let line = nextLine
            recordRange = start..<i
            lastRecordOffsets = (baseOffset + bytesConsumed)..<(baseOffset + bytesConsumed + i - start)
            bytesConsumed += i - start
            start = i
            nextLine += lines
            return .record(CSVRecord(fields: fields, line: line, issue: issue))
        }
    }

    /// Ends an unterminated quoted field at the end of its own physical line.
    private func unterminated(_ buf: UnsafeBufferPointer<UInt8>, from recordStart: Int, openLine: Int, field: Int) -> CSVRecord {
        let line = nextLine
        var k = recordStart
        var lineNumber = line
        /// The index just past the line break at `k` (LF, CRLF or a lone CR), or nil if `k` holds none.
        func pastBreak(_ k: Int) -> Int? {
            if buf[k] == 0x0A { return k + 1 }
            if buf[k] == 0x0D { return k + 1 < end && buf[k + 1] == 0x0A ? k + 2 : k + 1 }
            return nil
        }
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
            if let next = pastBreak(k) {
                k = next
                break
            }
            k += 1
        }
        recordRange = recordStart..<k
        lastRecordOffsets = (baseOffset + bytesConsumed)..<(baseOffset + bytesConsumed + k - recordStart)
        bytesConsumed += k - recordStart
        start = k
        nextLine = openLine + 1
        return CSVRecord(fields: [], line: line, issue: .unterminatedQuote(field: field, openedOnLine: openLine))
    }

    private func trimmed(_ buf: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, delimiter: UInt8) -> UnsafeBufferPointer<UInt8> {
        var a = from, b = to
        while a < b && (buf[a] == 0x20 || buf[a] == 0x09) { a += 1 }
        while b > a && (buf[b - 1] == 0x20 || buf[b - 1] == 0x09) { b -= 1 }
        return UnsafeBufferPointer(rebasing: buf[a..<b])
    }
}

/// Decodes UTF-8, or Latin-1 byte for byte when the bytes are not valid UTF-8.
@inline(__always)
func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if bytes.isEmpty { return "" }
    // ASCII first: most fields are, and the generic `String(validating:as:)` costs more per call.
    var ascii = true
    for byte in bytes where byte >= 0x80 {
        ascii = false
        break
    }
    if ascii { return String(decoding: bytes, as: UTF8.self) }
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
}

// MARK: - CSVRecord

/// One record of a delimited file.
public struct CSVRecord: Sendable, Equatable {
    /// The fields, unquoted and unescaped.
    public var fields: [String]
    /// The physical line (1-based) on which the record starts.
    public var line: Int
    /// Why the record is malformed, if it is.
    public var issue: CSVIssue?
}

/// How a record breaks RFC 4180.
public enum CSVIssue: Sendable, Equatable, CustomStringConvertible {
    /// A quoted field that never closes; the record is cut at the end of the line the quote opened on.
    case unterminatedQuote(field: Int, openedOnLine: Int)
    /// A `"` inside a field that does not start with one.
    case quoteInUnquotedField(field: Int)
    /// Text between a closing quote and the next delimiter.
    case textAfterClosingQuote(field: Int)

    public var field: Int {
        switch self {
        case .unterminatedQuote(let field, _), .quoteInUnquotedField(let field), .textAfterClosingQuote(let field): field
        }
    }

    public var description: String {
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

// MARK: - ByteSource

/// Where a ``CSVReader`` reads bytes from.
protocol ByteSource: AnyObject {
    var size: Int? { get }
    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int
}

/// Reads a file (or standard input for `-`) with POSIX `read`, and closes it in `deinit`.
final class FileSource: ByteSource {
    private let fd: Int32
    private let path: String
    private var offset: Int
    private let limit: Int?
    let size: Int?

    /// Opens `path`; with `range`, reads only those bytes (with `pread`, so ranges read in parallel).
    init(path: String, range: Range<Int>? = nil) throws {
        self.path = path
        self.offset = range?.lowerBound ?? 0
        self.limit = range?.upperBound
        if path == "-" {
            fd = 0
            size = nil
            return
        }
        fd = open(path, O_RDONLY)
        if fd < 0 {
            throw ImportError(.cannotOpen, "cannot open file: \(String(cString: strerror(errno)))", file: path)
        }
        var info = stat()
        let fileSize = fstat(fd, &info) == 0 ? Int(info.st_size) : nil
        size = range.map(\.count) ?? fileSize
    }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let count = limit.map { min(buffer.count, $0 - offset) } ?? buffer.count
        if count <= 0 { return 0 }
        while true {
            let n = fd == 0 ? Glibc.read(fd, buffer.baseAddress, count) : pread(fd, buffer.baseAddress, count, off_t(offset))
            if n >= 0 {
                offset += n
                return n
            }
            if errno == EINTR { continue }
            throw ImportError(.cannotOpen, "cannot read file: \(String(cString: strerror(errno)))", file: path)
        }
    }

    /// The bytes at `range` of the file, decoded as ``CSVReader`` decodes fields.
    func text(at range: Range<Int>) throws -> String {
        var bytes = [UInt8](repeating: 0, count: range.count)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, range.count, off_t(range.lowerBound)) }
        guard n == range.count else {
            throw ImportError(.cannotOpen, "cannot re-read bytes \(range) of the file", file: path)
        }
        return bytes.withUnsafeBufferPointer { decode($0) }
    }

    deinit { if fd > 0 { close(fd) } }
}

/// Serves bytes from memory, at most the buffer's size at a time.
final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    var size: Int? { bytes.count }

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let n = min(buffer.count, bytes.count - offset)
        for k in 0..<n { buffer[k] = bytes[offset + k] }
        offset += n
        return n
    }
}
