import Foundation
import GRDB
import GRDBSQLite

extension WellStore {
    /// The most columns a loaded file may have: 2,000 (SQLite's own default limit for a table), six times the widest agency list we know
    /// (about 300 columns). Every unmapped column is kept in each well's `extra` JSON, so without
    /// a limit a file of very many short columns costs many times its size in memory and in the
    /// store; past the limit a load is refused (exit 65) before it reads any record.
    public static let maximumColumns = 2_000
    /// The longest header a load reads, in bytes: ``maximumColumns`` names of 512 bytes each.
    public static let maximumHeaderBytes = 1 << 20

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
    /// nearby wells share pages; the R*Tree is packed afterwards (a file of up to 256 wells into a
    /// store that has wells is written in place, its tree kept as it goes). Every rejected record goes to
    /// the `rejects` table with its line, column, reason and raw text. If the load fails or the
    /// process dies part-way, the transaction rolls back and the store is left as it was. The
    /// first load into an empty store commits through a rollback journal rather than WAL (see the
    /// comment in the body); ``LoadSummary/journal`` says which.
    ///
    /// The file is mapped and read in place: it is located on two cores, then each well's row is
    /// built on one thread while SQLite writes on another.
    ///
    /// - Parameters:
    ///   - path: The file: a well list of any kind in Docs/manual.md's "The kinds of input", `-`
    ///     for standard input, or a pipe.
    ///   - options: What to map, infer, check and reject; the defaults infer everything.
    ///   - handler: Called after the commit with every rejected record, in line order: a
    ///   ``RejectList``, read back from the temporary file the load wrote them to as it found them,
    ///   so that ten million rejects cost no more memory than ten; `wells load --rejects` writes
    ///   them to a CSV file with ``Reject/writeCSV(_:toCSVAt:)``.
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns;
    ///   `DatabaseError` when SQLite fails, or what `handler` throws.
    /// - Complexity: O(n log n) for n records. Memory holds, besides the mapped file (whose pages
    ///   a big file gives back as it is read), a few dozen bytes per well and SQLite's page cache
    ///   (a national load's peak is in Benchmarks/README.md's "Scaling"). A file
    ///   whose wells would not fit in the memory available is refused with
    ///   ``StoreError/Code/outOfMemory`` before it is read.
    public func load(csvAt path: String, options: LoadOptions = LoadOptions(),
                     rejects handler: ((_ rejects: RejectList) throws -> Void)? = nil) throws -> LoadSummary {
        try load(csvAt: path, named: nil, options: options, rejects: handler)
    }

    /// ``load(csvAt:options:rejects:)`` of a file the user knows by another name (a temporary copy).
    func load(csvAt path: String, named name: String?, options: LoadOptions,
              rejects handler: ((_ rejects: RejectList) throws -> Void)?) throws -> LoadSummary {
        if options.dryRun { return try Self.dryRun(csvAt: path, named: name, options: options) }
        let prepared = try Self.prepareLoad(csvAt: path, options: options, name: name)
        let rejects = handler == nil ? RejectList() : prepared.scan.rejects
        // The records and the mapping go as soon as the write is done; the rejects (few, or one copy of each bad line) stay for `handler`.
        let summary = try engine.write(consume prepared)
        try handler?(rejects)
        return summary
    }

    /// Everything a load does before it writes: reads the file, infers and maps its columns,
    /// validates and transforms every record, settles duplicates and suspects, and collects the
    /// rejects. Engine-independent: the store's engine writes the result (``StorageEngine/write(_:)``).
    ///
    /// - Parameter name: The file as the user knows it, when `path` is a temporary copy.
    static func prepareLoad(csvAt path: String, options: LoadOptions, name: String? = nil) throws -> PreparedLoad {
        let clock = ContinuousClock.now
        let startedAt = Date()
        var scan = try scan(csvAt: path, options: options, name: name)
        scan.summary.phases["read"] = (ContinuousClock.now - clock).seconds
        if scan.records.isEmpty, !scan.rejects.isEmpty { throw scan.nothingLoaded() }
        return PreparedLoad(scan: scan, options: options, startedAt: startedAt, clock: clock)
    }

