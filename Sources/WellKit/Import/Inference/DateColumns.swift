/// Decides, once per date column, the format its values are read in (``DateFormat``), from the
/// values themselves, so that no value is read in an order its column contradicts.
///
/// The sample decides when it can: a first part over 12 in some slashed values (`25/03/1982`)
/// makes the column d/m/y, a second part over 12 m/d/y (if both occur, the more common wins and
/// the others do not fit); a column of numbers in the range of Excel serials to the day of the
/// load is serials (unless all are years; text such as `N/A` among them does not fit). When every sampled slashed value fits both orders, or
/// the sample holds no value of the column, the whole column is read (``settle(_:file:delimiter:)``,
/// after the records are located): one more pass, over that column alone. A column whose every
/// value fits both orders follows the file's other date columns, else is m/d/y with a warning
/// naming the option that reads it the other way. A format the user gives is never second-guessed.
struct DateColumns {
    /// Counts of the shapes of one column's values (``DateShapes/Shape``).
    struct Evidence: Equatable {
        var values = 0, iso = 0, years = 0, oracle = 0, slashed = 0, numbers = 0
        var firstOver12 = 0, secondOver12 = 0
        /// Numbers (and years) from 1 to the serial of the day of the load.
        var serials = 0

        mutating func add(_ bytes: UnsafeBufferPointer<UInt8>, lastSerial: Double) {
            guard !bytes.isEmpty else { return }
            values += 1
            switch DateShapes.classify(bytes) {
            case .iso: iso += 1
            case .year(let year):
                years += 1
                if Double(year) <= lastSerial { serials += 1 }
            case .oracle: oracle += 1
            case .slashed(let first, let second, _, _):
                slashed += 1
                if first > 12 { firstOver12 += 1 }
                if second > 12 { secondOver12 += 1 }
            case .number(let value):
                numbers += 1
                if value >= 1 && value <= lastSerial { serials += 1 }
            case .other: break
            }
        }

        /// The format these values decide; nil when they cannot (no value, or only slashed values that fit both orders).
        var format: DateFormat? {
            if values == 0 { return nil }
            // Serials: numbers (years among them) from 1 to today's serial, with no value of another date form,
            // and more than half of the values (text such as `N/A` does not fit).
            if numbers > 0 && serials == numbers + years && iso + oracle + slashed == 0 && (numbers + years) * 2 > values { return .excel }
            guard slashed > 0 else { return .unambiguous }
            if firstOver12 == 0 && secondOver12 == 0 { return nil }
            return firstOver12 >= secondOver12 ? .dayFirst : .monthFirst
        }

        /// How the values are written, as the summary names it: `d/m/y`, `DD-MON-YY`, `Excel serial`, `year`, `ISO`…
        func label(_ format: DateFormat) -> String {
            let base: String = switch format.reading {
            case .excel: "Excel serial"
            case .dayFirst: "d/m/y"
            case .monthFirst: "m/d/y"
            case .pattern: format.description
            case .unambiguous: oracle > iso ? "DD-MON-YY" : iso == 0 && years > 0 ? "year" : "ISO"
            }
            if case .excel = format.reading { return base }
            return years > 0 && base != "year" ? base + " and years" : base
        }
    }

    struct Column {
        var field: WellField
        var index: Int
        var name: String
        var given: DateFormat?
        var evidence = Evidence()
        /// Where the evidence is from: the sample, or the whole column.
        var wholeColumn = false
        var format: DateFormat?
        var ambiguous = false
        var followed: String?
    }

    private(set) var columns: [Column]
    let today: DateFormat.Today
    private let lastSerial: Double

    /// Reads the sample of each mapped date column, and checks the formats given for them.
    /// - Throws: ``ImportError/Code/invalidOption`` for a given format whose key is neither a date
    ///   field nor a source column mapped to one.
    init(mapping: ColumnMapping, sample: [[String]], given: [String: DateFormat], today: DateFormat.Today, file: String) throws {
        self.today = today
        lastSerial = DateShapes.excelSerial(year: today.year, month: today.month, day: today.day)
        columns = WellField.detailValueFields.filter { $0.kind == .date }.compactMap { field in
            mapping.indices[field].map { Column(field: field, index: $0, name: mapping.header[$0]) }
        }
        for (key, format) in given {
            guard let k = columns.firstIndex(where: { $0.field.rawValue == key || $0.name == key }) else {
                let mapped = columns.map { "\($0.field.rawValue) (\($0.name))" }
                throw ImportError(.invalidOption, "date format for '\(key)': no date column of that name; "
                                    + (mapped.isEmpty ? "the file has no date column mapped (map one with the field's name, such as spud_date)"
                                                      : "the date columns are \(mapped.joined(separator: ", "))"), file: file)
            }
            columns[k].given = format
        }
        let lastSerial = lastSerial
        for k in columns.indices where columns[k].given == nil {
            for record in sample where columns[k].index < record.count {
                var value = record[columns[k].index]
                value.withUTF8 { columns[k].evidence.add($0, lastSerial: lastSerial) }
            }
            columns[k].format = columns[k].evidence.format
        }
    }

