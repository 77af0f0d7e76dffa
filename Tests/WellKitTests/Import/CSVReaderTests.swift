import Foundation
import Testing
import WellsTestSupport
@testable import WellKit
@testable import WellKitSynthetic

// MARK: - Oracle

/// One record as seen by a test: what the reader returned and where it came from.
private struct Row: Equatable {
    var fields: [String]
    var line: Int
    var offsets: Range<Int>
    var raw: String
    var issue: CSVIssue? = nil
}

/// A naive RFC 4180 parser of well-formed input, byte by byte over the whole input (structural
/// bytes are ASCII, so they never occur inside a UTF-8 sequence).
private func oracle(_ input: [UInt8], delimiter: UInt8) -> [Row] {
    let quote = UInt8(ascii: "\""), lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20, tab: UInt8 = 0x09
    let n = input.count
    var i = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var line = 1
    var rows: [Row] = []
    while i < n {
        let recordStart = i, recordLine = line
        var fields: [String] = []
        var blank = true
        while true {
            var value: [UInt8] = []
            if i < n && input[i] == quote {
                blank = false
                i += 1
                while true {
                    precondition(i < n, "oracle: unterminated quote")
                    let c = input[i]
                    if c == quote {
                        if i + 1 < n && input[i + 1] == quote { value.append(quote); i += 2; continue }
                        i += 1
                        break
                    }
                    if c == lf || (c == cr && !(i + 1 < n && input[i + 1] == lf)) { line += 1 }
                    value.append(c)
                    i += 1
                }
                while i < n && (input[i] == space || (input[i] == tab && delimiter != tab)) { i += 1 }
            } else {
                while i < n && input[i] != delimiter && input[i] != lf && input[i] != cr { value.append(input[i]); i += 1 }
                while let c = value.first, c == space || c == tab { value.removeFirst() }
                while let c = value.last, c == space || c == tab { value.removeLast() }
            }
            fields.append(String(decoding: value, as: UTF8.self))
            if i == n { break }
            let c = input[i]
            i += 1
            if c == delimiter { blank = false; continue }
            precondition(c == lf || c == cr, "oracle: text after a closing quote")
            if c == cr && i < n && input[i] == lf { i += 1 }
            line += 1
            break
        }
        if !(blank && fields == [""]) {
            rows.append(Row(fields: fields, line: recordLine, offsets: recordStart..<i,
                            raw: String(decoding: input[recordStart..<i], as: UTF8.self)))
        }
    }
    return rows
}

// MARK: - Random well-formed input

private typealias CSVTestRNG = SeededRandom

private extension SeededRandom {
    mutating func pick(_ options: [String]) -> String { options[Int.random(in: 0..<options.count, using: &self)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}


private func randomInput(_ rng: inout CSVTestRNG, delimiter d: String, records: ClosedRange<Int>) -> [UInt8] {
    let others = [",", "\t", ";", "|"].filter { $0 != d }
    let plain = ["a", "Z", "7", "é", "漢", "-", ".", "x y", "'"] + others
    let quoted = plain + ["\"\"", d, d, "\n", "\r\n", "\r", " ", "\t"]
    let pads = d == "\t" ? ["", " ", "  "] : ["", " ", "\t", " \t "]
    let ends = ["\n", "\r\n", "\r"]
    var out = rng.chance(10) ? "\u{FEFF}" : ""
    let count = Int.random(in: records, using: &rng)
    for r in 0..<count {
        if rng.chance(10) {
            out += rng.pick(pads) + rng.pick(ends)  // a blank line
            continue
        }
        var fields: [String] = [], fieldCount = Int.random(in: 1...5, using: &rng)
        for _ in 0..<fieldCount {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<2:
                fields.append(rng.pick(pads))
            case 2..<6:
                let text = (0..<Int.random(in: 1...4, using: &rng)).map { _ in rng.pick(plain) }.joined()
                fields.append(rng.pick(pads) + text + rng.pick(pads))
            default:
                var text = (0..<Int.random(in: 0...5, using: &rng)).map { _ in rng.pick(quoted) }.joined()
                if fieldCount == 1 && text.isEmpty { text = "q" }  // `""` alone would read as a blank line
                fields.append("\"" + text + "\"" + (rng.chance(20) ? rng.pick(pads) : ""))
            }
        }
        out += fields.joined(separator: d)
        if r < count - 1 || rng.chance(50) { out += rng.pick(ends) }
    }
    return Array(out.utf8)
}

private func readAll(_ reader: CSVReader) throws -> [Row] {
    var rows: [Row] = []
    while let record = try reader.next() {
        rows.append(Row(fields: record.fields, line: record.line, offsets: reader.lastRecordOffsets,
                        raw: reader.currentRawText(), issue: record.issue))
    }
    return rows
}

private func read(_ text: String, delimiter: UInt8? = UInt8(ascii: ","), chunkSize: Int = 1 << 20) throws -> [Row] {
    try readAll(CSVReader(bytes: Array(text.utf8), delimiter: delimiter, chunkSize: chunkSize))
}

private func byte(_ delimiter: String) -> UInt8 { delimiter.utf8.first! }

// MARK: - Tests

@Suite struct CSVReaderTests {
    /// Compares the reader with the oracle, for the given chunk sizes; records at most one issue.
    private func check(_ input: [UInt8], delimiter: UInt8, chunkSizes: [Int]) throws -> Bool {
        let expected = oracle(input, delimiter: delimiter)
        for chunkSize in chunkSizes {
            let reader = try CSVReader(bytes: input, delimiter: delimiter, chunkSize: chunkSize)
            let got = try readAll(reader)
            if got != expected || reader.offset != input.count || reader.totalBytes != input.count {
                let text = String(decoding: input, as: UTF8.self).debugDescription
                Issue.record("chunk size \(chunkSize), input \(text)\nexpected \(expected)\ngot \(got), offset \(reader.offset)")
                return false
            }
        }
        return true
    }