    /// Reads and validates a well list without a store: the mapping, the counts, the rejects'
    /// reasons and the first records as they would be stored. This is `wells load --dry-run`.
    ///
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns.
    public static func dryRun(csvAt path: String, options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        try dryRun(csvAt: path, named: nil, options: options)
    }

    /// ``dryRun(csvAt:options:)`` of a file the user knows by another name (a temporary copy).
    static func dryRun(csvAt path: String, named name: String?, options: LoadOptions) throws -> LoadSummary {
        let clock = ContinuousClock.now
        let scan = try scan(csvAt: path, options: options, name: name)
        var summary = scan.summary
        // The rows are built as a load builds them, in file order, so the counts of bad values are the load's.
        let builder = scan.makeBuilder()
        try RowPipeline.run(scan.records, count: scan.records.count, order: { $0 }, builder: builder) { batch in
            for k in 0..<batch.rows.count where batch.rows.lowerBound + k < options.previewCount {
                summary.preview.append(scan.preview(of: batch.row(k), in: batch))
            }
        }
        summary.count(badValues: builder.badValues)
        summary.warnings += scan.emptyColumnWarnings(filled: builder.filled, describe: options.describeRemedy)
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
            return try InputFile.withSpool(of: path, label: label, limit: options.spoolLimit, describe: options.describeRemedy) { spool in
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
        if let kind = ContainerKind.detect(head, name: name ?? path) {
            // A workbook, an archive, gzip, GeoJSON, KML or a shapefile: read through a temporary CSV (Reading/Containers/).
            return try scanContainer(kind, path: path, options: options, label: name ?? path)
        }
        if case .utf16(let bigEndian) = try TextEncoding.classify(head, file: path) {
            // UTF-16 (Excel's "Unicode text") is rewritten as UTF-8 once, then mapped like any file.
            let label = name ?? path
            return try InputFile.withTemporaryFile(label: label) { spool in
                try TextEncoding.transcodeUTF16(file, bigEndian: bigEndian, to: spool)
                return try Self.scan(csvAt: spool, options: options, name: label)
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
        guard var header = try reader.next() else {
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
        let headerBytes = reader.lastRecordOffsets.count
        if headerBytes > Self.maximumHeaderBytes {
            // The names are matched against every field's aliases and words: a 40 MB "header" (a
            // file of one long line) took 25 s of that before its refusal.
            throw ImportError(.malformedHeader, "the header is \(grouped(headerBytes)) bytes long, more than the \(grouped(Self.maximumHeaderBytes)) "
                                + "a line of column names may be (is this a well list? a file of one long line, or of values with no line breaks, has such a first line); "
                                + "give a file whose first line names its columns",
                              file: path, line: header.line)
        }
        // Blank and repeated header cells get names of their own (`column_15`, `County_2`): no value is dropped.
        let published = header.fields
        let headerNames = HeaderNames(published)
        header.fields = headerNames.names
        var data = (offset: reader.offset, line: reader.line)
        var sample: [[String]] = []
        var formatLine = false
        while sample.count < ColumnInference.sampleSize, let record = try reader.next() {
            if sample.isEmpty && !formatLine && record.issue == nil && Self.isRDBFormatLine(record.fields, header: header.fields) {
                // NWIS RDB's column-format line (widths and types, `16n 10d …`) follows the header: not a record.
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
        var dates = try DateColumns(mapping: mapping, sample: inference.sample, given: options.dateFormats,
                                    today: options.today ?? .now, file: path)
        let lengths = LengthUnits(mapping: mapping, options: options)
        // The file as the user named it, when `path` is a temporary copy.
        var summary = LoadSummary(file: name ?? path, sha256: "")
        summary.units = lengths.summary
        summary.mapping = Dictionary(uniqueKeysWithValues: mapping.fieldColumns.map { ($0.field, $0.column) })
        summary.extraColumns = mapping.unmappedIndices.map { mapping.header[$0] }.filter { !options.coordinates.generatedColumns.contains($0) }
        summary.commentLines = commentLines
        summary.inferences = Self.textInferences(file, sampleEnd: reader.offset, delimiter: reader.delimiter, decimalMark: decimalMark,
                                                 options: options) + inference.inferences + lengths.inferences
        if let named = headerNames.inference { summary.inferences.insert(named, at: 0) }
        if !titles.lines.isEmpty {
            summary.titleLines = titles.count
            summary.firstTitleLine = titles.lines.first.map { String($0.prefix(200)) }
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

        // The place outlines that the check and the landing after the parse read (`Places.shared`)
        // are read meanwhile on another thread.
        DispatchQueue.global().async { _ = Places.shared }
        var validator = RecordValidator(mapping: mapping, file: name ?? path, fileTag: RecordValidator.fileTag(header: published, firstRecord: sample.first),
                                        coordinates: options.coordinates, lengthFactors: lengths.factors, describe: options.describeRemedy)
        let part = PartitionedParse.run(file: file, from: data.offset, line: data.line, delimiter: reader.delimiter,
                                        validator: validator, options: options)
        options.progress?(LoadProgress(phase: .reading, done: file.bytes.count, total: file.bytes.count))
        summary.records = part.count
        // Date columns the sample could not decide are read whole, now that the records are located.
        dates.settle(part.records, file: file, delimiter: reader.delimiter)
        validator.dateFormats = dates.formats
        validator.today = dates.today
        let dateReports = dates.reports(describe: options.describeRemedy)
        summary.dateColumns = dateReports.columns
        summary.warnings += dateReports.warnings
        if let first = part.shortLines.first {
            summary.warnings.append("\(grouped(part.shortLines.count)) record\(part.shortLines.count == 1 ? "" : "s") had fewer fields than the header "
                + "(the first on line \(first)); their missing trailing fields were read as empty")
        }
        summary.sha256 = try part.sha256 ?? FileDigest.sha256(file)
        summary.phases["parse"] = (ContinuousClock.now - clock).seconds
        var scan = ScannedFile(summary: summary, file: file, validator: validator, delimiter: reader.delimiter,
                               records: part.records, rejects: part.rejects, mapping: mapping)
        scan.emptyColumns = EmptyColumn.find(mapping: mapping, sample: inference.sample, today: options.today ?? .now)
        scan.flagScientificIdentifiers()
        try scan.settleDuplicates(rule: options.onDuplicate, identifierIsKey: identifierGiven)
        if let stop = scan.longitudes0To360Stop() {
            guard !options.checkLocations else { throw stop }
            scan.summary.warnings.append(stop.reason + " Loaded anyway (\(options.describeRemedy(.noLocationCheck))): the rows out of range are rejected.")
        }
        let placeFindings = try scan.checkPlaces(options)
        scan.describeLanding(options)
        let suspectsStart = ContinuousClock.now
        scan.flagSuspects(reject: options.rejectSuspects, placeFindings: placeFindings + scan.impliedSignsAtSea(options))
        scan.summary.phases["suspects"] = (ContinuousClock.now - suspectsStart).seconds
        scan.summary.rejected = scan.rejects.count
        for (kind, count) in scan.rejects.kinds { scan.summary.rejectReasons[kind.rawValue, default: 0] += count }
        scan.summary.generatedIdentifiers = scan.records.count { $0.generatedIdentifier }
        try describeTransformations(scan, options: options.coordinates, into: &scan.summary)
        scan.summary.seconds = (ContinuousClock.now - clock).seconds
        return scan
    }
}

extension WellStore {
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