    /// Reads the whole of each column the sample did not decide, then settles columns whose every
    /// value fits both orders: they follow the file's other date columns if these agree, else m/d/y.
    mutating func settle(_ records: RecordList, file: MappedFile, delimiter: UInt8) {
        let open = columns.indices.filter { columns[$0].given == nil && columns[$0].format == nil }
        if !open.isEmpty {
            let scanner = CSVScanner(delimiter: delimiter)
            var spans: [FieldSpan] = []
            var evidence = open.map { _ in Evidence() }
            let width = (columns.map(\.index).max() ?? 0) + 1
            for k in 0..<records.count {
                let record = records[k]
                _ = scanner.scan(file.bytes, from: record.range.lowerBound, to: file.bytes.count, atEOF: true, line: record.line, fields: &spans)
                if spans.count < width { CSVScanner.padTrailing(&spans, to: width) }
                let fields = RecordFields(buffer: file.bytes, spans: spans)
                for (j, c) in open.enumerated() where !fields.isEmpty(columns[c].index) {
                    fields.withBytes(columns[c].index) { evidence[j].add($0, lastSerial: lastSerial) }
                }
            }
            for (j, c) in open.enumerated() {
                columns[c].evidence = evidence[j]
                columns[c].wholeColumn = true
                columns[c].format = evidence[j].format ?? (evidence[j].values == 0 ? .unambiguous : nil)
            }
        }
        let orders = columns.compactMap { column -> (String, DateFormat)? in
            guard let format = column.given ?? column.format else { return nil }
            switch format.reading {
            case .dayFirst, .monthFirst: return (column.name, format)
            case .pattern(let pieces):
                guard let day = pieces.firstIndex(of: .day), let month = pieces.firstIndex(of: .month) else { return nil }
                return (column.name, day < month ? .dayFirst : .monthFirst)
            default: return nil
            }
        }
        for k in columns.indices where columns[k].given == nil && columns[k].format == nil {
            columns[k].ambiguous = true
            if let first = orders.first, orders.allSatisfy({ $0.1 == first.1 }) {
                columns[k].format = first.1
                columns[k].followed = orders.map(\.0).joined(separator: ", ")
            } else {
                columns[k].format = .monthFirst
            }
        }
    }

    /// The format of each detail slot (``RecordValidator/detailSlots``), nil for other fields.
    var formats: [DateFormat?] {
        WellField.detailValueFields.map { field in columns.first { $0.field == field }.map { $0.given ?? $0.format ?? .unambiguous } }
    }

    /// The summary's report of each column; ``LoadSummary/count(badValues:)`` fills in how many did not fit.
    func reports(describe: (LoadRemedy) -> String) -> (columns: [DateColumnReport], warnings: [String]) {
        var reports: [DateColumnReport] = [], warnings: [String] = []
        for column in columns {
            let format = column.given ?? column.format ?? .unambiguous
            let evidence = column.evidence
            let seen = "\(grouped(evidence.values)) \(column.wholeColumn ? "values in the column" : "sampled values")"
            var why: String
            if column.given != nil {
                why = "given"
            } else if column.ambiguous {
                why = "every one of \(seen) fits both m/d/y and d/m/y; "
                    + (column.followed.map { "read in the order of the file's other date columns: \($0)" } ?? "read as m/d/y")
            } else {
                switch format.reading {
                case .dayFirst: why = "\(grouped(evidence.firstOver12)) of \(seen) have a first part over 12"
                    + (evidence.secondOver12 > 0 ? ", \(grouped(evidence.secondOver12)) a second part over 12 (these do not fit)" : "")
                case .monthFirst: why = "\(grouped(evidence.secondOver12)) of \(seen) have a second part over 12"
                    + (evidence.firstOver12 > 0 ? ", \(grouped(evidence.firstOver12)) a first part over 12 (these do not fit)" : "")
                case .excel: why = "all \(seen) are numbers from 1 to today's serial"
                default: why = evidence.values == 0 ? "no values" : "\(seen), none with two readings"
                }
            }
            // The setting that reads the column the other way: the other order, or a format to name.
            let other = column.field.rawValue + "=" + (format.reading == .dayFirst ? "%m/%d/%Y" : format.reading == .monthFirst ? "%d/%m/%Y" : "FORMAT")
            if column.ambiguous && column.followed == nil {
                warnings.append("date column \"\(column.name)\" (\(column.field.rawValue)): every value fits both m/d/y and d/m/y, read as m/d/y; "
                                + "if it is day first, load with \(describe(.dateFormat(other)))")
            }
            reports.append(DateColumnReport(
                field: column.field.rawValue, column: column.name,
                format: column.given.map { "\($0.description) (given)" } ?? evidence.label(format),
                evidence: why, ambiguous: column.ambiguous,
                override: describe(.dateFormat(column.given == nil ? other : column.field.rawValue + "=FORMAT"))))
        }
        return (reports, warnings)
    }
}

/// How a load read one date column: the format, why, and how many values did not fit it (kept
/// as text in `details.extra`). `wells load` prints them with the summary and the dry run.
public struct DateColumnReport: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The field, such as `spud_date`.
    public var field: String
    /// The source column.
    public var column: String
    /// As read: `ISO`, `m/d/y`, `d/m/y`, `DD-MON-YY`, `Excel serial`, `year`, `ISO and years`, or a given format.
    public var format: String
    /// Why, such as "821 of 2,000 sampled values have a first part over 12".
    public var evidence: String
    /// Every value fitted both m/d/y and d/m/y.
    public var ambiguous: Bool
    /// The setting that reads the column another way.
    public var override: String
    /// Non-empty values that did not fit the format, kept as text.
    public var notFitting = 0

    public var description: String {
        "\(field) ← \(column): \(format), \(notFitting == 0 ? "every value fits" : "\(grouped(notFitting)) value\(notFitting == 1 ? "" : "s") did not fit (kept as text)")"
            + " (\(evidence); override with \(override))"
    }
}
