import Foundation
import GRDB
import GRDBSQLite

extension WellStore {
    /// The most columns a loaded file may have: 2,000 (SQLite's own default limit for a table), six times the widest agency list we know
    /// (about 300 columns). Every unmapped column is kept in each well's `extra` JSON, so without
    /// a limit a file of 100,000 short columns cost a gigabyte of memory per 60 MB and a store
    /// ten times its size; past the limit a load is refused (exit 65) before it reads any record.
    public static let maximumColumns = 2_000

    /// Loads a well list into the store in one transaction.
    ///
    /// For example:
    ///
    /// ```swift
    /// var options = LoadOptions()
    /// options.mapping = ["operator": "Licensee"]
    /// let summary = try store.load(csvAt: "wells.csv", options: options)
    /// print("\(summary.loaded) loaded, \(summary.rejected) rejected")
    /// ```
    ///
    /// Wells are matched on their identifier (`details.uwi`): loading the same file twice
    /// updates the wells the first load inserted. New pins get ids in Hilbert order, so that
    /// nearby wells share pages; the R*Tree is packed afterwards. Every rejected record goes to
    /// the `rejects` table with its line, column, reason and raw text. If the load fails or the
    /// process dies part-way, the transaction rolls back and the store is left as it was. The
    /// first load into an empty store commits through a rollback journal rather than WAL (see the
    /// comment in the body); ``LoadSummary/journal`` says which.
    ///
    /// The file is mapped and read in place: it is located on two cores, then each well's row is
    /// built on one thread while SQLite writes on another (``PartitionedParse``, ``RowPipeline``).
    ///
    /// - Parameter handler: Called after the commit with every rejected record, in line order (the
    ///   list the load already holds, not a copy); `wells load --rejects` writes them to a CSV file
    ///   with ``Reject/writeCSV(_:toCSVAt:)``.
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns;
    ///   `DatabaseError` when SQLite fails, or what `handler` throws.
    /// - Complexity: O(n log n) for n records. Memory holds, besides the mapped file (whose pages
    ///   a file of 1 GiB or more gives back as it is read), about 60–80 bytes per well and SQLite's
    ///   64 MiB page cache (see `LoadMemory`): 10,000,000 wells peak under 0.9 GB. A file whose
    ///   wells would not fit in the memory available is refused with ``StoreError/Code/outOfMemory``
    ///   before it is read.
    public func load(csvAt path: String, options: LoadOptions = LoadOptions(),
                     rejects handler: ((_ rejects: [Reject]) throws -> Void)? = nil) throws -> LoadSummary {
        if options.dryRun { return try Self.dryRun(csvAt: path, options: options) }
        let prepared = try Self.prepareLoad(csvAt: path, options: options)
        let rejects = handler == nil ? [] : prepared.scan.rejects
        // The records and the mapping go as soon as the write is done; the rejects (few, or one copy of each bad line) stay for `handler`.
        let summary = try engine.write(consume prepared)
        try handler?(rejects)
        return summary
    }

    /// Everything a load does before it writes: reads the file, infers and maps its columns,
    /// validates and transforms every record, settles duplicates and suspects, and collects the
    /// rejects. Engine-independent: the store's engine writes the result (``StorageEngine/write(_:)``).
    static func prepareLoad(csvAt path: String, options: LoadOptions) throws -> PreparedLoad {
        let clock = ContinuousClock.now
        let startedAt = Date()
        var scan = try scan(csvAt: path, options: options)
        scan.summary.phases["read"] = (ContinuousClock.now - clock).seconds
        if scan.records.isEmpty, !scan.rejects.isEmpty { throw scan.nothingLoaded() }
        return PreparedLoad(scan: scan, options: options, startedAt: startedAt, clock: clock)
    }

    /// Reads and validates a well list without a store: the mapping, the counts, the rejects'
    /// reasons and the first records as they would be stored. This is `wells load --dry-run`.
    ///
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns.
    public static func dryRun(csvAt path: String, options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        let clock = ContinuousClock.now
        let scan = try scan(csvAt: path, options: options)
        var summary = scan.summary
        // The rows are built as a load builds them, in file order, so the counts of bad values are the load's.
        let builder = scan.makeBuilder()
        try RowPipeline.run(scan.records, count: scan.records.count, order: { $0 }, builder: builder) { batch in
            for k in 0..<batch.rows.count where batch.rows.lowerBound + k < options.previewCount {
                summary.preview.append(scan.preview(of: batch.row(k), in: batch))
            }
        }
        summary.count(badValues: builder.badValues)
        summary.inserted = scan.records.count
        summary.seconds = (ContinuousClock.now - clock).seconds
        return summary
    }

