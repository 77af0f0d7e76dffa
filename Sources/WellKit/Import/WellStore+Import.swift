import Crypto
import Foundation
import GRDB

extension WellStore {
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
    /// process dies part-way, the transaction rolls back and the store is left as it was.
    ///
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns;
    ///   `DatabaseError` when SQLite fails.
    /// - Complexity: O(n log n) for n records; memory holds the validated records until the write.
    public func load(csvAt path: String, options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        let clock = ContinuousClock.now
        let startedAt = Date()
        var (summary, staged, rejects, mapping) = try Self.stage(csvAt: path, options: options)
        if options.dryRun { return summary }
        summary.phases["read"] = (ContinuousClock.now - clock).seconds
        var commitStart = ContinuousClock.now
        try pool.writeWithoutTransaction { db in
            // Foreign keys hold by construction here: each pin is written before its detail, with
            // an id the writer allocated, and the load's row before both. Checking them per row
            // cost 0.25 s of a 4.5 s load of 244,292 wells. The pragma only works outside a transaction.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                var writer = BulkWriter(db)
                let (inserted, updated) = try writer.write(staged)
                summary.inserted = inserted
                summary.updated = updated
                summary.phases.merge(writer.phases) { $1 }
                summary.seconds = (ContinuousClock.now - clock).seconds
                summary.loadID = try writer.record(summary, startedAt: startedAt, mapping: mapping, rejects: rejects)
                commitStart = ContinuousClock.now
                return .commit
            }
        }
        summary.phases["commit"] = (ContinuousClock.now - commitStart).seconds
        staged.removeAll()
        rejects.removeAll()
        summary.seconds = (ContinuousClock.now - clock).seconds
        return summary
    }

    /// Reads and validates a well list without a store: the mapping, the counts, the rejects'
    /// reasons and the first records as they would be stored. This is `wells load --dry-run`.
    ///
    /// - Throws: ``ImportError`` when the file cannot be read or has no usable coordinate columns.
    public static func dryRun(csvAt path: String, options: LoadOptions = LoadOptions()) throws -> LoadSummary {
        var options = options
        options.dryRun = true
        return try stage(csvAt: path, options: options).summary
    }

    /// Reads, maps and validates every record of the file, and settles duplicate identifiers.
    static func stage(csvAt path: String, options: LoadOptions) throws
        -> (summary: LoadSummary, staged: [StagedWell], rejects: [Reject], mapping: ColumnMapping)
    {
        if path == "-" {
            // Standard input is spooled to a file: the parse reads it in two parts, and rejects re-read it.
            let spool = FileManager.default.temporaryDirectory.appendingPathComponent("wells-stdin-\(getpid()).csv").path
            guard FileManager.default.createFile(atPath: spool, contents: FileHandle.standardInput.readDataToEndOfFile()) else {
                throw ImportError(.cannotOpen, "cannot spool standard input to \(spool)", file: "-")
            }
            defer { try? FileManager.default.removeItem(atPath: spool) }
            var result = try stage(csvAt: spool, options: options)
            result.summary.file = "-"
            return result
        }
        let clock = ContinuousClock.now
        let source = try HashingSource(FileSource(path: path))
        let reader = try CSVReader(source: source, delimiter: options.delimiter, chunkSize: 1 << 20)
        guard let header = try reader.next() else {
            throw ImportError(.emptyFile, "the file is empty; expected a header line and data records", file: path)
        }
        let mapping = try ColumnMapping(header: header.fields, overrides: options.mapping,
                                        requireCoordinates: options.coordinates.xColumn == nil, file: path)
        try Self.checkCoordinateOptions(options.coordinates, header: header.fields, path: path)
        var summary = LoadSummary(file: path, sha256: "")
        summary.mapping = Dictionary(uniqueKeysWithValues: mapping.fieldColumns.map { ($0.field, $0.column) })
        summary.extraColumns = mapping.unmappedIndices.map { mapping.header[$0] }

        var part = try PartitionedParse.run(reader: reader, path: path, mapping: mapping, options: options)
        options.progress?(reader.totalBytes ?? reader.offset, reader.totalBytes)
        summary.records = part.records
        summary.phases["parse"] = (ContinuousClock.now - clock).seconds
        summary.sha256 = try source.finish()
        summary.phases["hash"] = (ContinuousClock.now - clock).seconds - summary.phases["parse"]!
        var rejects = part.rejects
        let staged = try settleDuplicates(part.staged, rule: options.onDuplicate, path: path,
                                          idColumn: mapping.column(for: .identifier), rejects: &rejects)
        part.staged = []
        summary.duplicates = rejects.count - part.rejects.count
        summary.rejected = rejects.count
        for reject in rejects { summary.rejectReasons[reject.kind, default: 0] += 1 }
        rejects.sort { $0.line < $1.line }
        for well in staged {
            if well.generatedIdentifier { summary.generatedIdentifiers += 1 }
            var bits = well.badSlots
            while bits != 0 {
                let slot = bits.trailingZeroBitCount
                summary.badValuesByField[StagedWell.detailFields[slot].rawValue, default: 0] += 1
                bits &= bits - 1
            }
        }
        summary.badValues = summary.badValuesByField.values.reduce(0, +)
        try describeTransformations(staged, options: options.coordinates, into: &summary)
        if options.dryRun {
            summary.preview = staged.prefix(options.previewCount).map(\.preview)
            summary.inserted = staged.count
        }
        summary.seconds = (ContinuousClock.now - clock).seconds
        return (summary, staged, rejects, mapping)
    }

    /// Keeps one record per identifier, by `rule`, and rejects the others with their raw text.
    private static func settleDuplicates(_ wells: [StagedWell], rule: LoadOptions.DuplicateRule, path: String,
                                         idColumn: String?, rejects: inout [Reject]) throws -> [StagedWell] {
        let (kept, losers) = DuplicateIdentifiers.resolve(wells.map(\.uwi), rule: rule)
        guard !losers.isEmpty else { return wells }
        let file = try FileSource(path: path)
        for (loser, winner) in losers {
            let well = wells[loser], line = wells[winner].line
            let reason = rule == .first
                ? "identifier \"\(well.uwi)\" already appears on line \(line), which was kept; "
                    + "make it unique, or load with --on-duplicate last to keep the later row"
                : "identifier \"\(well.uwi)\" appears again on line \(line), which replaced this row (--on-duplicate last)"
            rejects.append(Reject(line: well.line, column: idColumn, kind: "duplicate identifier", reason: reason,
                                  raw: try file.text(at: well.bytes)))
        }
        return kept.map { wells[$0] }
    }
}

