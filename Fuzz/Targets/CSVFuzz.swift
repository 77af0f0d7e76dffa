// Fuzz target `csv`: CSVScanner and CSVReader, and TitleLines.
//
// The first byte picks the delimiter (, tab ; |, or detection), a small chunk size and whether `#`
// comment lines are skipped; the rest is the file. Checks, beyond "never traps":
// - reading in small chunks gives the same records as reading all at once;
// - line numbers increase from record to record;
// - the scanner over the whole buffer, as the loader runs it, gives the reader's records;
// - the well-formed records, written back with every field quoted, read back as the same fields.

private let delimiters: [UInt8?] = [UInt8(ascii: ","), UInt8(ascii: "\t"), UInt8(ascii: ";"), UInt8(ascii: "|"), nil]
private let chunkSizes = [3, 7, 16, 61, 256]

private func readAll(_ bytes: [UInt8], delimiter: UInt8?, chunkSize: Int, comments: Bool) -> (records: [CSVRecord], delimiter: UInt8) {
    guard let reader = try? CSVReader(source: MemorySource(bytes), delimiter: delimiter, chunkSize: chunkSize,
                                      skipCommentLines: comments) else { fatalError("CSVReader: init threw on memory") }
    var records: [CSVRecord] = []
    while let record = try? reader.next() { records.append(record) }
    return (records, reader.delimiter)
}

/// The loader's way: the scanner over the whole buffer at EOF, blank records skipped.
private func scanAll(_ bytes: [UInt8], delimiter: UInt8, from first: Int, line: Int) -> [CSVRecord] {
    let scanner = CSVScanner(delimiter: delimiter)
    var fields: [FieldSpan] = []
    var records: [CSVRecord] = []
    bytes.withUnsafeBufferPointer { buf in
        var start = first, line = line
        while start < buf.count {
            guard case .record(let end, let lines, let issue) = scanner.scan(buf, from: start, to: buf.count, atEOF: true, line: line, fields: &fields)
            else { fatalError("CSVScanner: needMore at EOF") }
            precondition(end > start && end <= buf.count, "CSVScanner: record end \(end) not after start \(start)")
            if !CSVScanner.isBlank(fields, issue: issue) {
                records.append(CSVRecord(fields: fields.map { fieldText(buf, $0) }, line: line, issue: issue))
            }
            start = end
            line += lines
        }
    }
    return records
}

private func quoted(_ records: [CSVRecord], delimiter: UInt8) -> [UInt8] {
    var out: [UInt8] = []
    for record in records {
        for (k, field) in record.fields.enumerated() {
            if k > 0 { out.append(delimiter) }
            out.append(UInt8(ascii: "\""))
            for b in field.utf8 {
                out.append(b)
                if b == UInt8(ascii: "\"") { out.append(b) }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(0x0A)
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func csvFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = Int(data[0])
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let delimiter = delimiters[selector % delimiters.count]
    let chunkSize = chunkSizes[(selector / delimiters.count) % chunkSizes.count]
    let comments = selector >= 128
    // Title lines before a header: at most three, and the header where a line starts inside the input.
    bytes.withUnsafeBufferPointer { buf in
        let titles = TitleLines.find(buf, from: 0)
        precondition(titles.lines.isEmpty || ((1...3).contains(titles.count) && titles.headerOffset > 0 && titles.headerOffset < buf.count
                                              && buf[titles.headerOffset - 1] == 0x0A), "TitleLines: \(titles)")
    }

    let whole = readAll(bytes, delimiter: delimiter, chunkSize: bytes.count + 1, comments: comments)
    let chunked = readAll(bytes, delimiter: delimiter, chunkSize: chunkSize, comments: comments)
    precondition(whole.delimiter == chunked.delimiter, "CSVReader: delimiter depends on the chunk size")
    precondition(whole.records == chunked.records, "CSVReader: chunk size \(chunkSize) changes the records")
    for (a, b) in zip(whole.records, whole.records.dropFirst()) {
        precondition(b.line > a.line, "CSVReader: line \(b.line) follows line \(a.line)")
    }

    if !comments {
        let bom = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let scanned = scanAll(bytes, delimiter: whole.delimiter, from: bom, line: 1)
        precondition(scanned == whole.records, "CSVScanner over the whole buffer disagrees with CSVReader")
    }

    let clean = whole.records.filter { $0.issue == nil }
    let rewritten = quoted(clean, delimiter: whole.delimiter)
    let reread = readAll(rewritten, delimiter: whole.delimiter, chunkSize: rewritten.count + 1, comments: false)
    precondition(reread.records.map(\.fields) == clean.map(\.fields), "CSV: fields written back quoted read back differently")
    return 0
}
