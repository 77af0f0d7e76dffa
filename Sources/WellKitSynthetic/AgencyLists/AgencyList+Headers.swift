import Foundation

extension AgencyList {
    // MARK: - Headers as published, spreadsheet idioms and units

    /// The header of the `blank-headers` layout: a side table to the right of the list, under blank
    /// cells and names the list already has, as Florida's orphan-well workbook saved as CSV has it.
    /// A load names them `column_8`, `Remarks_2`, `column_10` and `Status_2`.
    static let blankHeadersHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Status,Remarks,,Remarks,,Status"
    /// The header of the `excel-guarded` layout.
    static let excelGuardedHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Permit,Spud Date"
    /// The headers of the `depths-feet` and `depths-metres` layouts: the unit in the names.
    static let depthsFeetHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Spud Date,Well Depth (ft),Ground Elevation (ft)"
    static let depthsMetresHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Spud Date,Total Depth (m),Elevation (m)"

    /// Remarks of the side table, chosen by the layout's stream.
    static let remarks = ["plugging in progress", "program docs approved", "initial stage", "previously plugged", "site visit 2024"]

    /// One well's identity and position, as every layout of this file writes it, and the fields a store keeps of them.
    private static func appendIdentity(_ index: Int, _ well: SourceWell, guarded: Bool, to text: inout Text, fields: inout [String: String]) -> String {
        let comma = WellGenerator.ASCII.comma
        if guarded { text.append("=\"") }
        let idStart = text.count
        text.append(decimal: index + 1, width: 8)
        let identifier = String(decoding: text.bytes[idStart...], as: UTF8.self)
        if guarded { text.append(byte: WellGenerator.ASCII.quote) }
        text.append(byte: comma)
        text.append(csvField: well.name)
        text.append(byte: comma)
        text.append(csvField: well.licensee)
        text.append(byte: comma)
        text.append(microdegrees: well.latitude)
        text.append(byte: comma)
        text.append(microdegrees: well.longitude)
        if !well.name.isEmpty { fields["name"] = String(decoding: well.name, as: UTF8.self) }
        if !well.licensee.isEmpty { fields["operator"] = String(decoding: well.licensee, as: UTF8.self) }
        fields["lat"] = String(Double(well.latitude) / 1e6)
        fields["lon"] = String(Double(well.longitude) / 1e6)
        return identifier
    }

    /// Writes the `blank-headers` layout: the list, and a side table in five more columns under two
    /// blank header cells and two repeated names (`Remarks`, `Status`); each of its cells is filled on
    /// about half the rows. Every value is in the key: a load that drops one (seven blank names
    /// kept one value of seven before) differs from it.
    func renderBlankHeaders(into text: inout Text) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        text.append(Self.blankHeadersHeader)
        text.endLine(crlf: true)
        var key = AnswerKey(layout: .blankHeaders, records: count, identifier: .init(column: "Well ID", isKey: true))
        var answers: [AnswerKey.WellFields] = []
        answers.reserveCapacity(count)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            var fields: [String: String] = [:]
            let identifier = Self.appendIdentity(index, well, guarded: false, to: &text, fields: &fields)
            text.append(byte: comma)
            text.append(csvField: well.status)
            if !well.status.isEmpty { fields["status"] = String(decoding: well.status, as: UTF8.self) }
            // Remarks, column_8 (an earlier well's identifier), Remarks_2, column_10 (a count), Status_2.
            for (column, name) in ["Remarks", "column_8", "Remarks_2", "column_10", "Status_2"].enumerated() {
                text.append(byte: comma)
                guard random.chance(0.5) else { continue }
                let value: String
                switch column {
                case 1: value = String(format: "%08d", random.below(index + 1) + 1)
                case 3: value = String(random.int(in: 1...400))
                case 4: value = ["PROD", "INJ", "SWD", "TA"][random.below(4)]
                default: value = Self.remarks[random.below(Self.remarks.count)]
                }
                text.append(value)
                fields["extra." + name] = value
            }
            text.endLine(crlf: true)
            answers.append(.init(identifier: identifier, fields: fields))
        }
        key.wells = answers
        return key
    }

    /// Writes the `excel-guarded` layout: an Excel export whose identifiers and permits are written
    /// `="00000012"`, the formula Excel users write so that leading zeros survive; a load reads each
    /// as its text. Spud dates are ISO.
    func renderExcelGuarded(into text: inout Text) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        text.append(Self.excelGuardedHeader)
        text.endLine(crlf: true)
        var key = AnswerKey(layout: .excelGuarded, records: count, identifier: .init(column: "Well ID", isKey: true))
        var answers: [AnswerKey.WellFields] = []
        answers.reserveCapacity(count)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            var fields: [String: String] = [:]
            let identifier = Self.appendIdentity(index, well, guarded: true, to: &text, fields: &fields)
            text.append(byte: comma)
            if random.chance(0.7) {
                let permit = String(format: "%06d", random.below(100_000))
                text.append("=\"\(permit)\"")
                fields["licence"] = permit
            }
            text.append(byte: comma)
            if let spud = well.spud {
                let iso = Self.iso(spud)
                text.append(iso)
                fields["spud_date"] = iso
            }
            text.endLine(crlf: true)
            answers.append(.init(identifier: identifier, fields: fields))
        }
        key.wells = answers
        return key
    }

    /// Writes the `depths-feet` (`metres` false) or `depths-metres` layout: total depth and ground
    /// elevation under names that say their unit. A load stores both in metres: the key's feet are
    /// multiplied by 0.3048, as the store does.
    func renderDepths(into text: inout Text, metres: Bool) -> AnswerKey {
        var random = layoutRandom()
        var wells = SourceWells(count: count, seed: seed)
        text.append(metres ? Self.depthsMetresHeader : Self.depthsFeetHeader)
        text.endLine(crlf: false)
        var key = AnswerKey(layout: metres ? .depthsMetres : .depthsFeet, records: count, identifier: .init(column: "Well ID", isKey: true))
        var answers: [AnswerKey.WellFields] = []
        answers.reserveCapacity(count)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            var fields: [String: String] = [:]
            let identifier = Self.appendIdentity(index, well, guarded: false, to: &text, fields: &fields)
            text.append(byte: comma)
            if let spud = well.spud {
                let iso = Self.iso(spud)
                text.append(iso)
                fields["spud_date"] = iso
            }
            text.append(byte: comma)
            if metres, let decimetres = well.depthDecimetres {
                text.append(decimal: decimetres / 10)
                text.append(byte: WellGenerator.ASCII.dot)
                text.append(decimal: decimetres % 10)
                fields["total_depth"] = String(Double(decimetres) / 10)
            } else if let feet = well.depthFeet {
                text.append(decimal: feet)
                fields["total_depth"] = String(Double(feet) * 0.3048)
            }
            text.append(byte: comma)
            if random.chance(0.8) {
                let elevation = metres ? random.int(in: 300...2_800) : random.int(in: 1_000...9_000)
                text.append(decimal: elevation)
                fields["ground_elevation"] = String(Double(elevation) * (metres ? 1 : 0.3048))
            }
            text.endLine(crlf: false)
            answers.append(.init(identifier: identifier, fields: fields))
        }
        key.wells = answers
        return key
    }

    /// `yyyy-mm-dd`.
    static func iso(_ date: (year: Int, month: Int, day: Int)) -> String {
        String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }
}