    /// Reads the file, locates every record, and settles duplicate identifiers.
    ///
    /// - Parameter name: The file as the user named it, when `path` is a spooled copy.
    static func scan(csvAt path: String, options: LoadOptions, name: String? = nil) throws -> ScannedFile {
        switch try InputFile.kind(of: path) {
        case .regular:
            break
        case .stream:
            // Standard input and pipes, such as `<(gunzip -c wells.csv.gz)`, are spooled to a
            // file, which is mapped like any other. Generated identifiers and messages name them
            // "stdin" or the path given, not the spool, so that they stay stable across reloads.
            let label = path == "-" ? "stdin" : path
            return try InputFile.withSpool(of: path, label: label) { spool in
                var result = try Self.scan(csvAt: spool, options: options, name: label)
                result.summary.file = path
                return result
            }
        }
        let clock = ContinuousClock.now
        // The one open of the input: every later pass (encoding, header, records, rows, rejects' raw text) reads this mapping.
        return try scan(MappedFile(path: path), options: options, name: name, since: clock)
    }

    /// Reads a mapped file: its encoding, header and sample through the streaming reader, then every record.
    static func scan(_ file: MappedFile, options: LoadOptions, name: String?, since clock: ContinuousClock.Instant) throws -> ScannedFile {
        var options = options
        let path = file.path
        let head = Array(file.bytes.prefix(TextEncoding.sniffLength))
        if case .utf16(let bigEndian) = try TextEncoding.classify(head, file: path) {
            // UTF-16 (Excel's "Unicode text") is rewritten as UTF-8 once, then mapped like any file.
            let label = name ?? path
            return try InputFile.withTemporaryFile(label: label) { spool in
                try TextEncoding.transcodeUTF16(file, bigEndian: bigEndian, to: spool)
                var result = try Self.scan(csvAt: spool, options: options, name: label)
                result.summary.file = label
                return result
            }
        }
        // The header through the streaming reader, which skips a byte order mark and `#` comment
        // lines, and detects the delimiter; then the first records, from which columns are inferred.
        var reader = try CSVReader(source: MappedSource(file), delimiter: options.delimiter, chunkSize: 1 << 16,
                                   skipCommentLines: true)
        let commentLines = reader.commentLines
        // Title lines before the header (`Oklahoma Corporation Commission - Well Data Export`), as exports write them.
        let titles = TitleLines.find(file.bytes, from: reader.offset)
        if !titles.lines.isEmpty {
            reader = try CSVReader(source: MappedSource(file, from: titles.headerOffset), delimiter: options.delimiter, chunkSize: 1 << 16,
                                   firstLine: reader.line + titles.count, baseOffset: titles.headerOffset)
        }
        guard let header = try reader.next() else {
            throw ImportError(.emptyFile, "the file is empty; expected a header line and data records", file: path)
        }
        if let issue = header.issue {
            throw ImportError(.malformedHeader, "the header is malformed: \(issue)", file: path, line: header.line)
        }
        if header.fields.count > Self.maximumColumns {
            throw ImportError(.tooManyColumns, "the header has \(header.fields.count) columns, more than the \(Self.maximumColumns) a well list may have "
                                + "(is this a well list? a transposed table or a file of one long line has as many); "
                                + "keep the columns you need, for example with `cut -d, -f1-50`, and load that",
                              file: path, line: header.line)
        }
        var data = (offset: reader.offset, line: reader.line)
        var sample: [[String]] = []
        var formatLine = false
        while sample.count < ColumnInference.sampleSize, let record = try reader.next() {
            if sample.isEmpty && !formatLine && record.issue == nil && Self.isRDBFormatLine(record.fields, header: header.fields) {
                // NWIS RDB's column-format line (`5s 15s 50s …`) follows the header: not a record.
                data = (reader.offset, reader.line)
                formatLine = true
                continue
            }
            sample.append(record.fields)
        }
        if !sample.isEmpty {
            // The sample's mean record length gives the wells a file of this size holds.
            let wells = (file.bytes.count - data.offset) / max(1, (reader.offset - data.offset) / sample.count)
            if let shortfall = LoadMemory.shortfall(wells: wells, available: LoadMemory.available()) {
                throw StoreError(.outOfMemory, shortfall, path: path)
            }
        }
        var inference = ColumnInference(header: header.fields, sample: sample, file: name ?? path)
        let decimalMark = Self.decimalMark(sample, delimiter: reader.delimiter)
        if decimalMark.comma && options.infer { options.coordinates.decimalComma = true }
        inference.decimalComma = options.coordinates.decimalComma
        let identifierGiven = options.identifier != .automatic || options.mapping[WellField.identifier.rawValue] != nil
        options = try inference.infer(options)
        let mapping = try ColumnMapping(header: header.fields, overrides: options.mapping,
                                        requireCoordinates: options.coordinates.xColumn == nil && options.coordinates.pointColumn == nil, file: path)
        try Self.checkCoordinateOptions(options.coordinates, header: header.fields, path: path, describe: options.describeRemedy)
        var summary = LoadSummary(file: path, sha256: "")
        summary.mapping = Dictionary(uniqueKeysWithValues: mapping.fieldColumns.map { ($0.field, $0.column) })
        summary.extraColumns = mapping.unmappedIndices.map { mapping.header[$0] }
        summary.commentLines = commentLines
        summary.inferences = Self.textInferences(file, sampleEnd: reader.offset, delimiter: reader.delimiter, decimalMark: decimalMark,
                                                 options: options) + inference.inferences
        if !titles.lines.isEmpty {
            summary.titleLines = titles.count
            summary.inferences.insert(Inference(
                subject: "title", column: nil,
                value: "\(titles.count) line\(titles.count == 1 ? "" : "s") before the header skipped: "
                    + titles.lines.prefix(2).map { "\"\(String($0.prefix(80)))\"" }.joined(separator: ", "),
                evidence: "\(titles.evidence); the header is line \(header.line)", override: ""), at: 0)
        }
        if commentLines > 0 || formatLine {
            summary.inferences.insert(Inference(
                subject: "comments", column: nil,
                value: "\(commentLines) comment line\(commentLines == 1 ? "" : "s") before the header skipped"
                    + (formatLine ? "; the RDB column-format line after it skipped" : ""),
                evidence: "lines starting with #" + (formatLine ? "; every field of line \(header.line + 1) is a width and type such as 5s" : ""),
                override: ""), at: 0)
        }

        // The place outlines that the check and the landing after the parse read (`Places.shared`,
        // about 10 ms) are read meanwhile on another thread.
        DispatchQueue.global().async { _ = Places.shared }
        let validator = RecordValidator(mapping: mapping, file: name ?? path, fileTag: RecordValidator.fileTag(header: header.fields, firstRecord: sample.first),
                                        coordinates: options.coordinates, describe: options.describeRemedy)
        let part = PartitionedParse.run(file: file, from: data.offset, line: data.line, delimiter: reader.delimiter,
                                        validator: validator, options: options)
        options.progress?(LoadProgress(phase: .reading, done: file.bytes.count, total: file.bytes.count))
        summary.records = part.count
        if let first = part.shortLines.first {
            summary.warnings.append("\(grouped(part.shortLines.count)) record\(part.shortLines.count == 1 ? "" : "s") had fewer fields than the header "
                + "(the first on line \(first)); their missing trailing fields were read as empty")
        }
        summary.sha256 = try part.sha256 ?? FileDigest.sha256(file)
        summary.phases["parse"] = (ContinuousClock.now - clock).seconds
        var scan = ScannedFile(summary: summary, file: file, validator: validator, delimiter: reader.delimiter,
                               records: part.records, rejects: part.rejects, mapping: mapping)
        try scan.settleDuplicates(rule: options.onDuplicate, identifierIsKey: identifierGiven)
        let placeFindings = try scan.checkPlaces(options)
        scan.describeLanding(options)
        let suspectsStart = ContinuousClock.now
        scan.flagSuspects(reject: options.rejectSuspects, placeFindings: placeFindings + scan.impliedSignsAtSea(options))
        scan.summary.phases["suspects"] = (ContinuousClock.now - suspectsStart).seconds
        scan.summary.rejected = scan.rejects.count
        for reject in scan.rejects { scan.summary.rejectReasons[reject.kind.rawValue, default: 0] += 1 }
        scan.rejects.sort { $0.line < $1.line }
        scan.summary.generatedIdentifiers = scan.records.count { $0.generatedIdentifier }
        try describeTransformations(scan, options: options.coordinates, into: &scan.summary)
        scan.summary.seconds = (ContinuousClock.now - clock).seconds
        return scan
    }
}

