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
        try pool.write { db in
            let writer = try BulkWriter(db)
            let (inserted, updated) = try writer.write(staged)
            summary.inserted = inserted
            summary.updated = updated
            summary.seconds = (ContinuousClock.now - clock).seconds
            summary.loadID = try writer.record(summary, startedAt: startedAt, mapping: mapping, rejects: rejects)
        }
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

    /// Reads, maps and validates every record of the file.
    static func stage(csvAt path: String, options: LoadOptions) throws
        -> (summary: LoadSummary, staged: [StagedWell], rejects: [Reject], mapping: ColumnMapping)
    {
        let clock = ContinuousClock.now
        let source = try HashingSource(FileSource(path: path))
        let reader = try CSVReader(source: source, delimiter: options.delimiter, chunkSize: 1 << 20)
        guard let header = try reader.next() else {
            throw ImportError(.emptyFile, "the file is empty; expected a header line and data records", file: path)
        }
        let mapping = try ColumnMapping(header: header.fields, overrides: options.mapping, file: path)
        var summary = LoadSummary(file: path, sha256: "")
        summary.mapping = Dictionary(uniqueKeysWithValues: mapping.fieldColumns.map { ($0.field, $0.column) })
        summary.extraColumns = mapping.unmappedIndices.map { mapping.header[$0] }

        var validator = RecordValidator(mapping: mapping, file: path)
        var staged: [StagedWell] = []
        var rejects: [Reject] = []
        var slotOf: [String: Int] = [:]
        var superseded: [Int: Int] = [:]  // line of a replaced record → line of the record that replaced it
        let idColumn = mapping.column(for: .identifier)
        while let record = try reader.next() {
            summary.records += 1
            if summary.records & 4095 == 0 { options.progress?(reader.bytesConsumed, reader.totalBytes) }
            switch validator.validate(record, missingIdentifier: options.onMissingIdentifier) {
            case .failure(let why):
                rejects.append(Reject(line: record.line, column: why.column, kind: why.kind, reason: why.reason, raw: reader.currentRawText()))
            case .success(let well):
                guard let slot = slotOf[well.uwi] else {
                    slotOf[well.uwi] = staged.count
                    staged.append(well)
                    continue
                }
                summary.duplicates += 1
                switch options.onDuplicate {
                case .first:
                    rejects.append(Reject(
                        line: record.line, column: idColumn, kind: "duplicate identifier",
                        reason: "identifier \"\(well.uwi)\" already appears on line \(staged[slot].line), which was kept; "
                            + "make it unique, or load with --on-duplicate last to keep the later row",
                        raw: reader.currentRawText()))
                case .last:
                    superseded[staged[slot].line] = record.line
                    staged[slot] = well
                }
            }
        }
        options.progress?(reader.bytesConsumed, reader.totalBytes)
        if !superseded.isEmpty {
            rejects += try Self.supersededRejects(path: path, lines: superseded, delimiter: reader.delimiter, idColumn: idColumn)
        }
        summary.sha256 = source.digest()
        summary.rejected = rejects.count
        summary.badValuesByField = validator.badValuesByField
        summary.badValues = validator.badValuesByField.values.reduce(0, +)
        summary.generatedIdentifiers = validator.generatedIdentifiers
        for reject in rejects { summary.rejectReasons[reject.kind, default: 0] += 1 }
        rejects.sort { $0.line < $1.line }

        if options.dryRun {
            summary.preview = staged.prefix(options.previewCount).map(\.preview)
            summary.inserted = staged.count
        }
        summary.seconds = (ContinuousClock.now - clock).seconds
        return (summary, staged, rejects, mapping)
    }

    /// Re-reads the file for the raw text of records that a later duplicate replaced.
    private static func supersededRejects(path: String, lines: [Int: Int], delimiter: UInt8, idColumn: String?) throws -> [Reject] {
        let reader = try CSVReader(path: path, delimiter: delimiter)
        _ = try reader.next()
        var rejects: [Reject] = []
        while let record = try reader.next() {
            guard let winner = lines[record.line] else { continue }
            rejects.append(Reject(
                line: record.line, column: idColumn, kind: "duplicate identifier",
                reason: "replaced by line \(winner), which has the same identifier (--on-duplicate last)",
                raw: reader.currentRawText()))
        }
        return rejects
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
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

// MARK: - HashingSource

/// Computes the SHA-256 of everything read through it, so the file is read once.
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

    func digest() -> String {
        hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
