import Foundation

extension AgencyList {
    // MARK: - Across the antimeridian

    /// The header of the `antimeridian` layout.
    static let antimeridianHeader = "Well ID,Well Name,Operator,Latitude,Longitude,Status,Spud Date,Basin"

    /// Writes the `antimeridian` layout: a list of an Alaska-like state that crosses ±180°, as
    /// Alaska's does with its Aleutian wells. Most wells (the ``WellGenerator`` wells moved to lat
    /// 55…66, lon -160…-150, `Basin` `Interior`) lie east of the antimeridian; about 1.5% (`Basin`
    /// `Aleutian`, one in 67 wells chosen by the layout's stream) lie on an island chain at lat 51…53
    /// that runs from 175°E across ±180° to 175°W, on both sides, written with their signs (`178.5`,
    /// `-178.5`). No well is wrong: a loader must move none and flag none, where the suspects' rule
    /// measured the Aleutian wells west of ±180° the long way round, 2,000 km from the others.
    /// Decimal degrees (WGS 84), ISO spud dates, LF; every field of every well in ``AnswerKey/wells``.
    func renderAntimeridian(into text: inout Text) -> AnswerKey {
        var wells = SourceWells(count: count, seed: seed)
        var random = layoutRandom()
        text.append(Self.antimeridianHeader)
        text.endLine(crlf: false)
        var key = AnswerKey(layout: .antimeridian, records: count, identifier: .init(column: "Well ID", isKey: true))
        var answers: [AnswerKey.WellFields] = []
        answers.reserveCapacity(count)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            let aleutian = random.below(67) == 0
            let latitude = aleutian ? 51_000_000 + (well.latitude - 34_000_000) / 5 : well.latitude + 21_000_000
            var longitude = aleutian ? well.longitude + 295_000_000 : well.longitude - 40_000_000
            if longitude > 180_000_000 { longitude -= 360_000_000 }
            let identifier = "AM-" + String(repeating: "0", count: max(0, 9 - String(index).count)) + String(index)
            text.append(identifier)
            text.append(byte: comma)
            text.append(csvField: well.name)
            text.append(byte: comma)
            text.append(csvField: well.licensee)
            text.append(byte: comma)
            text.append(microdegrees: latitude)
            text.append(byte: comma)
            text.append(microdegrees: longitude)
            text.append(byte: comma)
            text.append(csvField: well.status)
            text.append(byte: comma)
            var fields = [
                "name": String(decoding: well.name, as: UTF8.self), "operator": String(decoding: well.licensee, as: UTF8.self),
                "status": String(decoding: well.status, as: UTF8.self),
                "lat": String(Double(latitude) / 1_000_000), "lon": String(Double(longitude) / 1_000_000),
                "extra.Basin": aleutian ? "Aleutian" : "Interior",
            ]
            if let spud = well.spud {
                text.append(decimal: spud.year, width: 4)
                text.append(byte: UInt8(ascii: "-"))
                text.append(decimal: spud.month, width: 2)
                text.append(byte: UInt8(ascii: "-"))
                text.append(decimal: spud.day, width: 2)
                fields["spud_date"] = String(format: "%04d-%02d-%02d", spud.year, spud.month, spud.day)
            }
            text.append(byte: comma)
            text.append(aleutian ? "Aleutian" : "Interior")
            text.endLine(crlf: false)
            answers.append(.init(identifier: identifier, fields: fields))
        }
        key.wells = answers
        return key
    }
}