    @Test(arguments: [",", "\t", ";", "|"])
    func smallInputsMatchOracleForEveryChunkSize(delimiter: String) throws {
        var rng = CSVTestRNG(seed: 0xC5F0 &+ UInt64(byte(delimiter)))
        var corpus: [UInt8] = [], unfinished = 0
        for _ in 0..<100 {
            let input = randomInput(&rng, delimiter: delimiter, records: 0...6)
            corpus += input + [0]
            if let last = input.last, last != 0x0A, last != 0x0D { unfinished += 1 }
            guard try check(input, delimiter: byte(delimiter), chunkSizes: Array(1...(input.count + 1))) else { return }
        }
        // The corpus mixes what it should (guards against a generator that silently degrades).
        #expect(unfinished > 10)
        for feature in ["\"\"\"", "\"\"", "\r\n", "\r\"", "\n\"", "\u{FEFF}", "é", "漢", " \(delimiter)", "\(delimiter)\(delimiter)", "\0\0"] {
            let bytes = Array(feature.utf8)
            #expect(corpus.indices.contains { corpus[$0...].starts(with: bytes) }, "\(feature.debugDescription)")
        }
    }

    @Test(.lane(.slow), arguments: [",", "\t", ";", "|"])
    func largeInputsMatchOracleForSampledChunkSizes(delimiter: String) throws {
        var rng = CSVTestRNG(seed: 0xB16 &+ UInt64(byte(delimiter)))
        for _ in 0..<8 {
            let input = randomInput(&rng, delimiter: delimiter, records: 40...80)
            let sizes = [1, 2, 3, 4, 5, 7, 16, 61, 255, 1024, input.count - 1, input.count, input.count + 1, 1 << 20]
                + (0..<6).map { _ in Int.random(in: 1...max(1, input.count), using: &rng) }
            guard try check(input, delimiter: byte(delimiter), chunkSizes: sizes.filter { $0 > 0 }) else { return }
        }
    }

    /// A reader started at a record boundary, with that record's line and offset, reads the tail alike.
    /// A record longer than the buffer is scanned again from its start with twice the bytes, so the
    /// bytes scanned stay under three times the file: reading more a chunk at a time made a file of
    /// one 40 MB quoted field cost 36 s (quadratic). Counted, not timed.
    @Test(arguments: [1 << 16, 1 << 20]) func aRecordLongerThanTheBufferIsScannedALinearNumberOfTimes(size: Int) throws {
        let reader = try CSVReader(bytes: [UInt8](repeating: UInt8(ascii: "\""), count: size) + Array("\na,b\n".utf8), chunkSize: 1_024)
        var records = 0
        while try reader.next() != nil { records += 1 }
        #expect(records >= 1)
        #expect(reader.scannedBytes <= 3 * (size + 5), "scanned \(reader.scannedBytes) bytes of a \(size + 5)-byte file")
    }

    @Test func resumesAtRecordBoundary() throws {
        var rng = CSVTestRNG(seed: 77)
        for _ in 0..<60 {
            let input = randomInput(&rng, delimiter: ";", records: 2...8)
            let expected = oracle(input, delimiter: UInt8(ascii: ";"))
            guard !expected.isEmpty else { continue }
            let k = Int.random(in: 0..<expected.count, using: &rng)
            let startRow = expected[k]
            for chunkSize in [1, 3, 64] {
                let reader = try CSVReader(source: MemorySource(Array(input[startRow.offsets.lowerBound...])),
                                           delimiter: UInt8(ascii: ";"), chunkSize: chunkSize,
                                           firstLine: startRow.line, baseOffset: startRow.offsets.lowerBound)
                #expect(try readAll(reader) == Array(expected[k...]), "input \(String(decoding: input, as: UTF8.self).debugDescription)")
            }
        }
    }

