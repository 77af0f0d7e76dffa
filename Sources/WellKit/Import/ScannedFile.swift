/// A file read and located: the records that are wells, in file order, and the rejects.
///
/// ``WellStore/scan(csvAt:options:name:)`` makes it and takes it through the load's checks, each in
/// the folder of its stage: duplicates (Parsing/ScannedFile+Duplicates.swift), the place check
/// (Placement/PlaceCheck.swift, Misplacement.swift, Landing.swift), suspects
/// (Placement/ScannedFile+Suspects.swift) and a file with nothing to load (Placement/NothingLoaded.swift).
/// ``PreparedLoad`` hands it to the storage engine, which builds its rows with ``makeBuilder(compact:)``.
package struct ScannedFile {
    package var summary: LoadSummary
    let file: MappedFile
    var validator: RecordValidator
    let delimiter: UInt8
    package var records: RecordList
    package var rejects: RejectList
    var mapping: ColumnMapping
    /// How many wells ``checkPlaces(_:)`` checked against a place, an area of use or Antarctica's
    /// absence: none when the file names no place, or only WGS 84, used worldwide, as every row's datum.
    var placesChecked = 0
    /// Mapped columns empty in the whole sample (``EmptyColumn``): the summary warns of those that
    /// stay empty in every row, once the rows are built.
    var emptyColumns: [EmptyColumn] = []

    /// The warnings for mapped columns that were empty in every row built (`filled`: ``RowBuilder/filled``).
    package func emptyColumnWarnings(filled: [Int], describe: (LoadRemedy) -> String) -> [String] {
        EmptyColumn.warnings(emptyColumns, filled: filled, records: records.count, describe: describe)
    }

    /// The record's identifier, as stored.
    package func identifier(of record: ScannedRecord) -> String {
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