/// A file read and located: the records that are wells, in file order, and the rejects.
package struct ScannedFile {
    package var summary: LoadSummary
    let file: MappedFile
    var validator: RecordValidator
    let delimiter: UInt8
    package var records: RecordList
    package var rejects: [Reject]
    var mapping: ColumnMapping
    /// How many wells ``checkPlaces(_:)`` checked against a place, an area of use or Antarctica's
    /// absence: none when the file names no place, or only WGS 84, used worldwide, as every row's datum.
    var placesChecked = 0

    /// The record's identifier, as stored.
    func identifier(of record: ScannedRecord) -> String {
        guard let span = record.identifier else { return validator.generatedIdentifier(line: record.line) }
        return fieldText(file.bytes, span)
    }

    /// A builder of text rows, or of a SQLite store's compact rows with `compact`.
    package func makeBuilder(compact: CompactDetails? = nil) -> RowBuilder {
        RowBuilder(validator: validator, file: file, delimiter: delimiter, compact: compact)
    }

    /// The columns whose values may be kept in `details.extra`: the unmapped ones, then those of
    /// the detail fields (a value that does not parse).
    var extraColumns: [Int] { validator.extraIndices + validator.detailSlots.compactMap(\.index) }

    /// Keeps one record per identifier, by `rule`, and rejects the others with their raw text.
    ///
    /// When the identifier was inferred rather than given (`identifierIsKey` false) and its values
    /// repeat over clearly different wells (at another location) on at least 2% of the rows (and 10),
    /// the column is not a key for this file: see ``treatIdentifierAsAttribute(differentWells:)``.
    mutating func settleDuplicates(rule: LoadOptions.DuplicateRule, identifierIsKey: Bool) throws {
        let records = self.records
        let (kept, losers) = DuplicateIdentifiers.resolve(
            count: records.count, rule: rule, hash: { records.hash($0) },
            same: { identifier(of: records[$0]).utf8.elementsEqual(identifier(of: records[$1]).utf8) })
        guard !losers.isEmpty, let kept else { return }
        if !identifierIsKey, mapping.column(for: .identifier) != nil {
            let different = losers.count { !Self.sameLocation(records[$0.0], records[$0.1]) }
            if different >= max(10, records.count / 50) {
                treatIdentifierAsAttribute(differentWells: different)
                return
            }
        }
        let idColumn = mapping.column(for: .identifier)
        for (loser, winner) in losers {
            let record = records[loser], uwi = identifier(of: record), line = records[winner].line
            let reason = rule == .first
                ? "identifier \"\(uwi)\" already appears on line \(line), which was kept; "
                    + "make it unique, or load with \(validator.describe(.keepLaterDuplicate)) to keep the later row"
                : "identifier \"\(uwi)\" appears again on line \(line), which replaced this row (\(validator.describe(.keepLaterDuplicate)))"
            rejects.append(Reject(line: record.line, column: idColumn, kind: .duplicateIdentifier, reason: reason,
                                  raw: file.text(at: record.range)))
        }
        summary.duplicates = losers.count
        self.records = records.selecting(kept)
    }

    /// The error for a file whose every record was rejected: the commonest reason, an example, and
    /// for coordinates that are all swapped, the mapping that loads them.
    func nothingLoaded() -> ImportError {
        let counts = Dictionary(rejects.map { ($0.kind, 1) }, uniquingKeysWith: +).sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
        let (kind, count) = counts[0]
        let example = rejects.first { $0.kind == kind }!
        var fix: PlacementFix?
        if kind == .coordinatesSwapped, let lat = mapping.column(for: .latitude), let lon = mapping.column(for: .longitude) {
            fix = PlacementFix(slip: "the latitude and longitude columns are swapped", fits: count, checked: rejects.count,
                               mapping: ["lat": lon, "lon": lat])
        } else if kind == .latitudeOutOfRange || kind == .longitudeOutOfRange {
            fix = scaledDegreesFix()
        } else if kind == .coordinateNotANumber {
            fix = decimalCommaFix()
        }
        return ImportError(
            .nothingLoaded,
            "none of the \(grouped(summary.records)) records loaded; the commonest reason (\(grouped(count)) rows) is \(kind.rawValue), "
                + "for example line \(example.line): \(example.reason)." + (fix.map { " It looks as if \($0.slip)." } ?? ""),
            remedy: fix.map { .relocate($0) }, file: summary.file, line: example.line, column: example.column)
    }

    /// For a file whose rows were rejected with a latitude or longitude out of range: the reading that
    /// puts at least 90% of a sample of them in range, if one does: longitudes from 0 to 360, or
    /// degrees written as whole numbers (fixed-point, as some databases keep them), divided by the
    /// smallest power of ten that brings both columns in range. Projected metres can look like the
    /// second (500000, 4000000 are 5° and 40° times 100,000), so whole numbers only, and the slip
    /// says where the wells land when read so, for the user to judge; the place check of the load
    /// with the fix checks them against the file's evidence as any load.
    func scaledDegreesFix() -> PlacementFix? {
        let coordinates = validator.coordinates
        guard !validator.projected, !coordinates.dms, validator.pointIndex == nil, coordinates.degreeDivisor == nil, coordinates.minutesAndSeconds == nil,
              !coordinates.longitudes0To360 else { return nil }
        let texts = coordinateTexts(rejects.filter { $0.kind == .latitudeOutOfRange || $0.kind == .longitudeOutOfRange })
        func number(_ text: String) -> Double? {
            Double((coordinates.decimalComma ? text.replacingOccurrences(of: ",", with: ".") : text).trimmingSpaces())
        }
        let values = texts.compactMap { text in number(text.lat).flatMap { lat in number(text.lon).map { (lat: lat, lon: $0) } } }
        guard !values.isEmpty, values.count * 10 >= texts.count * 9 else { return nil }
        func mostly(_ test: ((lat: Double, lon: Double)) -> Bool) -> Bool { values.count(where: test) * 10 >= values.count * 9 }
        var fix: PlacementFix
        let reading: ((lat: Double, lon: Double)) -> (lat: Double, lon: Double)
        if mostly({ abs($0.lat) <= 90 && $0.lon > 180 && $0.lon <= 360 }) {
            fix = PlacementFix(slip: "the longitudes run from 0 to 360 east", longitudes0To360: true)
            reading = { ($0.lat, $0.lon > 180 ? $0.lon - 360 : $0.lon) }
        } else if mostly({ Self.compactDMS($0.lat) != nil && Self.compactDMS($0.lon) != nil }) {
            // 362810 and -851541 are 36°28'10" and 85°15'41"W run together (DDMMSS), as --no-infer leaves
            // them: read as degrees times 10,000 they would land 20 to 40 km away, inside the same state.
            fix = PlacementFix(slip: "the coordinates are degrees, minutes and seconds run together (DDMMSS)", dms: true)
            reading = { (Self.compactDMS($0.lat) ?? .nan, Self.compactDMS($0.lon) ?? .nan) }
        } else if texts.count(where: { !$0.lat.contains(".") && !$0.lon.contains(".") }) * 10 >= texts.count * 9,
                  let power = (1...9).first(where: { k in
                      let divisor = pow(10, Double(k))
                      return mostly { abs($0.lat) <= 90 * divisor && abs($0.lon) <= 180 * divisor && ($0.lat != 0 || $0.lon != 0) }
                  }) {
            let divisor = pow(10, Double(power))
            fix = PlacementFix(slip: "the coordinates are degrees written as whole numbers, times \(grouped(Int(divisor)))", degreeDivisor: divisor)
            reading = { ($0.lat / divisor, $0.lon / divisor) }
        } else {
            return nil
        }
        let read = values.map(reading)
        fix.fits = read.count { abs($0.lat) <= 90 && abs($0.lon) <= 180 }
        fix.checked = values.count
        fix.slip += ": read so, \(grouped(fix.fits)) of \(grouped(fix.checked)) sampled rows are in range"
        if let places = Places.shared {
            fix.slip += " and land in " + Landing.of(read, places).prefix(3).map(\.description).joined(separator: ", ")
        }
        return fix
    }

    /// The latitude and longitude text of up to 400 of `rejects`, spread through them, split anew from their raw text.
    private func coordinateTexts(_ rejects: [Reject]) -> [(lat: String, lon: String)] {
        let scanner = CSVScanner(delimiter: delimiter)
        var spans: [FieldSpan] = []
        var texts: [(lat: String, lon: String)] = []
        for reject in stride(from: 0, to: rejects.count, by: max(1, rejects.count / 400)).map({ rejects[$0] }) {
            Array(reject.raw.utf8).withUnsafeBufferPointer { bytes in
                _ = scanner.scan(bytes, from: 0, to: bytes.count, atEOF: true, line: reject.line, fields: &spans)
                let fields = RecordFields(buffer: bytes, spans: spans)
                if max(validator.latIndex, validator.lonIndex) < fields.count {
                    texts.append((fields.text(validator.latIndex), fields.text(validator.lonIndex)))
                }
            }
        }
        return texts
    }

    /// For a file whose rows were all rejected as coordinates that are not numbers: a decimal comma,
    /// when at least 90% of a sample of them read so in range. A comma-separated file gets no such
    /// inference (a comma in its numbers may as well group thousands: `1,234`), so
    /// `"36,469556","-85,261306"`, quoted as a spreadsheet exports them, stopped with no way out.
    func decimalCommaFix() -> PlacementFix? {
        let coordinates = validator.coordinates
        guard !validator.projected, !coordinates.dms, !coordinates.decimalComma, validator.pointIndex == nil else { return nil }
        let texts = coordinateTexts(rejects.filter { $0.kind == .coordinateNotANumber })
        let read = texts.compactMap { text -> (lat: Double, lon: Double)? in
            guard text.lat.contains(","), text.lon.contains(","), let lat = ValueParsing.decimalComma(text.lat), let lon = ValueParsing.decimalComma(text.lon),
                  abs(lat) <= 90, abs(lon) <= 180 else { return nil }
            return (lat, lon)
        }
        guard !read.isEmpty, read.count * 10 >= texts.count * 9, let example = texts.first(where: { $0.lat.contains(",") }) else { return nil }
        var fix = PlacementFix(slip: "the numbers are written with a decimal comma (\(example.lat), \(example.lon))", fits: read.count, checked: texts.count,
                               decimalComma: true)
        fix.slip += ": read so, \(grouped(read.count)) of \(grouped(texts.count)) sampled rows are in range"
        if let places = Places.shared {
            fix.slip += " and land in " + Landing.of(read, places).prefix(3).map(\.description).joined(separator: ", ")
        }
        return fix
    }

    /// A whole number of 5 to 7 digits read as degrees, minutes and seconds run together (DDMMSS,
    /// DDDMMSS) by ``DMS``, as degrees; nil when it is not one (minutes or seconds of 60 or more).
    static func compactDMS(_ value: Double) -> Double? {
        guard value == value.rounded(), (10_000..<10_000_000).contains(abs(value)) else { return nil }
        return DMS.degrees(String(Int64(value)))
    }

    /// Two records at the same place, to about a metre.
    static func sameLocation(_ a: ScannedRecord, _ b: ScannedRecord) -> Bool {
        abs(a.lat - b.lat) < 1e-5 && abs(a.lon - b.lon) < 1e-5
    }

    /// Loads every well of a file whose identifier column is not a key: the column's value stays
    /// as an attribute (in `extra`), and each well gets the generated identifier `FILE@TAG:LINE`,
    /// stable across reloads of the same file. Records that are the same well (the same value at
    /// the same location) remain duplicates: the first loads, the others are rejected.
    mutating func treatIdentifierAsAttribute(differentWells: Int) {
        let records = self.records
        let column = mapping.column(for: .identifier)!
        var counts: [UInt64: (count: Int, first: Int)] = [:]
        for (index, record) in records.enumerated() where record.identifier != nil {
            counts[record.hash, default: (0, index)].count += 1
        }
        let top = counts.values.max { ($0.count, $1.first) < ($1.count, $0.first) }
        summary.identifierNotKey = IdentifierReport(
            column: column, rows: records.count, distinct: counts.count,
            mostRepeated: top.map { identifier(of: records[$0.first]) } ?? "", mostRepeatedCount: top?.count ?? 0,
            differentWells: differentWells)
        summary.warnings.append(
            "column \"\(column)\" is not a key for this file: \(grouped(counts.count)) distinct values over \(grouped(records.count)) rows, "
                + "and \"\(summary.identifierNotKey!.mostRepeated)\" alone repeats \(grouped(top?.count ?? 0)) times at different locations. "
                + "Every well was loaded with a generated identifier (FILE@TAG:LINE) and the column kept as an attribute; "
                + "load with \(validator.describe(.identifierColumn(column))) to treat it as a key anyway (repeats rejected), or \(validator.describe(.noIdentifier)) to say so")
        let (kept, losers) = DuplicateIdentifiers.resolve(
            count: records.count, rule: .first,
            hash: { records[$0].hash ^ UInt64(bitPattern: Int64((records[$0].lat * 1e4).rounded())) &* 0x9E37_79B9_7F4A_7C15 },
            same: { a, b in
                records[a].identifier != nil && records[b].identifier != nil && Self.sameLocation(records[a], records[b])
                    && identifier(of: records[a]).utf8.elementsEqual(identifier(of: records[b]).utf8)
            })
        for (loser, winner) in losers {
            let record = records[loser]
            rejects.append(Reject(
                line: record.line, column: column, kind: .duplicateWell,
                reason: "the same well as line \(records[winner].line), which was kept: \(column) \"\(identifier(of: record))\" at the same location",
                raw: file.text(at: record.range)))
        }
        summary.duplicates = losers.count
        validator = validator.withoutIdentifier()
        mapping = validator.mapping
        summary.mapping[WellField.identifier.rawValue] = nil
        summary.extraColumns = mapping.unmappedIndices.map { mapping.header[$0] }
        self.records = records.selecting(kept ?? Array(records.indices)) { $0.identifier = nil }
    }

    /// Flags wells whose coordinates look wrong (``SuspectCoordinates``), or rejects them with `reject`.
    ///
    /// - Parameter placeFindings: The wells outside the places their rows name (``checkPlaces(_:)``), which take precedence.
    mutating func flagSuspects(reject: Bool, placeFindings: [SuspectCoordinates.Finding] = []) {
        // A well outside its row's place keeps the slip that would put it back; one that no slip explains
        // keeps the neighbours' reason (such as "far from the others") when they have one, with the place's detail.
        var byIndex = Dictionary(SuspectCoordinates.find(records.indices.map { records.coordinates($0) }).map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        for finding in placeFindings {
            if finding.reason == SuspectCoordinates.outsidePlace, var other = byIndex[finding.index] {
                other.detail = finding.detail + "; " + other.detail
                byIndex[finding.index] = other
            } else {
                byIndex[finding.index] = finding
            }
        }
        let findings = byIndex.values.sorted { $0.index < $1.index }
        guard !findings.isEmpty else { return }
        for finding in findings {
            let record = records[finding.index]
            if reject {
                rejects.append(Reject(line: record.line, column: mapping.column(for: .longitude), kind: RejectKind(suspect: finding.reason),
                                      reason: "coordinates look wrong (\(finding.reason)): \(finding.detail); "
                                        + "correct them, or load without \(validator.describe(.rejectSuspects)) to keep the well flagged",
                                      raw: file.text(at: record.range)))
            } else {
                summary.suspects.append(Suspect(line: record.line, identifier: identifier(of: record),
                                                reason: finding.reason, detail: finding.detail))
            }
        }
        if reject {
            let drop = Set(findings.map(\.index))
            records = records.selecting(records.indices.lazy.filter { !drop.contains($0) })
        }
    }

    /// A built row as field name → text, for `--dry-run`.
    func preview(of row: ArraySlice<Cell>, in batch: RowBatch) -> [String: String] {
        var result: [String: String] = [:]
        func put(_ key: String, _ column: Int) {
            if let text = batch.text(of: row[row.startIndex + column]) { result[key] = text }
        }
        put("name", RowBatch.Column.name)
        put("lat", RowBatch.Column.lat)
        put("lon", RowBatch.Column.lon)
        put("uwi", RowBatch.Column.identifier)
        for (k, field) in WellField.detailValueFields.enumerated() { put(field.rawValue, RowBatch.Column.values + k) }
        put("extra", RowBatch.Column.extra)
        return result
    }
}

extension LoadSummary {
    /// Adds the counts of detail values that did not parse, per field of ``WellField/detailValueFields``.
    package mutating func count(badValues: [Int]) {
        for (field, count) in zip(WellField.detailValueFields, badValues) where count > 0 {
            badValuesByField[field.rawValue, default: 0] += count
        }
        self.badValues = badValuesByField.values.reduce(0, +)
    }
}

extension WellStore {
    /// Whether the sample writes numbers with a decimal comma (`36,020983`): never in a comma-separated
    /// file; otherwise when at least as many cells are numbers with a decimal comma as with a point.
    static func decimalMark(_ sample: [[String]], delimiter: UInt8) -> (comma: Bool, commas: Int, points: Int) {
        guard delimiter != UInt8(ascii: ",") else { return (false, 0, 0) }
        var commas = 0, points = 0
        for row in sample.prefix(500) {
            for cell in row {
                let text = cell.trimmingCharacters(in: .whitespaces)
                guard let first = text.first, first.isNumber || first == "-" || first == "+" else { continue }
                if text.contains(","), !text.contains("."), ValueParsing.decimalComma(text) != nil { commas += 1 }
                else if text.contains("."), ValueParsing.number(text) != nil { points += 1 }
            }
        }
        return (commas > 0 && commas >= points, commas, points)
    }

    /// The inferences about the text itself: its encoding, delimiter and decimal mark.
    static func textInferences(_ file: MappedFile, sampleEnd: Int, delimiter: UInt8,
                               decimalMark: (comma: Bool, commas: Int, points: Int), options: LoadOptions) -> [Inference] {
        let head = UnsafeBufferPointer(rebasing: file.bytes[0..<min(sampleEnd, file.bytes.count)])
        let bom = head.starts(with: [0xEF, 0xBB, 0xBF])
        var encoding = Inference(subject: "encoding", column: nil, value: bom ? "UTF-8 (with a byte order mark)" : "UTF-8",
                                 evidence: "the first \(grouped(head.count)) bytes are valid UTF-8", override: "")
        if !isASCII(head), String(validating: head, as: UTF8.self) == nil {
            let bad = firstInvalidUTF8(head)
            let c1 = head.count { (0x80...0x9F).contains($0) }
            encoding.value = c1 > 0 ? "Windows-1252" : "Latin-1 (ISO 8859-1)"
            encoding.evidence = "byte 0x\(String(head[bad], radix: 16, uppercase: true)) at offset \(bad) is not UTF-8"
                + (c1 > 0 ? "; \(grouped(c1)) bytes 0x80–0x9F read as Windows-1252 punctuation (“ ” – — …), not as control characters" : "")
                + "; save the file as UTF-8 to be sure"
        }
        let names: [UInt8: String] = [UInt8(ascii: ","): "comma", UInt8(ascii: "\t"): "tab", UInt8(ascii: ";"): "semicolon", UInt8(ascii: "|"): "pipe"]
        let delimiterName = names[delimiter] ?? "0x\(String(delimiter, radix: 16))"
        var result = [encoding, Inference(subject: "delimiter", column: nil, value: delimiterName,
                                          evidence: options.delimiter == nil ? "detected from the header" : "given",
                                          override: "--delimiter comma|tab|semicolon|pipe")]
        if decimalMark.comma || decimalMark.commas > 0 {
            result.append(Inference(subject: "decimal mark", column: nil, value: options.coordinates.decimalComma ? "comma (36,020983)" : "point",
                                    evidence: "\(grouped(decimalMark.commas)) sampled numbers written with a decimal comma, \(grouped(decimalMark.points)) with a point",
                                    override: ""))
        }
        return result
    }

    /// The offset of the first byte that does not continue valid UTF-8.
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var k = 0
        while k < bytes.count {
            let b = bytes[k]
            let length = b < 0x80 ? 1 : b >> 5 == 0b110 ? 2 : b >> 4 == 0b1110 ? 3 : b >> 3 == 0b11110 ? 4 : 0
            guard length > 0, k + length <= bytes.count,
                  (1..<length).allSatisfy({ bytes[k + $0] >> 6 == 0b10 }) else { return k }
            k += length
        }
        return k
    }

    /// Whether a record is NWIS RDB's column-format line: as many fields as the header, each a width and a type (`5s`, `16n`, `10d`).
    static func isRDBFormatLine(_ fields: [String], header: [String]) -> Bool {
        fields.count == header.count && fields.allSatisfy { field in
            guard let type = field.last, "sndt".contains(type), field.count >= 2 else { return false }
            return field.dropLast().allSatisfy { $0.isASCII && $0.isNumber }
        }
    }

    /// Fails early, with the header, when --x, --y or --datum-column name no column, or the CRS is unknown.
    static func checkCoordinateOptions(_ coordinates: CoordinateOptions, header: [String], path: String,
                                       describe: (LoadRemedy) -> String = { $0.apiText }) throws {
        let split = coordinates.minutesAndSeconds
        for (option, column) in [(ImportError.ColumnOption.xColumn, coordinates.xColumn), (.yColumn, coordinates.yColumn), (.datumColumn, coordinates.datumColumn),
                                 (.minutesColumn, split?.latitudeMinutes), (.minutesColumn, split?.longitudeMinutes),
                                 (.secondsColumn, split?.latitudeSeconds), (.secondsColumn, split?.longitudeSeconds)] {
            if let column, !header.contains(column) {
                throw ImportError(.unknownColumn, "no such column", remedy: .chooseColumn(option, given: column), header: header, file: path)
            }
        }
        if var problem = coordinates.inconsistency {
            problem.file = path
            throw problem
        }
        if let crs = coordinates.crs { _ = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326") }
        if var problem = coordinates.degreeOptionsOnProjectedValues(describe: describe) {
            problem.file = path
            throw problem
        }
    }

    /// Records, per source CRS, the operation PROJ used and its accuracy, and warns when a better one needs a missing grid.
    static func describeTransformations(_ scan: ScannedFile, options: CoordinateOptions, into summary: inout LoadSummary) throws {
        var counts: [Int: Int] = [:]
        var extent: [Int: (west: Double, south: Double, east: Double, north: Double)] = [:]
        for record in scan.records {
            guard let crs = record.source?.crs else { continue }
            counts[crs, default: 0] += 1
            let e = extent[crs] ?? (record.lon, record.lat, record.lon, record.lat)
            extent[crs] = (min(e.west, record.lon), min(e.south, record.lat), max(e.east, record.lon), max(e.north, record.lat))
        }
        summary.crs = options.datumColumn != nil ? "per-row datum (\(options.datumColumn!))" : (options.crs ?? "EPSG:4326")
        for (index, wells) in counts.sorted(by: { scan.validator.crsNames[$0.key] < scan.validator.crsNames[$1.key] }) {
            let crs = scan.validator.crsNames[index]
            let operation = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326").operation
            summary.transformations.append(Transformation(source: crs, wells: wells, operation: operation.name, accuracyMeters: operation.accuracy,
                                                          grids: operation.grids.map(\.shortName)))
            let e = extent[index]!
            let area = CRSInfo.Area(west: e.west, south: e.south, east: e.east, north: e.north)
            if let warning = try CRSInfo.describe(crs).accuracyReport(to: "EPSG:4326", area: area).warning {
                summary.warnings.append(warning)
            }
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
