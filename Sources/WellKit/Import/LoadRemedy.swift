/// A setting of ``LoadOptions`` that would load a rejected row or change an inference: what a
/// reject's reason, a warning or an ``Inference/override`` tells the user to set.
///
/// The library words it in the API's terms (``apiText``); a front end words it in its own through
/// ``LoadOptions/describeRemedy`` (`wells` names its flags), so the reasons stored with a load's
/// rejects speak to whoever ran the load.
///
/// For example:
///
/// ```swift
/// var options = LoadOptions()
/// options.describeRemedy = { remedy in "the setting \(remedy.apiText)" }
/// ```
public enum LoadRemedy: Sendable, Hashable {
    /// Map a datum name to a CRS: ``CoordinateOptions/datums``.
    case mapDatum
    /// Generate identifiers for rows without one: ``LoadOptions/onMissingIdentifier``.
    case generateMissingIdentifiers
    /// Keep the later of two rows with one identifier: ``LoadOptions/onDuplicate``.
    case keepLaterDuplicate
    /// Take this column (nil: any column, `COLUMN`) as the identifier: ``LoadOptions/identifier``.
    case identifierColumn(String?)
    /// Load without an identifier column: ``LoadOptions/identifier``.
    case noIdentifier
    /// Reject wells whose coordinates look wrong: ``LoadOptions/rejectSuspects``.
    case rejectSuspects
    /// Name the column of a field, such as `lat`: ``LoadOptions/mapping``.
    case mapField(String)
    /// Read coordinates as degrees, minutes and seconds: ``CoordinateOptions/dms``.
    case parseDMS
    /// Take the mapping as given, without inference: ``LoadOptions/infer``.
    case noInference
    /// Name the column that gives each row's datum: ``CoordinateOptions/datumColumn``.
    case datumColumn
    /// Give one CRS for every row: ``CoordinateOptions/crs``.
    case oneCRS
    /// Read unsigned longitudes as east: ``CoordinateOptions/impliedEast``.
    case impliedEast
    /// Read unsigned longitudes as west: ``CoordinateOptions/impliedWest``.
    case impliedWest
    /// Read unsigned latitudes as south: ``CoordinateOptions/impliedSouth``.
    case impliedSouth
    /// Load wells that lie outside the places their rows name, flagged: ``LoadOptions/checkLocations``.
    case noLocationCheck
    /// Divide the coordinates by this number, for degrees written as whole numbers: ``CoordinateOptions/degreeDivisor``.
    case degreeDivisor(Double)
    /// Read longitudes over 180 as west, for longitudes from 0 to 360: ``CoordinateOptions/longitudes0To360``.
    case longitudes0To360
    /// Read minutes and seconds from columns of their own: ``CoordinateOptions/minutesAndSeconds``.
    case minutesAndSeconds
    /// Read numbers with a decimal comma: ``CoordinateOptions/decimalComma``.
    case decimalComma
    /// Read a date column in a format, given as `FIELD=FORMAT` (`spud_date=%d/%m/%Y`): ``LoadOptions/dateFormats``.
    case dateFormat(String)
    /// Name the unit of the depth (`depth`) or elevation (`elevation`) columns: ``LoadOptions/depthUnit``, ``LoadOptions/elevationUnit``.
    case lengthUnit(String)

    /// Load this sheet of a workbook (nil: any, `NAME`): ``LoadOptions/sheet``.
    case sheet(String?)
    /// Load this member of an archive (nil: any, `NAME`): ``LoadOptions/member``.
    case member(String?)
    /// Copy more of a stream to the temporary file a load reads: ``LoadOptions/spoolLimit``.
    case spoolLimit
    /// The setting in the API's terms, such as `LoadOptions.onDuplicate = .last`.
    public var apiText: String {
        switch self {
        case .mapDatum: #"CoordinateOptions.datums["NAME"] = "EPSG:CODE""#
        case .generateMissingIdentifiers: "LoadOptions.onMissingIdentifier = .generate"
        case .keepLaterDuplicate: "LoadOptions.onDuplicate = .last"
        case .identifierColumn(let column): #"LoadOptions.identifier = .column("\#(column ?? "COLUMN")")"#
        case .noIdentifier: "LoadOptions.identifier = .none"
        case .rejectSuspects: "LoadOptions.rejectSuspects"
        case .mapField(let field): #"LoadOptions.mapping["\#(field)"] = "COLUMN""#
        case .parseDMS: "CoordinateOptions.dms = true"
        case .noInference: "LoadOptions.infer = false"
        case .datumColumn: #"CoordinateOptions.datumColumn = "COLUMN""#
        case .oneCRS: #"CoordinateOptions.crs = "EPSG:CODE""#
        case .impliedEast: "CoordinateOptions.impliedEast = true"
        case .impliedWest: "CoordinateOptions.impliedWest = true"
        case .impliedSouth: "CoordinateOptions.impliedSouth = true"
        case .noLocationCheck: "LoadOptions.checkLocations = false"
        case .degreeDivisor(let divisor): "CoordinateOptions.degreeDivisor = \(Self.number(divisor))"
        case .longitudes0To360: "CoordinateOptions.longitudes0To360 = true"
        case .minutesAndSeconds: "CoordinateOptions.minutesAndSeconds = .init(latitudeMinutes: \"COLUMN\", longitudeMinutes: \"COLUMN\", …)"
        case .decimalComma: "CoordinateOptions.decimalComma = true"
        case .dateFormat(let setting):
            #"LoadOptions.dateFormats["\#(setting.prefix { $0 != "=" })"] = try DateFormat("\#(setting.drop { $0 != "=" }.dropFirst())")"#
        case .sheet(let name): #"LoadOptions.sheet = "\#(name ?? "NAME")""#
        case .member(let name): #"LoadOptions.member = "\#(name ?? "NAME")""#
        case .lengthUnit(let what): "LoadOptions.\(what)Unit = .feet or .metres"
        case .spoolLimit: "LoadOptions.spoolLimit = BYTES"
        }
    }

    /// A divisor as typed: 1000000, not 1000000.0 or 1e+06.
    package static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
