import Foundation

/// Splits a mapped file into records and locates them on two cores, with exactly the result of
/// one sequential pass.
///
/// The second half starts at a line break past the middle of the file, on its own thread.
/// That guess can be wrong: the line break may sit inside a quoted field. So the first half
/// does not stop at the guess. It parses on until it reaches a byte offset at which the
/// second half also started a record; from the same offset at a record start, both parses are
/// the same, so the second half's records from there on are taken and those before are
/// dropped. If the offsets never meet, the first half simply parses to the end.
///
/// Only the coordinates and the identifier become values here; the rest of each record stays
/// as spans over the file until its row is built (``RowBuilder``).
enum PartitionedParse {
    /// Files smaller than this are parsed on one thread.
    static let parallelThreshold = 8 << 20

    /// The located records of a stretch of the file, in file order.
    struct Part {
        var records = RecordList()
        var rejects = RejectList()
        /// Data records read, blank lines not counted.
        var count = 0
        /// For the second half: the offset and line of each record start, in order.
        var starts: [(offset: Int, line: Int)] = []
        /// The SHA-256 of the whole file, in hex, computed beside the parse
        /// (nil when libcrypto did not load: the caller asks ``FileDigest`` again for the error).
        var sha256: String?
        /// The lines of records with fewer fields than the header, whose missing trailing fields were taken as empty.
        var shortLines: [Int] = []
    }

    /// Locates the records of `file` from `offset`, where the line numbered `line` starts.
    ///
    /// - Parameter guess: Where the second half looks for its first line start; by default the
    ///   middle of a file of at least ``parallelThreshold`` bytes (tests pass every offset).
    static func run(file: MappedFile, from offset: Int, line: Int, delimiter: UInt8, validator: RecordValidator,
                    options: LoadOptions, guess: Int? = nil) -> Part {
        let buffer = file.bytes
        var parser = Parser(buffer: buffer, delimiter: delimiter, validator: validator, options: options, offset: offset, line: line,
                            releasing: file)
        guard let guess = guess ?? (buffer.count - offset >= parallelThreshold ? offset + (buffer.count - offset) / 2 : nil) else {
            var part = Part()
            parser.parse(into: &part, until: nil)
            part.sha256 = try? FileDigest.sha256(file)
            return part
        }
        let middle = lineStart(after: max(guess, offset), in: buffer)
        let second = HandOff<Part>(), digest = HandOff<String>()
        // Fork/join, not a lock: the group waits for the second half's thread and the digest's.
        // The digest has a thread of its own, so that the three share the two cores: after the
        // second half, on its thread, it made that half end last by its whole time while the first
        // half's thread waited; on the global queue, Dispatch ran it
        // and the second half one after the other on one worker.
        let group = DispatchGroup()
        group.enter()
        Thread {
            digest.value = try? FileDigest.sha256(file)
            group.leave()
        }.start()
        DispatchQueue.global().async(group: group) {
            let buffer = file.bytes
            var parser = Parser(buffer: buffer, delimiter: delimiter, validator: validator, options: LoadOptions(copying: options),
                                offset: middle, line: lineBreaks(in: file, before: middle) + 1, releasing: file)
            var part = Part()
            parser.parse(into: &part, until: nil, recordStarts: true)
            second.value = part
        }
        var first = Part()
        parser.parse(into: &first, until: middle)
        group.wait()
        // Taken out of the hand-off, so that the second half's records are this function's alone
        // and the join gives back their segments rather than copying them first.
        var tail = second.value!
        second.value = nil
        first.sha256 = digest.value
        // The second half's record starts ascend: the meeting offset is found by bisection.
        func start(at offset: Int) -> Int? {
            var (low, high) = (0, tail.starts.count)
            while low < high {
                let middle = (low + high) / 2
                if tail.starts[middle].offset < offset { low = middle + 1 } else { high = middle }
            }
            return low < tail.starts.count && tail.starts[low].offset == offset ? low : nil
        }
        while start(at: parser.offset) == nil, parser.offset < buffer.count {
            guard parser.parse(into: &first, until: nil, one: true) else { break }
        }
        guard let k = start(at: parser.offset) else { return first }
        let fromLine = tail.starts[k].line
        first.records.append(takingFrom: &tail.records, from: tail.records.firstIndex { $0.line >= fromLine } ?? tail.records.count)
        first.rejects.append(contentsOf: tail.rejects, fromLine: fromLine)
        first.shortLines += tail.shortLines.drop { $0 < fromLine }
        first.count += tail.starts.count - k
        return first
    }

