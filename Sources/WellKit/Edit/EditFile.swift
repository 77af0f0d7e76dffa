import Foundation

/// A batch of edits as the load reads it: the CSV of the wells it inserts and updates, with the
/// options that map every column by name (nothing inferred), and the plan of what each identifier
/// must find stored.
///
/// Columns: the identifier, name, latitude and longitude, then each detail field some well has a
/// value for, under the field's name (`status`, `spud_date`), then each extra value's name. A
/// field no column feeds is mapped to none, so that an update clears it and no extra column is
/// taken for a field by its name. Dates are read as ISO days or years, depths and elevations as
/// metres, positions as WGS 84 degrees: what ``WellDetail`` holds.
struct EditFile {
    /// The `loads.file` of an edit, and its name in messages.
    static let name = "(edit)"

    let csv: Data
    let options: LoadOptions
    let plan: EditPlan
    /// The identifier of each written well, and the line its record starts on, in file order.
    private let lines: [(line: Int, identifier: String)]

    /// - Throws: ``WellEditError`` for an empty or untrimmed identifier, or one in two edits.
    init(_ edits: [WellEdit]) throws {
        var plan = EditPlan()
        var seen = Set<String>()
        var wells: [Well] = []
        for edit in edits {
            let identifier = edit.identifier
            if identifier.isEmpty || identifier.trimmingCharacters(in: .whitespacesAndNewlines) != identifier {
                throw WellEditError(.invalidIdentifier, identifier: identifier,
                                    "an identifier must be non-empty, without spaces or line breaks at its ends (a load trims them)")
            }
            guard seen.insert(identifier).inserted else {
                throw WellEditError(.repeated, identifier: identifier, "the identifier is in two edits of the batch; give each well one edit")
            }
            switch edit {
            case .insert(let well): plan.inserts.insert(identifier); wells.append(well)
            case .update(let well): plan.updates.insert(identifier); wells.append(well)
            case .delete: plan.deletes.append(identifier)
            }
        }
        let fields = WellField.detailValueFields.filter { field in wells.contains { $0.detail.values[field] != nil } }
        var extraKeys: [String] = []
        var extras: [[String: String]] = []
        var known = Set<String>()
        for well in wells {
            let extra = well.detail.extra
            extras.append(extra)
            for key in extra.keys.sorted() where known.insert(key).inserted { extraKeys.append(key) }
        }
        // A field's column takes another name when an extra value has its name (a bad value kept under its column's).
        var columns: [WellField: String] = [:]
        for field in [WellField.identifier, .name, .latitude, .longitude] + fields {
            var column = field.rawValue
            while known.contains(column) { column += "_" }
            known.insert(column)
            columns[field] = column
        }
        var options = LoadOptions()
        options.infer = false
        options.identifier = .column(columns[.identifier]!)
        options.onMissingIdentifier = .reject
        options.depthUnit = .metres
        options.elevationUnit = .metres
        for field in WellField.mappable { options.mapping[field.rawValue] = columns[field] ?? "" }
        for field in fields where field.kind == .date { options.dateFormats[columns[field]!] = .unambiguous }

        let header = [WellField.identifier, .name, .latitude, .longitude].map { columns[$0]! } + fields.map { columns[$0]! } + extraKeys
        var text = CSVWriter.line(header) + "\n"
        var line = 2, lines: [(Int, String)] = []
        for (well, extra) in zip(wells, extras) {
            let cells = [well.detail.identifier, well.pin.name ?? "", String(well.pin.latitude), String(well.pin.longitude)]
                + fields.map { well.detail[$0] ?? "" } + extraKeys.map { extra[$0] ?? "" }
            let record = CSVWriter.line(cells)
            lines.append((line, well.detail.identifier))
            line += 1 + record.utf8.count { $0 == 0x0A }
            text += record + "\n"
        }
        self.csv = Data(text.utf8)
        self.options = options
        self.plan = plan
        self.lines = lines
    }

    /// The identifier of the well whose record starts on `line`.
    func identifier(atLine line: Int) -> String? {
        lines.last { $0.line <= line }?.identifier
    }
}
