import Foundation

/// One sheet or member written to a spool of its own, and what its header says.
struct UnitTable {
    var path: String
    var map: SourceMap
    var unit: SourceMap.Unit
    var header: [String] = []
    /// The field each column maps to, by inference as a load maps a CSV's columns.
    var fields: [String?] = []
    var identifierColumn: Int?
    /// Why it holds no wells (no coordinate columns), or nil.
    var skipped: String?
    /// Rows below the header.
    var records = 0

    /// Reads the unit's header and a sample, and maps its columns as a load would.
    mutating func examine(options: LoadOptions, label: String) throws {
        let file = try MappedFile(path: path)
        var reader = try CSVReader(source: MappedSource(file), delimiter: nil, chunkSize: 1 << 16, skipCommentLines: true)
        let titles = TitleLines.find(file.bytes, from: reader.offset)
        if !titles.lines.isEmpty {
            reader = try CSVReader(source: MappedSource(file, from: titles.headerOffset), delimiter: reader.delimiter, chunkSize: 1 << 16,
                                   firstLine: reader.line + titles.count, baseOffset: titles.headerOffset)
        }
        guard let head = try reader.next() else {
            skipped = "it is empty"
            return
        }
        header = head.fields
        var sample: [[String]] = []
        while let record = try reader.next() {
            if sample.count < 500 { sample.append(record.fields) }
            records += 1
        }
        fields = Array(repeating: nil, count: header.count)
        do {
            var inference = ColumnInference(header: header, sample: sample, file: label)
            let inferred = try inference.infer(options)
            let mapping = try ColumnMapping(header: header, overrides: inferred.mapping,
                                            requireCoordinates: inferred.coordinates.xColumn == nil && inferred.coordinates.pointColumn == nil,
                                            file: label)
            for (field, column) in mapping.fieldColumns {
                if let k = header.firstIndex(of: column) { fields[k] = field }
            }
            identifierColumn = fields.firstIndex(of: WellField.identifier.rawValue)
            if let x = inferred.coordinates.xColumn, !header.contains(x) { skipped = "it has no column \"\(x)\"" }
        } catch let error as ImportError {
            skipped = error.reason
        }
    }
}

/// Sheets (or members) combined into one list.
///
/// The first unit's header is the list's header. A column of a later unit joins the column that
/// holds the same field in the list (the identifier, the coordinates, the operator: each unit's
/// columns are mapped by inference, as a load maps a CSV's), else the column of the same name
/// (compared as the loader compares names, without case and punctuation), else it is a new column
/// at the end. A row whose identifier an earlier unit listed already is the same well: its values
/// fill the earlier row's empty cells and the row is not written again; a row whose values
/// differ from the earlier one's stays, and the load's duplicate rule settles it.
enum UnitMerge {
    static func merge(_ units: [UnitTable], sameHeader: Bool, into spool: CSVSpool, label: String) throws -> [Int] {
        var header = units[0].header
        var fieldColumn: [String: Int] = [:]
        for (k, field) in units[0].fields.enumerated() { if let field, fieldColumn[field] == nil { fieldColumn[field] = k } }
        var rows: [(values: [String], unit: Int, native: Int)] = []
        var byIdentifier: [String: Int] = [:]
        var merged = Array(repeating: 0, count: units.count)
        let identifierColumn = units[0].identifierColumn
        for (u, unit) in units.enumerated() {
            if sameHeader && unit.header != header {
                throw ImportError(.notText, "\(unit.unit.title) has another header than \(units[0].unit.title) "
                    + "(\(ImportError.listing(unit.header)) against \(ImportError.listing(header))): an archive's members are loaded as one list; "
                    + "load one member at a time (LoadOptions.member)", file: label)
            }
            // Where each of the unit's columns goes in the list.
            var target: [Int] = []
            var used = Set<Int>()
            for (k, name) in unit.header.enumerated() {
                var place: Int?
                if u == 0 { place = k }
                if place == nil, let field = unit.fields[k], let column = fieldColumn[field], !used.contains(column) { place = column }
                if place == nil, !name.isEmpty {
                    place = header.indices.first { !used.contains($0) && ColumnMapping.normalize(header[$0]) == ColumnMapping.normalize(name) }
                }
                if place == nil {
                    header.append(name)
                    place = header.count - 1
                    if let field = unit.fields[k], fieldColumn[field] == nil { fieldColumn[field] = place }
                }
                used.insert(place!)
                target.append(place!)
            }
            let file = try MappedFile(path: unit.path)
            var reader = try CSVReader(source: MappedSource(file), delimiter: nil, chunkSize: 1 << 16, skipCommentLines: true)
            let titles = TitleLines.find(file.bytes, from: reader.offset)
            if !titles.lines.isEmpty {
                reader = try CSVReader(source: MappedSource(file, from: titles.headerOffset), delimiter: reader.delimiter, chunkSize: 1 << 16,
                                       firstLine: reader.line + titles.count, baseOffset: titles.headerOffset)
            }
            _ = try reader.next()
            while let record = try reader.next() {
                var values = [String](repeating: "", count: header.count)
                for (k, value) in record.fields.enumerated() {
                    if k < target.count { values[target[k]] = value } else { values.append(value) }
                }
                let native = unit.map.locate(line: record.line)?.position ?? record.line
                if let column = identifierColumn, column < values.count, !values[column].isEmpty {
                    let key = values[column]
                    if let earlier = byIdentifier[key], rows[earlier].unit != u {
                        let agrees = values.indices.allSatisfy { k in
                            values[k].isEmpty || k >= rows[earlier].values.count || rows[earlier].values[k].isEmpty
                                || rows[earlier].values[k] == values[k]
                        }
                        if agrees {
                            for k in values.indices where !values[k].isEmpty {
                                while rows[earlier].values.count <= k { rows[earlier].values.append("") }
                                rows[earlier].values[k] = values[k]
                            }
                            merged[u] += 1
                            continue
                        }
                    } else if byIdentifier[key] == nil {
                        byIdentifier[key] = rows.count
                    }
                }
                rows.append((values, u, native))
            }
        }
        spool.map.units = units.map(\.unit)
        try spool.write(header, unit: nil, native: 0)
        for row in rows {
            var values = row.values
            while values.count < header.count { values.append("") }
            try spool.write(values, unit: row.unit, native: row.native)
        }
        try spool.flush()
        return merged
    }
}
