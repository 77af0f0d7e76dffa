// One record per identifier (``DuplicateIdentifiers``), or, when the identifier column is not a key
// for the file, generated identifiers and the column kept as an attribute.

extension ScannedFile {
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
            rejects.appendLater(Reject(line: record.line, column: idColumn, kind: .duplicateIdentifier, reason: reason,
                                  raw: file.text(at: record.range)))
        }
        summary.duplicates = losers.count
        self.records = records.selecting(kept)
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
            rejects.appendLater(Reject(
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
}

extension ScannedFile {
    /// Warns when identifiers are written in scientific notation (`5.12511E+12`): a spreadsheet made
    /// numbers of them and kept six significant digits, so the well's own digits are lost and
    /// different wells may share one value. Like a column that is not a key, it is reported, not
    /// rejected: the rows load, and the summary says which column to re-export as text.
    mutating func flagScientificIdentifiers() {
        guard let column = mapping.column(for: .identifier) else { return }
        var count = 0, first: (line: Int, text: String)?
        for record in records {
            guard let span = record.identifier, withFieldBytes(file.bytes, span, Self.isScientific) else { continue }
            count += 1
            if first == nil { first = (record.line, fieldText(file.bytes, span)) }
        }
        guard count > 0, let first else { return }
        summary.scientificIdentifiers = count
        summary.warnings.append(
            "\(grouped(count)) identifier\(count == 1 ? "" : "s") in \"\(column)\" \(count == 1 ? "is" : "are") in scientific notation "
                + "(\"\(first.text)\" on line \(first.line)): a spreadsheet turned them into numbers and rounded them, so their digits are lost; "
                + "export the list again with \"\(column)\" formatted as text")
    }

    /// Whether `bytes` read as a number in scientific notation: `5.12511E+12`, `-4.2E13`, `1e+05`.
    static func isScientific(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        func digits() -> Int {
            let start = k
            while k < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[k]) { k += 1 }
            return k - start
        }
        if k < bytes.count, bytes[k] == UInt8(ascii: "-") || bytes[k] == UInt8(ascii: "+") { k += 1 }
        guard digits() >= 1 else { return false }
        if k < bytes.count, bytes[k] == UInt8(ascii: ".") {
            k += 1
            guard digits() >= 1 else { return false }
        }
        guard k < bytes.count, bytes[k] == UInt8(ascii: "E") || bytes[k] == UInt8(ascii: "e") else { return false }
        k += 1
        if k < bytes.count, bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: "-") { k += 1 }
        return digits() >= 1 && k == bytes.count
    }
}
