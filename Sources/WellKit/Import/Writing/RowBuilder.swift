/// Builds the rows of located records: the typed detail values and the JSON of the rest.
///
/// One builder per thread: it keeps the spans of the record in hand and the counts of bad values.
// @unchecked Sendable: moved to the thread that uses it, never shared (one builder per thread).
// Its mutable properties are `@exclusivity(unchecked)`, as ``RowBatch``'s are: one thread, many accesses a row.
package final class RowBuilder: @unchecked Sendable {
    private let validator: RecordValidator
    /// The mapped file the records are in.
    let file: MappedFile
    private let scanner: CSVScanner
    @exclusivity(unchecked) private var spans: [FieldSpan] = []
    @exclusivity(unchecked) private var extra = ExtraJSON()
    /// A SQLite store's compact row (schema version 3): dates as days, names as codes, extras as an
    /// array by position; nil for text rows (PostgreSQL's, previews').
    private let compact: CompactDetails?
    @exclusivity(unchecked) private var extraArray = ExtraArray()
    /// The header names as UTF-8, the keys of the JSON.
    private let keys: [[UInt8]]
    private let crsNames: [[UInt8]]
    /// ``RecordValidator/lengthFactors``, kept here so a row reads it without going through the validator.
    private let lengthFactors: [Double]
    /// Per detail field (as in ``WellField/detailValueFields``), how many values did not parse.
    @exclusivity(unchecked) package private(set) var badValues: [Int]
    /// Per detail field, how many rows had a value (parsed or not): none says the column was empty.
    @exclusivity(unchecked) package private(set) var filled: [Int]

    init(validator: RecordValidator, file: MappedFile, delimiter: UInt8, compact: CompactDetails? = nil) {
        self.validator = validator
        self.lengthFactors = validator.lengthFactors
        self.compact = compact
        self.file = file
        self.scanner = CSVScanner(delimiter: delimiter)
        self.keys = validator.header.map { Array($0.utf8) }
        self.crsNames = validator.crsNames.map { Array($0.utf8) }
        self.badValues = Array(repeating: 0, count: WellField.detailValueFields.count)
        self.filled = badValues
        spans.reserveCapacity(keys.count)
    }

    /// Whether records are read from the file (``ChunkSources``) rather than from the mapping: a big file's.
    var reads: Bool { file.releases }

    /// Appends the row of `record` to `batch`, its cells in ``RowBatch/Column`` order (`DetailColumnTests` checks it).
    ///
    /// - Parameter bytes: the record's bytes read from the file, which its text cells then point
    ///   into; nil to read it through the mapping.
    func build(_ record: ScannedRecord, into batch: RowBatch, bytes: UnsafeBufferPointer<UInt8>? = nil) {
        let buffer = bytes ?? file.bytes
        _ = scanner.scan(buffer, from: bytes == nil ? record.range.lowerBound : 0, to: buffer.count, atEOF: true, line: record.line, fields: &spans)
        if spans.count < keys.count { CSVScanner.padTrailing(&spans, to: keys.count) }
        let fields = RecordFields(buffer: buffer, spans: spans)
        batch.cells.append(validator.nameIndex.map { text(fields, $0, batch) } ?? .null)
        batch.cells.append(.real(record.lat))
        batch.cells.append(.real(record.lon))
        if let idIndex = validator.idIndex, record.identifier != nil {
            batch.cells.append(text(fields, idIndex, batch))
        } else {
            var generated = validator.generatedIdentifier(line: record.line)
            batch.cells.append(generated.withUTF8 { batch.arenaText($0) })
        }
        extra.reset()
        extraArray.reset()
        for (slot, (field, index)) in validator.detailSlots.enumerated() {
            guard let index, !fields.isEmpty(index) else {
                batch.cells.append(compact?.hasLookup(slot) == true ? .integer(Schema.nullCode) : .null)
                continue
            }
            filled[slot] += 1
            var cell: Cell?
            switch field.kind {
            case .real:
                // In metres: depths and elevations in feet are multiplied by 0.3048, the rest by 1 (exact).
                let factor = lengthFactors[slot]
                cell = (validator.decimalComma ? fields.withBytes(index, ValueParsing.decimalComma) : fields.withBytes(index, ValueParsing.number))
                    .map { Cell.real($0 * factor) }
            case .date:
                // The column's format, decided once per load; the value's bytes read with a switch.
                switch fields.withBytes(index, { validator.dateFormats[slot]!.read($0, today: validator.today) }) {
                case .iso where compact != nil: cell = .integer(fields.withBytes(index, ValueParsing.days(iso:)))
                case .iso: cell = text(fields, index, batch)
                case .other(let year, let month, let day) where compact != nil: cell = .integer(ValueParsing.days(year: year, month: month, day: day))
                case .other(let year, let month, let day):
                    var iso = ValueParsing.iso(year: year, month: month, day: day)
                    cell = iso.withUTF8 { batch.arenaText($0) }
                case .year(let year) where compact != nil: cell = .real(ValueParsing.yearOnlyDays(year))
                case .year(let year):
                    var text = String(year)
                    cell = text.withUTF8 { batch.arenaText($0) }
                case nil: cell = nil
                }
            case .text, .integer:
                if let compact, compact.hasLookup(slot) {
                    cell = .integer(compact.code(slot, of: fields, index, batch))
                } else {
                    cell = text(fields, index, batch)
                }
            }
            if let cell {
                batch.cells.append(cell)
            } else {
                badValues[slot] += 1
                appendExtra(fields, index, batch)
                batch.cells.append(.null)
            }
        }
        for index in validator.extraIndices where !fields.isEmpty(index) {
            appendExtra(fields, index, batch)
        }
        if let source = record.source {
            batch.cells.append(.real(source.x))
            batch.cells.append(.real(source.y))
            batch.cells.append(crsNames[source.crs].withUnsafeBufferPointer { batch.arenaText($0) })
        } else {
            batch.cells.append(contentsOf: repeatElement(.null, count: 3))
        }
        batch.cells.append((compact == nil ? extra.withFinished { $0.map { batch.arenaText($0) } } : extraArray.withFinished { $0.map { batch.arenaText($0) } }) ?? .null)
    }

    /// A text cell for a non-empty field: its text (unescaped, as UTF-8) copied into the arena.
    @inline(__always) private func text(_ fields: RecordFields, _ index: Int, _ batch: RowBatch) -> Cell {
        fields.isEmpty(index) ? .null : fields.withText(index) { batch.arenaText($0) }
    }

    private func appendExtra(_ fields: RecordFields, _ index: Int, _ batch: RowBatch) {
        if let compact {
            let position = compact.extraPositions[index]
            guard !extraArray.holds(position) else { return }
            compact.appendExtra(fields, index, position: position, to: &extraArray, batch)
            return
        }
        keys[index].withUnsafeBufferPointer { key in
            fields.withText(index) { extra.append(key: key, value: $0) }
        }
    }
}
