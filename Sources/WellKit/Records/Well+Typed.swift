import Foundation

// Typed access to every field of a well, beside the generic `detail[.field]` and `detail.values`:
// names and codes as `String?`, dates as `Date?`, depths and elevations as `Double?` in metres (a
// load converts feet, `LoadSummary.units`). Setting one sets `values`, as the store would hold it.

extension WellDetail {
    /// Makes a detail: the identifier, the typed attributes by field, the source coordinates and
    /// the unmapped source columns as a JSON object of strings.
    public init(identifier: String, values: [WellField: WellValue] = [:], sourceX: Double? = nil, sourceY: Double? = nil,
                sourceCRS: String? = nil, extraJSON: String? = nil, loadID: Int64? = nil) {
        self.identifier = identifier
        self.values = values.filter { WellField.detailValueFields.contains($0.key) && !$0.value.isNull }
        self.sourceX = sourceX
        self.sourceY = sourceY
        self.sourceCRS = sourceCRS
        self.extraJSON = extraJSON
        self.loadID = loadID
    }

    public var `operator`: String? { get { self[.operator] } set { setText(newValue, .operator) } }
    public var status: String? { get { self[.status] } set { setText(newValue, .status) } }
    public var type: String? { get { self[.type] } set { setText(newValue, .type) } }
    public var fluid: String? { get { self[.fluid] } set { setText(newValue, .fluid) } }
    public var field: String? { get { self[.field] } set { setText(newValue, .field) } }
    public var formation: String? { get { self[.formation] } set { setText(newValue, .formation) } }
    public var county: String? { get { self[.county] } set { setText(newValue, .county) } }
    public var state: String? { get { self[.state] } set { setText(newValue, .state) } }
    public var licence: String? { get { self[.licence] } set { setText(newValue, .licence) } }

    /// The spud date, at midnight UTC; nil when there is none, or only a year (`detail[.spudDate]` is then `"1904"`).
    public var spudDate: Date? { get { date(.spudDate) } set { setDate(newValue, .spudDate) } }
    /// The completion date, as ``spudDate``.
    public var completionDate: Date? { get { date(.completionDate) } set { setDate(newValue, .completionDate) } }
    /// The plug date, as ``spudDate``.
    public var plugDate: Date? { get { date(.plugDate) } set { setDate(newValue, .plugDate) } }

    /// The total depth in metres.
    public var totalDepth: Double? { get { values[.totalDepth]?.double } set { setReal(newValue, .totalDepth) } }
    /// The ground elevation in metres.
    public var groundElevation: Double? { get { values[.groundElevation]?.double } set { setReal(newValue, .groundElevation) } }
    /// The kelly bushing elevation in metres.
    public var kbElevation: Double? { get { values[.kbElevation]?.double } set { setReal(newValue, .kbElevation) } }

    private mutating func setText(_ text: String?, _ field: WellField) {
        values[field] = text.map(WellValue.text)
    }

    private mutating func setReal(_ value: Double?, _ field: WellField) {
        values[field] = value.map(WellValue.real)
    }

    private mutating func setDate(_ date: Date?, _ field: WellField) {
        values[field] = date.map { .text(Self.isoDay.string(from: $0)) }
    }

    /// A stored date (`1982-07-03`, also with a time after it) at midnight UTC; nil for a year alone.
    private func date(_ field: WellField) -> Date? {
        guard let text = self[field], text.utf8.count >= 10 else { return nil }
        return Self.isoDay.date(from: String(text.prefix(10)))
    }

    /// `yyyy-MM-dd` in UTC, on the Gregorian calendar, as the store writes days.
    private static let isoDay: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()
}

