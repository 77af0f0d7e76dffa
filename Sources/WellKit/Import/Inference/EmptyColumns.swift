import Foundation

// Columns that a field is mapped to by their name and that hold nothing. Tennessee's list names a
// `well_status` and a `spud_date` column, empty in all of its 16,464 rows, while `ft_category`
// holds the categories: mapped without a word, sections by status made one `(none)` section and
// the sort by spud date did nothing. Two remedies, one at each end of the load:
//
// - Before it: among the columns whose names are synonyms of a field (``ColumnMapping/synonyms``),
//   one with values in the sample is preferred over the first-named one that has none.
// - After it: a field still mapped to a column empty in every loaded row is reported in the
//   summary's warnings (also the dry run's), naming the columns whose sampled values could be the
//   field's, with the option that maps one.

extension ColumnInference {
    /// Maps a field to a synonym column with values when the column its name picks has none in the
    /// sample (and the user did not name a column for it).
    mutating func preferFilledColumns(_ options: inout LoadOptions) throws {
        guard !sample.isEmpty else { return }
        let named = try ColumnMapping(header: header, overrides: options.mapping, requireCoordinates: false, file: file)
        let mapped = Set(named.indices.values)
        let normalized = header.map(ColumnMapping.normalize)
        let unitless = header.map { ColumnMapping.normalize(LengthUnits.withoutUnit($0)) }
        for field in WellField.detailValueFields where options.mapping[field.rawValue] == nil {
            guard let index = named.indices[field], isEmptyInSample(index) else { continue }
            let synonyms = Set(ColumnMapping.synonyms[field] ?? [])
            let filled = header.indices.first { k in
                !mapped.contains(k) && (synonyms.contains(normalized[k]) || (LengthUnits.fields.contains(field) && synonyms.contains(unitless[k])))
                    && !isEmptyInSample(k)
            }
            guard let filled else { continue }
            options.mapping[field.rawValue] = header[filled]
            let values = sample.count { !$0[filled].isEmpty }
            inferences.append(Inference(
                subject: field.rawValue, column: header[filled],
                value: "mapped to \(header[filled]), not \(header[index])",
                evidence: "\(header[index]) is empty in all \(grouped(sample.count)) sampled records, \(header[filled]) has "
                    + "\(grouped(values)) values there",
                override: options.describeRemedy(.mapField(field.rawValue))))
        }
    }

    func isEmptyInSample(_ index: Int) -> Bool {
        EmptyColumn.isEmpty(index, in: sample)
    }
}

/// A field mapped to a column that is empty in the whole sample, with the other columns whose
/// sampled values could be the field's: kept until the rows are built, when ``warnings(filled:records:describe:)``
/// says whether the column was empty in every row.
struct EmptyColumn: Sendable {
    var field: WellField
    var column: String
    /// Columns fed to no field whose sampled values fit the field, with why, best first.
    var candidates: [(column: String, evidence: String)]

    /// The mapped columns empty in the sample, among the detail fields, each with its candidates.
    ///
    /// - Parameter rows: ``ColumnInference/sample``, each row as wide as the header.
    static func find(mapping: ColumnMapping, sample rows: [[String]], today: DateFormat.Today) -> [EmptyColumn] {
        guard !rows.isEmpty else { return [] }
        let unmapped = mapping.unmappedIndices.filter { !isEmpty($0, in: rows) }
        let lastSerial = DateShapes.excelSerial(year: today.year, month: today.month, day: today.day)
        return WellField.detailValueFields.compactMap { field in
            guard let index = mapping.indices[field], isEmpty(index, in: rows) else { return nil }
            let candidates: [(column: String, evidence: String, score: Int)] = unmapped.compactMap { k in
                let values = rows.map { $0[k].trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let name = mapping.header[k]
                switch field.kind {
                case .date:
                    var evidence = DateColumns.Evidence()
                    for value in values { var text = value; text.withUTF8 { evidence.add($0, lastSerial: lastSerial) } }
                    let dates = evidence.iso + evidence.oracle + evidence.slashed
                    guard dates * 10 >= values.count * 9 else { return nil }
                    return (name, "\(grouped(dates)) of \(grouped(rows.count)) sampled values are dates", dates)
                case .real:
                    // Numbers are everywhere (identifiers, codes): only a column whose name shares a word with the field's.
                    let numbers = values.count { ValueParsing.number($0) != nil }
                    guard numbers * 10 >= values.count * 9, shareAWord(name, field) else { return nil }
                    return (name, "\(grouped(numbers)) of \(grouped(rows.count)) sampled values are numbers", numbers)
                case .text, .integer:
                    // Categories: most rows filled, a few distinct values, not one value everywhere.
                    let distinct = Set(values).count
                    guard values.count * 2 >= rows.count, distinct >= 2, distinct <= max(12, rows.count / 20) else { return nil }
                    return (name, "\(grouped(distinct)) distinct values in \(grouped(values.count)) of \(grouped(rows.count)) sampled records",
                            values.count + (shareAWord(name, field) ? rows.count : 0))
                }
            }
            let best = candidates.sorted { $0.score > $1.score }.prefix(3).map { (column: $0.column, evidence: $0.evidence) }
            return EmptyColumn(field: field, column: mapping.header[index], candidates: Array(best))
        }
    }

    /// Whether column `index` holds only blanks in `rows`.
    static func isEmpty(_ index: Int, in rows: [[String]]) -> Bool {
        rows.allSatisfy { $0[index].trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// Whether `name` and the field's name or synonyms have a word in common (`well_depth` and `total_depth`).
    static func shareAWord(_ name: String, _ field: WellField) -> Bool {
        let words = Set(name.lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count > 2 && $0 != "well" })
        let fieldWords = Set(field.rawValue.split(separator: "_").map(String.init).filter { $0 != "date" })
        return !words.isDisjoint(with: fieldWords)
    }

    /// The warnings for the columns that stayed empty in every loaded row (`filled` counts, per
    /// ``WellField/detailValueFields``, the rows that had a value).
    static func warnings(_ columns: [EmptyColumn], filled: [Int], records: Int, describe: (LoadRemedy) -> String) -> [String] {
        guard records > 0 else { return [] }
        return columns.compactMap { column in
            guard let slot = WellField.detailValueFields.firstIndex(of: column.field), filled[slot] == 0 else { return nil }
            var text = "\(column.field.rawValue) ← \(column.column) is empty in all \(grouped(records)) wells, so the field holds nothing"
            if column.candidates.isEmpty {
                text += "; no other column's values look like \(column.field.rawValue)"
            } else {
                text += "; columns whose values could be \(column.field.rawValue): "
                    + column.candidates.map { "\($0.column) (\($0.evidence))" }.joined(separator: ", ")
                    + "; map one with \(describe(.mapField(column.field.rawValue)))"
            }
            return text
        }
    }
}