    /// A scan that wants a record's first fields (`limit`, as the place check asks for the fields up to
    /// its place columns) stops after them, and they are the whole scan's first fields.
    @Test func aLimitedScanGivesTheRecordsFirstFields() throws {
        var rng = CSVTestRNG(seed: 0x11AA)
        let scanner = CSVScanner(delimiter: UInt8(ascii: ","))
        var shorter = 0
        for _ in 0..<60 {
            let input = randomInput(&rng, delimiter: ",", records: 1...6)
            for row in oracle(input, delimiter: UInt8(ascii: ",")) {
                input.withUnsafeBufferPointer { buf in
                    var all: [FieldSpan] = [], first: [FieldSpan] = []
                    _ = scanner.scan(buf, from: row.offsets.lowerBound, to: buf.count, atEOF: true, line: row.line, fields: &all)
                    for limit in 1...(all.count + 1) {
                        _ = scanner.scan(buf, from: row.offsets.lowerBound, to: buf.count, atEOF: true, line: row.line, fields: &first, limit: limit)
                        #expect(first.map { [$0.start, $0.end, $0.escaped ? 1 : 0] } == all.prefix(limit).map { [$0.start, $0.end, $0.escaped ? 1 : 0] })
                        if first.count < all.count { shorter += 1 }
                    }
                }
            }
        }
        #expect(shorter > 100)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let body = Array("uwi,name\n1,A\n".utf8)
        for chunkSize in 1...(body.count + 4) {
            let rows = try readAll(CSVReader(bytes: [0xEF, 0xBB, 0xBF] + body, delimiter: nil, chunkSize: chunkSize))
            #expect(rows.map(\.fields) == [["uwi", "name"], ["1", "A"]])
            #expect(rows.first?.offsets == 3..<12)
            #expect(rows.first?.raw == "uwi,name\n")
        }
    }

    @Test(.lane(.slow), arguments: [",", "\t", ";", "|"])
    func detectsDelimiter(delimiter d: String) throws {
        let candidates = [",", "\t", ";", "|"]
        let other = candidates[(candidates.firstIndex(of: d)! + 1) % 4]
        // Other candidates appear inside quotes (ignored) and once in an unquoted field.
        let text = "uwi\(d)\"na,me;x|y\tz\"\(d)a\(other)b\(d)lat\(d)lon\n1\(d)A\(d)B\(d)2\(d)3\n"
        for chunkSize in [1, 2, 5, 1 << 20] {
            let reader = try CSVReader(bytes: Array(text.utf8), delimiter: nil, chunkSize: chunkSize)
            #expect(reader.delimiter == byte(d))
            #expect(try readAll(reader).map(\.fields) == [["uwi", "na,me;x|y\tz", "a\(other)b", "lat", "lon"], ["1", "A", "B", "2", "3"]])
        }
        #expect(try CSVReader(bytes: Array("uwi\n1\n".utf8)).delimiter == UInt8(ascii: ","))
    }

    @Test func rawTextAndOffsetsSliceTheRecord() throws {
        let text = "a,b\r\n\"x\ny\",\"q\"\"\"\n\n  \nlast,é"
        let bytes = Array(text.utf8)
        for chunkSize in 1...(bytes.count + 1) {
            let reader = try CSVReader(bytes: bytes, delimiter: UInt8(ascii: ","), chunkSize: chunkSize)
            var raws: [String] = []
            while try reader.next() != nil {
                raws.append(reader.currentRawText())
                #expect(String(decoding: bytes[reader.lastRecordOffsets], as: UTF8.self) == reader.currentRawText())
            }
            #expect(raws == ["a,b\r\n", "\"x\ny\",\"q\"\"\"\n", "last,é"])
        }
    }

    @Test func invalidUTF8IsReadAsLatin1() throws {
        // Record 1 is Latin-1 (lone 0xE9 bytes); record 2 is UTF-8 (0xC3 0xA9).
        let bytes: [UInt8] = Array("caf".utf8) + [0xE9] + Array(",ok,\"".utf8) + [0xE9, 0x74, 0xE9] + Array("\"\n\"é\"\n".utf8)
        for chunkSize in [1, 4, 64] {
            let rows = try readAll(CSVReader(bytes: bytes, delimiter: UInt8(ascii: ","), chunkSize: chunkSize))
            #expect(rows.map(\.fields) == [["café", "ok", "été"], ["é"]])
            #expect(rows.first?.raw == "café,ok,\"été\"\n")
            #expect(rows.last?.raw == "\"é\"\n")
            #expect(!rows.contains { $0.raw.contains("\u{FFFD}") })
        }
    }