extension WellStore {
    /// Fails early, with the header, when --x, --y or --datum-column name no column, or the CRS is unknown.
    static func checkCoordinateOptions(_ coordinates: CoordinateOptions, header: [String], path: String) throws {
        for (option, column) in [("--x", coordinates.xColumn), ("--y", coordinates.yColumn), ("--datum-column", coordinates.datumColumn)] {
            if let column, !header.contains(column) {
                throw ImportError(.unknownColumn, "\(option) \(column): no such column; the header has: \(header.joined(separator: ", "))", file: path)
            }
        }
        if (coordinates.xColumn == nil) != (coordinates.yColumn == nil) {
            throw ImportError(.invalidOption, "give both --x and --y, or neither", file: path)
        }
        if coordinates.xColumn != nil && coordinates.crs == nil {
            throw ImportError(.invalidOption, "--x and --y need --crs, the CRS of those columns, such as --crs EPSG:26916 for UTM zone 16N metres", file: path)
        }
        if let crs = coordinates.crs { _ = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326") }
    }

    /// Records, per source CRS, the operation PROJ used and its accuracy, and warns when a better one needs a missing grid.
    static func describeTransformations(_ wells: [StagedWell], options: CoordinateOptions, into summary: inout LoadSummary) throws {
        var counts: [String: Int] = [:]
        var extent: [String: (west: Double, south: Double, east: Double, north: Double)] = [:]
        for well in wells {
            guard let crs = well.source?.crs else { continue }
            counts[crs, default: 0] += 1
            let e = extent[crs] ?? (well.lon, well.lat, well.lon, well.lat)
            extent[crs] = (min(e.west, well.lon), min(e.south, well.lat), max(e.east, well.lon), max(e.north, well.lat))
        }
        summary.crs = options.datumColumn != nil ? "per-row datum (\(options.datumColumn!))" : (options.crs ?? "EPSG:4326")
        for (crs, wells) in counts.sorted(by: { $0.key < $1.key }) {
            let operation = try TransformCache.shared.transformer(from: crs, to: "EPSG:4326").operation
            summary.transformations.append(Transformation(source: crs, wells: wells, operation: operation.name, accuracyMeters: operation.accuracy))
            let e = extent[crs]!
            let area = CRSInfo.Area(west: e.west, south: e.south, east: e.east, north: e.north)
            if let warning = try CRSInfo.describe(crs).accuracyReport(to: "EPSG:4326", area: area).warning {
                summary.warnings.append(warning)
            }
        }
    }
}

extension StagedWell {
    /// The well as field name → text, for `--dry-run`.
    var preview: [String: String] {
        var result = ["uwi": uwi, "lat": String(lat), "lon": String(lon)]
        if let name { result["name"] = name }
        for (field, value) in zip(Self.detailFields, values) {
            switch value {
            case .null: break
            case .text(let text): result[field.rawValue] = text
            case .real(let number): result[field.rawValue] = String(number)
            }
        }
        if let extra { result["extra"] = extra }
        return result
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

// MARK: - HashingSource

/// Computes the SHA-256 of everything read through it while the first half of the file is parsed;
/// ``finish()`` reads on to the end, the half that ``PartitionedParse`` parsed on its other thread.
final class HashingSource: ByteSource {
    private let base: ByteSource
    private var hasher = SHA256()
    var size: Int? { base.size }

    init(_ base: ByteSource) { self.base = base }

    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
        let n = try base.read(into: buffer)
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[0..<n]))
        return n
    }

    /// Reads whatever the reader left unread, then returns the hex SHA-256 of the whole input.
    func finish() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while try buffer.withUnsafeMutableBufferPointer({ try read(into: $0) }) > 0 {}
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