    /// One thread's reading position and its reusable spans.
    private struct Parser {
        let buffer: UnsafeBufferPointer<UInt8>
        let scanner: CSVScanner
        let validator: RecordValidator
        let options: LoadOptions
        var offset: Int
        var line: Int
        var spans: [FieldSpan] = []
        var datums = RecordValidator.DatumMemo()
        /// Gives back the pages this parser has read, when the file is big.
        var release: MappedFile.ReleaseBehind

        init(buffer: UnsafeBufferPointer<UInt8>, delimiter: UInt8, validator: RecordValidator, options: LoadOptions, offset: Int, line: Int,
             releasing file: MappedFile) {
            self.buffer = buffer
            self.release = MappedFile.ReleaseBehind(file, from: offset)
            self.scanner = CSVScanner(delimiter: delimiter)
            self.validator = validator
            self.options = options
            self.offset = offset
            self.line = line
            spans.reserveCapacity(validator.header.count + 1)
        }

        /// Parses records into `part` until the offset reaches `until` (or the end, or after one record).
        ///
        /// - Returns: false at the end of the input.
        @discardableResult
        mutating func parse(into part: inout Part, until: Int?, recordStarts: Bool = false, one: Bool = false) -> Bool {
            let limit = until ?? buffer.count
            while offset < limit {
                let start = offset, recordLine = line
                guard case .record(let end, let lines, let issue) = scanner.scan(buffer, from: start, to: buffer.count, atEOF: true,
                                                                                  line: recordLine, fields: &spans)
                else { preconditionFailure("a scan at the end of the input always yields a record") }
                offset = end
                line += lines
                if CSVScanner.isBlank(spans, issue: issue) { continue }
                if issue == nil, spans.count < validator.header.count {
                    // Spreadsheets drop a row's trailing empty fields: those are read as empty.
                    part.shortLines.append(recordLine)
                    CSVScanner.padTrailing(&spans, to: validator.header.count)
                }
                part.count += 1
                if recordStarts { part.starts.append((start, recordLine)) }
                release.done(before: start)
                if part.count & 4095 == 0, let progress = options.progress {
                    // The first half reports for both: its offset, doubled while the second half runs.
                    progress(LoadProgress(phase: .reading, done: min(offset * (until == nil ? 1 : 2), buffer.count), total: buffer.count))
                }
                switch validator.locate(RecordFields(buffer: buffer, spans: spans), issue: issue, line: recordLine, range: start..<end,
                                        missingIdentifier: options.onMissingIdentifier, datums: &datums) {
                case .failure(let why):
                    part.rejects.append(Reject(line: recordLine, column: why.column, kind: why.kind, reason: why.reason,
                                               raw: decode(UnsafeBufferPointer(rebasing: buffer[start..<end]))))
                case .success(let record):
                    part.records.append(record)
                }
                if one { return true }
            }
            return offset < buffer.count
        }
    }

    /// The offset just past the first line feed at or after `offset`.
    private static func lineStart(after offset: Int, in buffer: UnsafeBufferPointer<UInt8>) -> Int {
        var k = offset
        while k < buffer.count && buffer[k] != 0x0A { k += 1 }
        return min(k + 1, buffer.count)
    }

    /// Counts line breaks (LF, CRLF or a lone CR) before `offset`, as ``CSVScanner`` numbers lines.
    ///
    /// A stretch of `chunk` bytes without a carriage return, as most files are, has its line feeds
    /// found by `memchr`, several times faster than a test of each byte: the second half's thread
    /// counts the first half's lines before it can start.
    static func lineBreaks(in file: MappedFile, before offset: Int, chunk: Int = 1 << 20) -> Int {
        let buffer = file.bytes
        guard let base = buffer.baseAddress, offset > 0 else { return 0 }
        var count = 0
        var previousCR = false
        var release = MappedFile.ReleaseBehind(file, from: 0)
        for start in stride(from: 0, to: offset, by: chunk) {
            release.done(before: start)
            let end = min(start + chunk, offset)
            if memchr(base + start, 0x0D, end - start) == nil {
                // Line feeds only; one right after a carriage return that ended the last stretch ends the same line.
                var k = previousCR && buffer[start] == 0x0A ? start + 1 : start
                while k < end, let found = memchr(base + k, 0x0A, end - k) {
                    count += 1
                    k = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                }
                previousCR = false
            } else {
                for k in start..<end {
                    let b = buffer[k]
                    if b == 0x0A { if !previousCR { count += 1 } } else if b == 0x0D { count += 1 }
                    previousCR = b == 0x0D
                }
            }
        }
        return count
    }
}

extension LoadOptions {
    /// A copy without the progress callback, for the second half (whose progress the first reports).
    init(copying options: LoadOptions) {
        self = options
        self.progress = nil
    }
}
