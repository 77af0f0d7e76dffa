extension AgencyList {
    // MARK: - Date layouts

    /// The date layouts' shared columns; the three date columns are written per layout (``DateStyle``).
    static let datesHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Status,Spud Date,Completion Date,Plug Date"

    /// How one date column of a date layout is written.
    enum DateStyle {
        /// `d/m/yyyy` (`padded`: `dd/mm/yyyy`), with `separator` `/` or `.`.
        case dayMonthYear(padded: Bool, separator: UInt8)
        /// `d/m/yy` with every day from 1 to 12, so that both orders fit every value.
        case ambiguousShortYear
        /// `DD-MON-YY` (or four digits) with the month in upper, title or lower case.
        case oracle(fourDigits: Bool, letterCase: Int)
        /// Excel serial numbers; `time`: with a fraction of a day.
        case excel(time: Bool)
        /// `yyyy-mm-dd`, and about 30% of the values a year alone.
        case isoAndYears
    }

    /// What a date layout writes and the formats a load should read its columns in, with how many
    /// values of each should not fit (``AnswerKey/DateColumn``).
    struct DatesPlan {
        var spud: DateStyle, completion: DateStyle, plug: DateStyle
        var formats: (spud: String, completion: String, plug: String)
    }

    var datesPlan: DatesPlan {
        switch layout {
        case .oracleDates:
            DatesPlan(spud: .oracle(fourDigits: false, letterCase: 0), completion: .oracle(fourDigits: true, letterCase: 1),
                      plug: .oracle(fourDigits: false, letterCase: 2), formats: ("DD-MON-YY", "DD-MON-YY", "DD-MON-YY"))
        case .excelSerials:
            DatesPlan(spud: .excel(time: false), completion: .excel(time: true), plug: .excel(time: false),
                      formats: ("Excel serial", "Excel serial", "Excel serial"))
        case .mixedDates:
            DatesPlan(spud: .dayMonthYear(padded: true, separator: UInt8(ascii: ".")), completion: .isoAndYears, plug: .ambiguousShortYear,
                      formats: ("d/m/y", "ISO and years", "d/m/y"))
        default:
            DatesPlan(spud: .dayMonthYear(padded: false, separator: UInt8(ascii: "/")), completion: .dayMonthYear(padded: true, separator: UInt8(ascii: "/")),
                      plug: .dayMonthYear(padded: true, separator: UInt8(ascii: "/")), formats: ("d/m/y", "d/m/y", "d/m/y"))
        }
    }

    /// A comma CSV with LF whose three date columns are written as ``datesPlan`` says, and whose key
    /// carries every field of every well (``AnswerKey/wells``).
    ///
    /// Completion dates follow spud dates by 2...60 days, plug dates (about a third of the wells)
    /// by 1...20 years, capped at 2025-06-30 so that a two-digit year has one reading. Values that
    /// must not load as dates (kept as text in `extra`): in `dates-dmy` and `dates-mixed` about
    /// 0.5% of spud dates written month first with a day over 12 (`3/25/1982`), which contradict
    /// their column's order; in `dates-oracle` about 0.3% a 30th of February; in `dates-excel`
    /// about 0.3% serial 60, Excel's 1900-02-29, a day that never was.
    func renderDates(into text: inout Text) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        let plan = datesPlan
        text.append(Self.datesHeader)
        text.endLine(crlf: false)
        var key = AnswerKey(layout: layout, records: count, identifier: .init(column: "Well ID", isKey: true))
        var answers: [AnswerKey.WellFields] = []
        answers.reserveCapacity(count)
        var bad = (spud: 0, completion: 0, plug: 0)
        let comma = WellGenerator.ASCII.comma
        let cap = WellGenerator.CivilDate.days(year: 2025, month: 6, day: 30)
        for index in 0..<count {
            let well = wells.next()
            var fields: [String: String] = [:]
            // Not an API number: its state code would name a state the wells do not lie in.
            let api = "WK-" + Self.padded(index, 7)
            text.append(api)
            text.append(byte: comma)
            text.append(csvField: well.name)
            fields["name"] = String(decoding: well.name, as: UTF8.self)
            text.append(byte: comma)
            text.append(csvField: well.licensee)
            fields["operator"] = String(decoding: well.licensee, as: UTF8.self)
            text.append(byte: comma)
            text.append(microdegrees: well.latitude)
            fields["lat"] = String(Double(well.latitude) / 1e6)
            text.append(byte: comma)
            text.append(microdegrees: well.longitude)
            fields["lon"] = String(Double(well.longitude) / 1e6)
            text.append(byte: comma)
            text.append(csvField: well.status)
            fields["status"] = String(decoding: well.status, as: UTF8.self)
            let spud = well.spud.map { WellGenerator.CivilDate.days(year: $0.year, month: $0.month, day: $0.day) }
            let completion = spud.map { $0 + random.int(in: 2...60) }
            let plug = spud.flatMap { spud in random.chance(0.35) ? min(cap, spud + random.int(in: 365...7300)) : nil }
            for (column, day, style, field) in [(0, spud, plan.spud, "spud_date"), (1, completion, plan.completion, "completion_date"),
                                                (2, plug, plan.plug, "plug_date")] {
                text.append(byte: comma)
                guard let day else { continue }
                let start = text.count
                switch Self.appendDate(day, style, column: column, to: &text, random: &random) {
                case .some(let stored): fields[field] = stored
                case nil:
                    fields["extra." + ["Spud Date", "Completion Date", "Plug Date"][column]] = String(decoding: text.bytes[start...], as: UTF8.self)
                    switch column {
                    case 0: bad.spud += 1
                    case 1: bad.completion += 1
                    default: bad.plug += 1
                    }
                }
            }
            text.endLine(crlf: false)
            answers.append(.init(identifier: api, fields: fields))
        }
        key.wells = answers
        key.dateColumns = [.init(column: "Spud Date", field: "spud_date", format: plan.formats.spud, notFitting: bad.spud),
                           .init(column: "Completion Date", field: "completion_date", format: plan.formats.completion, notFitting: bad.completion),
                           .init(column: "Plug Date", field: "plug_date", format: plan.formats.plug, notFitting: bad.plug)]
        return key
    }

    /// Writes the day number `day` in `style`; returns the value as a store should hold it
    /// (`yyyy-mm-dd` or `yyyy`), or nil when the layout wrote a value that must not load as a date.
    static func appendDate(_ day: Int, _ style: DateStyle, column: Int, to text: inout Text,
                           random: inout WellGenerator.Random) -> String? {
        var (year, month, date) = WellGenerator.CivilDate.components(of: day)
        let iso = { (y: Int, m: Int, d: Int) in "\(y)-\(padded(m, 2))-\(padded(d, 2))" }
        switch style {
        case .dayMonthYear(let padded, let separator):
            if column == 0, date > 12, random.chance(0.005) {
                // Month first, in a day-first column: the second part is over 12, so it cannot be read.
                text.append(decimal: month, width: padded ? 2 : 1)
                text.append(byte: separator)
                text.append(decimal: date, width: 2)
                text.append(byte: separator)
                text.append(decimal: year, width: 4)
                return nil
            }
            text.append(decimal: date, width: padded ? 2 : 1)
            text.append(byte: separator)
            text.append(decimal: month, width: padded ? 2 : 1)
            text.append(byte: separator)
            text.append(decimal: year, width: 4)
        case .ambiguousShortYear:
            date = (date - 1) % 12 + 1
            text.append(decimal: date)
            text.append(byte: UInt8(ascii: "/"))
            text.append(decimal: month)
            text.append(byte: UInt8(ascii: "/"))
            text.append(decimal: year % 100, width: 2)
        case .oracle(let fourDigits, let letterCase):
            if random.chance(0.003) { (month, date) = (2, 30) }
            text.append(decimal: date, width: 2)
            text.append(byte: WellGenerator.ASCII.minus)
            let name = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"][month - 1]
            text.append(letterCase == 0 ? name : letterCase == 1 ? name.prefix(1) + name.dropFirst().lowercased() : name.lowercased())
            text.append(byte: WellGenerator.ASCII.minus)
            text.append(decimal: fourDigits ? year : year % 100, width: fourDigits ? 4 : 2)
            if month == 2 && date == 30 { return nil }
        case .excel(let time):
            if random.chance(0.003) { text.append("60"); return nil }
            // Days since 1899-12-30: Excel's serial for every day from 1900-03-01 on.
            text.append(decimal: day - WellGenerator.CivilDate.days(year: 1899, month: 12, day: 30))
            if time { text.append(random.chance(0.5) ? ".5" : ".25") }
        case .isoAndYears:
            if random.chance(0.3) {
                text.append(decimal: year, width: 4)
                return String(year)
            }
            text.append(iso(year, month, date))
        }
        return iso(year, month, date)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