extension Well {
    /// The identifier (`uwi`): ``WellDetail/identifier``.
    public var identifier: String { get { detail.identifier } set { detail.identifier = newValue } }
    public var name: String? { get { pin.name } set { pin.name = newValue } }
    public var latitude: Double { get { pin.latitude } set { pin.latitude = newValue } }
    public var longitude: Double { get { pin.longitude } set { pin.longitude = newValue } }
    public var coordinate: Coordinate { pin.coordinate }
    public var `operator`: String? { get { detail.operator } set { detail.operator = newValue } }
    public var status: String? { get { detail.status } set { detail.status = newValue } }
    public var type: String? { get { detail.type } set { detail.type = newValue } }
    public var fluid: String? { get { detail.fluid } set { detail.fluid = newValue } }
    public var field: String? { get { detail.field } set { detail.field = newValue } }
    public var formation: String? { get { detail.formation } set { detail.formation = newValue } }
    public var county: String? { get { detail.county } set { detail.county = newValue } }
    public var state: String? { get { detail.state } set { detail.state = newValue } }
    public var licence: String? { get { detail.licence } set { detail.licence = newValue } }
    /// ``WellDetail/spudDate``.
    public var spudDate: Date? { get { detail.spudDate } set { detail.spudDate = newValue } }
    public var completionDate: Date? { get { detail.completionDate } set { detail.completionDate = newValue } }
    public var plugDate: Date? { get { detail.plugDate } set { detail.plugDate = newValue } }
    /// ``WellDetail/totalDepth``, in metres.
    public var totalDepth: Double? { get { detail.totalDepth } set { detail.totalDepth = newValue } }
    public var groundElevation: Double? { get { detail.groundElevation } set { detail.groundElevation = newValue } }
    public var kbElevation: Double? { get { detail.kbElevation } set { detail.kbElevation = newValue } }
}

/// A well as one flat JSON object, keyed by the field names the rest of WellKit uses (`--fields`,
/// the API's properties): `id`, `name`, `lat`, `lon`, `uwi`, each detail field that has a value
/// (`status`, `spud_date` as stored, `total_depth` in metres, …), `source_x`, `source_y`,
/// `source_crs`, `extra` (an object of the unmapped source columns) and `load_id`.
///
/// For example:
///
/// ```swift
/// let json = try JSONEncoder().encode(try store.fetchWells(WellFetchRequest(limit: 10)))
/// let wells = try JSONDecoder().decode([Well].self, from: json)
/// ```
extension Well: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(pin.id, forKey: Key("id"))
        try container.encodeIfPresent(pin.name, forKey: Key("name"))
        try container.encode(pin.latitude, forKey: Key("lat"))
        try container.encode(pin.longitude, forKey: Key("lon"))
        try container.encode(detail.identifier, forKey: Key("uwi"))
        for field in WellField.detailValueFields {
            switch detail.values[field] {
            case .text(let text)?: try container.encode(text, forKey: Key(field.rawValue))
            case .real(let value)?: try container.encode(value, forKey: Key(field.rawValue))
            case .integer(let value)?: try container.encode(value, forKey: Key(field.rawValue))
            case .blob, .null, nil: break
            }
        }
        try container.encodeIfPresent(detail.sourceX, forKey: Key("source_x"))
        try container.encodeIfPresent(detail.sourceY, forKey: Key("source_y"))
        try container.encodeIfPresent(detail.sourceCRS, forKey: Key("source_crs"))
        let extra = detail.extra
        if !extra.isEmpty { try container.encode(extra, forKey: Key("extra")) }
        try container.encodeIfPresent(detail.loadID, forKey: Key("load_id"))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        pin = WellPin(id: try container.decode(Int64.self, forKey: Key("id")),
                      name: try container.decodeIfPresent(String.self, forKey: Key("name")),
                      latitude: try container.decode(Double.self, forKey: Key("lat")),
                      longitude: try container.decode(Double.self, forKey: Key("lon")))
        var values: [WellField: WellValue] = [:]
        for field in WellField.detailValueFields {
            let key = Key(field.rawValue)
            if field.kind == .real {
                if let value = try container.decodeIfPresent(Double.self, forKey: key) { values[field] = .real(value) }
            } else if let text = try container.decodeIfPresent(String.self, forKey: key) {
                values[field] = .text(text)
            }
        }
        let extra = try container.decodeIfPresent([String: String].self, forKey: Key("extra"))
        detail = WellDetail(identifier: try container.decode(String.self, forKey: Key("uwi")), values: values,
                            sourceX: try container.decodeIfPresent(Double.self, forKey: Key("source_x")),
                            sourceY: try container.decodeIfPresent(Double.self, forKey: Key("source_y")),
                            sourceCRS: try container.decodeIfPresent(String.self, forKey: Key("source_crs")),
                            extraJSON: try extra.flatMap { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) },
                            loadID: try container.decodeIfPresent(Int64.self, forKey: Key("load_id")))
    }
}
