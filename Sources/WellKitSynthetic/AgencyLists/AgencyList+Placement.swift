import Foundation
import WellKit

extension AgencyList {
    // MARK: - Whole-file slips

    /// The header of the `lost-signs` layout.
    static let lostSignsHeader = "API Number,Well Name,Operator,Latitude,Longitude,State,Status"
    /// The header of the `state-plane-feet` layout.
    static let statePlaneHeader = "API,Lease,Operator,X_COORD,Y_COORD,State,Status"
    /// The CRS of the `state-plane-feet` layout's x/y (NAD83 / Nevada Central (ftUS)) and the
    /// same zone in metres, which a user would give by mistake.
    static let statePlaneCRS = (feet: "EPSG:3422", metres: "EPSG:32108")

    /// Appends a row's first three fields and their commas: `PREFIX` and the row's number in 9 digits, the name, the operator.
    static func appendIdentity(_ prefix: String, _ index: Int, _ well: SourceWell, to text: inout Text) {
        text.append(prefix)
        text.append(decimal: index, width: 9)
        text.append(byte: WellGenerator.ASCII.comma)
        text.append(csvField: well.name)
        text.append(byte: WellGenerator.ASCII.comma)
        text.append(csvField: well.licensee)
        text.append(byte: WellGenerator.ASCII.comma)
    }

    /// Writes the `lost-signs` layout: every longitude without its minus sign, as a spreadsheet
    /// that formats numbers "without sign" writes them, and a `State` column naming the state each
    /// well truly lies in. Loaded as given, the wells land in Asia; the key's fix is `--implied-west`.
    func renderLostSigns(into text: inout Text) -> AnswerKey {
        var wells = SourceWells(count: count, seed: seed)
        text.append(Self.lostSignsHeader)
        text.endLine(crlf: false)
        var key = AnswerKey(layout: .lostSigns, records: count, identifier: .init(column: "API Number", isKey: true))
        key.stateColumn = "State"
        key.placement = .init(slip: "the longitudes lost their minus sign", given: [], fix: ["--implied-west"])
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            Self.appendIdentity("42-", index, well, to: &text)
            text.append(microdegrees: well.latitude)
            text.append(byte: comma)
            text.append(microdegrees: abs(well.longitude))
            text.append(byte: comma)
            text.append(Self.state(of: well))
            text.append(byte: comma)
            text.append(csvField: well.status)
            text.endLine(crlf: false)
        }
        return key
    }

    /// Writes the `state-plane-feet` layout: x/y in NAD83 / Nevada Central in US survey feet
    /// (EPSG:3422), to 0.01 ft, with no latitude or longitude, and the true `State` of each well.
    /// Read in the same zone in metres (`--crs EPSG:32108`) the wells land hundreds of kilometres
    /// away; the key's fix is `--crs EPSG:3422`, which is also the first candidate a load offers.
    func renderStatePlaneFeet(into text: inout Text) -> AnswerKey {
        var wells = SourceWells(count: count, seed: seed)
        text.append(Self.statePlaneHeader)
        text.endLine(crlf: true)
        var key = AnswerKey(layout: .statePlaneFeet, records: count, identifier: .init(column: "API", isKey: true))
        key.stateColumn = "State"
        key.placement = .init(slip: "the values are in US survey feet",
                              given: ["--crs", Self.statePlaneCRS.metres, "--x", "X_COORD", "--y", "Y_COORD"],
                              fix: ["--crs", Self.statePlaneCRS.feet, "--x", "X_COORD", "--y", "Y_COORD"])
        let transformer = try? TransformCache.shared.transformer(from: "EPSG:4326", to: Self.statePlaneCRS.feet)
        let comma = WellGenerator.ASCII.comma
        for index in 0..<count {
            let well = wells.next()
            Self.appendIdentity("27-", index, well, to: &text)
            let p = (try? transformer?.transform(x: Double(well.longitude) / 1e6, y: Double(well.latitude) / 1e6)) ?? nil
            text.append(String(format: "%.2f", p?.x ?? 0))
            text.append(byte: comma)
            text.append(String(format: "%.2f", p?.y ?? 0))
            text.append(byte: comma)
            text.append(Self.state(of: well))
            text.append(byte: comma)
            text.append(csvField: well.status)
            text.endLine(crlf: true)
        }
        return key
    }
}

extension AgencyList {
    // MARK: - An export

    /// The header of the `export-1252` layout (after its two title lines).
    static let exportHeader = "API;Well Name;Operator;Geometry;State;Total Depth (m)"

    /// Writes the `export-1252` layout, as a spreadsheet on European Windows exports a list: two title
    /// lines, `;` between fields, depths with a decimal comma, Windows-1252 punctuation (curly quotes
    /// around each name, an en dash in each operator), CRLF, and both coordinates in one EWKT column
    /// (`"SRID=4326;POINT(-114.5 38.2)"`, quoted for its semicolon). Loaded with no options, every well lands where its `State` says.
    func renderExport(into text: inout Text) -> AnswerKey {
        var wells = SourceWells(count: count, seed: seed)
        text.append("Synthetic Well Data Export")
        text.endLine(crlf: true)
        text.append("Exported by WellKit (AgencyList, layout export-1252); not real data")
        text.endLine(crlf: true)
        text.append(Self.exportHeader)
        text.endLine(crlf: true)
        var key = AnswerKey(layout: .export1252, records: count, identifier: .init(column: "API", isKey: true))
        key.stateColumn = "State"
        key.text = .init(titleLines: 2, encoding: "Windows-1252", delimiter: "semicolon", decimalMark: "comma", pointColumn: "Geometry")
        let semicolon = UInt8(ascii: ";")
        for index in 0..<count {
            let well = wells.next()
            text.append("05-")
            text.append(decimal: index, width: 9)
            text.append(byte: semicolon)
            text.append(byte: 0x93)   // “
            text.append(well.name.filter { $0 != semicolon && $0 != WellGenerator.ASCII.quote })
            text.append(byte: 0x94)   // ”
            text.append(byte: semicolon)
            text.append(well.licensee.filter { $0 != semicolon && $0 != WellGenerator.ASCII.quote })
            text.append([0x20, 0x96])   // " –"
            text.append(" Field Ops")
            text.append(byte: semicolon)
            text.append("\"SRID=4326;POINT(")   // quoted: the SRID's semicolon is the delimiter
            text.append(microdegrees: well.longitude)
            text.append(byte: WellGenerator.ASCII.space)
            text.append(microdegrees: well.latitude)
            text.append(")\"")
            text.append(byte: semicolon)
            text.append(Self.state(of: well))
            text.append(byte: semicolon)
            if let depth = well.depthDecimetres {
                text.append(decimal: depth / 10)
                text.append(",")
                text.append(decimal: depth % 10)
            }
            text.endLine(crlf: true)
        }
        return key
    }
}