    /// A stray quote in field `field` (unquoted, or after a closing quote) is flagged; the next record is fine.
    @Test(arguments: [false, true], 0..<4)
    func malformedField(afterClosingQuote: Bool, field: Int) throws {
        var fields = ["a", "b", "c", "d"]
        fields[field] = afterClosingQuote ? "\"x\" y" : "x\"y"
        let issue: CSVIssue = afterClosingQuote ? .textAfterClosingQuote(field: field) : .quoteInUnquotedField(field: field)
        let rows = try read("h1,h2,h3,h4\n" + fields.joined(separator: ",") + "\n1,2,3,4\n")
        #expect(rows.map(\.issue) == [nil, issue, nil])
        #expect(rows.map(\.line) == [1, 2, 3])
        #expect(rows.last?.fields == ["1", "2", "3", "4"])
    }

    @Test(arguments: ["", "\n"])
    func unterminatedQuoteInLastRecord(ending: String) throws {
        let text = "a,b\n1,\"two\nlines\",2\n3,\"open" + ending
        for chunkSize in 1...(text.utf8.count + 1) {
            let rows = try read(text, chunkSize: chunkSize)
            #expect(rows.map(\.issue) == [nil, nil, .unterminatedQuote(field: 1, openedOnLine: 4)])
            #expect(rows.map(\.line) == [1, 2, 4])
            #expect(rows.last?.raw == "3,\"open" + ending)
        }
    }

    /// The quote opens on the record's second physical line; only that line is swallowed.
    @Test(arguments: ["\n", "\r\n"])
    func unterminatedQuoteInMiddleRecord(end t: String) throws {
        let text = "h1,h2,h3\(t)1,\"a\(t)b\",\"open\(t)2,3\(t)4,5\(t)"
        for chunkSize in 1...(text.utf8.count + 1) {
            let rows = try read(text, chunkSize: chunkSize)
            #expect(rows.map(\.issue) == [nil, .unterminatedQuote(field: 2, openedOnLine: 3), nil, nil])
            #expect(rows.map(\.line) == [1, 2, 4, 5])
            #expect(rows.map(\.fields).suffix(2) == [["2", "3"], ["4", "5"]])
            #expect(rows.count > 1 && rows[1].raw == "1,\"a\(t)b\",\"open\(t)")
        }
    }

    /// An unterminated quote ends at its own line's break, whether that is LF, CRLF or a lone CR
    /// (a lone CR ends records and counts as a line everywhere else).
    @Test(arguments: [
        ("h1,h2\r1,\"open\r2,3\r4,5\r", 1, 2),          // a CR-only file: the rest of the file is lost
        ("h1,h2\n1,\"a\rb\",\"open\n2,3\n4,5\n", 2, 3),  // a lone CR in an earlier quoted field: "2,3" is lost
    ])
    func unterminatedQuoteAfterLoneCR(text: String, field: Int, openedOnLine: Int) throws {
        let rows = try read(text)
        #expect(rows.first?.fields == ["h1", "h2"])
        #expect(rows.count > 1 && rows[1].issue == .unterminatedQuote(field: field, openedOnLine: openedOnLine))
        #expect(rows.map(\.line) == [1, 2, openedOnLine + 1, openedOnLine + 2])
        #expect(rows.map(\.fields).suffix(2) == [["2", "3"], ["4", "5"]])
    }

    @Test func fileEqualsMemory() throws {
        var rng = CSVTestRNG(seed: 4242)
        let input = randomInput(&rng, delimiter: "|", records: 200...200)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csvreader-\(UUID().uuidString).csv")
        try Data(input).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = oracle(input, delimiter: UInt8(ascii: "|"))
        #expect(expected.count > 100)
        #expect(try readAll(CSVReader(path: url.path, delimiter: UInt8(ascii: "|"))) == expected)
        for chunkSize in [1, 13, 4096, 1 << 20] {
            let fromFile = try CSVReader(path: url.path, delimiter: UInt8(ascii: "|"), chunkSize: chunkSize)
            #expect(try readAll(fromFile) == readAll(CSVReader(bytes: input, delimiter: UInt8(ascii: "|"), chunkSize: chunkSize)))
            #expect(fromFile.totalBytes == input.count && fromFile.offset == input.count)
        }
    }

    @Test func missingFileThrowsCannotOpen() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).csv").path
        let error = #expect(throws: ImportError.self) { try CSVReader(path: path) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.file == path)
    }
}
